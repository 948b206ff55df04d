/* The precision Cholesky factor of symmetric positive definite float64 matrices: for each of
 * `batch` matrices S (dim x dim, ROW-MAJOR, stored back to back with stride dim * dim; the upper
 * triangle is read) the upper-triangular U = R^{-1}, where S = R^T R with R upper triangular
 * (so U U^T = S^{-1}: scikit-learn's precisions_cholesky_ of a covariance S). The strict lower
 * triangle of U is zero. A matrix that is not positive definite gives its failing order (the
 * 1-based order of the first leading minor that is not positive definite, LAPACK's info); its
 * U is then unspecified.
 *   chol_inverse_cpu   the readable specification: Cholesky by rows (R), then U = R^{-1} by
 *                      back substitution, column by column; OpenMP over the batch;
 *   chol_inverse_cuda  every matrix of the batch at once, by recursive halving (S11 first, then
 *                      R12 = U11^T S12, the Schur complement S22 - R12^T R12 and its own U22, then
 *                      U12 = -U11 R12 U22): the four products of each split are strided-batched
 *                      cuBLAS DGEMMs over the batch, and diagonal blocks of at most 64 are
 *                      factored and inverted together by one kernel (a thread block per matrix,
 *                      the block in its registers: symmetric Gaussian elimination applied to
 *                      [S | I], one barrier a column). For K = 10, d = 784: 16 block kernels
 *                      and 76 small launches, in place of K cuSOLVER potrf + TRSM chains. Asynchronous on gpu's stream: d_info (batch ints on the
 *                      device) receives the failing orders and nothing is read back, so a caller
 *                      can queue more work first; d_work holds dim * dim * batch doubles of
 *                      scratch. d_S and d_U may be the same array. */
#ifndef GMM_CHOL_INVERSE_H
#define GMM_CHOL_INVERSE_H

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* GMM_ERR_CHOLESKY naming the first failing matrix when one is not positive definite;
 * failed_order (host, batch ints, may be NULL) receives 0 or the order for every matrix. */
gmm_status chol_inverse_cpu(const double *S, int dim, int batch, double *U, int *failed_order);
gmm_status chol_inverse_cuda(const double *d_S, int dim, int batch, double *d_U, double *d_work,
                             int *d_info, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
