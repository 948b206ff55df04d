/* GPU version of the Cholesky factorisation (see cholesky.h): cuSOLVER potrf (one matrix) or
 * potrfBatched, with the triangle passes that turn cuSOLVER's column-major factor into our
 * row-major lower one. The hand-written blocked kernels that lost to it moved to
 * bench/experiments/cholesky.cu; they share the triangle pass and the failure report
 * (linalg/cholesky_internal.cuh). */
#include "linalg/cholesky.h"

#include "kernels/dense_lib.cuh"
#include "linalg/cholesky_internal.cuh"

namespace {

/* Pair (i > j) of each matrix; mode 0: zero A[j][i] (the strict upper triangle); mode 1: copy the
 * lower triangle onto the upper one; mode 2: move the upper triangle to the lower one and zero it
 * (turns cuSOLVER's column-major lower factor into our row-major lower factor). */
__global__ void triangle_kernel(double *A, int dim, int mode)
{
    const int i = blockIdx.y * blockDim.y + threadIdx.y;
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= dim || j >= i) return;
    double *M = A + (size_t)blockIdx.z * dim * dim;
    double *lo = M + (size_t)i * dim + j, *up = M + (size_t)j * dim + i;
    if (mode == 0) *up = 0.0;
    else if (mode == 1) *up = *lo;
    else {
        *lo = *up;
        *up = 0.0;
    }
}

} // namespace

gmm_status cholesky_triangle_pass(double *d_A, int dim, int batch, int mode, cudaStream_t s)
{
    gmm_status status = GMM_OK;
    dim3 block(32, 8), grid((dim + 31) / 32, (dim + 7) / 8, batch);
    triangle_kernel<<<grid, block, 0, s>>>(d_A, dim, mode);
    GMM_LAUNCH_CHECK("triangle_kernel");
fail:
    return status;
}

gmm_status cholesky_report_info(const int *h_info, int batch, int *failed_order,
                                const char *name)
{
    int first = -1;
    for (int b = 0; b < batch; b++) {
        if (failed_order) failed_order[b] = h_info[b];
        if (h_info[b] && first < 0) first = b;
    }
    if (first < 0) return GMM_OK;
    return gmm_error(GMM_ERR_CHOLESKY,
                     "%s: matrix %d of %d: the leading minor of order %d is not positive definite",
                     name, first, batch, h_info[first]);
}

extern "C" gmm_status cholesky_cusolver(double *d_A, int dim, int batch, int *failed_order,
                                        gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(gmm_gpu_stream(gpu));
    int *d_info = nullptr, *h_info = nullptr;
    double **d_ptrs = nullptr, **h_ptrs = nullptr;
    if (!gpu || !d_A || dim <= 0 || batch <= 0 || batch > 65535)
        return gmm_error(GMM_ERR_ARG, "cholesky_cusolver: bad arguments");
    h_info = (int *)calloc((size_t)batch, sizeof(int));
    if (!h_info) return gmm_error(GMM_ERR_NOMEM, "cholesky_cusolver: info array");
    GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_info, sizeof(int) * batch, s));
    if (batch == 1) {
        if ((status = gmm_gpu_dpotrf_lower(gpu, dim, d_A, dim, d_info)) != GMM_OK) goto fail;
        if ((status = cholesky_triangle_pass(d_A, dim, 1, 0, s)) != GMM_OK) goto fail;
    } else {
        /* The batched routine gives the upper factor R = L^T: make the matrices full (mirror),
         * factor, then move R (our upper triangle) to our lower one. */
        if ((status = cholesky_triangle_pass(d_A, dim, batch, 1, s)) != GMM_OK) goto fail;
        h_ptrs = (double **)malloc(sizeof(double *) * batch);
        if (!h_ptrs) {
            status = gmm_error(GMM_ERR_NOMEM, "cholesky_cusolver: pointer array");
            goto fail;
        }
        for (int b = 0; b < batch; b++) h_ptrs[b] = d_A + (size_t)b * dim * dim;
        GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_ptrs, sizeof(double *) * batch, s));
        GMM_CUDA_CHECK(cudaMemcpyAsync(d_ptrs, h_ptrs, sizeof(double *) * batch,
                                       cudaMemcpyHostToDevice, s));
        if ((status = gmm_gpu_dpotrf_upper_many(gpu, dim, d_ptrs, h_ptrs, dim, batch, true,
                                                d_info)) != GMM_OK)
            goto fail;
        if ((status = cholesky_triangle_pass(d_A, dim, batch, 2, s)) != GMM_OK) goto fail;
    }
    GMM_CUDA_CHECK(cudaMemcpyAsync(h_info, d_info, sizeof(int) * batch, cudaMemcpyDeviceToHost, s));
    GMM_CUDA_CHECK(cudaStreamSynchronize(s));
    for (int b = 0; b < batch; b++)
        if (h_info[b] < 0) {
            status = gmm_error(GMM_ERR_CUDA, "cholesky_cusolver: potrf argument %d invalid",
                               -h_info[b]);
            goto fail;
        }
    status = cholesky_report_info(h_info, batch, failed_order, "cholesky_cusolver");
fail:
    if (d_info) cudaFreeAsync(d_info, s);
    if (d_ptrs) cudaFreeAsync(d_ptrs, s);
    free(h_ptrs);
    free(h_info);
    return status;
}
