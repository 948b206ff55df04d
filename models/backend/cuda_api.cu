/* The models layer's table of CUDA entry points (models/backend/cuda_api.h), the one definition. Built
 * into the CUDA backend library only; GMM_HAVE_NCCL=0 (nccl.h not found) leaves NCCL's out. */
#include "models/backend/cuda_api.h"

extern "C" const gmm_backend gmm_backend_cuda;

#if GMM_HAVE_NCCL
#define NCCL_ENTRY(name) name,
#else
#define NCCL_ENTRY(name) NULL,
#endif

extern "C" const gmm_models_cuda_api gmm_cuda_api_models = {
    sizeof(gmm_models_cuda_api),
    &gmm_backend_cuda,
    GMM_MODELS_CUDA_API(GMM_CUDA_API_ENTRY)
    GMM_MODELS_NCCL_API(NCCL_ENTRY)
};

/* This library's own copy of the core (the CPU code the backend calls drags the registry in with
 * it) finds the CUDA backend right here, not through the core's stand-in. */
extern "C" gmm_status gmm_backend_cuda_load(const gmm_backend **backend)
{
    *backend = &gmm_backend_cuda;
    return GMM_OK;
}
