/* GPU version of the row compaction (see compact.h): flags, the CUB scan, the bounds and the
 * packed gather, moved here from the CUDA backend's M-step with their launch shapes. */
#include <cub/device/device_scan.cuh>

#include "kernels/compact.h"
#include "kernels/cuda_check.h"
#include "kernels/grid.cuh"

/* flags[k * rows + i] = w[i * stride + k] > 1e-20; flags[K * rows] = 0 (so the scan's last entry
 * is the total). */
static __global__ void keep_flags_kernel(const double *__restrict__ w, size_t w_stride,
                                         int64_t rows, int K, int *flags)
{
    const int64_t n = rows * K;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e <= n;
         e += (int64_t)gridDim.x * blockDim.x) {
        if (e == n) {
            flags[n] = 0;
            continue;
        }
        const int64_t k = e / rows, i = e - k * rows;
        flags[e] = w[i * w_stride + k] > COMPACT_NEGLIGIBLE_WEIGHT ? 1 : 0;
    }
}

/* bounds[k] = pos[k * rows] for k = 0..K */
static __global__ void bounds_kernel(const int *__restrict__ pos, int64_t rows, int K, int *bounds)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k <= K) bounds[k] = pos[(int64_t)k * rows];
}

/* The packed form of the scaled centring: row i of component k goes to packed row
 * pos[k * rows + i] when w_ik > 1e-20 and is left out otherwise. A warp per row: lane k reads
 * w_ik, takes sqrt(w_ik) and the packed position once, and the warp writes each kept component's
 * row from them (32 components a pass). An element-wise version (a thread per x_ij looping
 * over all K components, their weights, positions and square roots) took 0.87 ms at 60000 x 784,
 * K = 10, float32 on an H100. */
template <typename TX, typename TA>
static __global__ void packed_centre_kernel(const TX *__restrict__ X, int64_t rows, int d,
                                            const double *__restrict__ w, size_t w_stride, int K,
                                            const double *__restrict__ mu,
                                            const int *__restrict__ pos, TA *__restrict__ A)
{
    const int lane = threadIdx.x & 31;
    const int64_t n_warps = ((int64_t)gridDim.x * blockDim.x) >> 5;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5; i < rows;
         i += n_warps) {
        const TX *x = X + i * d;
        for (int k0 = 0; k0 < K; k0 += 32) {
            const int k = k0 + lane;
            const double r = k < K ? w[i * w_stride + k] : 0.0;
            const bool keep = r > COMPACT_NEGLIGIBLE_WEIGHT;
            unsigned kept = __ballot_sync(0xffffffffu, keep);
            const double scale = keep ? sqrt(r) : 0.0;
            const int at = keep ? pos[(int64_t)k * rows + i] : 0;
            while (kept) {
                const int q = __ffs(kept) - 1;
                kept &= kept - 1;
                const double sq = __shfl_sync(0xffffffffu, scale, q);
                TA *out = A + (int64_t)__shfl_sync(0xffffffffu, at, q) * d;
                const double *m = mu + (int64_t)(k0 + q) * d;
                for (int j = lane; j < d; j += 32) out[j] = (TA)(sq * ((double)x[j] - m[j]));
            }
        }
    }
}

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/* The workspace: flags and pos (items ints each), the K + 1 bounds, then the scan's temporary. */
static size_t fixed_bytes(size_t items, int K)
{
    return 2 * align256(sizeof(int) * items) + align256(sizeof(int) * (K + 1));
}

extern "C" gmm_status compact_rows_workspace_bytes(size_t max_rows, int n_components,
                                                   size_t *bytes)
{
    gmm_status status = GMM_OK;
    size_t items = max_rows * (size_t)n_components + 1, scan = 0;
    if (!bytes || n_components <= 0 || items >= 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "compact_rows_workspace_bytes: bad arguments");
    GMM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, scan, (const int *)NULL, (int *)NULL,
                                                 (int)items, (cudaStream_t)0));
    *bytes = fixed_bytes(items, n_components) + align256(scan > 0 ? scan : 16);
fail:
    return status;
}

template <typename TX, typename TA>
static gmm_status gather(const void *X, int64_t rows, int d, const double *w, size_t stride, int K,
                         const double *mu, const int *pos, void *A, cudaStream_t s)
{
    gmm_status status = GMM_OK;
    packed_centre_kernel<TX, TA><<<kernel_grid_for(rows * 32, 256), 256, 0, s>>>(
        (const TX *)X, rows, d, w, stride, K, mu, pos, (TA *)A);
    GMM_LAUNCH_CHECK("packed_centre_kernel");
fail:
    return status;
}

extern "C" gmm_status compact_rows_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples,
                                        int dim, const double *d_weights, size_t weight_stride,
                                        int n_components, const double *d_means, void *d_packed,
                                        gmm_elem packed_elem, void *d_workspace,
                                        size_t workspace_bytes, int *bounds, void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    const int K = n_components;
    const int64_t rows = (int64_t)n_samples;
    const size_t items = n_samples * (size_t)K + 1;
    char *ws = (char *)d_workspace;
    int *d_flags, *d_pos, *d_bounds;
    size_t scan_bytes;
    if (!d_X || !d_weights || !d_means || !d_packed || !d_workspace || !bounds || dim <= 0 ||
        K <= 0 || weight_stride < 1 || items >= 0x7fffffff ||
        workspace_bytes <= fixed_bytes(items, K))
        return gmm_error(GMM_ERR_ARG, "compact_rows_cuda: bad arguments");
    d_flags = (int *)ws;
    d_pos = (int *)(ws + align256(sizeof(int) * items));
    d_bounds = (int *)(ws + 2 * align256(sizeof(int) * items));
    /* the rest is the scan's temporary: at least what max_rows asked, so enough for fewer rows */
    scan_bytes = workspace_bytes - fixed_bytes(items, K);

    keep_flags_kernel<<<kernel_grid_for(rows * K + 1, 256), 256, 0, s>>>(d_weights, weight_stride,
                                                                        rows, K, d_flags);
    GMM_LAUNCH_CHECK("keep_flags_kernel");
    GMM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(ws + fixed_bytes(items, K), scan_bytes, d_flags,
                                                 d_pos, (int)items, s));
    bounds_kernel<<<(K + 1 + 127) / 128, 128, 0, s>>>(d_pos, rows, K, d_bounds);
    GMM_LAUNCH_CHECK("bounds_kernel");
    GMM_CUDA_CHECK(cudaMemcpyAsync(bounds, d_bounds, sizeof(int) * (K + 1),
                                   cudaMemcpyDeviceToHost, s));
    GMM_CUDA_CHECK(cudaStreamSynchronize(s));
    if (n_samples == 0) return GMM_OK;
    if (x_elem == GMM_ELEM_F64)
        return packed_elem == GMM_ELEM_F64
                   ? gather<double, double>(d_X, rows, dim, d_weights, weight_stride, K, d_means,
                                            d_pos, d_packed, s)
                   : gather<double, float>(d_X, rows, dim, d_weights, weight_stride, K, d_means,
                                           d_pos, d_packed, s);
    return packed_elem == GMM_ELEM_F64
               ? gather<float, double>(d_X, rows, dim, d_weights, weight_stride, K, d_means, d_pos,
                                       d_packed, s)
               : gather<float, float>(d_X, rows, dim, d_weights, weight_stride, K, d_means, d_pos,
                                      d_packed, s);
fail:
    return status;
}
