/* Internal to the linalg kernels (cholesky.cu, trsm.cu): a 64 x 64 output tile accumulated by a
 * block of 256 threads on the float64 FMA units, 4 x 4 outputs per thread (rows ty + 16 i, columns
 * tx + 16 j), operands staged 16 at a time through shared memory. The operands are read through
 * loader functors so the same loop serves A B, A B^T and the in-place solves. Loaders return 0
 * outside the matrix; loads are coherent (no __ldg) because the solves read what the block wrote. */
#ifndef GMM_TILE64_CUH
#define GMM_TILE64_CUH

namespace tile64 {

constexpr int T = 64;
constexpr int KC = 16;
constexpr int THREADS = 256;

struct Smem {
    double a[KC][T + 1];
    double b[KC][T + 1];
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
    for (int k0 = k_begin; k0 < k_end; k0 += KC) {
        for (int e = t; e < T * KC; e += THREADS) {
            int r = e / KC, kk = e % KC;
            sm.a[kk][r] = (k0 + kk < k_end) ? la(r, k0 + kk) : 0.0;
        }
        for (int e = t; e < T * KC; e += THREADS) {
            int kk, c;
            if (B_K_CONTIG) {
                c = e / KC;
                kk = e % KC;
            } else {
                kk = e / T;
                c = e % T;
            }
            sm.b[kk][c] = (k0 + kk < k_end) ? lb(k0 + kk, c) : 0.0;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < KC; kk++) {
            double a[4], b[4];
#pragma unroll
            for (int i = 0; i < 4; i++) a[i] = sm.a[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 4; j++) b[j] = sm.b[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
}

} // namespace tile64

#endif
