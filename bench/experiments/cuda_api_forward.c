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

/* the CUDA backend's former tuning modes (factorisation.cu, cov_product.cu, estep_product.cu)
 * and the fused E-step distances (estep_distances.cu) */
gmm_status factorisation_plan_create(factorisation_plan **out, const double *d_cov,
                                     double *d_prec, int dim, int n_mats, gmm_gpu *gpu)
{
    if (out) *out = NULL;
    FORWARD(factorisation_plan_create, out, d_cov, d_prec, dim, n_mats, gpu);
}

void factorisation_plan_free(factorisation_plan *plan)
{
    const gmm_experiments_cuda_api *t = plan ? experiments_api() : NULL; /* made by the backend */
    if (t) t->factorisation_plan_free(plan);
}

gmm_status factorisation_version(int version, factorisation_plan *plan, int *failed_order)
{
    FORWARD(factorisation_version, version, plan, failed_order);
}

gmm_status cov_product_tiled_cuda(const double *d_A, size_t n_rows, int dim, int accumulate,
                                  double *d_out, void *stream)
{
    FORWARD(cov_product_tiled_cuda, d_A, n_rows, dim, accumulate, d_out, stream);
}

gmm_status cov_product_version(int version, const double *d_A, int dim, const int *bounds,
                               int n_blocks, int accumulate, double *d_out, gmm_gpu *gpu)
{
    FORWARD(cov_product_version, version, d_A, dim, bounds, n_blocks, accumulate, d_out, gpu);
}

gmm_status estep_product_version(int version, const double *d_X, size_t n_rows, int dim,
                                 int n_components, const double *d_U, double *d_Y, gmm_gpu *gpu)
{
    FORWARD(estep_product_version, version, d_X, n_rows, dim, n_components, d_U, d_Y, gpu);
}

gmm_status estep_distances_version(int version, const double *d_X, size_t n_rows, int dim,
                                   int n_components, const double *d_U, const double *d_b,
                                   double *d_dist, void *d_work, size_t work_bytes, gmm_gpu *gpu)
{
    FORWARD(estep_distances_version, version, d_X, n_rows, dim, n_components, d_U, d_b, d_dist,
            d_work, work_bytes, gpu);
}
