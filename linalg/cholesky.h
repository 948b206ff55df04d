/* Cholesky factorisation A = L L^T of symmetric positive definite float64 matrices, one or a
 * batch of `batch` matrices of dim x dim stored back to back (stride dim * dim), ROW-MAJOR. The
 * lower triangle is read; on success L overwrites it and the strict upper triangle is zeroed.
 * When a matrix is not positive definite the call returns GMM_ERR_CHOLESKY and, when
 * failed_order is not NULL (a host array of `batch` ints), stores there for each matrix 0 or the
 * 1-based order of the first leading minor that is not positive definite (LAPACK's info); the
 * contents of a failed matrix are then unspecified.
 *   cholesky_cpu       OpenMP, column by column (Cholesky-Crout), the readable specification;
 *   cholesky_blas      LAPACKE dpotrf per matrix;
 *   cholesky_cusolver  cuSOLVER potrf (batch 1) or potrfBatched, on gpu's stream; takes device
 *                      pointers and synchronises the stream (the failure report needs the result).
 * The hand-written blocked kernels (cholesky_cuda_v1), which lost to cuSOLVER and which nothing
 * in the fit uses, are an experiment in bench/experiments/cholesky.cu. */
#ifndef GMM_CHOLESKY_H
#define GMM_CHOLESKY_H

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status cholesky_cpu(double *A, int dim, int batch, int *failed_order);
gmm_status cholesky_blas(double *A, int dim, int batch, int *failed_order);
gmm_status cholesky_cusolver(double *d_A, int dim, int batch, int *failed_order, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
