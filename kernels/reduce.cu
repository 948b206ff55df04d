/* GPU versions of the fixed-order reductions (see reduce.h); the device helpers live in
 * kernels/reduce.cuh. */
#include "kernels/reduce.cuh"

/* out[k] = sum_i x[i, k]: one block per column, row-strided sums, then the fixed block tree
 * (the arithmetic of the CUDA backend's N_k). */
static __global__ void reduce_cols_kernel(const double *__restrict__ x, int64_t n, int n_cols,
                                          double *out)
{
    __shared__ double sh[REDUCE_THREADS];
    const int k = blockIdx.x;
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += x[i * n_cols + k];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) out[k] = s;
}

extern "C" gmm_status reduce_sum_cuda(const double *d_x, size_t n, double scale,
                                      double *d_partial, double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    if ((!d_x && n > 0) || !d_partial || !d_out)
        return gmm_error(GMM_ERR_ARG, "reduce_sum_cuda: bad arguments");
    {
        const int blocks = reduce_stage1_blocks((int64_t)n);
        reduce_stage1_kernel<<<blocks, REDUCE_THREADS, 0, s>>>(d_x, (int64_t)n, d_partial);
        GMM_LAUNCH_CHECK("reduce_stage1_kernel");
        reduce_stage2_kernel<<<1, REDUCE_THREADS, 0, s>>>(d_partial, blocks, scale, d_out);
        GMM_LAUNCH_CHECK("reduce_stage2_kernel");
    }
fail:
    return status;
}

extern "C" gmm_status reduce_cols_cuda(const double *d_x, size_t n_rows, int n_cols,
                                       double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    if ((!d_x && n_rows > 0) || !d_out || n_cols <= 0)
        return gmm_error(GMM_ERR_ARG, "reduce_cols_cuda: bad arguments");
    reduce_cols_kernel<<<n_cols, REDUCE_THREADS, 0, (cudaStream_t)stream>>>(d_x, (int64_t)n_rows,
                                                                           n_cols, d_out);
    GMM_LAUNCH_CHECK("reduce_cols_kernel");
fail:
    return status;
}
