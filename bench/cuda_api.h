/* gmm-bench's GPU helpers (bench/bench_gpu.h) as one table: defined in the CUDA backend library
 * (bench/cuda_api.cu, exported as GMM_BENCH_CUDA_API_SYMBOL) and reached from gmm-bench and the
 * test suites through the stand-ins of bench/cuda_api_forward.c (kernels/cuda_loader.h says
 * how). */
#ifndef GMM_BENCH_CUDA_API_H
#define GMM_BENCH_CUDA_API_H

#include <stddef.h>

#include "bench/bench_gpu.h"
#include "kernels/cuda_loader.h"

#define GMM_BENCH_CUDA_API_SYMBOL "gmm_cuda_api_bench"

#define GMM_BENCH_CUDA_API(X)                                                                      \
    X(bench_gpu_resources) X(bench_gpu_alloc) X(bench_gpu_free) X(bench_gpu_upload)               \
    X(bench_gpu_download) X(bench_gpu_copy) X(bench_gpu_sync) X(bench_gpu_time)                   \
    X(bench_gpu_gemm) X(bench_gpu_ceilings)

typedef struct gmm_bench_cuda_api {
    size_t size; /* sizeof(gmm_bench_cuda_api): a table of another build does not match */
    GMM_BENCH_CUDA_API(GMM_CUDA_API_FIELD)
} gmm_bench_cuda_api;

#endif
