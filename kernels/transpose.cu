/* CUDA transpose (see transpose.h): 32 x 32 tiles through shared memory padded to 33 columns, so
 * that the column-wise reads of the tile fall in 32 different banks; each warp reads one row
 * segment of the input and writes one row segment of the output (both coalesced), and the grid
 * is ordered so that the resident blocks write long contiguous runs (see transpose_kernel). */
#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/transpose.h"

namespace {

constexpr int TILE = 32, BLOCK_ROWS = 8;

/* blockIdx.x walks the tile rows, so the blocks resident at one time hold consecutive tiles of one
 * tile column: together they write whole output rows (long contiguous runs) while each reads a
 * 128-byte segment of 32 input rows. Measured on the H100 (10000 x 10000): 0.305 ms, 88% of
 * copy bandwidth, against 0.351 ms (76%) with blockIdx.x walking the tile columns (contiguous
 * reads, scattered writes) and 0.37 ms for 64 x 64 tiles with 16-byte accesses. */
__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_kernel(const float *__restrict__ in, size_t n_rows, size_t n_cols, float *__restrict__ out)
{
    __shared__ float tile[TILE][TILE + 1];
    const size_t row0 = (size_t)blockIdx.x * TILE;
    for (size_t tile_col = blockIdx.y; tile_col * TILE < n_cols; tile_col += gridDim.y) {
        const size_t col = tile_col * TILE + threadIdx.x;
#pragma unroll
        for (int i = 0; i < TILE; i += BLOCK_ROWS) {
            size_t r = row0 + threadIdx.y + i;
            if (r < n_rows && col < n_cols) tile[threadIdx.y + i][threadIdx.x] = in[r * n_cols + col];
        }
        __syncthreads();
        /* out row = input column, out column = input row */
        const size_t out_col = row0 + threadIdx.x;
#pragma unroll
        for (int i = 0; i < TILE; i += BLOCK_ROWS) {
            size_t out_row = tile_col * TILE + threadIdx.y + i;
            if (out_row < n_cols && out_col < n_rows)
                out[out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + i];
        }
        __syncthreads();
    }
}

} // namespace

extern "C" gmm_status transpose_cuda(const float *d_in, size_t n_rows, size_t n_cols, float *d_out)
{
    gmm_status status = GMM_OK;
    if (!d_in || !d_out || (n_rows + TILE - 1) / TILE > 0x7fffffffu)
        return gmm_error(GMM_ERR_ARG, "transpose_cuda: NULL array or too many rows");
    if (n_rows == 0 || n_cols == 0) return GMM_OK;
    {
        size_t col_tiles = (n_cols + TILE - 1) / TILE;
        dim3 grid((unsigned)((n_rows + TILE - 1) / TILE), (unsigned)(col_tiles < 65535 ? col_tiles : 65535));
        transpose_kernel<<<grid, dim3(TILE, BLOCK_ROWS)>>>(d_in, n_rows, n_cols, d_out);
        GMM_LAUNCH_CHECK("transpose_kernel");
        GMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
fail:
    return status;
}

extern "C" gmm_status transpose_cuda_host(const float *in, size_t n_rows, size_t n_cols, float *out)
{
    gmm_status status = GMM_OK;
    float *d_in = nullptr, *d_out = nullptr;
    const size_t bytes = n_rows * n_cols * sizeof(float);
    if (!in || !out) return gmm_error(GMM_ERR_ARG, "transpose_cuda_host: NULL array");
    if (bytes == 0) return GMM_OK;
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_in, bytes));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_out, bytes));
    GMM_CUDA_CHECK(cudaMemcpy(d_in, in, bytes, cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemset(d_out, 0xFF, bytes)); /* NaN poison: unwritten cells show */
    status = transpose_cuda(d_in, n_rows, n_cols, d_out);
    if (status != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(out, d_out, bytes, cudaMemcpyDeviceToHost));
fail:
    cudaFree(d_in);
    cudaFree(d_out);
    return status;
}
