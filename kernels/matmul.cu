/* GPU versions of the means product C = A^T B (see matmul.h).
 *
 * The product is bound by reading B (N x d, 376 MB at MNIST size) once; the arithmetic (2 K N d)
 * is small. So a block spans whole rows of B (one thread per pair of columns, up to 1024 columns
 * per block) and streams a slab of rows exactly once: 16-byte loads, a warp reading 512
 * contiguous bytes, eight rows' loads issued before their multiply-adds so that enough bytes are
 * in flight. The responsibilities of a chunk of rows are staged in shared memory (each read is a
 * broadcast) and the component count is a template bound (2, 4, 8, 12 or 16; more components are
 * sliced in 16s over the grid), so a thread holds exactly 2 x KT accumulators. Each block adds
 * its K x d partial into C with atomicAdd (C zeroed first): float64 sums whose order varies, so
 * the last bits may differ between runs. */
#include "kernels/matmul.h"

#include "kernels/dense_lib.cuh"

namespace {

constexpr int RC = 32;          /* rows of A staged per chunk */
constexpr int UNROLL = 8;       /* rows whose loads are issued together */
constexpr int MAX_THREADS = 512; /* so a thread may hold 128 registers */
constexpr int SLICE = 16;       /* components per grid slice */

template <int KT, bool VEC>
__global__ void __launch_bounds__(MAX_THREADS) matmul_at_b_kernel(const double *__restrict__ A,
                                                                   const double *__restrict__ B,
                                                                   double *__restrict__ C, size_t n,
                                                                   int K, int d,
                                                                   size_t rows_per_block)
{
    __shared__ __align__(16) double As[RC * KT];
    const int t = threadIdx.x;
    const int c = 2 * (blockIdx.x * blockDim.x + t);
    const int k0 = blockIdx.z * SLICE;
    const int kn = min(KT, K - k0); /* components of this slice */
    const size_t r_begin = blockIdx.y * rows_per_block;
    const size_t r_end = min(n, r_begin + rows_per_block);

    double acc[KT][2];
#pragma unroll
    for (int k = 0; k < KT; k++) acc[k][0] = acc[k][1] = 0.0;

    for (size_t r0 = r_begin; r0 < r_end; r0 += RC) {
        const int rows = (int)min((size_t)RC, r_end - r0);
        __syncthreads(); /* the previous chunk's reads of As are done */
        for (int e = t; e < RC * KT; e += blockDim.x) {
            const int rr = e / KT, kk = e % KT;
            As[e] = (rr < rows && kk < kn) ? A[(r0 + rr) * K + k0 + kk] : 0.0;
        }
        __syncthreads();
        if (c >= d) continue;
        for (int rr = 0; rr < rows; rr += UNROLL) {
            double x0[UNROLL], x1[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
                x0[u] = x1[u] = 0.0;
                if (rr + u < rows) {
                    const double *brow = B + (r0 + rr + u) * (size_t)d + c;
                    if (VEC) {
                        const double2 v = __ldg(reinterpret_cast<const double2 *>(brow));
                        x0[u] = v.x;
                        x1[u] = v.y;
                    } else {
                        x0[u] = __ldg(brow);
                        if (c + 1 < d) x1[u] = __ldg(brow + 1);
                    }
                }
            }
#pragma unroll
            for (int u = 0; u < UNROLL; u++) {
#pragma unroll
                for (int k = 0; k < KT; k++) {
                    const double a = As[(rr + u) * KT + k]; /* zero past the chunk's rows */
                    acc[k][0] = fma(a, x0[u], acc[k][0]);
                    acc[k][1] = fma(a, x1[u], acc[k][1]);
                }
            }
        }
    }
    if (c >= d || r_begin >= r_end) return;
#pragma unroll
    for (int k = 0; k < KT; k++) {
        if (k < kn) {
            atomicAdd(&C[(size_t)(k0 + k) * d + c], acc[k][0]);
            if (c + 1 < d) atomicAdd(&C[(size_t)(k0 + k) * d + c + 1], acc[k][1]);
        }
    }
}

template <int KT, bool VEC>
gmm_status launch(const double *A, const double *B, double *C, size_t n, int K, int d,
                  cudaStream_t s)
{
    gmm_status status = GMM_OK;
    const int pairs = (d + 1) / 2;
    const int threads = min(MAX_THREADS, (pairs + 31) / 32 * 32);
    const int col_blocks = (pairs + threads - 1) / threads;
    const int slices = (K + SLICE - 1) / SLICE;
    int per_sm = 0;
    GMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, matmul_at_b_kernel<KT, VEC>, threads, 0));
    {
        /* One full wave of blocks: B is read once whatever the split, and a nearly empty last
         * wave would cost as much as a full one. */
        size_t max_row_blocks = (n + RC - 1) / RC;
        if (max_row_blocks > 65535) max_row_blocks = 65535;
        size_t want = dense_pick_slabs((size_t)col_blocks * slices,
                                       (size_t)(per_sm > 0 ? per_sm : 1) * dense_sm_count(),
                                       max_row_blocks);
        size_t rows_per_block = (n + want - 1) / want;
        rows_per_block = (rows_per_block + RC - 1) / RC * RC;
        const size_t row_blocks = (n + rows_per_block - 1) / rows_per_block;
        dim3 grid(col_blocks, (unsigned)row_blocks, slices);
        matmul_at_b_kernel<KT, VEC><<<grid, threads, 0, s>>>(A, B, C, n, K, d, rows_per_block);
        GMM_LAUNCH_CHECK("matmul_at_b_kernel");
    }
fail:
    return status;
}

template <bool VEC>
gmm_status launch_for_k(const double *A, const double *B, double *C, size_t n, int K, int d,
                        cudaStream_t s)
{
    if (K <= 2) return launch<2, VEC>(A, B, C, n, K, d, s);
    if (K <= 4) return launch<4, VEC>(A, B, C, n, K, d, s);
    if (K <= 8) return launch<8, VEC>(A, B, C, n, K, d, s);
    if (K <= 12) return launch<12, VEC>(A, B, C, n, K, d, s);
    return launch<16, VEC>(A, B, C, n, K, d, s);
}

} // namespace

extern "C" gmm_status matmul_cuda(const double *d_resp, const double *d_X, size_t n_samples,
                                  int n_components, int dim, double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(stream);
    if (!d_resp || !d_X || !d_out || n_components <= 0 || dim <= 0)
        return gmm_error(GMM_ERR_ARG, "matmul_cuda: bad arguments");
    GMM_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(double) * (size_t)n_components * dim, s));
    if (n_samples == 0) return GMM_OK;
    if (dim % 2 == 0 && ((uintptr_t)d_X % 16) == 0)
        return launch_for_k<true>(d_resp, d_X, d_out, n_samples, n_components, dim, s);
    return launch_for_k<false>(d_resp, d_X, d_out, n_samples, n_components, dim, s);
fail:
    return status;
}
extern "C" gmm_status matmul_cublas(const double *d_resp, const double *d_X, size_t n_samples,
                                    int n_components, int dim, double *d_out, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    if (!gpu || !d_resp || !d_X || !d_out || n_components <= 0 || dim <= 0 ||
        n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matmul_cublas: bad arguments");
    if (n_samples == 0) {
        GMM_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(double) * (size_t)n_components * dim,
                                       dense_stream(gmm_gpu_stream(gpu))));
        return GMM_OK;
    }
    return gmm_gpu_dgemm(gpu, true, false, n_components, dim, (int)n_samples, 1.0, d_resp,
                         n_components, d_X, dim, 0.0, d_out, dim);
fail:
    return status;
}
