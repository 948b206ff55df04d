/* Dense float64 (and, for the E-step's product, float32) linear algebra on the CPU through
 * OpenBLAS and LAPACKE. All matrices are
 * ROW-MAJOR with an explicit leading dimension; this file is the one place where our row-major
 * convention meets the column-major BLAS/LAPACK interfaces. */
#ifndef GMM_BLAS_CPU_H
#define GMM_BLAS_CPU_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ends OpenBLAS's worker threads for now, where the BLAS is OpenBLAS with its own threads
 * (blas_thread_shutdown_; a weak reference, so nothing happens with another BLAS): OpenBLAS
 * starts them when it loads, before main, and each spins on sched_yield for ~0.1 s waiting for
 * work. A GPU run's first 0.15 s are CUDA's start on two threads and the data's inflation on a
 * third; 15 spinning threads on a 16-core machine slowed the driver's start by ~0.04 s. The
 * next threaded BLAS call starts them again (OpenBLAS re-creates its pool after a fork the same
 * way). For programs, at their start; not thread-safe against a BLAS call running beside it. */
void la_blas_threads_release(void);

/* OpenBLAS maps a work buffer of LA_BLAS_BUFFER_BYTES (its BUFFER_SIZE, 32 << 22 in
 * common_x86_64.h and common_arm64.h) for each thread the first time that thread runs a level-3
 * routine (GEMM, SYRK, TRSM, POTRF), and when the map fails under an address-space limit it
 * retries for ever (blas_memory_alloc: a spin at 100% CPU inside cblas_dsyrk/cblas_dgemm, never
 * an error). The buffers are kept and reused once mapped. For programs under such a limit, at
 * their start: checks that the buffers of every thread of the pool (openblas_get_num_threads)
 * can be mapped (one map of that size, the same flags as OpenBLAS's, taken back at once: nothing
 * is touched), then makes OpenBLAS map them now with one product that every thread takes a part
 * of, before the data take the room; an allocation that fails later is then the program's own,
 * reported as out of memory. Returns 0, or -1 when the room is not there (*needed: the bytes
 * asked for). A no-op's cost without a limit: the programs call it only under one. */
#define LA_BLAS_BUFFER_BYTES ((size_t)128 << 20)
int la_blas_reserve_buffers(size_t *needed);

/* C (m x n) = alpha * op(A) op(B) + beta * C, op(A) m x k, op(B) k x n. */
void la_dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double *A,
              int lda, const double *B, int ldb, double beta, double *C, int ldc);

/* The same in float32 (OpenBLAS SGEMM; the CPU backend's --precision fp32 E-step). */
void la_sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *A,
              int lda, const float *B, int ldb, float beta, float *C, int ldc);

/* Lower triangle of C (n x n) = alpha * A^T A + beta * C with A k x n (the covariance shape).
 * Only the lower triangle (row >= col) is written. */
void la_dsyrk_at_a(int n, int k, double alpha, const double *A, int lda, double beta, double *C,
                   int ldc);

/* Copies the lower triangle of the n x n matrix onto its upper triangle. */
void la_symmetrize_from_lower(int n, double *C, int ldc);

/* In-place Cholesky A = L L^T of the n x n symmetric matrix (lower triangle read; L written to
 * the lower triangle, upper triangle zeroed). Returns 0, or the 1-based order of the leading
 * minor that is not positive definite. */
int la_dpotrf_lower(int n, double *A, int lda);

/* Solves L X = B in place (L n x n lower, B n x nrhs, X overwrites B). */
void la_dtrsm_lower_left(int n, int nrhs, const double *L, int ldl, double *B, int ldb);

/* The k largest eigenvalues (descending, in w) and unit eigenvectors (the columns of the m x k
 * row-major Z) of the symmetric tridiagonal matrix with diagonal diag[m] and off-diagonal
 * offdiag[m - 1] (LAPACKE dstevx: bisection and inverse iteration, O(m k)). Returns 0, or
 * LAPACK's info when it failed. */
int la_dstevx_largest(int m, const double *diag, const double *offdiag, int k, double *w,
                      double *Z);

#ifdef __cplusplus
}
#endif
#endif
