/* Weighted covariance about a given centre, the M-step's Sigma_k before reg_covar:
 *   cov = sum_i w_i (x_i - mean)(x_i - mean)^T / (sum_i w_i + 10 * DBL_EPSILON)
 * X n_samples x dim, mean dim, cov dim x dim (both triangles written, exactly symmetric). The
 * weights are read as weights[i * weight_stride], so column k of a row-major n_samples x K
 * responsibility matrix is passed as (resp + k, K). float64, ROW-MAJOR.
 *   wcov_cpu     OpenMP, the readable specification;
 *   wcov_blas    OpenBLAS DSYRK on sqrt(w)-scaled centred rows, gathered in bounded chunks of
 *                rows by the row compaction of kernels/compact.h (rows of weight <= 1e-20 left
 *                out; weights must be >= 0); the GMM's CPU M-step;
 *   wcov_cuda    hand-written kernel: the covariance kernel's lower-triangle tiles on the float64
 *                tensor cores, centring and weighting (on one side only, so any sign of w is
 *                exact) applied while tiles are staged into shared memory; no N x dim temporary;
 *   wcov_cublas  scaled_centre_cuda (kernels/scaled_centre.h) writes sqrt(w)-scaled centred rows
 *                to an N x dim temporary, then cuBLAS DSYRK (weights must be >= 0; a negative
 *                weight gives NaN there).
 * The product alone, for rows that are already scaled and centred (the M-step's packed blocks of
 * kernels/compact.h): out (dim x dim, lower triangle row >= col; the strict upper one is not
 * read and may be written) = A^T A, or += A^T A when accumulate is non-zero, A n_rows x dim:
 *   wcov_packed_cpu   the readable specification. The CUDA backend forms it with cuBLAS GEMMs
 *                     (models/backend/cuda/cov_product.cuh); the tensor-core kernel of wcov_cuda
 *                     on it lost to them and is bench/experiments/cov_product.cu's version 3.
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
gmm_status wcov_packed_cpu(const double *A, size_t n_rows, int dim, int accumulate, double *out);

#ifdef __cplusplus
}
#endif
#endif
