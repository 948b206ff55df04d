/* CUDA transpose (see transpose.h). When both sizes are multiples of 4 (and the arrays 16-byte
 * aligned), 64 x 64 tiles go through shared memory padded to 65 columns with 16-byte global
 * reads and writes: each thread has four 16-byte loads in flight, and a warp reads and writes
 * 256 contiguous bytes per row. Otherwise 32 x 32 tiles padded to 33 columns (so the column-wise
 * reads of the tile fall in 32 different banks) with 4-byte accesses; each warp reads one row
 * segment of the input and writes one row segment of the output (both coalesced). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/transpose.h"

namespace {

constexpr int TILE = 32, BLOCK_ROWS = 8;

__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
transpose_kernel(const float *__restrict__ in, size_t n_rows, size_t n_cols, float *__restrict__ out)
{
    __shared__ float tile[TILE][TILE + 1];
    const size_t col = (size_t)blockIdx.x * TILE + threadIdx.x;
    for (size_t tile_row = blockIdx.y; tile_row * TILE < n_rows; tile_row += gridDim.y) {
        const size_t row0 = tile_row * TILE;
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
            size_t out_row = (size_t)blockIdx.x * TILE + threadIdx.y + i;
            if (out_row < n_cols && out_col < n_rows)
                out[out_row * n_rows + out_col] = tile[threadIdx.x][threadIdx.y + i];
        }
        __syncthreads();
    }
}

constexpr int VTILE = 64, VTHREADS = 16; /* 16 x 16 threads, 4 floats each way */

__global__ void __launch_bounds__(VTHREADS * VTHREADS)
transpose_vec4_kernel(const float *__restrict__ in, size_t n_rows, size_t n_cols, float *__restrict__ out)
{
    __shared__ float tile[VTILE][VTILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t col0 = (size_t)blockIdx.x * VTILE;
    for (size_t tile_row = blockIdx.y; tile_row * VTILE < n_rows; tile_row += gridDim.y) {
        const size_t row0 = tile_row * VTILE;
        float4 v[VTILE / VTHREADS];
#pragma unroll
        for (int i = 0; i < VTILE / VTHREADS; i++) {
            const size_t r = row0 + ty + VTHREADS * i, c = col0 + 4 * tx;
            if (r < n_rows && c < n_cols) v[i] = __ldg(reinterpret_cast<const float4 *>(in + r * n_cols + c));
        }
#pragma unroll
        for (int i = 0; i < VTILE / VTHREADS; i++) {
            float *t = &tile[ty + VTHREADS * i][4 * tx];
            t[0] = v[i].x, t[1] = v[i].y, t[2] = v[i].z, t[3] = v[i].w;
        }
        __syncthreads();
        /* out row = input column col0 + ty + 16 i; out columns = input rows row0 + 4 tx .. + 3 */
        const size_t out_col = row0 + 4 * tx;
#pragma unroll
        for (int i = 0; i < VTILE / VTHREADS; i++) {
            const int tc = ty + VTHREADS * i;
            const size_t out_row = col0 + tc;
            if (out_row < n_cols && out_col < n_rows) {
                float4 w = make_float4(tile[4 * tx][tc], tile[4 * tx + 1][tc], tile[4 * tx + 2][tc],
                                       tile[4 * tx + 3][tc]);
                *reinterpret_cast<float4 *>(out + out_row * n_rows + out_col) = w;
            }
        }
        __syncthreads();
    }
}

} // namespace

extern "C" gmm_status transpose_cuda(const float *d_in, size_t n_rows, size_t n_cols, float *d_out)
{
    gmm_status status = GMM_OK;
    if (!d_in || !d_out || (n_cols + TILE - 1) / TILE > 0x7fffffffu)
        return gmm_error(GMM_ERR_ARG, "transpose_cuda: NULL array or too many columns");
    if (n_rows == 0 || n_cols == 0) return GMM_OK;
    if (n_rows % 4 == 0 && n_cols % 4 == 0 && (uintptr_t)d_in % 16 == 0 && (uintptr_t)d_out % 16 == 0) {
        size_t row_tiles = (n_rows + VTILE - 1) / VTILE;
        dim3 grid((unsigned)((n_cols + VTILE - 1) / VTILE), (unsigned)(row_tiles < 65535 ? row_tiles : 65535));
        transpose_vec4_kernel<<<grid, dim3(VTHREADS, VTHREADS)>>>(d_in, n_rows, n_cols, d_out);
        GMM_LAUNCH_CHECK("transpose_vec4_kernel");
        GMM_CUDA_CHECK(cudaDeviceSynchronize());
    } else {
        size_t row_tiles = (n_rows + TILE - 1) / TILE;
        dim3 grid((unsigned)((n_cols + TILE - 1) / TILE), (unsigned)(row_tiles < 65535 ? row_tiles : 65535));
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
