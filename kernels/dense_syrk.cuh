/* Internal to covariance.cu and wcov.cu (and bench/experiments/cov_product.cu): the
 * lower-triangle A^T A kernels on the float64 tensor cores, with optional centring and one-sided
 * weighting.
 *
 *   out[i][j] += sum_{n in this block's rows} w_n (x_n[i] - mu[i]) (x_n[j] - mu[j]),  i >= j tiles
 *
 * Grid: x = the lower-triangle tile pairs (ti >= tj), y = row slabs (split-K); out must be zeroed
 * first, and the slabs are summed with atomicAdd. Two kernels:
 * - syrk_dmma_kernel (sm_90 and later, even dim, aligned X): 128 x 128 tiles, cp.async stages,
 *   mma.sync m16n8k16 float64 (see its comment);
 * - syrk_tc_kernel (otherwise): each block of 4 warps computes a 64 x 64 tile, each warp 32 x 32
 *   as 4 x 4 WMMA 8x8x4 float64 fragments (DMMA). Tiles of 16 rows are loaded into registers
 *   (16-byte loads when dim is even), centred and weighted there, and stored to a double-buffered
 *   shared-memory stage: one barrier per 16 rows. */
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

    const int p = blockIdx.x;
    int ti, tj;
    dense_tile_pair(p, &ti, &tj);
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


/* ---- The 128 x 128 tile kernel: cp.async multi-stage staging, mma.sync m16n8k16 float64 ----
 *
 * Used when dim is even and X 16-byte aligned (sm_90 and later: the m16n8k16 float64 MMA is a
 * Hopper instruction, and the older m8n8k4 runs at about half its rate there). Each block of 8
 * warps computes a 128 x 128 lower-triangle tile, each warp 64 x 32 as 4 x 4 fragments of
 * 16 x 8: per 16 rows a warp loads 4 A fragments (16-byte loads) and 4 B fragments for 16 MMAs.
 * The 16 fragment rows g and g + 8 of the hardware layout are mapped to the adjacent tile rows
 * 2g and 2g + 1 (the same permutation for A and for C), so a thread's two A values of one k are
 * one 16-byte load. Rows arrive in stages of 16 through cp.async (ESTAGES in flight, zero-filled
 * past the matrix): one barrier per stage, no register staging. Fragments wholly above the
 * diagonal or past dim are skipped (warp-uniform tests). Centring and weighting (wcov) are
 * applied to the fragments after their shared-memory loads: a = w_k (x_ki - mu_i),
 * b = x_kj - mu_j, rows past the end having w = 0. */
constexpr int ET = 128, EWM = 64, EWN = 32, EMT = EWM / 16, ENT = EWN / 8, EKC = 16, ESTAGES = 4;
constexpr int ELD = ET + 4; /* 132 = 4 mod 16: the 16-byte A loads and 8-byte B loads are conflict-free */
constexpr int ETHREADS = 256;
constexpr int ESTAGE = 2 * EKC * ELD + EKC; /* doubles per stage: A rows, B rows, weights */
constexpr size_t ESMEM = sizeof(double) * ESTAGES * ESTAGE;

__device__ __forceinline__ void cp_async16(double *dst, const double *src, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async8(double *dst, const double *src, int src_bytes)
{
    unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(s), "l"(src), "r"(src_bytes) : "memory");
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
template <int N> __device__ __forceinline__ void cp_async_wait()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}
__device__ __forceinline__ void dmma16(double (&d)[4], const double (&a)[8], const double (&b)[4])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}

template <bool WEIGHTED_CENTRED>
__global__ void __launch_bounds__(ETHREADS, 1)
syrk_dmma_kernel(const double *__restrict__ X, size_t n, int d, const double *__restrict__ w,
                 size_t w_stride, const double *__restrict__ mu, double *__restrict__ out,
                 size_t rows_per_slab)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    extern __shared__ __align__(16) double dsm[];
    const int p = blockIdx.x;
    int ti, tj;
    dense_tile_pair(p, &ti, &tj);
    const int i0 = ti * ET, j0 = tj * ET;
    const size_t r_begin = blockIdx.y * rows_per_slab;
    if (r_begin >= n) return;
    const size_t r_end = min(n, r_begin + rows_per_slab);
    const size_t n_chunks = (r_end - r_begin + EKC - 1) / EKC;

    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    const int am = (warp >> 2) * EWM, bn = (warp & 3) * EWN;
    const int g = lane >> 2, q = lane & 3;

    /* which fragments this warp multiplies: inside dim, and not wholly above the diagonal */
    bool need[EMT][ENT];
    bool any = false;
