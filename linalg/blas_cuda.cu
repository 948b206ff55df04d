/* Row-major wrappers over cuBLAS and cuSOLVER (see blas_cuda.h).
 *
 * The one trick: a row-major r x c matrix with leading dimension ld is, byte for byte, the
 * column-major c x r matrix (its transpose) with the same ld. So row-major C = op(A) op(B) is
 * column-major C^T = op(B)^T op(A)^T: swap the operands and the sizes, keep the flags; a
 * row-major lower triangle is a column-major upper one. */
#include <stdlib.h>
#include <vector>
#include <algorithm>

#include "kernels/cuda_check.h"
#include "linalg/blas_cuda.h"

#define LA_CUDA_LANES 16

struct la_cuda {
    cublasHandle_t blas;
    cusolverDnHandle_t solver; /* NULL on lanes */
    cudaStream_t stream;       /* NULL (legacy default) on the main handle */
    bool tf32;
    la_cuda *lanes[LA_CUDA_LANES];
};

static cublasOperation_t op(bool trans) { return trans ? CUBLAS_OP_T : CUBLAS_OP_N; }

extern "C" gmm_status la_cuda_create(la_cuda **out)
{
    gmm_status status = GMM_OK;
    la_cuda *h = (la_cuda *)calloc(1, sizeof *h);
    *out = NULL;
    if (!h) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    GMM_CUBLAS_CHECK(cublasCreate(&h->blas));
    GMM_CUSOLVER_CHECK(cusolverDnCreate(&h->solver));
    *out = h;
    return GMM_OK;
fail:
    la_cuda_destroy(h);
    return status;
}

extern "C" void la_cuda_destroy(la_cuda *h)
{
    if (!h) return;
    for (int i = 0; i < LA_CUDA_LANES; i++) la_cuda_destroy(h->lanes[i]);
    if (h->blas) cublasDestroy(h->blas);
    if (h->solver) cusolverDnDestroy(h->solver);
    if (h->stream) cudaStreamDestroy(h->stream);
    free(h);
}

extern "C" gmm_status la_cuda_set_tf32(la_cuda *h, bool on)
{
    gmm_status status = GMM_OK;
    h->tf32 = on;
    GMM_CUBLAS_CHECK(cublasSetMathMode(h->blas, on ? CUBLAS_TF32_TENSOR_OP_MATH : CUBLAS_DEFAULT_MATH));
    for (int i = 0; i < LA_CUDA_LANES; i++)
        if (h->lanes[i]) GMM_CUBLAS_CHECK(cublasSetMathMode(h->lanes[i]->blas,
                                                            on ? CUBLAS_TF32_TENSOR_OP_MATH
                                                               : CUBLAS_DEFAULT_MATH));
fail:
    return status;
}

extern "C" la_cuda *la_cuda_lane(la_cuda *h, int i)
{
    gmm_status status = GMM_OK;
    la_cuda *l = NULL;
    if (i < 0 || i >= LA_CUDA_LANES) return NULL;
    if (h->lanes[i]) return h->lanes[i];
    l = (la_cuda *)calloc(1, sizeof *l);
    if (!l) {
        gmm_error(GMM_ERR_NOMEM, "out of memory");
        return NULL;
    }
    GMM_CUDA_CHECK(cudaStreamCreate(&l->stream));
    GMM_CUBLAS_CHECK(cublasCreate(&l->blas));
    GMM_CUBLAS_CHECK(cublasSetStream(l->blas, l->stream));
    GMM_CUBLAS_CHECK(cublasSetMathMode(l->blas, h->tf32 ? CUBLAS_TF32_TENSOR_OP_MATH
                                                         : CUBLAS_DEFAULT_MATH));
    h->lanes[i] = l;
    return l;
fail:
    if (status != GMM_OK) la_cuda_destroy(l);
    return NULL;
}

