/* PCA in front of the mixture (gmm_projection, models/features/feature_space.h): the data's mean and top principal
 * axes, computed with the kernel layer's covariance (CPU: covariance_blas; GPU: covariance_cuda)
 * and linalg/eigen.h's symmetric eigensolver, and the maps between pixel space and the D
 * projected dimensions. All matrices are row-major float64 host arrays; on the GPU (gpu not
 * NULL) the covariance, the eigensolver and the projection's GEMM run on the device and only the
 * D axes and the N x D result come back to the host, which is what gmm_fit takes. */
#ifndef GMM_PCA_H
#define GMM_PCA_H

#include <stdint.h>

#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A PCA projection in front of the mixture (gmm-train --pca D [--whiten]): an image x
 * (input_dim pixels) becomes z = (x - mean) W^T, divided elementwise by sqrt(explained_variance)
 * when whiten, with W = components (n_axes x input_dim, orthonormal rows: the top n_axes
 * eigenvectors of the data's covariance, eigenvalues explained_variance, descending). The mixture
 * is fitted to z (its dim is n_axes); models/features/pca.h computes and applies it. */
typedef struct {
    int input_dim;
    int n_axes;
    int whiten;
    double total_variance;      /* trace of the covariance: the variance of all input_dim axes */
    double *mean;               /* input_dim */
    double *components;         /* n_axes x input_dim */
    double *explained_variance; /* n_axes */
} gmm_projection;

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

/* A loaded projection in front of a mixture of dimension model_dim: sizes that agree, finite
 * values, variances >= 0 (> 0 when whitened), orthonormal axes. GMM_ERR_FORMAT naming the fault. */
gmm_status gmm_projection_check(const gmm_projection *projection, int model_dim);

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

/* The device halves (models/features/pca_cuda.cu; GMM_ERR_NO_DEVICE without the CUDA backend).
 * Xc centred data; values/vectors get the descending eigenpairs of its covariance (input_dim, input_dim^2). */
gmm_status pca_covariance_eigen_cuda(const double *Xc, int64_t n_samples, int input_dim,
                                     gmm_gpu *gpu, double *values, double *vectors);
/* Z (n_samples x n_axes) = X W^T with W n_axes x input_dim. */
gmm_status pca_gemm_cuda(const double *X, int64_t n_samples, int input_dim, const double *W,
                         int n_axes, gmm_gpu *gpu, double *Z);

#ifdef __cplusplus
}
#endif
#endif
