/* PCA in front of the mixture (gmm_projection, models/gmm.h): the data's mean and top principal
 * axes, computed with the kernel layer's covariance (CPU: covariance_blas; GPU: covariance_cuda)
 * and linalg/eigen.h's symmetric eigensolver, and the maps between pixel space and the D
 * projected dimensions. All matrices are row-major float64 host arrays; on the GPU (gpu not
 * NULL) the covariance, the eigensolver and the projection's GEMM run on the device and only the
 * D axes and the N x D result come back to the host, which is what gmm_fit takes. */
#ifndef GMM_PCA_H
#define GMM_PCA_H

#include <stdint.h>

#include "models/gmm.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A projection with zeroed arrays (input_dim >= 1, 1 <= n_axes <= input_dim). */
gmm_status gmm_projection_alloc(int input_dim, int n_axes, int whiten, gmm_projection **out);
void gmm_projection_free(gmm_projection *projection); /* accepts NULL */
gmm_status gmm_projection_copy(const gmm_projection *src, gmm_projection **out);

/* The mean and top n_axes principal axes of X (n_samples x input_dim), with the eigenvalues
 * (explained variance, the covariance normalised by n_samples - 1 as scikit-learn's PCA) and
 * the total variance. GMM_ERR_ARG with a detail naming --pca when n_axes exceeds input_dim or
 * n_samples; GMM_ERR_NUMERIC when whiten and an axis has no variance (a zero eigenvalue). */
gmm_status gmm_projection_fit(const double *X, int64_t n_samples, int input_dim, int n_axes,
                              int whiten, gmm_gpu *gpu, gmm_projection **out);

/* The share of the total variance the axes keep (sum of explained_variance / total_variance). */
double gmm_projection_explained_ratio(const gmm_projection *projection);

/* Z (n_samples x n_axes) = (X - mean) W^T, each column divided by sqrt(explained variance) when
 * whiten. X is n_samples x input_dim. On the GPU when gpu is not NULL. */
gmm_status gmm_projection_apply(const gmm_projection *projection, const double *X,
                                int64_t n_samples, gmm_gpu *gpu, double *Z);

/* The way back: X (n_samples x input_dim) = z' W + mean, with z' = z * sqrt(explained variance)
 * when whiten (host). */
gmm_status gmm_projection_inverse(const gmm_projection *projection, const double *Z,
                                  int64_t n_samples, double *X);

/* The model's K means in pixel space (K x gmm_model_input_dim doubles): mapped back through its
 * projection, the responsibility-weighted means of its training images for a spectral space
 * (models/spectral.h), or copied when it has neither. */
gmm_status gmm_model_pixel_means(const gmm_model *model, double *out);

/* The device halves (models/pca_cuda.cu; GMM_ERR_NO_DEVICE without the CUDA backend). Xc centred data;
 * values/vectors get the descending eigenpairs of its covariance (input_dim, input_dim^2). */
gmm_status pca_covariance_eigen_cuda(const double *Xc, int64_t n_samples, int input_dim,
                                     gmm_gpu *gpu, double *values, double *vectors);
/* Z (n_samples x n_axes) = X W^T with W n_axes x input_dim. */
gmm_status pca_gemm_cuda(const double *X, int64_t n_samples, int input_dim, const double *W,
                         int n_axes, gmm_gpu *gpu, double *Z);

#ifdef __cplusplus
}
#endif
#endif
