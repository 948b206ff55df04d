/* Stand-ins for the dense kernels' GPU entry points when CUDA is not built (see the headers). */
#include "kernels/covariance.h"
#include "kernels/matmul.h"
#include "kernels/matvec.h"
#include "kernels/wcov.h"

#define NO_DEVICE(name) gmm_error(GMM_ERR_NO_DEVICE, "%s: built without CUDA", name)

gmm_status matmul_cuda(const double *d_resp, const double *d_X, size_t n_samples,
                       int n_components, int dim, double *d_out, void *stream)
{
    return NO_DEVICE("matmul_cuda");
}
gmm_status matmul_cublas(const double *d_resp, const double *d_X, size_t n_samples,
                         int n_components, int dim, double *d_out, gmm_gpu *gpu)
{
    return NO_DEVICE("matmul_cublas");
}
gmm_status covariance_cuda(const double *d_X, size_t n_samples, int dim, double *d_cov,
                           void *stream)
{
    return NO_DEVICE("covariance_cuda");
}
gmm_status covariance_cublas(const double *d_X, size_t n_samples, int dim, double *d_cov,
                             gmm_gpu *gpu)
{
    return NO_DEVICE("covariance_cublas");
}
gmm_status wcov_cuda(const double *d_X, size_t n_samples, int dim, const double *d_weights,
                     size_t weight_stride, const double *d_mean, double *d_cov, void *stream)
{
    return NO_DEVICE("wcov_cuda");
}
gmm_status wcov_cublas(const double *d_X, size_t n_samples, int dim, const double *d_weights,
                       size_t weight_stride, const double *d_mean, double *d_cov, gmm_gpu *gpu)
{
    return NO_DEVICE("wcov_cublas");
}
gmm_status matvec_f32_cuda(const float *d_A, size_t n_rows, size_t n_cols, const float *d_x,
                           float *d_y, void *stream)
{
    return NO_DEVICE("matvec_f32_cuda");
}
gmm_status matvec_f32_cublas(const float *d_A, size_t n_rows, size_t n_cols, const float *d_x,
                             float *d_y, gmm_gpu *gpu)
{
    return NO_DEVICE("matvec_f32_cublas");
}
gmm_status matvec_f64_cublas(const double *d_A, size_t n_rows, size_t n_cols, const double *d_x,
                             double *d_y, gmm_gpu *gpu)
{
    return NO_DEVICE("matvec_f64_cublas");
}
