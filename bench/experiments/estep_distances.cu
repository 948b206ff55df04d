/* E-step distance experiments: s_ik = ||x_i U_k - b_k||^2 for every row i and component k
 * (X n_rows x dim, U_k upper triangular dim x dim, b_k = mu_k U_k; float64, row-major; versions:
 * bench/experiments/experiments.h). The E-step's exponents before the constants and the
 * log-sum-exp.
 *   version 0  the CUDA backend's way: [U_1 .. U_K] packed in column blocks of 112 (the zeros
 *              below the diagonals skipped), one DGEMM per block into the product Y (n_rows x
 *              K dim), then a row kernel reading Y (the backend's estep_rows_cuda also forms the
 *              log-probabilities; here only the squares);
 *   version 1  one DMMA kernel (mma.sync m16n8k8 f64, compute capability 9.0): a block of
 *              threads takes 128 rows by 112 columns of one U_k, its k-loop only over U_k's
 *              rows [0, j1) that are not zero, cp.async double-buffered tiles of 32, and the
 *              squares in the epilogue: the product never reaches memory; the 7 column tiles'
 *              partial sums are added in order by a second kernel.
 * Measured (2026-11-27, H100; bench/results/2026-11-27-streaming.md): `gmm-bench estep_fused`
 * (60000 x 784, K = 10) version 1 10.19 ms against 9.36 ms for version 0; in a standalone
 * harness 9.6-9.7 ms against 9.1-9.3 (version 0's DGEMMs alone 8.1-8.3 ms, one full 60000 x 784
 * by 784 x 7840 DGEMM 12.8-13.1 ms at 56-58 TFLOP/s). Version 1 runs at about 70% of cuBLAS's
 * DGEMM rate on its 395 GFLOP (the triangles and the diagonal tiles' zeros). Tiles of 16 deep
 * with 3-5 stages, 16-byte fragment loads (k permuted alike in both operands), m16n8k16, all K
 * components in one pipelined loop per block of threads and the row tiles outermost all
 * measured 9.6-12.9 ms: an E-step at 85% of DGEMM needs a kernel that feeds the tensor cores
 * better than one 128 x 112 block per SM does (thread-block clusters sharing the loads).  */
#include <cuda_runtime.h>

#include "bench/experiments/experiments.h"
#include "kernels/cuda_check.h"

#define FUSED_BM 128
#define FUSED_BN ESTEP_DISTANCES_TILE_COLS
#define FUSED_BK 32
#define FUSED_THREADS 256
#define FUSED_AS (FUSED_BK + 4)  /* A rows in shared memory: conflict-free 8-byte fragments */
#define FUSED_BS (FUSED_BN + 4)
#define FUSED_STAGE (FUSED_BM * FUSED_AS + FUSED_BK * FUSED_BS)
#define FUSED_SMEM (2 * FUSED_STAGE * (int)sizeof(double))
#define ROWS_BLOCK 112            /* version 0's column blocks (the backend's for d = 784) */

static __host__ __device__ inline size_t col_tiles(int dim)
{
    return (size_t)(dim + FUSED_BN - 1) / FUSED_BN;
}

/* ---- version 0 ----------------------------------------------------------------------------- */

/* The triangle-blocked layout of the backend's E-step (models/backend/cpu/cpu_estep.h): block J
 * (columns [j0, j0 + w), rows [0, j0 + w)) is [U_1[0:j1, J] .. U_K[0:j1, J]], after the blocks
 * before it. */
static __global__ void pack_blocks_kernel(const double *__restrict__ U, int K, int d, int block,
                                          double *ucat)
{
    const int64_t dd = (int64_t)d * d, n = dd * K;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = e / dd, rem = e - m * dd, j = rem / d, l = rem - j * d;
        const int64_t J = l / block, j0 = J * block, w = d - j0 < block ? d - j0 : block;
        if (j >= j0 + w) continue;
        ucat[(int64_t)K * block * block * (J * (J + 1) / 2) + j * K * w + m * w + (l - j0)] = U[e];
    }
}

/* A warp per (row, component): the squares of the blocked product's row less b_k. */
static __global__ void blocked_rows_kernel(const double *__restrict__ Y, size_t n, int K, int d,
                                           int block, const double *__restrict__ b, double *dist)
{
    const int64_t warp = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (warp >= (int64_t)n * K) return;
    const int64_t i = warp / K;
    const int k = (int)(warp - i * K);
    const double *y = Y + (size_t)i * K * d;
    double s = 0;
    for (int j = lane; j < d; j += 32) {
        const int j0 = j / block * block, w = d - j0 < block ? d - j0 : block;
        const double v = y[(size_t)K * j0 + (size_t)k * w + (j - j0)] - b[(size_t)k * d + j];
        s += v * v;
    }
    for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
    if (lane == 0) dist[warp] = s;
}

