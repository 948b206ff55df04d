/* GPU versions of the means product C = A^T B (see matmul.h).
 *
 * The product is bound by reading B (N x d, 376 MB at MNIST size) once; the arithmetic (2 K N d)
 * is small. So each block streams a slab of B's rows exactly once, 16-byte loads, coalesced along
 * a row, and multiplies each loaded pair of elements by the 16 responsibilities of that row held
 * in shared memory (broadcast reads): a 16 x 2 register block per thread. Four row groups per
 * block are summed in shared memory, then the block adds its K x 128 partial into C with
 * atomicAdd (C zeroed first). */
#include "kernels/matmul.h"

#include "kernels/dense_lib.cuh"

namespace {

constexpr int TK = 16;        /* components per block */
constexpr int BX = 64;        /* threads along the columns, 2 columns each */
constexpr int BY = 4;         /* row groups */
constexpr int COLS = 2 * BX;  /* columns per block */
constexpr int RC = 64;        /* rows of A staged per step */

template <bool VEC>
__global__ void __launch_bounds__(BX * BY) matmul_at_b_kernel(const double *__restrict__ A,
                                                              const double *__restrict__ B,
                                                              double *__restrict__ C, size_t n,
                                                              int K, int d, size_t rows_per_block)
{
    __shared__ __align__(16) double As[RC][TK];
    __shared__ double red[TK][COLS];
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * BX + tx;
    const int c = blockIdx.x * COLS + 2 * tx;
    const int k0 = blockIdx.z * TK;
    const size_t r_begin = blockIdx.y * rows_per_block;
    const size_t r_end = min(n, r_begin + rows_per_block);

    double acc[TK][2];
#pragma unroll
    for (int k = 0; k < TK; k++) acc[k][0] = acc[k][1] = 0.0;

    for (size_t r0 = r_begin; r0 < r_end; r0 += RC) {
        const int rows = (int)min((size_t)RC, r_end - r0);
        for (int e = t; e < RC * TK; e += BX * BY) {
            int rr = e / TK, kk = e % TK;
            As[rr][kk] = (rr < rows && k0 + kk < K) ? A[(r0 + rr) * K + k0 + kk] : 0.0;
        }
        __syncthreads();
#pragma unroll 4
        for (int rr = ty; rr < rows; rr += BY) {
            const double *brow = B + (r0 + rr) * (size_t)d;
            double x0 = 0.0, x1 = 0.0;
            if (VEC) {
                if (c < d) {
                    double2 v = __ldg(reinterpret_cast<const double2 *>(brow + c));
                    x0 = v.x;
                    x1 = v.y;
                }
            } else {
                if (c < d) x0 = __ldg(brow + c);
                if (c + 1 < d) x1 = __ldg(brow + c + 1);
            }
#pragma unroll
            for (int k = 0; k < TK; k++) {
                double a = As[rr][k];
                acc[k][0] = fma(a, x0, acc[k][0]);
                acc[k][1] = fma(a, x1, acc[k][1]);
            }
        }
        __syncthreads();
    }

    /* Sum the row groups, then one atomic per output element of the block. */
    for (int g = 0; g < BY; g++) {
        if (ty == g) {
#pragma unroll
            for (int k = 0; k < TK; k++) {
                red[k][2 * tx] = (g ? red[k][2 * tx] : 0.0) + acc[k][0];
                red[k][2 * tx + 1] = (g ? red[k][2 * tx + 1] : 0.0) + acc[k][1];
            }
        }
        __syncthreads();
    }
    if (r_begin >= r_end) return;
    for (int e = t; e < TK * COLS; e += BX * BY) {
        int kk = e / COLS, cc = e % COLS;
        int col = blockIdx.x * COLS + cc;
        if (k0 + kk < K && col < d) atomicAdd(&C[(size_t)(k0 + kk) * d + col], red[kk][cc]);
    }
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
    {
        const int col_blocks = (dim + COLS - 1) / COLS;
        const int k_blocks = (n_components + TK - 1) / TK;
        const bool vec = dim % 2 == 0 && ((uintptr_t)d_X % 16) == 0;
        int per_sm = 0;
        GMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm, vec ? matmul_at_b_kernel<true> : matmul_at_b_kernel<false>, BX * BY, 0));
        /* One or a few full waves: B is read once whatever the split, and a nearly empty last
         * wave would cost as much as a full one. */
        size_t max_row_blocks = (n_samples + RC - 1) / RC;
        if (max_row_blocks > 65535) max_row_blocks = 65535;
        size_t want = dense_pick_slabs((size_t)col_blocks * k_blocks,
                                       (size_t)per_sm * dense_sm_count(), max_row_blocks);
        size_t rows_per_block = (n_samples + want - 1) / want;
        rows_per_block = (rows_per_block + RC - 1) / RC * RC;
        size_t row_blocks = (n_samples + rows_per_block - 1) / rows_per_block;
        dim3 grid(col_blocks, (unsigned)row_blocks, k_blocks), block(BX, BY);
        if (vec)
            matmul_at_b_kernel<true><<<grid, block, 0, s>>>(d_resp, d_X, d_out, n_samples,
                                                           n_components, dim, rows_per_block);
        else
            matmul_at_b_kernel<false><<<grid, block, 0, s>>>(d_resp, d_X, d_out, n_samples,
                                                            n_components, dim, rows_per_block);
        GMM_LAUNCH_CHECK("matmul_at_b_kernel");
    }
fail:
    return status;
}

extern "C" gmm_status matmul_cublas(const double *d_resp, const double *d_X, size_t n_samples,
                                    int n_components, int dim, double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    cublasHandle_t h;
    const double one = 1.0, zero = 0.0;
    if (!d_resp || !d_X || !d_out || n_components <= 0 || dim <= 0 || n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matmul_cublas: bad arguments");
    if ((status = dense_cublas_handle(dense_stream(stream), &h)) != GMM_OK) return status;
    if (n_samples == 0) {
        GMM_CUDA_CHECK(cudaMemsetAsync(d_out, 0, sizeof(double) * (size_t)n_components * dim,
                                       dense_stream(stream)));
        return GMM_OK;
    }
    /* Row-major C (K x d) is column-major C^T (d x K). Seen column-major, X is X^T (d x N, ld d)
     * and R is R^T (K x N, ld K), so C^T = X^T R is cm(X) * cm(R)^T. */
    GMM_CUBLAS_CHECK(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, dim, n_components, (int)n_samples,
                                 &one, d_X, dim, d_resp, n_components, &zero, d_out, dim));
fail:
    return status;
}
