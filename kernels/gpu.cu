/* The GPU resources object and the row-major wrappers over cuBLAS and cuSOLVER (see gpu.h).
 *
 * The one trick: a row-major r x c matrix with leading dimension ld is, byte for byte, the
 * column-major c x r matrix (its transpose) with the same ld. So row-major C = op(A) op(B) is
 * column-major C^T = op(B)^T op(A)^T: swap the operands and the sizes, keep the flags; a
 * row-major lower triangle is a column-major upper one. */
#include <pthread.h>
#include <stdlib.h>
#include <vector>
#include <algorithm>

#include "kernels/cuda_check.h"
#include "kernels/gpu.h"
#include "kernels/gpu_libs.cuh" /* the vendor calls below go through its table */

#define GPU_LANES 16

struct gmm_gpu {
    cublasHandle_t blas;
    cusolverDnHandle_t solver; /* created on first use (solver_of) */
    cudaStream_t stream;       /* NULL (legacy default) on the main object */
    bool tf32;
    void *d_workspace;         /* gmm_gpu_workspace */
    size_t workspace_bytes;
    void *h_workspace;         /* host workspace of cusolverDnXtrtri (usually none) */
    size_t h_workspace_bytes;
    gmm_gpu *lanes[GPU_LANES];
    int device;                /* the CUDA device it was created on */
    bool warm_started;         /* gmm_gpu_blas_warm_up_start was called */
    bool warming;              /* its thread runs: blas_of joins it */
    pthread_t warm_thread;
    double *d_warm;            /* the warm-up's 3 x 64 x 64 operands */
};

static long g_created; /* gmm_gpu_created_count */

static cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

/* h's cuBLAS handle, once the warm-up (if any) has finished with it: every call below takes
 * the handle from here, so no two threads ever use it at once. */
static cublasHandle_t blas_of(gmm_gpu *h)
{
    if (h->warming) {
        pthread_join(h->warm_thread, NULL);
        h->warming = false;
    }
    return h->blas;
}

/* cuBLAS's first call on the warm-up's thread: a 64 x 64 DGEMM on h's stream. Its errors are
 * dropped (a real call meets the same ones and reports them). */
static void *blas_warm_up(void *arg)
{
    gmm_gpu *h = (gmm_gpu *)arg;
    const double one = 1.0, zero = 0.0;
    const int n = 64;
    if (cudaSetDevice(h->device) != cudaSuccess) return NULL;
    (void)cublasDgemm(h->blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, h->d_warm, n,
                      h->d_warm + n * n, n, &zero, h->d_warm + 2 * n * n, n);
    return NULL;
}

extern "C" void gmm_gpu_blas_warm_up_start(gmm_gpu *h)
{
    if (!h || h->warm_started) return;
    h->warm_started = true;
    if (cudaMalloc((void **)&h->d_warm, sizeof(double) * 3 * 64 * 64) != cudaSuccess ||
        cudaMemsetAsync(h->d_warm, 0, sizeof(double) * 3 * 64 * 64, h->stream) != cudaSuccess) {
        (void)cudaGetLastError(); /* no warm-up: the first real call pays for it */
        return;
    }
    h->warming = pthread_create(&h->warm_thread, NULL, blas_warm_up, h) == 0;
}

extern "C" gmm_status gmm_gpu_create(gmm_gpu **out)
{
    gmm_status status = GMM_OK;
    gmm_gpu *h = (gmm_gpu *)calloc(1, sizeof *h);
    *out = NULL;
    if (!h) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    if ((status = gmm_gpu_libs_load()) != GMM_OK) {
        free(h);
        return status;
    }
    __atomic_add_fetch(&g_created, 1, __ATOMIC_RELAXED);
    GMM_CUDA_CHECK(cudaGetDevice(&h->device));
    GMM_CUBLAS_CHECK(cublasCreate(&h->blas)); /* the cuSOLVER handle: on first use (solver_of) */
    *out = h;
    return GMM_OK;
fail:
    gmm_gpu_destroy(h);
    return status;
}

