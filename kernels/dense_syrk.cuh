/* Internal to covariance.cu and wcov.cu: the lower-triangle A^T A kernel on the float64 tensor
 * cores, with optional centring and one-sided weighting applied while staging.
 *
 *   out[i][j] += sum_{n in this block's rows} w_n (x_n[i] - mu[i]) (x_n[j] - mu[j]),  i >= j tiles
 *
 * Grid: x = the lower-triangle 64 x 64 tile pairs (ti >= tj), y = row slabs (split-K); out must be
 * zeroed first, and the slabs are summed with atomicAdd. Each block of 4 warps computes a 64 x 64
 * tile, each warp 32 x 32 as 4 x 4 WMMA 8x8x4 float64 fragments (DMMA). Tiles of 16 rows are
 * loaded into registers (16-byte loads when dim is even), centred and weighted there, and stored
 * to a double-buffered shared-memory stage: one barrier per 16 rows. */
#ifndef GMM_DENSE_SYRK_CUH
#define GMM_DENSE_SYRK_CUH

#include <mma.h>

#include "kernels/dense_lib.cuh"

namespace dense_syrk {

constexpr int TILE = 64;
constexpr int KC = 16;      /* rows per stage */
constexpr int LDS = 72;     /* padded stage row: 4 fragment rows hit 2 distinct 128-byte phases */
constexpr int LDC = 68;
constexpr int THREADS = 128;

template <bool WEIGHTED, bool CENTRED, bool VEC>
__global__ void __launch_bounds__(THREADS, 4) syrk_tc_kernel(const double *__restrict__ X, size_t n,
                                                          int d, const double *__restrict__ w,
                                                          size_t w_stride,
                                                          const double *__restrict__ mu,
                                                          double *__restrict__ out,
                                                          size_t rows_per_slab)
{
    using namespace nvcuda;
    __shared__ __align__(128) double smem[4 * KC * LDS];
    /* Stage b of A at smem + b KC LDS, of B at smem + (2 + b) KC LDS (pointer arithmetic, not a
     * pointer array indexed at run time, which would live in local memory). */
#define AS(b) (smem + (b) * KC * LDS)
#define BS(b) (smem + (2 + (b)) * KC * LDS)

    /* Tile pair p -> (ti, tj), ti >= tj, p = ti (ti + 1) / 2 + tj. */
    const int p = blockIdx.x;
    int ti = (int)((sqrt(8.0 * p + 1.0) - 1.0) * 0.5);
    while ((ti + 1) * (ti + 2) / 2 <= p) ti++;
    while (ti * (ti + 1) / 2 > p) ti--;
    const int tj = p - ti * (ti + 1) / 2;
    const int i0 = ti * TILE, j0 = tj * TILE;

    const size_t r_begin = blockIdx.y * rows_per_slab;
    if (r_begin >= n) return;
    const size_t r_end = min(n, r_begin + rows_per_slab);

    const int t = threadIdx.x;
    const int cp = t & 31, rg = t >> 5; /* column pair, row group */
    const int ca = i0 + 2 * cp, cb = j0 + 2 * cp;
    double mua0 = 0, mua1 = 0, mub0 = 0, mub1 = 0;
    if (CENTRED) {
        if (ca < d) mua0 = mu[ca];
        if (ca + 1 < d) mua1 = mu[ca + 1];
        if (cb < d) mub0 = mu[cb];
        if (cb + 1 < d) mub1 = mu[cb + 1];
    }

    double2 ra[4], rb[4];
    auto load_stage = [&](size_t r0) {
#pragma unroll
        for (int q = 0; q < 4; q++) {
            size_t r = r0 + rg + 4 * q;
            double2 a = make_double2(0.0, 0.0), b = make_double2(0.0, 0.0);
            if (r < r_end) {
                const double *row = X + r * (size_t)d;
                if (VEC) {
                    if (ca < d) a = __ldg(reinterpret_cast<const double2 *>(row + ca));
                    if (cb < d) b = __ldg(reinterpret_cast<const double2 *>(row + cb));
                } else {
                    if (ca < d) a.x = __ldg(row + ca);
                    if (ca + 1 < d) a.y = __ldg(row + ca + 1);
                    if (cb < d) b.x = __ldg(row + cb);
                    if (cb + 1 < d) b.y = __ldg(row + cb + 1);
                }
                if (CENTRED) {
                    /* Padding columns must stay 0: subtract only inside the matrix. */
                    if (ca < d) a.x -= mua0;
                    if (ca + 1 < d) a.y -= mua1;
                    if (cb < d) b.x -= mub0;
                    if (cb + 1 < d) b.y -= mub1;
                }
                if (WEIGHTED) {
                    double wr = __ldg(w + r * w_stride);
                    a.x *= wr;
                    a.y *= wr;
                }
            }
            ra[q] = a;
            rb[q] = b;
        }
    };
    auto store_stage = [&](int buf) {
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int rr = rg + 4 * q;
            *reinterpret_cast<double2 *>(&AS(buf)[rr * LDS + 2 * cp]) = ra[q];
            *reinterpret_cast<double2 *>(&BS(buf)[rr * LDS + 2 * cp]) = rb[q];
        }
    };

