/* GPU versions of the fixed-order reductions (see reduce.h); the device helpers live in
 * kernels/reduce.cuh. */
#include "kernels/reduce.cuh"

/* out[k] = sum_i x[i, k]: one block per column, row-strided sums in four interleaved partial
 * sums per thread (added in a fixed order: so that four loads are in flight, not one; 0.11 ms
 * with one at 60000 x 10 on an H100), then the fixed block tree (the arithmetic of the CUDA
 * backend's N_k). */
static __global__ void reduce_cols_kernel(const double *__restrict__ x, int64_t n, int n_cols,
                                          double *out)
{
    __shared__ double sh[REDUCE_THREADS];
    const int k = blockIdx.x;
    const int64_t step = blockDim.x;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int64_t i = threadIdx.x;
    for (; i + 3 * step < n; i += 4 * step) {
        s0 += x[i * n_cols + k];
        s1 += x[(i + step) * n_cols + k];
        s2 += x[(i + 2 * step) * n_cols + k];
        s3 += x[(i + 3 * step) * n_cols + k];
    }
    for (; i < n; i += step) s0 += x[i * n_cols + k];
    double s = block_sum((s0 + s1) + (s2 + s3), sh);
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

/* partial[b] = the grid-strided sum of exp(lr) lr over block b's indices (0 where exp(lr) = 0). */
static __global__ void entropy_stage1_kernel(const double *__restrict__ lr, int64_t n,
                                             double *partial)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const double r = exp(lr[i]);
        if (r > 0) s += r * lr[i];
    }
    s = block_sum(s, sh);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

extern "C" gmm_status reduce_resp_entropy_cuda(const double *d_log_resp, size_t n,
                                               double *d_partial, double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    if ((!d_log_resp && n > 0) || !d_partial || !d_out)
        return gmm_error(GMM_ERR_ARG, "reduce_resp_entropy_cuda: bad arguments");
    {
        const int blocks = reduce_stage1_blocks((int64_t)n);
        entropy_stage1_kernel<<<blocks, REDUCE_THREADS, 0, s>>>(d_log_resp, (int64_t)n,
                                                                 d_partial);
        GMM_LAUNCH_CHECK("entropy_stage1_kernel");
        reduce_stage2_kernel<<<1, REDUCE_THREADS, 0, s>>>(d_partial, blocks, -1.0, d_out);
        GMM_LAUNCH_CHECK("reduce_stage2_kernel");
    }
fail:
    return status;
}