extern "C" gmm_status la_cuda_dgemm(la_cuda *h, bool trans_a, bool trans_b, int m, int n, int k,
                                    double alpha, const double *A, int lda, const double *B,
                                    int ldb, double beta, double *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasDgemm(h->blas, op(trans_b), op(trans_a), n, m, k, &alpha, B, ldb, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

extern "C" gmm_status la_cuda_sgemm(la_cuda *h, bool trans_a, bool trans_b, int m, int n, int k,
                                    float alpha, const float *A, int lda, const float *B, int ldb,
                                    float beta, float *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasSgemm(h->blas, op(trans_b), op(trans_a), n, m, k, &alpha, B, ldb, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

/* Row-major A (k x n) is column-major A^T (n x k): C = A^T A is column-major (A^T)(A^T)^T, no
 * transpose, and the row-major lower triangle is the column-major upper one. */
extern "C" gmm_status la_cuda_dsyrk_at_a(la_cuda *h, int n, int k, double alpha, const double *A,
                                         int lda, double beta, double *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasDsyrk(h->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

extern "C" gmm_status la_cuda_ssyrk_at_a(la_cuda *h, int n, int k, float alpha, const float *A,
                                         int lda, float beta, float *C, int ldc)
{
    gmm_status status = GMM_OK;
    GMM_CUBLAS_CHECK(cublasSsyrk(h->blas, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, n, k, &alpha, A,
                                 lda, &beta, C, ldc));
fail:
    return status;
}

/* Row-major upper R with A = R^T R is the column-major lower L = R^T with A = L L^T. */
extern "C" gmm_status la_cuda_dpotrf_work_size(la_cuda *h, int n, int lda, double *A, int *lwork)
{
    gmm_status status = GMM_OK;
    GMM_CUSOLVER_CHECK(cusolverDnDpotrf_bufferSize(h->solver, CUBLAS_FILL_MODE_LOWER, n, A, lda,
                                                   lwork));
fail:
    return status;
}

extern "C" gmm_status la_cuda_dpotrf_upper(la_cuda *h, int n, double **d_ptrs,
                                           double *const *h_ptrs, int lda, int batch,
                                           bool batched, double *d_work, int lwork, int *d_info)
{
    gmm_status status = GMM_OK;
    if (batched) {
        GMM_CUSOLVER_CHECK(cusolverDnDpotrfBatched(h->solver, CUBLAS_FILL_MODE_LOWER, n, d_ptrs,
                                                   lda, d_info, batch));
    } else {
        for (int b = 0; b < batch; b++)
            GMM_CUSOLVER_CHECK(cusolverDnDpotrf(h->solver, CUBLAS_FILL_MODE_LOWER, n, h_ptrs[b],
                                                lda, d_work, lwork, d_info + b));
    }
fail:
    return status;
}

/* Row-major U = R^{-1} is column-major U^T = R^{-T} = L^{-1}: solve L Z = I in place. */
extern "C" gmm_status la_cuda_upper_inverse(la_cuda *h, int n, const double *R, int ldr,
                                            double *U, int ldu)
{
    gmm_status status = GMM_OK;
    const double one = 1.0;
    GMM_CUBLAS_CHECK(cublasDtrsm(h->blas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, n, n, &one, R, ldr, U, ldu));
fail:
    return status;
}

template <typename T>
__global__ void fill_pattern(T *x, size_t n, unsigned seed)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned v = (unsigned)(i * 2654435761u) ^ seed;
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        v ^= v >> 15;
        x[i] = (T)((v & 0xffff) / 65536.0 - 0.5);
    }
}

extern "C" gmm_status la_cuda_gemm_benchmark(int precision, int m, int n, int k, int repeats,
                                             double *median_ms)
{
    gmm_status status = GMM_OK;
    la_cuda *h = NULL;
    void *A = NULL, *B = NULL, *C = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    size_t es = precision == 0 ? sizeof(double) : sizeof(float);
    std::vector<double> times;
    if (repeats < 1) repeats = 1;
    if ((status = la_cuda_create(&h)) != GMM_OK) return status;
    if ((status = la_cuda_set_tf32(h, precision == 2)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMalloc(&A, es * (size_t)m * k));
    GMM_CUDA_CHECK(cudaMalloc(&B, es * (size_t)k * n));
    GMM_CUDA_CHECK(cudaMalloc(&C, es * (size_t)m * n));
    if (precision == 0) {
        fill_pattern<<<1024, 256>>>((double *)A, (size_t)m * k, 1u);
        GMM_LAUNCH_CHECK("fill_pattern");
        fill_pattern<<<1024, 256>>>((double *)B, (size_t)k * n, 2u);
        GMM_LAUNCH_CHECK("fill_pattern");
    } else {
        fill_pattern<<<1024, 256>>>((float *)A, (size_t)m * k, 1u);
        GMM_LAUNCH_CHECK("fill_pattern");
        fill_pattern<<<1024, 256>>>((float *)B, (size_t)k * n, 2u);
        GMM_LAUNCH_CHECK("fill_pattern");
    }
    GMM_CUDA_CHECK(cudaEventCreate(&e0));
    GMM_CUDA_CHECK(cudaEventCreate(&e1));
    for (int r = -2; r < repeats; r++) {
        GMM_CUDA_CHECK(cudaEventRecord(e0, 0));
        if (precision == 0)
            status = la_cuda_dgemm(h, false, false, m, n, k, 1.0, (double *)A, k, (double *)B, n,
                                   0.0, (double *)C, n);
        else
            status = la_cuda_sgemm(h, false, false, m, n, k, 1.0f, (float *)A, k, (float *)B, n,
                                   0.0f, (float *)C, n);
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaEventRecord(e1, 0));
        GMM_CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        GMM_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    *median_ms = times[times.size() / 2];
fail:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    la_cuda_destroy(h);
    return status;
}
