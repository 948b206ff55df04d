/* The GPU's steps of the Lanczos iteration (linalg/lanczos.h): the matrix, the basis and the
 * vectors on the device, the SpMV of kernels/spmv.h, the basis products through cuBLAS on the
 * resources object's stream. */
#include "kernels/cuda_check.h"
#include "linalg/lanczos.h"

typedef struct {
    gmm_gpu *gpu;
    cudaStream_t stream;
    int64_t n;
    int64_t *d_row_ptr;
    int32_t *d_col;
    double *d_val;
} gpu_steps;

static gmm_status gpu_alloc(void *ctx, size_t n, double **p)
{
    gmm_status status = GMM_OK;
    (void)ctx;
    *p = NULL;
    GMM_CUDA_CHECK(cudaMalloc((void **)p, sizeof(double) * (n ? n : 1)));
fail:
    return status;
}
static void gpu_release(void *ctx, double *p)
{
    (void)ctx;
    if (p) cudaFree(p);
}
static gmm_status gpu_upload(void *ctx, const double *host, double *p, size_t n)
{
    gmm_status status = GMM_OK;
    gpu_steps *g = (gpu_steps *)ctx;
    GMM_CUDA_CHECK(cudaMemcpyAsync(p, host, sizeof(double) * n, cudaMemcpyHostToDevice, g->stream));
fail:
    return status;
}
static gmm_status gpu_download(void *ctx, const double *p, double *host, size_t n)
{
    gmm_status status = GMM_OK;
    gpu_steps *g = (gpu_steps *)ctx;
    GMM_CUDA_CHECK(cudaMemcpyAsync(host, p, sizeof(double) * n, cudaMemcpyDeviceToHost, g->stream));
    GMM_CUDA_CHECK(cudaStreamSynchronize(g->stream));
fail:
    return status;
}
static gmm_status gpu_matvec(void *ctx, const double *x, double *y)
{
    gpu_steps *g = (gpu_steps *)ctx;
    return spmv_csr_cuda(g->n, g->d_row_ptr, g->d_col, g->d_val, x, y, g->stream);
}
static gmm_status gpu_gemm(void *ctx, bool ta, bool tb, int m, int n, int k, double alpha,
                           const double *A, int lda, const double *B, int ldb, double beta,
                           double *C, int ldc)
{
    gpu_steps *g = (gpu_steps *)ctx;
    return gmm_gpu_dgemm(g->gpu, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

static __global__ void scale_kernel(int64_t n, double alpha, const double *__restrict__ x,
                                    double *__restrict__ y)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i];
}
static gmm_status gpu_scale(void *ctx, int64_t n, double alpha, const double *x, double *y)
{
    gmm_status status = GMM_OK;
    gpu_steps *g = (gpu_steps *)ctx;
    scale_kernel<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(n, alpha, x, y);
    GMM_LAUNCH_CHECK("lanczos scale_kernel");
fail:
    return status;
}

extern "C" gmm_status lanczos_largest_cuda(const csr_matrix *A, int k,
                                           const lanczos_options *options, gmm_gpu *gpu,
                                           double *eigenvalues, double *eigenvectors,
                                           lanczos_report *report)
{
    gmm_status status = GMM_OK;
    gpu_steps g;
    memset(&g, 0, sizeof g);
    const int64_t n = A->n, nnz = A->n > 0 ? A->row_ptr[A->n] : 0;
    if (!gpu) return gmm_error(GMM_ERR_ARG, "Lanczos on the GPU: no resources object");
    g.gpu = gpu;
    g.stream = (cudaStream_t)gmm_gpu_stream(gpu);
    g.n = n;
    GMM_CUDA_CHECK(cudaMalloc((void **)&g.d_row_ptr, sizeof(int64_t) * (n + 1)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&g.d_col, sizeof(int32_t) * (nnz ? nnz : 1)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&g.d_val, sizeof(double) * (nnz ? nnz : 1)));
    GMM_CUDA_CHECK(cudaMemcpy(g.d_row_ptr, A->row_ptr, sizeof(int64_t) * (n + 1),
                              cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(g.d_col, A->col, sizeof(int32_t) * nnz, cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(g.d_val, A->val, sizeof(double) * nnz, cudaMemcpyHostToDevice));
    {
        const lanczos_device dev = {&g, gpu_alloc, gpu_release, gpu_upload, gpu_download,
                                    gpu_matvec, gpu_gemm, gpu_scale};
        status = lanczos_run(&dev, n, k, options, eigenvalues, eigenvectors, report);
    }
fail:
    cudaFree(g.d_row_ptr);
    cudaFree(g.d_col);
    cudaFree(g.d_val);
    return status;
}
