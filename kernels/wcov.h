/* Weighted covariance about a given centre, the M-step's Sigma_k before reg_covar:
 *   cov = sum_i w_i (x_i - mean)(x_i - mean)^T / (sum_i w_i + 10 * DBL_EPSILON)
 * X n_samples x dim, mean dim, cov dim x dim (both triangles written, exactly symmetric). The
 * weights are read as weights[i * weight_stride], so column k of a row-major n_samples x K
 * responsibility matrix is passed as (resp + k, K). float64, ROW-MAJOR.
 *   wcov_cpu     OpenMP, the readable specification;
 *   wcov_blas    OpenBLAS DSYRK on sqrt(w)-scaled centred rows, gathered in bounded chunks and
 *                skipping rows of weight <= 1e-20 (weights must be >= 0); the GMM's CPU M-step;
 *   wcov_cuda    hand-written kernel: the covariance kernel's lower-triangle tiles on the float64
 *                tensor cores, centring and weighting (on one side only, so any sign of w is
 *                exact) applied while tiles are staged into shared memory; no N x dim temporary;
 *   wcov_cublas  a scaling kernel writes sqrt(w)-scaled centred rows to an N x dim temporary, then
 *                cuBLAS DSYRK (weights must be >= 0; a negative weight gives NaN there).
 * GPU versions take device pointers and an optional cudaStream_t as void*; they return once the
 * work is queued. */
#ifndef GMM_WCOV_H
#define GMM_WCOV_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status wcov_cpu(const double *X, size_t n_samples, int dim, const double *weights,
                    size_t weight_stride, const double *mean, double *cov);
gmm_status wcov_blas(const double *X, size_t n_samples, int dim, const double *weights,
                     size_t weight_stride, const double *mean, double *cov);
gmm_status wcov_cuda(const double *d_X, size_t n_samples, int dim, const double *d_weights,
                     size_t weight_stride, const double *d_mean, double *d_cov, void *stream);
gmm_status wcov_cublas(const double *d_X, size_t n_samples, int dim, const double *d_weights,
                       size_t weight_stride, const double *d_mean, double *d_cov, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
