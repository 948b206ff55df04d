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
