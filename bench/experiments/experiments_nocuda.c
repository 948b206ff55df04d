/* Stand-ins for the kernel experiments (bench/experiments/experiments.h) in a build without CUDA:
 * each reports that no GPU is built in. */
#include "bench/experiments/experiments.h"

static gmm_status no_device(const char *name)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "%s: this build has no CUDA support", name);
}

gmm_status cholesky_cuda_v1(double *d_A, int dim, int batch, int *failed_order, void *stream)
{
    return no_device("cholesky_cuda_v1");
}
gmm_status cholesky_version(int version, double *d_A, int dim, int batch, int *failed_order,
                            gmm_gpu *gpu)
{
    return no_device("cholesky_version");
}

gmm_status trsm_cuda_v1(const double *d_L, int dim, double *d_B, size_t n_rhs, void *stream)
{
    return no_device("trsm_cuda_v1");
}
gmm_status trsm_version(int version, const double *d_L, int dim, double *d_B, size_t n_rhs,
                        gmm_gpu *gpu)
{
    return no_device("trsm_version");
}

gmm_status knn_cuda_v1(const float *d_queries, size_t n_queries, const float *d_refs,
                       size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist)
{
    return no_device("knn_cuda_v1");
}
gmm_status knn_version(int version, const float *d_queries, size_t n_queries,
                       const float *d_refs, size_t n_refs, size_t dim, size_t k,
                       int32_t *d_nn_index, float *d_nn_dist, gmm_gpu *gpu)
{
    return no_device("knn_version");
}

gmm_status matvec_f64_cuda_v1(const double *d_A, size_t n_rows, size_t n_cols, const double *d_x,
                              double *d_y, void *stream)
{
    return no_device("matvec_f64_cuda_v1");
}
gmm_status matvec_f64_version(int version, const double *d_A, size_t n_rows, size_t n_cols,
                              const double *d_x, double *d_y, gmm_gpu *gpu)
{
    return no_device("matvec_f64_version");
}

/* ---- begin: the CUDA backend's former tuning modes (factorisation.cu, cov_product.cu,
 *      estep_product.cu) ------------------------------------------------------------------- */
gmm_status factorisation_plan_create(factorisation_plan **out, const double *d_cov,
                                     double *d_prec, int dim, int n_mats, gmm_gpu *gpu)
{
    if (out) *out = NULL;
    return no_device("factorisation_plan_create");
}
void factorisation_plan_free(factorisation_plan *plan) {}
gmm_status factorisation_version(int version, factorisation_plan *plan, int *failed_order)
{
    return no_device("factorisation_version");
}

gmm_status cov_product_tiled_cuda(const double *d_A, size_t n_rows, int dim, int accumulate,
                                  double *d_out, void *stream)
{
    return no_device("cov_product_tiled_cuda");
}
gmm_status cov_product_version(int version, const double *d_A, int dim, const int *bounds,
                               int n_blocks, int accumulate, double *d_out, gmm_gpu *gpu)
{
    return no_device("cov_product_version");
}

gmm_status estep_product_version(int version, const double *d_X, size_t n_rows, int dim,
                                 int n_components, const double *d_U, double *d_Y, gmm_gpu *gpu)
{
    return no_device("estep_product_version");
}
/* ---- end: the CUDA backend's former tuning modes --------------------------------------- */