#pragma unroll
    for (int mt = 0; mt < EMT; mt++)
#pragma unroll
        for (int nt = 0; nt < ENT; nt++) {
            const int ib = i0 + am + mt * 16, jb = j0 + bn + nt * 8;
            need[mt][nt] = ib < d && jb < d && jb <= ib + 15;
            any |= need[mt][nt];
        }

    auto load_stage = [&](int buf, size_t r0) {
        double *As = dsm + buf * ESTAGE, *Bs = As + EKC * ELD, *ws = Bs + EKC * ELD;
        constexpr int CHUNKS = EKC * (ET / 2); /* 16-byte chunks per operand */
#pragma unroll
        for (int e = t; e < 2 * CHUNKS; e += ETHREADS) {
            const int which = e / CHUNKS, rem = e - which * CHUNKS;
            const int rr = rem / (ET / 2), cc = 2 * (rem - rr * (ET / 2));
            const int col = (which ? j0 : i0) + cc;
            const size_t r = r0 + rr;
            const bool ok = r < r_end && col < d; /* d even: col + 1 < d too */
            cp_async16((which ? Bs : As) + rr * ELD + cc, ok ? X + r * (size_t)d + col : X, ok ? 16 : 0);
        }
        if (WEIGHTED_CENTRED && t < EKC) {
            const size_t r = r0 + t;
            const bool ok = r < r_end;
            cp_async8(ws + t, ok ? w + r * w_stride : w, ok ? 8 : 0);
        }
    };

    double mua[EMT][2], mub[ENT];
#pragma unroll
    for (int mt = 0; mt < EMT; mt++) {
        mua[mt][0] = mua[mt][1] = 0.0;
        if (WEIGHTED_CENTRED) {
            const int i = i0 + am + mt * 16 + 2 * g;
            if (i < d) mua[mt][0] = mu[i];
            if (i + 1 < d) mua[mt][1] = mu[i + 1];
        }
    }
#pragma unroll
    for (int nt = 0; nt < ENT; nt++) {
        const int j = j0 + bn + nt * 8 + g;
        mub[nt] = (WEIGHTED_CENTRED && j < d) ? mu[j] : 0.0;
    }
    double acc[EMT][ENT][4];
#pragma unroll
    for (int mt = 0; mt < EMT; mt++)
#pragma unroll
        for (int nt = 0; nt < ENT; nt++) acc[mt][nt][0] = acc[mt][nt][1] = acc[mt][nt][2] = acc[mt][nt][3] = 0.0;

#pragma unroll
    for (int s = 0; s < ESTAGES - 1; s++) {
        if ((size_t)s < n_chunks) load_stage(s, r_begin + (size_t)s * EKC);
        cp_async_commit();
    }
    for (size_t c = 0; c < n_chunks; c++) {
        cp_async_wait<ESTAGES - 2>(); /* this thread's copies of chunk c have landed */
        __syncthreads();              /* everyone's have, and chunk c - 1 is consumed */
        if (c + ESTAGES - 1 < n_chunks)
            load_stage((int)((c + ESTAGES - 1) % ESTAGES), r_begin + (c + ESTAGES - 1) * EKC);
        cp_async_commit();
        if (!any) continue;
        const double *As = dsm + (int)(c % ESTAGES) * ESTAGE, *Bs = As + EKC * ELD, *ws = Bs + EKC * ELD;
        double b[ENT][4], wk[4];
#pragma unroll
        for (int u = 0; u < 4; u++) wk[u] = WEIGHTED_CENTRED ? ws[q + 4 * u] : 1.0;
#pragma unroll
        for (int nt = 0; nt < ENT; nt++)
#pragma unroll
            for (int u = 0; u < 4; u++) {
                b[nt][u] = Bs[(q + 4 * u) * ELD + bn + nt * 8 + g];
                if (WEIGHTED_CENTRED) b[nt][u] -= mub[nt];
            }
#pragma unroll
        for (int mt = 0; mt < EMT; mt++) {
            if (!(need[mt][0] || need[mt][1] || need[mt][2] || need[mt][3])) continue;
            double a[8];
#pragma unroll
            for (int u = 0; u < 4; u++) {
                const double2 v = *reinterpret_cast<const double2 *>(&As[(q + 4 * u) * ELD + am + mt * 16 + 2 * g]);
                a[2 * u] = v.x;
                a[2 * u + 1] = v.y;
                if (WEIGHTED_CENTRED) {
                    a[2 * u] = wk[u] * (a[2 * u] - mua[mt][0]);
                    a[2 * u + 1] = wk[u] * (a[2 * u + 1] - mua[mt][1]);
                }
            }
#pragma unroll
            for (int nt = 0; nt < ENT; nt++)
                if (need[mt][nt]) dmma16(acc[mt][nt], a, b[nt]);
        }
    }
    cp_async_wait<0>();
