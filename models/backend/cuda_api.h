/* The models layer's CUDA entry points that C code calls, as one table: the CUDA backend's
 * operations table (models/backend/backend.h's gmm_backend, for the registry), the PCA's device halves
 * and NCCL. Defined in the CUDA backend library (models/backend/cuda_api.cu, exported as
 * GMM_MODELS_CUDA_API_SYMBOL) and reached from the core through the stand-ins of
 * models/backend/cuda_api_forward.c (kernels/cuda_loader.h says how). */
#ifndef GMM_MODELS_CUDA_API_H
#define GMM_MODELS_CUDA_API_H

#include <stddef.h>

#include "kernels/cuda_loader.h"
#include "models/backend/backend.h"
#include "models/dist/comm_nccl.h"
#include "models/features/pca.h"

#define GMM_MODELS_CUDA_API_SYMBOL "gmm_cuda_api_models"

#define GMM_MODELS_CUDA_API(X) X(pca_covariance_eigen_cuda) X(pca_gemm_cuda)
/* NULL in a library built without NCCL (nccl.h not found) */
#define GMM_MODELS_NCCL_API(X)                                                                     \
    X(gmm_nccl_available) X(gmm_nccl_unique_id) X(gmm_nccl_create) X(gmm_nccl_create_all)         \
    X(gmm_nccl_sum) X(gmm_nccl_set_wait) X(gmm_nccl_abort) X(gmm_nccl_destroy)

typedef struct gmm_models_cuda_api {
    size_t size; /* sizeof(gmm_models_cuda_api): a table of another build does not match */
    const gmm_backend *backend; /* the CUDA backend (models/backend/cuda/backend_cuda.cu) */
    GMM_MODELS_CUDA_API(GMM_CUDA_API_FIELD)
    GMM_MODELS_NCCL_API(GMM_CUDA_API_FIELD)
} gmm_models_cuda_api;

#endif
