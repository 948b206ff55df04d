/* Internal to the hand-written Cholesky and triangular-solve experiments (bench/experiments/
 * cholesky.cu, trsm.cu; moved here from linalg/ with them): a 64 x 64 output tile accumulated by a
 * block of 256 threads on the float64 FMA units, 4 x 4 outputs per thread (rows ty + 16 i, columns
 * tx + 16 j), operands staged 16 at a time through double-buffered shared memory: the next 16
 * are loaded into registers while the current 16 are multiplied, so the load latency hides
 * behind the arithmetic. The operands are read through loader functors so the same loop serves
 * A B, A B^T and the in-place solves. Loaders return 0 outside the matrix; loads are coherent
 * (no __ldg) because the solves read what the block wrote. */
#ifndef GMM_BENCH_EXPERIMENTS_TILE64_CUH
#define GMM_BENCH_EXPERIMENTS_TILE64_CUH

namespace tile64 {

constexpr int T = 64;
constexpr int KC = 16;
constexpr int THREADS = 256;

constexpr int PER_THREAD = T * KC / THREADS; /* operand values each thread stages per step */

struct Smem {
    double a[2][KC][T + 1];
    double b[2][KC][T + 1];
};

__device__ inline void zero(double (&acc)[4][4])
{
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int j = 0; j < 4; j++) acc[i][j] = 0.0;
}

/* acc += sum_{k in [k_begin, k_end)} la(r, k) lb(k, c). B_K_CONTIG: lb(k, c) is contiguous along
 * k in memory (the A B^T case), so consecutive threads take consecutive k when loading it. */
template <bool B_K_CONTIG, class LA, class LB>
__device__ inline void gemm(double (&acc)[4][4], int k_begin, int k_end, LA la, LB lb, Smem &sm)
{
    const int t = threadIdx.x, tx = t & 15, ty = t >> 4;
    if (k_begin >= k_end) return;
    double ra[PER_THREAD], rb[PER_THREAD];
    auto b_index = [&](int e, int &kk, int &c) {
        if (B_K_CONTIG) {
            c = e / KC;
            kk = e % KC;
        } else {
            kk = e / T;
            c = e % T;
        }
    };
    auto fetch = [&](int k0) {
#pragma unroll
        for (int p = 0; p < PER_THREAD; p++) {
            const int e = t + p * THREADS, r = e / KC, kk = e % KC;
            ra[p] = (k0 + kk < k_end) ? la(r, k0 + kk) : 0.0;
        }
#pragma unroll
        for (int p = 0; p < PER_THREAD; p++) {
            int kk, c;
            b_index(t + p * THREADS, kk, c);
            rb[p] = (k0 + kk < k_end) ? lb(k0 + kk, c) : 0.0;
        }
    };
    auto store = [&](int buf) {
#pragma unroll
        for (int p = 0; p < PER_THREAD; p++) {
            const int e = t + p * THREADS;
            sm.a[buf][e % KC][e / KC] = ra[p];
            int kk, c;
            b_index(e, kk, c);
            sm.b[buf][kk][c] = rb[p];
        }
    };
    fetch(k_begin);
    store(0);
    __syncthreads();
    int buf = 0;
    for (int k0 = k_begin; k0 < k_end; k0 += KC) {
        const bool more = k0 + KC < k_end;
        if (more) fetch(k0 + KC); /* in flight while this step multiplies */
#pragma unroll
        for (int kk = 0; kk < KC; kk++) {
            double a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = sm.a[buf][kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++) b[j] = sm.b[buf][kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        if (more) store(buf ^ 1); /* the other buffer: last read before the previous barrier */
        __syncthreads();
        buf ^= 1;
    }
}

} // namespace tile64

#endif