static gmm_status blocked_gemms(const double *d_X, size_t n, int d, int K, const double *d_U,
                                const double *d_b, double *d_dist, double *work, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    const int block = d < ROWS_BLOCK ? d : ROWS_BLOCK;
    double *ucat = work, *Y = work + (size_t)K * d * d;
    cudaStream_t stream = (cudaStream_t)gmm_gpu_stream(gpu);
    pack_blocks_kernel<<<1024, 256, 0, stream>>>(d_U, K, d, block, ucat);
    GMM_LAUNCH_CHECK("pack_blocks_kernel");
    {
        size_t off = 0;
        for (int j0 = 0; j0 < d; j0 += block) {
            const int w = d - j0 < block ? d - j0 : block, j1 = j0 + w;
            status = gmm_gpu_dgemm(gpu, false, false, (int)n, K * w, j1, 1.0, d_X, d, ucat + off,
                                   K * w, 0.0, Y + (size_t)K * j0, K * d);
            if (status != GMM_OK) goto fail;
            off += (size_t)j1 * K * w;
        }
    }
    blocked_rows_kernel<<<(unsigned)((n * K * 32 + 255) / 256), 256, 0, stream>>>(Y, n, K, d,
                                                                                   block, d_b,
                                                                                   d_dist);
    GMM_LAUNCH_CHECK("blocked_rows_kernel");
fail:
    return status;
}

/* ---- version 1 ----------------------------------------------------------------------------- */

static __device__ __forceinline__ void copy16(double *dst, const double *src, bool ok)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(dst);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(s), "l"(src),
                 "r"(ok ? 16 : 0));
}

static __device__ __forceinline__ void dmma(double (&d)[4], const double (&a)[4],
                                            const double (&b)[2])
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
}

/* partial[i, k, ct] = sum over column tile ct of (x_i U_k - b_k)^2. Block (tile, row tile):
 * tile = k NT + (NT - 1 - ct), the widest column tiles (deepest k-loops) first. 8 warps: a
 * warp takes 32 rows (two m16 tiles) by 56 columns (seven n8 tiles); fragments as the PTX ISA
 * lays out m16n8k8 f64 (a: rows g, g + 8 by columns t, t + 4; b: rows t, t + 4 by column g;
 * c: rows g, g + 8 by columns 2t, 2t + 1, with g = lane / 4, t = lane % 4). */
static __global__ void __launch_bounds__(FUSED_THREADS, 1)
    fused_kernel(const double *__restrict__ X, int N, int d, int K,
                 const double *__restrict__ U, const double *__restrict__ b, double *partial)
{
    extern __shared__ double sm[];
    __shared__ double red[2][FUSED_BM];
    const int NT = (int)col_tiles(d);
    const int ct = NT - 1 - (int)(blockIdx.x % NT), k = blockIdx.x / NT;
    const int r0 = blockIdx.y * FUSED_BM, n0 = ct * FUSED_BN;
    const int j1 = min(d, n0 + FUSED_BN), k_tiles = (j1 + FUSED_BK - 1) / FUSED_BK;
    const int tid = threadIdx.x, lane = tid & 31, w = tid >> 5, wm = w >> 1, wn = w & 1;
    const int g = lane >> 2, t = lane & 3;
    const double *Uk = U + (size_t)k * d * d;
    double acc[2][7][4] = {};
    auto load = [&](int kt, int st) {
        double *As = sm + st * FUSED_STAGE, *Bs = As + FUSED_BM * FUSED_AS;
        const int k0 = kt * FUSED_BK;
        for (int c = tid; c < FUSED_BM * FUSED_BK / 2; c += FUSED_THREADS) {
            const int row = c / (FUSED_BK / 2), kc = c % (FUSED_BK / 2) * 2;
            const bool ok = r0 + row < N && k0 + kc < j1;
            copy16(As + row * FUSED_AS + kc, X + (ok ? (size_t)(r0 + row) * d + k0 + kc : 0), ok);
        }
        for (int c = tid; c < FUSED_BK * FUSED_BN / 2; c += FUSED_THREADS) {
            const int row = c / (FUSED_BN / 2), nc = c % (FUSED_BN / 2) * 2;
            const bool ok = k0 + row < j1 && n0 + nc < d;
            copy16(Bs + row * FUSED_BS + nc, Uk + (ok ? (size_t)(k0 + row) * d + n0 + nc : 0), ok);
        }
        asm volatile("cp.async.commit_group;\n");
    };
    load(0, 0);
    for (int kt = 0; kt < k_tiles; kt++) {
        asm volatile("cp.async.wait_group 0;\n");
        __syncthreads(); /* tile kt landed; every warp is done with the other stage */
        if (kt + 1 < k_tiles) load(kt + 1, (kt + 1) & 1);
        const double *As = sm + (kt & 1) * FUSED_STAGE, *Bs = As + FUSED_BM * FUSED_AS;
#pragma unroll
        for (int kk = 0; kk < FUSED_BK; kk += 8) {
            double a[2][4], bb[7][2];
#pragma unroll
            for (int mi = 0; mi < 2; mi++) {
                const double *p = As + (wm * 32 + mi * 16 + g) * FUSED_AS + kk + t;
                a[mi][0] = p[0];
                a[mi][1] = p[8 * FUSED_AS];
                a[mi][2] = p[4];
                a[mi][3] = p[8 * FUSED_AS + 4];
            }
#pragma unroll
            for (int ni = 0; ni < 7; ni++) {
                const double *p = Bs + (kk + t) * FUSED_BS + wn * 56 + ni * 8 + g;
                bb[ni][0] = p[0];
                bb[ni][1] = p[4 * FUSED_BS];
            }
#pragma unroll
            for (int mi = 0; mi < 2; mi++)
#pragma unroll
                for (int ni = 0; ni < 7; ni++) dmma(acc[mi][ni], a[mi], bb[ni]);
        }
    }
    double s[2][2] = {};
#pragma unroll
    for (int ni = 0; ni < 7; ni++)
#pragma unroll
        for (int q = 0; q < 2; q++) {
            const int col = n0 + wn * 56 + ni * 8 + 2 * t + q;
            if (col >= d) continue;
            const double bc = b[(size_t)k * d + col];
#pragma unroll
            for (int mi = 0; mi < 2; mi++) {
                const double v0 = acc[mi][ni][q] - bc, v1 = acc[mi][ni][2 + q] - bc;
                s[mi][0] += v0 * v0;
                s[mi][1] += v1 * v1;
            }
        }
#pragma unroll
    for (int mi = 0; mi < 2; mi++)
#pragma unroll
        for (int h = 0; h < 2; h++) {
            double v = s[mi][h];
            v += __shfl_xor_sync(0xffffffffu, v, 1);
            v += __shfl_xor_sync(0xffffffffu, v, 2);
            if (t == 0) red[wn][wm * 32 + mi * 16 + h * 8 + g] = v;
        }
    __syncthreads();
    if (tid < FUSED_BM && r0 + tid < N)
        partial[((size_t)(r0 + tid) * K + k) * NT + ct] = red[0][tid] + red[1][tid];
}

