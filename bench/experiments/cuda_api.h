/* The kernel experiments (bench/experiments/experiments.h) as one table: defined in the CUDA
 * backend library (bench/experiments/cuda_api.cu, exported as GMM_EXPERIMENTS_CUDA_API_SYMBOL)
 * and reached from gmm-bench and the test suites through the stand-ins of
 * bench/experiments/cuda_api_forward.c (kernels/cuda_loader.h says how). */
#ifndef GMM_EXPERIMENTS_CUDA_API_H
#define GMM_EXPERIMENTS_CUDA_API_H

#include <stddef.h>

#include "bench/experiments/experiments.h"
#include "kernels/cuda_loader.h"

#define GMM_EXPERIMENTS_CUDA_API_SYMBOL "gmm_cuda_api_experiments"

#define GMM_EXPERIMENTS_CUDA_API(X)                                                                \
    X(cholesky_cuda_v1) X(cholesky_version) X(trsm_cuda_v1) X(trsm_version) X(knn_cuda_v1)        \
    X(knn_version) X(matvec_f64_cuda_v1) X(matvec_f64_version) X(factorisation_plan_create)       \
    X(factorisation_plan_free) X(factorisation_version) X(cov_product_tiled_cuda)                 \
    X(cov_product_version) X(estep_product_version) X(estep_distances_version)

typedef struct gmm_experiments_cuda_api {
    size_t size; /* sizeof(gmm_experiments_cuda_api): a table of another build does not match */
    GMM_EXPERIMENTS_CUDA_API(GMM_CUDA_API_FIELD)
} gmm_experiments_cuda_api;

#endif