#pragma unroll
    for (int mt = 0; mt < EMT; mt++)
#pragma unroll
        for (int nt = 0; nt < ENT; nt++) {
            if (!need[mt][nt]) continue;
            const int i = i0 + am + mt * 16 + 2 * g, j = j0 + bn + nt * 8 + 2 * q;
            /* c0, c1: tile row 2g (fragment row g); c2, c3: tile row 2g + 1 (fragment row g + 8) */
            if (i < d) {
                if (j <= i) atomicAdd(&out[(size_t)i * d + j], acc[mt][nt][0]);
                if (j + 1 <= i) atomicAdd(&out[(size_t)i * d + j + 1], acc[mt][nt][1]);
            }
            if (i + 1 < d) {
                if (j <= i + 1) atomicAdd(&out[(size_t)(i + 1) * d + j], acc[mt][nt][2]);
                if (j + 1 <= i + 1) atomicAdd(&out[(size_t)(i + 1) * d + j + 1], acc[mt][nt][3]);
            }
        }
#else
    __trap(); /* never launched below sm_90: the launcher checks the device */
#endif
}

/* Zeroes out (unless zero_first is false: then the lower triangle is added to what out holds),
 * launches the kernel over the lower-triangle tiles with enough row slabs to fill the device.
 * The caller mirrors and scales. <false, false> is the plain A^T A of rows that are already
 * centred and scaled (the M-step's packed blocks: bench/experiments/cov_product.cu). */
template <bool WEIGHTED, bool CENTRED>
gmm_status syrk_lower_accumulate(const double *X, size_t n, int d, const double *w,
                                 size_t w_stride, const double *mu, double *out,
                                 cudaStream_t stream, bool zero_first = true)
{
    gmm_status status = GMM_OK;
    if (zero_first) GMM_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(double) * (size_t)d * d, stream));
    if (n == 0) return GMM_OK;
    static_assert(WEIGHTED == CENTRED, "rows past the end are masked by a zero weight");
    if (d % 2 == 0 && ((uintptr_t)X % 16) == 0 && dense_cc_major() >= 9) {
        const int tiles = (d + ET - 1) / ET;
        const int pairs = tiles * (tiles + 1) / 2;
        int per_sm = 0;
        GMM_CUDA_CHECK(cudaFuncSetAttribute(syrk_dmma_kernel<WEIGHTED>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize, (int)ESMEM));
        GMM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, syrk_dmma_kernel<WEIGHTED>,
                                                                     ETHREADS, ESMEM));
        {
            /* About eight waves of row slabs: the edge and diagonal tiles cost less than the
             * others, and many short blocks even out (measured at 60000 x 784: 1.59 ms with
             * two waves, 1.48 ms with eight). */
            const size_t resident = (size_t)(per_sm > 0 ? per_sm : 1) * dense_sm_count();
            size_t want = (8 * resident + pairs - 1) / pairs;
            const size_t max_slabs = (n + EKC - 1) / EKC < 65535 ? (n + EKC - 1) / EKC : 65535;
            if (want > max_slabs) want = max_slabs;
            size_t rows = (n + want - 1) / want;
            rows = (rows + EKC - 1) / EKC * EKC;
            const size_t slabs = (n + rows - 1) / rows;
            dim3 grid(pairs, (unsigned)slabs);
            syrk_dmma_kernel<WEIGHTED><<<grid, ETHREADS, ESMEM, stream>>>(X, n, d, w, w_stride, mu, out, rows);
            GMM_LAUNCH_CHECK("syrk_dmma_kernel");
        }
        return GMM_OK;
    }
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
