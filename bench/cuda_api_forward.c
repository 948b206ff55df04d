/* gmm-bench's GPU helpers (bench/bench_gpu.h) on the C side: stand-ins that forward each call
 * through the table the CUDA backend library exports (bench/cuda_api.h), or return
 * GMM_ERR_NO_DEVICE saying which library is missing (kernels/cuda_loader.h). */
#include "bench/cuda_api.h"

GMM_CUDA_API_GETTER(bench_api, gmm_bench_cuda_api, GMM_BENCH_CUDA_API_SYMBOL)
#define FORWARD(name, ...) GMM_CUDA_FORWARD(bench_api, name, __VA_ARGS__)

gmm_gpu *bench_gpu_resources(void)
{
    const gmm_bench_cuda_api *t = bench_api();
    return t ? t->bench_gpu_resources() : NULL;
}

gmm_status bench_gpu_alloc(void **d_ptr, size_t bytes)
{
    *d_ptr = NULL;
    FORWARD(bench_gpu_alloc, d_ptr, bytes);
}

void bench_gpu_free(void *d_ptr)
{
    const gmm_bench_cuda_api *t = d_ptr && gmm_cuda_backend_is_open() ? bench_api() : NULL;
    if (t) t->bench_gpu_free(d_ptr);
}

gmm_status bench_gpu_upload(void *d_dst, const void *src, size_t bytes)
{
    FORWARD(bench_gpu_upload, d_dst, src, bytes);
}

gmm_status bench_gpu_download(void *dst, const void *d_src, size_t bytes)
{
    FORWARD(bench_gpu_download, dst, d_src, bytes);
}

gmm_status bench_gpu_copy(void *d_dst, const void *d_src, size_t bytes)
{
    FORWARD(bench_gpu_copy, d_dst, d_src, bytes);
}

gmm_status bench_gpu_sync(void) { FORWARD(bench_gpu_sync); }

gmm_status bench_gpu_time(bench_gpu_work work, bench_gpu_work before, void *ctx, int warmup,
                          int repeats, double *times_ms)
{
    FORWARD(bench_gpu_time, work, before, ctx, warmup, repeats, times_ms);
}

gmm_status bench_gpu_gemm(int precision, int m, int n, int k, int repeats, double *median_ms)
{
    *median_ms = -1;
    FORWARD(bench_gpu_gemm, precision, m, n, k, repeats, median_ms);
}

gmm_status bench_gpu_ceilings(double scale, double *fp64_tflops, double *fp32_tflops,
                              double *tf32_tflops, double *copy_tbps)
{
    FORWARD(bench_gpu_ceilings, scale, fp64_tflops, fp32_tflops, tf32_tflops, copy_tbps);
}
