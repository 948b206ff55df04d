/* Stand-ins for the benchmark's GPU helpers when CUDA is not built. */
#include "bench/bench_gpu.h"

#define NO_DEVICE() gmm_error(GMM_ERR_NO_DEVICE, "built without CUDA")

gmm_gpu *bench_gpu_resources(void) { return 0; }

gmm_status bench_gpu_alloc(void **d_ptr, size_t bytes)
{
    *d_ptr = 0;
    return NO_DEVICE();
}
void bench_gpu_free(void *d_ptr) {}
gmm_status bench_gpu_upload(void *d_dst, const void *src, size_t bytes) { return NO_DEVICE(); }
gmm_status bench_gpu_download(void *dst, const void *d_src, size_t bytes) { return NO_DEVICE(); }
gmm_status bench_gpu_copy(void *d_dst, const void *d_src, size_t bytes) { return NO_DEVICE(); }
gmm_status bench_gpu_sync(void) { return NO_DEVICE(); }
gmm_status bench_gpu_time(bench_gpu_work work, bench_gpu_work before, void *ctx, int warmup,
                          int repeats, double *times_ms)
{
    return NO_DEVICE();
}
gmm_status bench_gpu_ceilings(double scale, double *fp64_tflops, double *fp32_tflops,
                              double *tf32_tflops, double *copy_tbps)
{
    return NO_DEVICE();
}
gmm_status bench_gpu_gemm(int precision, int m, int n, int k, int repeats, double *median_ms)
{
    (void)precision; (void)m; (void)n; (void)k; (void)repeats;
    *median_ms = -1;
    return NO_DEVICE();
}
