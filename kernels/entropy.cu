/* CUDA local entropy (see entropy.h). A block of 32 x 8 threads owns a 32-column x 64-row output
 * tile. It stages the 36 x 68 input tile (the window's halo) in shared memory, cells outside the
 * array marked 16. A level's one-hot histogram is 16 bytes (counts packed in four 32-bit words,
 * at most 25 per byte, so histograms add and subtract as plain integers without carries). The
 * block first builds the 5-cell horizontal histogram of every halo row at every output column,
 * sliding along each row segment (one add and one subtract per step), into shared memory padded
 * to 33 columns (no bank conflicts). Each thread then walks 8 rows of one column: its window's
 * histogram is 5 of those row histograms, then one in and one out per row. The entropy is the
 * fixed-point table sum of entropy.h (16 byte extractions, lookups and integer adds), so the
 * result equals the CPU twin's to the bit. */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/entropy.h"

namespace {

constexpr int TILE_C = 32, THREADS_Y = 8, ROWS_PER_THREAD = 8, TILE_R = THREADS_Y * ROWS_PER_THREAD;
constexpr int HALF = ENTROPY_WINDOW / 2;
constexpr int HALO_R = TILE_R + 2 * HALF, HALO_C = TILE_C + 2 * HALF;
constexpr int SEGMENT = 8; /* row-histogram columns one thread slides through */
constexpr int OUTSIDE = ENTROPY_LEVELS; /* level code of a cell outside the array */
constexpr int N_TABLE = ENTROPY_WINDOW * ENTROPY_WINDOW + 1;

struct Tables {
    uint32_t clogc[N_TABLE];
    float inv_scale[N_TABLE];
};

__device__ __forceinline__ void hist_add(uint4 &h, const uint4 &x)
{
    h.x += x.x, h.y += x.y, h.z += x.z, h.w += x.w;
}
__device__ __forceinline__ void hist_sub(uint4 &h, const uint4 &x)
{
    h.x -= x.x, h.y -= x.y, h.z -= x.z, h.w -= x.w;
}
/* the table sum over the four counts packed in one word */
__device__ __forceinline__ uint32_t word_sum(uint32_t w, const uint32_t *clogc)
{
    return clogc[__byte_perm(w, 0, 0x4440)] + clogc[__byte_perm(w, 0, 0x4441)] +
           clogc[__byte_perm(w, 0, 0x4442)] + clogc[__byte_perm(w, 0, 0x4443)];
}

__global__ void __launch_bounds__(TILE_C * THREADS_Y)
entropy_kernel(const uint8_t *__restrict__ levels, int n_rows, int n_cols, Tables tables,
               float *__restrict__ entropy)
{
    __shared__ uint8_t tile[HALO_R][HALO_C + 4];
    __shared__ uint4 row_hist[HALO_R][TILE_C + 1];
    __shared__ uint4 one_hot[ENTROPY_LEVELS + 1];
    __shared__ uint32_t clogc[N_TABLE];
    __shared__ float inv_scale[N_TABLE];
    const int tx = threadIdx.x, ty = threadIdx.y, tid = ty * TILE_C + tx;
    const int row0 = blockIdx.y * TILE_R, col0 = blockIdx.x * TILE_C;
    if (tid < N_TABLE) {
        clogc[tid] = tables.clogc[tid];
        inv_scale[tid] = tables.inv_scale[tid];
    }
    if (tid <= ENTROPY_LEVELS) {
        uint32_t w[4] = {0, 0, 0, 0};
        if (tid < ENTROPY_LEVELS) w[tid >> 2] = 1u << ((tid & 3) * 8);
        one_hot[tid] = make_uint4(w[0], w[1], w[2], w[3]);
    }
    for (int i = tid; i < HALO_R * HALO_C; i += TILE_C * THREADS_Y) {
        const int r = i / HALO_C, c = i - r * HALO_C;
        const int gr = row0 - HALF + r, gc = col0 - HALF + c;
        uint8_t v = OUTSIDE;
        if (gr >= 0 && gr < n_rows && gc >= 0 && gc < n_cols) {
            v = levels[(size_t)gr * n_cols + gc];
            v = v > 15 ? 15 : v;
        }
        tile[r][c] = v;
    }
    __syncthreads();

    /* Row histograms: task t is halo row t % HALO_R, columns (t / HALO_R) * SEGMENT onwards, so
     * the threads of a quarter warp store to distinct rows (distinct banks under the padding). */
    for (int t = tid; t < HALO_R * (TILE_C / SEGMENT); t += TILE_C * THREADS_Y) {
        const int r = t % HALO_R, x0 = (t / HALO_R) * SEGMENT;
        uint4 h = make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int b = 0; b < ENTROPY_WINDOW; b++) hist_add(h, one_hot[tile[r][x0 + b]]);
        row_hist[r][x0] = h;
#pragma unroll
        for (int x = x0 + 1; x < x0 + SEGMENT; x++) {
            hist_add(h, one_hot[tile[r][x + ENTROPY_WINDOW - 1]]);
            hist_sub(h, one_hot[tile[r][x - 1]]);
            row_hist[r][x] = h;
        }
    }
    __syncthreads();

    const int col = col0 + tx;
    if (col >= n_cols) return;
    const int first = ty * ROWS_PER_THREAD; /* tile-local output row; its window: halo rows first.. first + 4 */
    const int n_window_cols = min(col + HALF, n_cols - 1) - max(col - HALF, 0) + 1;
    uint4 h = make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int a = 0; a < ENTROPY_WINDOW; a++) hist_add(h, row_hist[first + a][tx]);
#pragma unroll
    for (int k = 0; k < ROWS_PER_THREAD; k++) {
        if (k > 0) {
            hist_add(h, row_hist[first + k + ENTROPY_WINDOW - 1][tx]);
            hist_sub(h, row_hist[first + k - 1][tx]);
        }
        const int row = row0 + first + k;
        if (row >= n_rows) break;
        const int n_window_rows = min(row + HALF, n_rows - 1) - max(row - HALF, 0) + 1;
        const int total = n_window_rows * n_window_cols;
        const uint32_t sum = word_sum(h.x, clogc) + word_sum(h.y, clogc) + word_sum(h.z, clogc) +
                             word_sum(h.w, clogc);
        entropy[(size_t)row * n_cols + col] = __fmul_rn(__uint2float_rn(clogc[total] - sum), inv_scale[total]);
    }
}

Tables make_tables()
{
    Tables t;
    entropy_tables(t.clogc, t.inv_scale);
    return t;
}

} // namespace

extern "C" gmm_status entropy_cuda(const uint8_t *d_levels, size_t n_rows, size_t n_cols,
                                   float *d_entropy)
{
    gmm_status status = GMM_OK;
    if (!d_levels || !d_entropy || n_rows > (size_t)65535 * TILE_R || n_cols > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "entropy_cuda: NULL array or more than %d rows", 65535 * TILE_R);
    if (n_rows == 0 || n_cols == 0) return GMM_OK;
    {
        dim3 grid((unsigned)((n_cols + TILE_C - 1) / TILE_C), (unsigned)((n_rows + TILE_R - 1) / TILE_R));
        entropy_kernel<<<grid, dim3(TILE_C, THREADS_Y)>>>(d_levels, (int)n_rows, (int)n_cols,
                                                         make_tables(), d_entropy);
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
