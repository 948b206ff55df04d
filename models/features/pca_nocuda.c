/* Stand-ins for the device halves of the PCA (models/features/pca_cuda.cu) when CUDA is not built. */
#include "models/features/pca.h"

gmm_status pca_covariance_eigen_cuda(const double *Xc, int64_t n_samples, int input_dim,
                                     gmm_gpu *gpu, double *values, double *vectors)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "pca_covariance_eigen_cuda: built without CUDA");
}
gmm_status pca_gemm_cuda(const double *X, int64_t n_samples, int input_dim, const double *W,
                         int n_axes, gmm_gpu *gpu, double *Z)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "pca_gemm_cuda: built without CUDA");
}