extern "C" gmm_status gmm_gpu_create_on(int device, gmm_gpu **out)
{
    gmm_status status = GMM_OK;
    int count = 0;
    *out = NULL;
    GMM_CUDA_CHECK(cudaGetDeviceCount(&count));
    if (device < 0 || device >= count)
        return gmm_error(GMM_ERR_ARG, "GPU %d does not exist (%d GPU%s)", device, count,
                         count == 1 ? "" : "s");
    GMM_CUDA_CHECK(cudaSetDevice(device));
    return gmm_gpu_create(out);
fail:
    return status;
}

extern "C" long gmm_gpu_created_count(void) { return __atomic_load_n(&g_created, __ATOMIC_RELAXED); }

extern "C" void gmm_gpu_destroy(gmm_gpu *h)
{
    if (!h) return;
    for (int i = 0; i < GPU_LANES; i++) gmm_gpu_destroy(h->lanes[i]);
    if (h->blas) cublasDestroy(blas_of(h));
    cudaFree(h->d_warm);
    if (h->solver) cusolverDnDestroy(h->solver);
    if (h->stream) cudaStreamDestroy(h->stream);
    cudaFree(h->d_workspace);
    free(h->h_workspace);
    free(h);
}

/* The cuSOLVER handle of h (the main object's, or a lane's own on the lane's stream), made the
 * first time it factors: a default fit never does (its factorisation is linalg/chol_inverse.h,
 * cuBLAS only), PCA's eigensolver and bench/experiments/factorisation.cu do. */
static gmm_status solver_of(gmm_gpu *h, cusolverDnHandle_t *out)
{
    gmm_status status = GMM_OK;
    if (!h->solver) {
        if ((status = gmm_gpu_solver_load()) != GMM_OK) return status;
        GMM_CUSOLVER_CHECK(cusolverDnCreate(&h->solver));
        GMM_CUSOLVER_CHECK(cusolverDnSetStream(h->solver, h->stream));
    }
    *out = h->solver;
fail:
    return status;
}

extern "C" void *gmm_gpu_stream(const gmm_gpu *h) { return h ? (void *)h->stream : NULL; }

extern "C" gmm_status gmm_gpu_workspace(gmm_gpu *h, size_t bytes, void **d_ptr)
{
    gmm_status status = GMM_OK;
    if (bytes < 16) bytes = 16;
    if (bytes > h->workspace_bytes) {
        if (h->d_workspace) {
            GMM_CUDA_CHECK(cudaStreamSynchronize(h->stream)); /* work in flight may read it */
            cudaFree(h->d_workspace);
            h->d_workspace = NULL;
            h->workspace_bytes = 0;
        }
        GMM_CUDA_CHECK(cudaMalloc(&h->d_workspace, bytes));
        h->workspace_bytes = bytes;
    }
    *d_ptr = h->d_workspace;
fail:
    return status;
}

