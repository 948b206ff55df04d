/* GPU helpers for gmm-bench and the GPU test suites (bench/ and tests/ are compiled by gcc, so
 * everything that needs the CUDA runtime lives here): device buffers, copies, timing a piece of GPU work with CUDA events, and the
 * ceilings measured in the same run (cuBLAS DGEMM, SGEMM and TF32 GEMM of 8192^3, and a 1 GiB
 * device-to-device copy). bench_gpu.cu is part of the CUDA backend library; without that library
 * (bench/cuda_api_forward.c) every function reports GMM_ERR_NO_DEVICE. */
#ifndef GMM_BENCH_GPU_H
#define GMM_BENCH_GPU_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One run of the work being timed: launches on the default stream, returns its status. */
typedef gmm_status (*bench_gpu_work)(void *ctx);

/* The process's GPU resources object for the library paths that gmm-bench times and the GPU
 * tests check (created on first use, kept for the process; NULL when none can be created). */
gmm_gpu *bench_gpu_resources(void);

gmm_status bench_gpu_alloc(void **d_ptr, size_t bytes);
void bench_gpu_free(void *d_ptr); /* accepts NULL */
gmm_status bench_gpu_upload(void *d_dst, const void *src, size_t bytes);
gmm_status bench_gpu_download(void *dst, const void *d_src, size_t bytes);
gmm_status bench_gpu_copy(void *d_dst, const void *d_src, size_t bytes); /* device to device */
gmm_status bench_gpu_sync(void);

/* Runs work `warmup` times untimed, then `repeats` times each between two CUDA events on the
 * default stream; stores the per-run milliseconds in times_ms (repeats entries). When before is
 * not NULL it runs (untimed, synchronised) before each timed run, e.g. to restore an input that
 * the work overwrites. */
gmm_status bench_gpu_time(bench_gpu_work work, bench_gpu_work before, void *ctx, int warmup,
                          int repeats, double *times_ms);

/* Times C = A B (m x k by k x n, precision 0 = fp64, 1 = fp32, 2 = tf32) through the resources
 * object on fresh device matrices: the median of `repeats` runs after a warm-up, in ms. */
gmm_status bench_gpu_gemm(int precision, int m, int n, int k, int repeats, double *median_ms);

/* The ceilings: TFLOP/s of 8192^3 cuBLAS DGEMM, SGEMM (no TF32) and TF32 GEMM (scaled down by
 * `scale` for quick runs) and TB/s (bytes read + written) of a 1 GiB device copy. */
gmm_status bench_gpu_ceilings(double scale, double *fp64_tflops, double *fp32_tflops,
                              double *tf32_tflops, double *copy_tbps);

#ifdef __cplusplus
}
#endif
#endif
