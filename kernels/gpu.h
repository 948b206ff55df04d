/* The GPU resources object: one cuBLAS and one cuSOLVER handle, the stream they run on, lanes
 * (handles on streams of their own for independent products), a growing device workspace and
 * the math mode (TF32 or not). One is created per fit (or per scoring, test, benchmark) and
 * passed down to every operation that needs a vendor library; nothing else creates a handle.
 *
 * This file (with gpu.cu) is also the one place where our ROW-MAJOR convention meets the
 * column-major cuBLAS/cuSOLVER interfaces: every vendor call of the project is one of the
 * row-major wrappers below. All matrices are row-major device arrays with an explicit leading
 * dimension, exactly as in kernels/blas_cpu.h (the CPU side of the same switch). Calls are
 * asynchronous on the object's stream and return a gmm_status naming the failed call.
 * Implemented in the CUDA backend library (gpu.cu); without it (kernels/cuda_api_forward.c)
 * gmm_gpu_create returns GMM_ERR_NO_DEVICE naming what is missing. */
#ifndef GMM_GPU_H
#define GMM_GPU_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmm_gpu gmm_gpu;

/* Loads cuBLAS (dlopen, once per process, thread-safe; kernels/gpu_libs.cuh says why it is not
 * linked): GMM_ERR_CUDA naming the library when it cannot be loaded. gmm_gpu_create calls it; a
 * program may call it earlier on a thread of its own, after CUDA has started (gmm_gpu_count) and
 * while the context is created, to overlap the ~0.07 s it takes. */
gmm_status gmm_gpu_libs_load(void);

/* Loads cuSOLVER the same way, when a factorisation or eigensolver on the device first needs it
 * (a default fit never does): its ~400 MB with cuSPARSE and nvJitLink stay unmapped otherwise. */
gmm_status gmm_gpu_solver_load(void);

/* Handles on the legacy default stream, TF32 off. Counts into gmm_gpu_created_count(). */
gmm_status gmm_gpu_create(gmm_gpu **out);
/* Makes device `device` the calling thread's current device (cudaSetDevice: every CUDA call of
 * this thread runs there from now on), then gmm_gpu_create. GMM_ERR_ARG when there is no such
 * device. */
gmm_status gmm_gpu_create_on(int device, gmm_gpu **out);
void gmm_gpu_destroy(gmm_gpu *gpu); /* accepts NULL */
/* How many resources objects this process has created: 0 proves that a run (say --device cpu)
 * never touched CUDA through the library. */
long gmm_gpu_created_count(void);

/* The stream (a cudaStream_t as void *; NULL is the legacy default stream) that the object's
 * vendor calls run on, for the hand-written kernels launched beside them. */
void *gmm_gpu_stream(const gmm_gpu *gpu);

/* Makes cuBLAS's first call (its set-up and the loading of its kernels: ~45 ms of host time on
 * the H100 machine) on a thread of its own, for a caller about to spend that long on device work
 * that needs no cuBLAS (the k-means initialisation). Every later cuBLAS call through gpu waits
 * for it (and so does gmm_gpu_destroy); the calls on lanes do not need to. Once per gpu; a
 * warm-up that cannot start is skipped. */
void gmm_gpu_blas_warm_up_start(gmm_gpu *gpu);

/* Lane i (0 <= i < 16): a cuBLAS handle on a stream of its own (and a cuSOLVER handle on it,
 * made the first time the lane factors), for running independent products and factorisations
 * concurrently (the K covariance products each fill only a few SMs). Lane streams are
 * ordinary blocking streams: work on the legacy default stream waits for them and they wait for
 * it, so "kernel; lane products; kernel" needs no events. Created on first use, freed with gpu;
 * inherits its TF32 setting. NULL when it cannot be created (the detail is recorded). */
gmm_gpu *gmm_gpu_lane(gmm_gpu *gpu, int i);

/* true: float32 GEMMs run on the TF32 tensor cores (CUBLAS_TF32_TENSOR_OP_MATH). */
gmm_status gmm_gpu_set_tf32(gmm_gpu *gpu, bool on);
/* Whether it is on. */
bool gmm_gpu_tf32(const gmm_gpu *gpu);

/* A device scratch buffer of at least `bytes`, owned by gpu and kept between calls (grown, never
 * shrunk); valid until the next call with a larger size. */
gmm_status gmm_gpu_workspace(gmm_gpu *gpu, size_t bytes, void **d_ptr);

/* ---- the row-major vendor calls -------------------------------------------------------- */

/* C (m x n) = alpha * op(A) op(B) + beta * C, op(A) m x k, op(B) k x n. */
gmm_status gmm_gpu_dgemm(gmm_gpu *gpu, bool trans_a, bool trans_b, int m, int n, int k,
                         double alpha, const double *A, int lda, const double *B, int ldb,
                         double beta, double *C, int ldc);
gmm_status gmm_gpu_sgemm(gmm_gpu *gpu, bool trans_a, bool trans_b, int m, int n, int k,
                         float alpha, const float *A, int lda, const float *B, int ldb,
                         float beta, float *C, int ldc);

/* C_b (m x n) = A_b (m x k) B_b (k x n) for b < batch, with X_b = X + b * stride_x elements
 * (stride 0: the same matrix for every b). */
