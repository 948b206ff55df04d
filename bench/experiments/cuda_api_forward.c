/* The kernel experiments (bench/experiments/experiments.h) on the C side: stand-ins that forward
 * each call through the table the CUDA backend library exports (bench/experiments/cuda_api.h),
 * or return GMM_ERR_NO_DEVICE saying which library is missing (kernels/cuda_loader.h). */
#include "bench/experiments/cuda_api.h"

GMM_CUDA_API_GETTER(experiments_api, gmm_experiments_cuda_api, GMM_EXPERIMENTS_CUDA_API_SYMBOL)
#define FORWARD(name, ...) GMM_CUDA_FORWARD(experiments_api, name, __VA_ARGS__)

gmm_status cholesky_cuda_v1(double *d_A, int dim, int batch, int *failed_order, void *stream)
{
    FORWARD(cholesky_cuda_v1, d_A, dim, batch, failed_order, stream);
}

gmm_status cholesky_version(int version, double *d_A, int dim, int batch, int *failed_order,
                            gmm_gpu *gpu)
{
    FORWARD(cholesky_version, version, d_A, dim, batch, failed_order, gpu);
}

gmm_status trsm_cuda_v1(const double *d_L, int dim, double *d_B, size_t n_rhs, void *stream)
{
    FORWARD(trsm_cuda_v1, d_L, dim, d_B, n_rhs, stream);
}

gmm_status trsm_version(int version, const double *d_L, int dim, double *d_B, size_t n_rhs,
                        gmm_gpu *gpu)
{
    FORWARD(trsm_version, version, d_L, dim, d_B, n_rhs, gpu);
}

gmm_status knn_cuda_v1(const float *d_queries, size_t n_queries, const float *d_refs,
                       size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist)
{
    FORWARD(knn_cuda_v1, d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist);
}

gmm_status knn_version(int version, const float *d_queries, size_t n_queries,
                       const float *d_refs, size_t n_refs, size_t dim, size_t k,
                       int32_t *d_nn_index, float *d_nn_dist, gmm_gpu *gpu)
{
    FORWARD(knn_version, version, d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index,
            d_nn_dist, gpu);
}

gmm_status matvec_f64_cuda_v1(const double *d_A, size_t n_rows, size_t n_cols, const double *d_x,
                              double *d_y, void *stream)
{
    FORWARD(matvec_f64_cuda_v1, d_A, n_rows, n_cols, d_x, d_y, stream);
}

gmm_status matvec_f64_version(int version, const double *d_A, size_t n_rows, size_t n_cols,
                              const double *d_x, double *d_y, gmm_gpu *gpu)
{
    FORWARD(matvec_f64_version, version, d_A, n_rows, n_cols, d_x, d_y, gpu);
}
