/* The linear-algebra layer's table of CUDA entry points (linalg/cuda_api.h), the one definition.
 * Built into the CUDA backend library only. */
#include "linalg/cuda_api.h"

extern "C" const gmm_linalg_cuda_api gmm_cuda_api_linalg = {
    sizeof(gmm_linalg_cuda_api),
    GMM_LINALG_CUDA_API(GMM_CUDA_API_ENTRY)
};