gmm_status gmm_gpu_dgemm_batched(gmm_gpu *gpu, int m, int n, int k, const double *A, int lda,
                                 long long stride_a, const double *B, int ldb, long long stride_b,
                                 double *C, int ldc, long long stride_c, int batch);

/* C_b (m x n) = alpha op(A_b) op(B_b) + beta C_b for b < batch, X_b = X + b * stride_x elements:
 * the general strided-batched product (op(A) m x k, op(B) k x n). */
gmm_status gmm_gpu_dgemm_strided(gmm_gpu *gpu, bool trans_a, bool trans_b, int m, int n, int k,
                                 double alpha, const double *A, int lda, long long stride_a,
                                 const double *B, int ldb, long long stride_b, double beta,
                                 double *C, int ldc, long long stride_c, int batch);

/* Lower triangle (row >= col) of C (n x n) = alpha * A^T A + beta * C, A k x n: the covariance
 * shape. The strict upper triangle is not written. */
gmm_status gmm_gpu_dsyrk_at_a(gmm_gpu *gpu, int n, int k, double alpha, const double *A, int lda,
                              double beta, double *C, int ldc);
gmm_status gmm_gpu_ssyrk_at_a(gmm_gpu *gpu, int n, int k, float alpha, const float *A, int lda,
                              float beta, float *C, int ldc);

/* y (n_rows) = A x, A n_rows x n_cols. */
gmm_status gmm_gpu_dgemv(gmm_gpu *gpu, int n_rows, int n_cols, const double *A, int lda,
                         const double *x, double *y);
gmm_status gmm_gpu_sgemv(gmm_gpu *gpu, int n_rows, int n_cols, const float *A, int lda,
                         const float *x, float *y);

/* Cholesky A = L L^T in place, L lower (row >= col) written to the lower triangle, the strict
 * upper one left as it was. d_info: 0 or the order of the failing leading minor. The workspace
 * comes from gmm_gpu_workspace. */
gmm_status gmm_gpu_dpotrf_lower(gmm_gpu *gpu, int n, double *A, int lda, int *d_info);
/* Cholesky A = R^T R of `batch` matrices in place, R upper (row <= col) written to the upper
 * triangle; the strict lower triangle is destroyed. d_ptrs: a DEVICE array of batch device
 * pointers, h_ptrs the same pointers on the host. batched = false factors them one by one
 * (cusolverDnDpotrf, faster than the batched kernel for large n). */
gmm_status gmm_gpu_dpotrf_upper_many(gmm_gpu *gpu, int n, double **d_ptrs, double *const *h_ptrs,
                                     int lda, int batch, bool batched, int *d_info);

/* U = R^{-1} for an upper-triangular R (so U U^T = (R^T R)^{-1}: the precision Cholesky factor
 * of scikit-learn). U (n x n) must be the identity on entry; it is solved in place; its strict
 * lower triangle stays zero. */
gmm_status gmm_gpu_upper_inverse(gmm_gpu *gpu, int n, const double *R, int ldr, double *U,
                                 int ldu);
/* R^{-1} in place of an upper-triangular R (n x n; cusolverDnXtrtri: a third of the work of
 * solving against the identity). The strict lower triangle is neither read nor written. d_info:
 * 0, or i when the i-th diagonal element (from 1) is zero. Runs on gpu's stream (a lane's own
 * cuSOLVER handle on a lane); workspace from gmm_gpu_workspace. */
gmm_status gmm_gpu_upper_invert(gmm_gpu *gpu, int n, double *R, int ldr, int *d_info);
/* Eigen-decomposition of a symmetric n x n A in place (cusolverDnDsyevd, vectors wanted): the
 * eigenvalues ascending into d_w (n), and row i of A (row-major) becomes the unit eigenvector of
 * d_w[i] (a symmetric matrix reads the same in both majors, and cuSOLVER's eigenvector columns
 * are our rows). d_info: 0, or cuSOLVER's failure code. Workspace from gmm_gpu_workspace. */
gmm_status gmm_gpu_dsyevd(gmm_gpu *gpu, int n, double *A, int lda, double *d_w, int *d_info);
/* X = L^{-1} B in place of B (n x n_rhs), L lower triangular n x n. */
gmm_status gmm_gpu_lower_solve(gmm_gpu *gpu, int n, int n_rhs, const double *L, int ldl,
                               double *B, int ldb);

/* ---- for stream capture (CUDA graphs) ------------------------------------------------------ */

/* The device workspace that gmm_gpu_workspace handed out last (NULL before the first request),
 * without growing it: a captured graph that baked it in compares it before each replay. */
void *gmm_gpu_workspace_current(const gmm_gpu *gpu);
/* Makes what gmm_gpu_dpotrf_upper_many(gpu, n, NULL, &A, lda, 1, false, ...) needs exist now,
 * the cuSOLVER handle and a large enough workspace, so that the call itself creates and
 * allocates nothing and never synchronises (which a stream capture forbids). *d_workspace: the
 * workspace that call will use. */
gmm_status gmm_gpu_dpotrf_upper_prepare(gmm_gpu *gpu, int n, double *A, int lda,
                                        void **d_workspace);

#ifdef __cplusplus
}
#endif
#endif
