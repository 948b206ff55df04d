/* Shared pieces of the dense kernels (see dense_lib.cuh). */
#include "kernels/dense_lib.cuh"

#include <cfloat>

/* attr of the current device, cached per device and attribute slot; fallback when unknown */
static int cached_attribute(int slot, cudaDeviceAttr attr, int fallback)
{
    static int cached[2][64];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= 64) return fallback;
    if (!cached[slot][dev]) {
        int v = 0;
        if (cudaDeviceGetAttribute(&v, attr, dev) != cudaSuccess || v <= 0) v = fallback;
        cached[slot][dev] = v;
    }
    return cached[slot][dev];
}

int dense_sm_count(void) { return cached_attribute(0, cudaDevAttrMultiProcessorCount, 80); }

int dense_cc_major(void) { return cached_attribute(1, cudaDevAttrComputeCapabilityMajor, -1); }

size_t dense_pick_slabs(size_t tiles, size_t resident, size_t max_slabs)
{
    if (resident < 1) resident = 1;
    size_t limit = (4 * resident + tiles - 1) / tiles; /* at most about four waves */
    if (limit > max_slabs) limit = max_slabs;
    if (limit < 1) limit = 1;
    size_t best = 1;
    double best_eff = 0;
    for (size_t s = 1; s <= limit; s++) {
        size_t blocks = tiles * s, waves = (blocks + resident - 1) / resident;
        double eff = (double)blocks / (double)(waves * resident);
        if (eff > best_eff + 0.02) {
            best_eff = eff;
            best = s;
        }
    }
    return best;
}

/* One thread per lower-triangle element (i >= j); it writes both (i, j) and (j, i), so no thread
 * reads what another writes. */
__global__ void mirror_scale_kernel(double *cov, int dim, double scale, const double *d_scale)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= dim || j > i) return;
    double s = d_scale ? scale * d_scale[0] : scale;
    double v = cov[(size_t)i * dim + j] * s;
    cov[(size_t)i * dim + j] = v;
    cov[(size_t)j * dim + i] = v;
}

gmm_status dense_mirror_scale(double *d_cov, int dim, double scale, const double *d_scale,
                              cudaStream_t stream)
{
    gmm_status status = GMM_OK;
    dim3 block(32, 8), grid((dim + 31) / 32, (dim + 7) / 8);
    mirror_scale_kernel<<<grid, block, 0, stream>>>(d_cov, dim, scale, d_scale);
    GMM_LAUNCH_CHECK("mirror_scale_kernel");
fail:
    return status;
}

__global__ void __launch_bounds__(1024) inverse_weight_sum_kernel(const double *w, size_t n, size_t stride,
                                                                  double *out)
{
    __shared__ double part[32];
    double s = 0.0;
    for (size_t i = threadIdx.x; i < n; i += blockDim.x) s += w[i * stride];
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < blockDim.x / 32 ? part[threadIdx.x] : 0.0;
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
        if (threadIdx.x == 0) out[0] = 1.0 / (s + 10 * DBL_EPSILON);
    }
}

gmm_status dense_inverse_weight_sum(const double *d_w, size_t n, size_t stride, double *d_inv_sum,
                                    cudaStream_t stream)
{
    gmm_status status = GMM_OK;
    inverse_weight_sum_kernel<<<1, 1024, 0, stream>>>(d_w, n, stride, d_inv_sum);
    GMM_LAUNCH_CHECK("inverse_weight_sum_kernel");
fail:
    return status;
}
