/* gmm-bench's table of GPU helpers (bench/cuda_api.h), the one definition. Built into the CUDA
 * backend library only. */
#include "bench/cuda_api.h"

extern "C" const gmm_bench_cuda_api gmm_cuda_api_bench = {
    sizeof(gmm_bench_cuda_api),
    GMM_BENCH_CUDA_API(GMM_CUDA_API_ENTRY)
};