/* dist[e] = the column tiles' partial sums of entry e, in tile order. */
static __global__ void sum_tiles_kernel(const double *__restrict__ partial, size_t n, int NT,
                                        double *dist)
{
    const size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (e >= n) return;
    double s = 0;
    for (int c = 0; c < NT; c++) s += partial[e * NT + c];
    dist[e] = s;
}

static gmm_status fused_dmma(const double *d_X, size_t n, int d, int K, const double *d_U,
                             const double *d_b, double *d_dist, double *partial, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    int device = 0, major = 0;
    const size_t NT = col_tiles(d), row_tiles = (n + FUSED_BM - 1) / FUSED_BM;
    cudaStream_t stream = (cudaStream_t)gmm_gpu_stream(gpu);
    GMM_CUDA_CHECK(cudaGetDevice(&device));
    GMM_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (major < 9)
        return gmm_error(GMM_ERR_UNSUPPORTED, "estep_fused_dmma: float64 m16n8k8 MMA needs "
                         "compute capability 9.0 (this GPU: %d.x)", major);
    if (d % 2 != 0 || row_tiles > 65535)
        return gmm_error(GMM_ERR_UNSUPPORTED, "estep_fused_dmma: needs an even dim (16-byte "
                         "row copies) and at most %d rows", 65535 * FUSED_BM);
    GMM_CUDA_CHECK(cudaFuncSetAttribute(fused_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        FUSED_SMEM));
    fused_kernel<<<dim3((unsigned)(K * NT), (unsigned)row_tiles), FUSED_THREADS, FUSED_SMEM,
                   stream>>>(d_X, (int)n, d, K, d_U, d_b, partial);
    GMM_LAUNCH_CHECK("fused_kernel");
    sum_tiles_kernel<<<(unsigned)((n * K + 255) / 256), 256, 0, stream>>>(partial, n * K, (int)NT,
                                                                          d_dist);
    GMM_LAUNCH_CHECK("sum_tiles_kernel");
fail:
    return status;
}

extern "C" gmm_status estep_distances_version(int version, const double *d_X, size_t n_rows,
                                              int dim, int n_components, const double *d_U,
                                              const double *d_b, double *d_dist, void *d_work,
                                              size_t work_bytes, gmm_gpu *gpu)
{
    if (!d_X || !d_U || !d_b || !d_dist || !d_work || !gpu || dim <= 0 || n_components <= 0 ||
        n_rows == 0 || n_rows > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "estep_distances_version: bad arguments");
    if (version < 0 || version >= ESTEP_DISTANCES_N_VERSIONS)
        return gmm_error(GMM_ERR_ARG, "estep_distances_version: no version %d", version);
    if (work_bytes < estep_distances_work_bytes(version, n_rows, dim, n_components))
        return gmm_error(GMM_ERR_ARG, "estep_distances_version: workspace too small");
    return version == 0 ? blocked_gemms(d_X, n_rows, dim, n_components, d_U, d_b, d_dist,
                                        (double *)d_work, gpu)
                        : fused_dmma(d_X, n_rows, dim, n_components, d_U, d_b, d_dist,
                                     (double *)d_work, gpu);
}
