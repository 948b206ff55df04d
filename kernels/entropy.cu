/* CUDA local entropy (see entropy.h). A block of 32 x 8 threads owns a 32 x 32 output tile and
 * stages the 36 x 36 input tile (the window's halo) in shared memory, cells outside the array
 * marked 0xFF. Each thread walks 4 consecutive rows of one column with a sliding window (25
 * updates for the first, then 5 in and 5 out per row). The 16 counts (at most 25 each) live as
 * bytes packed in four 32-bit registers, so no per-thread array goes to local memory. The
 * arithmetic is the CPU twin's, operation for operation and without fused multiply-adds, so the
 * two agree to the bit. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/entropy.h"

namespace {

constexpr int TILE = 32, ROWS_PER_THREAD = 4, HALF = ENTROPY_WINDOW / 2;
constexpr int HALO = TILE + 2 * HALF;
constexpr int N_LOG = ENTROPY_WINDOW * ENTROPY_WINDOW + 1;

struct LogTable {
    float v[N_LOG];
};

__device__ __forceinline__ void count_update(uint32_t &c0, uint32_t &c1, uint32_t &c2, uint32_t &c3,
                                             unsigned level, uint32_t delta)
{
    if (level > 15u) return; /* outside the array */
    const uint32_t inc = delta << ((level & 3u) * 8u);
    const unsigned w = level >> 2;
    c0 += w == 0 ? inc : 0u;
    c1 += w == 1 ? inc : 0u;
    c2 += w == 2 ? inc : 0u;
    c3 += w == 3 ? inc : 0u;
}

__global__ void __launch_bounds__(TILE * 8)
entropy_kernel(const uint8_t *__restrict__ levels, int n_rows, int n_cols, LogTable table,
               float *__restrict__ entropy)
{
    __shared__ uint8_t tile[HALO][HALO + 4];
    __shared__ float log_table[N_LOG];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE + tx;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    if (tid < N_LOG) log_table[tid] = table.v[tid];
    for (int i = tid; i < HALO * HALO; i += TILE * 8) {
        int r = row0 - HALF + i / HALO, c = col0 - HALF + i % HALO;
        uint8_t v = 0xFF;
        if (r >= 0 && r < n_rows && c >= 0 && c < n_cols) {
            v = levels[(size_t)r * n_cols + c];
            v = v > 15 ? 15 : v;
        }
        tile[i / HALO][i % HALO] = v;
    }
    __syncthreads();

    const int col = col0 + tx;
    if (col >= n_cols) return;
    const int first = ty * ROWS_PER_THREAD; /* tile-local output row */
    const int n_window_cols = min(col + HALF, n_cols - 1) - max(col - HALF, 0) + 1;
    uint32_t c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    /* window of output row `first` covers tile rows first .. first + 4 (halo offset included) */
#pragma unroll
    for (int a = 0; a < ENTROPY_WINDOW; a++)
#pragma unroll
        for (int b = 0; b < ENTROPY_WINDOW; b++)
            count_update(c0, c1, c2, c3, tile[first + a][tx + b], 1u);
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD; k++) {
        const int row = row0 + first + k;
        if (k > 0) {
#pragma unroll
            for (int b = 0; b < ENTROPY_WINDOW; b++) {
                count_update(c0, c1, c2, c3, tile[first + k - 1][tx + b], 0xFFFFFFFFu);
                count_update(c0, c1, c2, c3, tile[first + k + ENTROPY_WINDOW - 1][tx + b], 1u);
            }
        }
        if (row >= n_rows) break;
        const int n_window_rows = min(row + HALF, n_rows - 1) - max(row - HALF, 0) + 1;
        const int total = n_window_rows * n_window_cols;
        const float log_total = log_table[total];
        float sum = 0.0f;
        const uint32_t words[4] = {c0, c1, c2, c3};
#pragma unroll
        for (int v = 0; v < ENTROPY_LEVELS; v++) {
            const unsigned count = (words[v / 4] >> ((v % 4) * 8)) & 0xFFu;
            sum = __fadd_rn(sum, __fmul_rn((float)count, __fsub_rn(log_total, log_table[count])));
        }
        entropy[(size_t)row * n_cols + col] = __fdiv_rn(sum, (float)total);
    }
}

LogTable make_table()
{
    LogTable t;
    t.v[0] = 0.0f;
    for (int c = 1; c < N_LOG; c++) t.v[c] = (float)log((double)c);
    return t;
}

} // namespace

extern "C" gmm_status entropy_cuda(const uint8_t *d_levels, size_t n_rows, size_t n_cols,
                                   float *d_entropy)
{
    gmm_status status = GMM_OK;
    if (!d_levels || !d_entropy || n_rows > (size_t)65535 * TILE || n_cols > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "entropy_cuda: NULL array or more than %d rows", 65535 * TILE);
    if (n_rows == 0 || n_cols == 0) return GMM_OK;
    {
        dim3 grid((unsigned)((n_cols + TILE - 1) / TILE), (unsigned)((n_rows + TILE - 1) / TILE));
        entropy_kernel<<<grid, dim3(TILE, 8)>>>(d_levels, (int)n_rows, (int)n_cols, make_table(),
                                                d_entropy);
        GMM_LAUNCH_CHECK("entropy_kernel");
        GMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
fail:
    return status;
}

extern "C" gmm_status entropy_cuda_host(const uint8_t *levels, size_t n_rows, size_t n_cols,
                                        float *entropy)
{
    gmm_status status = GMM_OK;
    uint8_t *d_levels = nullptr;
    float *d_entropy = nullptr;
    const size_t n = n_rows * n_cols;
    if (!levels || !entropy) return gmm_error(GMM_ERR_ARG, "entropy_cuda_host: NULL array");
    for (size_t i = 0; i < n; i++)
        if (levels[i] >= ENTROPY_LEVELS)
            return gmm_error(GMM_ERR_ARG, "entropy_cuda_host: value %u at %zu is above 15",
                             (unsigned)levels[i], i);
    if (n == 0) return GMM_OK;
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_levels, n));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_entropy, n * sizeof(float)));
    GMM_CUDA_CHECK(cudaMemcpy(d_levels, levels, n, cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemset(d_entropy, 0xFF, n * sizeof(float))); /* NaN poison */
    status = entropy_cuda(d_levels, n_rows, n_cols, d_entropy);
    if (status != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(entropy, d_entropy, n * sizeof(float), cudaMemcpyDeviceToHost));
fail:
    cudaFree(d_levels);
    cudaFree(d_entropy);
    return status;
}
