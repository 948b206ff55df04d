/* The kernel experiments' table (bench/experiments/cuda_api.h), the one definition. Built into
 * the CUDA backend library only. */
#include "bench/experiments/cuda_api.h"

extern "C" const gmm_experiments_cuda_api gmm_cuda_api_experiments = {
    sizeof(gmm_experiments_cuda_api),
    GMM_EXPERIMENTS_CUDA_API(GMM_CUDA_API_ENTRY)
};
