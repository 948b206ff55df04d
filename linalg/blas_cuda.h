/* Dense linear algebra on the GPU through cuBLAS and cuSOLVER, float64 and float32 (optionally
 * on the TF32 tensor cores). All matrices are ROW-MAJOR device arrays with an explicit leading
 * dimension, exactly as in blas_cpu.h; this file (with blas_cuda.cu) is the one place where our
 * row-major convention meets the column-major cuBLAS/cuSOLVER interfaces. Every call is
 * asynchronous on the handle's stream and returns a gmm_status naming the failed call.
 * Without CUDA (blas_cuda_nocuda.c) every entry point returns GMM_ERR_NO_DEVICE. */
#ifndef GMM_BLAS_CUDA_H
#define GMM_BLAS_CUDA_H

#include <stdbool.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A cuBLAS handle and a cuSOLVER handle on the default stream. */
typedef struct la_cuda la_cuda;

gmm_status la_cuda_create(la_cuda **out);
void la_cuda_destroy(la_cuda *h); /* accepts NULL */
/* Lane i (0 <= i < 16) of h: a cuBLAS handle of its own on a stream of its own, for running
 * independent products concurrently (the K covariance products each fill only a few SMs).
 * Lane streams are ordinary blocking streams: work on the legacy default stream (h itself and
 * every kernel launched without a stream) waits for them and they wait for it, so a sequence
 * "kernel; lane products; kernel" needs no events. Created on first use, freed with h;
 * inherits h's TF32 setting. NULL when it cannot be created (the detail is recorded). */
la_cuda *la_cuda_lane(la_cuda *h, int i);

/* true: float32 GEMMs run on the TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH). */
gmm_status la_cuda_set_tf32(la_cuda *h, bool on);

/* C (m x n) = alpha * op(A) op(B) + beta * C, op(A) m x k, op(B) k x n. */
gmm_status la_cuda_dgemm(la_cuda *h, bool trans_a, bool trans_b, int m, int n, int k,
                         double alpha, const double *A, int lda, const double *B, int ldb,
                         double beta, double *C, int ldc);
gmm_status la_cuda_sgemm(la_cuda *h, bool trans_a, bool trans_b, int m, int n, int k,
                         float alpha, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc);

/* Lower triangle (row >= col) of C (n x n) = alpha * A^T A + beta * C, A k x n: the covariance
 * shape. The strict upper triangle is not written. */
gmm_status la_cuda_dsyrk_at_a(la_cuda *h, int n, int k, double alpha, const double *A, int lda,
                              double beta, double *C, int ldc);
gmm_status la_cuda_ssyrk_at_a(la_cuda *h, int n, int k, float alpha, const float *A, int lda,
                              float beta, float *C, int ldc);

/* In-place Cholesky of `batch` symmetric n x n matrices (d_ptrs: a DEVICE array of `batch`
 * device pointers, each matrix with leading dimension lda): A = R^T R with R upper triangular
 * written to the upper triangle (row <= col); the strict lower triangle is destroyed.
 * d_info (device, batch ints) receives 0 or the order of the leading minor that is not
 * positive definite. batched = false factors them one by one (cusolverDnDpotrf), which is
 * faster than the batched kernel for large n. d_work/lwork: from la_cuda_dpotrf_work_size. */
gmm_status la_cuda_dpotrf_work_size(la_cuda *h, int n, int lda, double *A, int *lwork);
gmm_status la_cuda_dpotrf_upper(la_cuda *h, int n, double **d_ptrs, double *const *h_ptrs,
                                int lda, int batch, bool batched, double *d_work, int lwork,
                                int *d_info);

/* U = R^{-1} for the upper-triangular R of dpotrf_upper (so U U^T = A^{-1}: the precision
 * Cholesky factor of scikit-learn). U (n x n) must be the identity on entry; it is solved in
 * place (cuBLAS TRSM); its strict lower triangle is left zero. */
gmm_status la_cuda_upper_inverse(la_cuda *h, int n, const double *R, int ldr, double *U,
                                 int ldu);

/* Times C = A B (m x k by k x n, precision 0 = fp64, 1 = fp32, 2 = tf32) on fresh random device
 * matrices: the median of `repeats` runs after a warm-up, in milliseconds. The ceiling that
 * gmm-bench compares against. */
gmm_status la_cuda_gemm_benchmark(int precision, int m, int n, int k, int repeats,
                                  double *median_ms);

#ifdef __cplusplus
}
#endif
#endif