    const int warp = t >> 5, wr = warp >> 1, wc = warp & 1;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[4][4];
#pragma unroll
    for (int fi = 0; fi < 4; fi++)
#pragma unroll
        for (int fj = 0; fj < 4; fj++) wmma::fill_fragment(acc[fi][fj], 0.0);

    load_stage(r_begin);
    store_stage(0);
    __syncthreads();
    int buf = 0;
    for (size_t r0 = r_begin; r0 < r_end; r0 += KC) {
        const bool more = r0 + KC < r_end;
        if (more) load_stage(r0 + KC);
#pragma unroll
        for (int ks = 0; ks < KC; ks += 4) {
            wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::col_major> fa[4];
            wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> fb[4];
#pragma unroll
            for (int f = 0; f < 4; f++) {
                wmma::load_matrix_sync(fa[f], AS(buf) + ks * LDS + wr * 32 + f * 8, LDS);
                wmma::load_matrix_sync(fb[f], BS(buf) + ks * LDS + wc * 32 + f * 8, LDS);
            }
#pragma unroll
            for (int fi = 0; fi < 4; fi++)
#pragma unroll
                for (int fj = 0; fj < 4; fj++) wmma::mma_sync(acc[fi][fj], fa[fi], fb[fj], acc[fi][fj]);
        }
        if (more) store_stage(buf ^ 1);
        __syncthreads();
        buf ^= 1;
    }

#undef AS
#undef BS
    /* Stage the tile through shared memory so that the atomics are coalesced. */
    double *Cs = smem;
#pragma unroll
    for (int fi = 0; fi < 4; fi++)
#pragma unroll
        for (int fj = 0; fj < 4; fj++)
            wmma::store_matrix_sync(Cs + (wr * 32 + fi * 8) * LDC + wc * 32 + fj * 8, acc[fi][fj],
                                    LDC, wmma::mem_row_major);
    __syncthreads();
    for (int e = t; e < TILE * TILE; e += THREADS) {
        int r = e / TILE, c = e % TILE;
        int gi = i0 + r, gj = j0 + c;
        if (gi < d && gj <= gi) atomicAdd(&out[(size_t)gi * d + gj], Cs[r * LDC + c]);
    }
}

/* Zeroes out, launches the kernel over the lower-triangle tiles with enough row slabs to fill
 * the device. The caller mirrors and scales. */
template <bool WEIGHTED, bool CENTRED>
gmm_status syrk_lower_accumulate(const double *X, size_t n, int d, const double *w,
                                 size_t w_stride, const double *mu, double *out,
                                 cudaStream_t stream)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(double) * (size_t)d * d, stream));
    if (n == 0) return GMM_OK;
    {
        const int tiles = (d + TILE - 1) / TILE;
        const int pairs = tiles * (tiles + 1) / 2;
        const bool vec = d % 2 == 0 && ((uintptr_t)X % 16) == 0;
        int per_sm = 0;
        GMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &per_sm,
            vec ? syrk_tc_kernel<WEIGHTED, CENTRED, true> : syrk_tc_kernel<WEIGHTED, CENTRED, false>,
            THREADS, 0));
        size_t max_slabs = (n + KC - 1) / KC;
        if (max_slabs > 65535) max_slabs = 65535;
        size_t want = dense_pick_slabs((size_t)pairs, (size_t)per_sm * dense_sm_count(), max_slabs);
        size_t rows = (n + want - 1) / want;
        rows = (rows + KC - 1) / KC * KC;
        size_t slabs = (n + rows - 1) / rows;
        dim3 grid(pairs, (unsigned)slabs);
        if (vec)
            syrk_tc_kernel<WEIGHTED, CENTRED, true>
                <<<grid, THREADS, 0, stream>>>(X, n, d, w, w_stride, mu, out, rows);
        else
            syrk_tc_kernel<WEIGHTED, CENTRED, false>
                <<<grid, THREADS, 0, stream>>>(X, n, d, w, w_stride, mu, out, rows);
        GMM_LAUNCH_CHECK("syrk_tc_kernel");
    }
fail:
    return status;
}

} // namespace dense_syrk

#endif