extern "C" gmm_status gmm_gpu_set_tf32(gmm_gpu *h, bool on)
{
    gmm_status status = GMM_OK;
    h->tf32 = on;
    GMM_CUBLAS_CHECK(cublasSetMathMode(blas_of(h), on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    for (int i = 0; i < GPU_LANES; i++)
        if (h->lanes[i]) GMM_CUBLAS_CHECK(cublasSetMathMode(h->lanes[i]->blas,
                                                            on ? CUBLAS_TF32_TENSOR_OP_MATH
                                                               : CUBLAS_DEFAULT_MATH));
fail:
    return status;
}

extern "C" bool gmm_gpu_tf32(const gmm_gpu *h) { return h->tf32; }

extern "C" gmm_gpu *gmm_gpu_lane(gmm_gpu *h, int i)
{
    gmm_status status = GMM_OK;
    gmm_gpu *l = NULL;
    if (i < 0 || i >= GPU_LANES) return NULL;
    if (h->lanes[i]) return h->lanes[i];
    l = (gmm_gpu *)calloc(1, sizeof *l);
    if (!l) {
        gmm_error(GMM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    l->device = h->device;
    GMM_CUDA_CHECK(cudaStreamCreate(&l->stream));
    GMM_CUBLAS_CHECK(cublasCreate(&l->blas));
    GMM_CUBLAS_CHECK(cublasSetStream(l->blas, l->stream));
    GMM_CUBLAS_CHECK(cublasSetMathMode(l->blas, h->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                         : CUBLAS_DEFAULT_MATH));
    h->lanes[i] = l;
    return l;
fail:
    if (status != GMM_OK) gmm_gpu_destroy(l);
    return NULL;
}

extern "C" gmm_status gmm_gpu_dgemm(gmm_gpu *h, bool trans_a, bool trans_b, int m, int n, int k,
                                    double alpha, const double *A, int lda, const double *B,
                                    int ldb, double beta, double *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasDgemm(blas_of(h), op(trans_b), op(trans_a), n, m, k, &alpha, B, ldb, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

extern "C" gmm_status gmm_gpu_sgemm(gmm_gpu *h, bool trans_a, bool trans_b, int m, int n, int k,
                                    float alpha, const float *A, int lda, const float *B, int ldb,
                                    float beta, float *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasSgemm(blas_of(h), op(trans_b), op(trans_a), n, m, k, &alpha, B, ldb, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

/* Row-major C_b = A_b B_b for b < batch, A_b = A + b stride_a (stride 0: one A for all) and so
 * on: column-major C_b^T = B_b^T A_b^T, the operands swapped as in gmm_gpu_dgemm. */
extern "C" gmm_status gmm_gpu_dgemm_batched(gmm_gpu *h, int m, int n, int k, const double *A,
                                            int lda, long long stride_a, const double *B, int ldb,
                                            long long stride_b, double *C, int ldc,
                                            long long stride_c, int batch)
{
    gmm_status status = GMM_OK;
    const double one = 1.0, zero = 0.0;
    GMM_CUBLAS_CHECK(cublasDgemmStridedBatched(blas_of(h), CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one,
                                               B, ldb, stride_b, A, lda, stride_a, &zero, C, ldc,
                                               stride_c, batch));
fail:
    return status;
}

extern "C" gmm_status gmm_gpu_dgemm_strided(gmm_gpu *h, bool trans_a, bool trans_b, int m, int n,
                                            int k, double alpha, const double *A, int lda,
                                            long long stride_a, const double *B, int ldb,
                                            long long stride_b, double beta, double *C, int ldc,
                                            long long stride_c, int batch)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasDgemmStridedBatched(blas_of(h), op(trans_b), op(trans_a), n, m, k, &alpha,
                                               B, ldb, stride_b, A, lda, stride_a, &beta, C, ldc,
                                               stride_c, batch));
fail:
    return status;
}

/* Row-major A (k x n) is column-major A^T (n x k): C = A^T A is column-major (A^T)(A^T)^T, no
 * transpose, and the row-major lower triangle is the column-major upper one. */
extern "C" gmm_status gmm_gpu_dsyrk_at_a(gmm_gpu *h, int n, int k, double alpha, const double *A,
                                         int lda, double beta, double *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasDsyrk(blas_of(h), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

extern "C" gmm_status gmm_gpu_ssyrk_at_a(gmm_gpu *h, int n, int k, float alpha, const float *A,
                                         int lda, float beta, float *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasSsyrk(blas_of(h), CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

/* Row-major lower L with A = L L^T is the column-major upper L^T with A = (L^T)^T L^T. */
extern "C" gmm_status gmm_gpu_dpotrf_lower(gmm_gpu *h, int n, double *A, int lda, int *d_info)
{
    gmm_status status = GMM_OK;
    int lwork = 0;
    void *work = NULL;
    cusolverDnHandle_t solver = NULL;
    if ((status = solver_of(h, &solver)) != GMM_OK) return status;
    GMM_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(solver, CUBLAS_FILL_MODE_UPPER, n, A, lda,
                                                   &lwork));
    if ((status = gmm_gpu_workspace(h, sizeof(double) * (size_t)(lwork > 0 ? lwork : 1), &work)) !=
        GMM_OK)
        return status;
    GMM_CUSOLVER_CHECK(cusolverDnDpotrf(solver, CUBLAS_FILL_MODE_UPPER, n, A, lda,
                                        (double *)work, lwork, d_info));
fail:
    return status;
}

extern "C" gmm_status gmm_gpu_dsyevd(gmm_gpu *h, int n, double *A, int lda, double *d_w,
                                      int *d_info)
{
    gmm_status status = GMM_OK;
    int lwork = 0;
    void *work = NULL;
    cusolverDnHandle_t solver = NULL;
    if ((status = solver_of(h, &solver)) != GMM_OK) return status;
    GMM_CUSOLVER_CHECK(cusolverDnDsyevd_bufferSize(solver, CUSOLVER_EIG_MODE_VECTOR,
                                                   CUBLAS_FILL_MODE_UPPER, n, A, lda, d_w,
                                                   &lwork));
    if ((status = gmm_gpu_workspace(h, sizeof(double) * (size_t)(lwork > 0 ? lwork : 1), &work)) !=
        GMM_OK)
        return status;
    GMM_CUSOLVER_CHECK(cusolverDnDsyevd(solver, CUSOLVER_EIG_MODE_VECTOR, CUBLAS_FILL_MODE_UPPER,
                                        n, A, lda, d_w, (double *)work, lwork, d_info));
fail:
    return status;
}

/* Row-major upper R with A = R^T R is the column-major lower L = R^T with A = L L^T. */
extern "C" gmm_status gmm_gpu_dpotrf_upper_many(gmm_gpu *h, int n, double **d_ptrs,
                                                double *const *h_ptrs, int lda, int batch,
                                                bool batched, int *d_info)
{
    gmm_status status = GMM_OK;
    cusolverDnHandle_t solver = NULL;
    if ((status = solver_of(h, &solver)) != GMM_OK) return status;
    if (batched) {
        GMM_CUSOLVER_CHECK(cusolverDnDpotrfBatched(solver, CUBLAS_FILL_MODE_LOWER, n, d_ptrs,
                                                   lda, d_info, batch));
    } else {
        int lwork = 0;
        void *work = NULL;
        GMM_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n,
                                                       h_ptrs[0], lda, &lwork));
        if ((status = gmm_gpu_workspace(h, sizeof(double) * (size_t)(lwork > 0 ? lwork : 1),
                                        &work)) != GMM_OK)
            return status;
        for (int b = 0; b < batch; b++)
            GMM_CUSOLVER_CHECK(cusolverDnDpotrf(solver, CUBLAS_FILL_MODE_LOWER, n, h_ptrs[b],
                                                lda, (double *)work, lwork, d_info + b));
    }
fail:
    return status;
}

/* Row-major U = R^{-1} is column-major U^T = R^{-T} = L^{-1}: solve L Z = I in place. */
extern "C" gmm_status gmm_gpu_upper_inverse(gmm_gpu *h, int n, const double *R, int ldr,
                                            double *U, int ldu)
{
    gmm_status status = GMM_OK;
    const double one = 1.0;
    GMM_CUBLAS_CHECK(cublasDtrsm(blas_of(h), CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, n, n, &one, R, ldr, U, ldu));
fail:
    return status;
}

/* Row-major upper R is the column-major lower R^T, whose inverse R^{-T} read back row-major is
 * R^{-1}: a lower triangular inverse in column-major terms. */
extern "C" gmm_status gmm_gpu_upper_invert(gmm_gpu *h, int n, double *R, int ldr, int *d_info)
{
    gmm_status status = GMM_OK;
    size_t device_bytes = 0, host_bytes = 0;
    void *work = NULL;
    cusolverDnHandle_t solver = NULL;
    if ((status = solver_of(h, &solver)) != GMM_OK) return status;
    GMM_CUSOLVER_CHECK(cusolverDnXtrtri_bufferSize(solver, CUBLAS_FILL_MODE_LOWER,
                                                   CUBLAS_DIAG_NON_UNIT, n, CUDA_R_64F, R, ldr,
                                                   &device_bytes, &host_bytes));
    if ((status = gmm_gpu_workspace(h, device_bytes, &work)) != GMM_OK) return status;
    if (host_bytes > h->h_workspace_bytes) {
        void *grown = realloc(h->h_workspace, host_bytes);
        if (!grown) return gmm_error(GMM_ERR_NOMEM, "out of memory (%zu bytes)", host_bytes);
        h->h_workspace = grown;
        h->h_workspace_bytes = host_bytes;
    }
    GMM_CUSOLVER_CHECK(cusolverDnXtrtri(solver, CUBLAS_FILL_MODE_LOWER, CUBLAS_DIAG_NON_UNIT, n,
                                        CUDA_R_64F, R, ldr, work, device_bytes, h->h_workspace,
                                        host_bytes, d_info));
fail:
    return status;
}

/* Row-major L X = B (B n x n_rhs) is column-major X^T L^T = B^T with L^T upper: a right-side
 * solve with an upper factor. */
extern "C" gmm_status gmm_gpu_lower_solve(gmm_gpu *h, int n, int n_rhs, const double *L, int ldl,
                                          double *B, int ldb)
{
    gmm_status status = GMM_OK;
    const double one = 1.0;
    GMM_CUBLAS_CHECK(cublasDtrsm(blas_of(h), CUBLAS_SIDE_RIGHT, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, n_rhs, n, &one, L, ldl, B, ldb));
fail:
    return status;
}

/* Row-major y = A x: column-major A^T (n_cols x n_rows), so y = (A^T)^T x. */
extern "C" gmm_status gmm_gpu_dgemv(gmm_gpu *h, int n_rows, int n_cols, const double *A, int lda,
                                    const double *x, double *y)
{
    gmm_status status = GMM_OK;
    const double one = 1.0, zero = 0.0;
    GMM_CUBLAS_CHECK(cublasDgemv(blas_of(h), CUBLAS_OP_T, n_cols, n_rows, &one, A, lda, x, 1, &zero,
                                 y, 1));
fail:
    return status;
}

extern "C" gmm_status gmm_gpu_sgemv(gmm_gpu *h, int n_rows, int n_cols, const float *A, int lda,
                                    const float *x, float *y)
{
    gmm_status status = GMM_OK;
    const float one = 1.0f, zero = 0.0f;
    GMM_CUBLAS_CHECK(cublasSgemv(blas_of(h), CUBLAS_OP_T, n_cols, n_rows, &one, A, lda, x, 1, &zero,
                                 y, 1));
fail:
    return status;
}

extern "C" void *gmm_gpu_workspace_current(const gmm_gpu *h) { return h ? h->d_workspace : NULL; }

/* The same handle and bufferSize query as gmm_gpu_dpotrf_upper_many's unbatched path, so that
 * its gmm_gpu_workspace call then finds the workspace large enough. */
extern "C" gmm_status gmm_gpu_dpotrf_upper_prepare(gmm_gpu *h, int n, double *A, int lda,
                                                   void **d_workspace)
{
    gmm_status status = GMM_OK;
    int lwork = 0;
    cusolverDnHandle_t solver = NULL;
    if ((status = solver_of(h, &solver)) != GMM_OK) return status;
    GMM_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(solver, CUBLAS_FILL_MODE_LOWER, n, A, lda,
                                                   &lwork));
    status = gmm_gpu_workspace(h, sizeof(double) * (size_t)(lwork > 0 ? lwork : 1), d_workspace);
fail:
    return status;
}
