/* Cholesky factorisation A = L L^T of symmetric positive definite float64 matrices, one or a
 * batch of `batch` matrices of dim x dim stored back to back (stride dim * dim), ROW-MAJOR. The
 * lower triangle is read; on success L overwrites it and the strict upper triangle is zeroed.
 * When a matrix is not positive definite the call returns GMM_ERR_CHOLESKY and, when
 * failed_order is not NULL (a host array of `batch` ints), stores there for each matrix 0 or the
 * 1-based order of the first leading minor that is not positive definite (LAPACK's info); the
 * contents of a failed matrix are then unspecified.
 *   cholesky_cpu       OpenMP, column by column (Cholesky-Crout), the readable specification;
 *   cholesky_blas      LAPACKE dpotrf per matrix;
 *   cholesky_cuda      blocked right-looking kernels: per 64-column panel one launch factors the
 *                      diagonal block in shared memory (and inverts it), one solves the panel,
 *                      one updates the trailing lower triangle (3 launches per 64 columns, the
 *                      whole batch in each launch);
 *   cholesky_cusolver  cuSOLVER potrf (batch 1) or potrfBatched.
 * GPU versions take device pointers and an optional cudaStream_t as void*; they synchronise the
 * stream (the failure report needs the result). */
#ifndef GMM_CHOLESKY_H
#define GMM_CHOLESKY_H

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status cholesky_cpu(double *A, int dim, int batch, int *failed_order);
gmm_status cholesky_blas(double *A, int dim, int batch, int *failed_order);
gmm_status cholesky_cuda(double *d_A, int dim, int batch, int *failed_order, void *stream);
gmm_status cholesky_cusolver(double *d_A, int dim, int batch, int *failed_order, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
