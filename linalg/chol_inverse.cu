/* GPU version of the precision Cholesky factor (see chol_inverse.h): recursive halving whose
 * products are strided-batched cuBLAS DGEMMs over the whole batch, and diagonal blocks of at most
 * LEAF_MAX factored and inverted in registers, a thread block per matrix.
 *
 * Row-major, S = R^T R, U = R^{-1}. Split S at n1 = n / 2:
 *   U11 of S11 (recursively); R12 = U11^T S12; S22' = S22 - R12^T R12; U22 of S22' (recursively);
 *   U12 = -U11 R12 U22.
 * The work happens in d_U (P) with the scratch d_work (Q) beside it, at the same positions:
 * R12 goes to Q's upper-right block of the split, (R12 U22)^T to its lower-left one. The Schur
 * update writes the whole S22 block, its lower triangle too (nothing reads that before it is
 * cleared): each block kernel zeroes the strict lower triangle of its own diagonal block and each
 * split zeroes its lower-left block at its end, so that a finished U11 or U22 is triangular when
 * a product uses it. */
#include "linalg/chol_inverse.h"

#include "kernels/dense_lib.cuh"

namespace {

/* The diagonal blocks are at most LEAF_MAX wide (784 -> 392 -> 196 -> 98 -> 49): 1.00-1.03 ms
 * for K = 10, d = 784 on an H100, against 1.09-1.11 ms with blocks of up to 112 by a 7 x 4
 * register tile (measured; README). 16 x 32 threads, each holding 4 rows x 2 columns. */
constexpr int LEAF_MAX = 64, LEAF_TX = 32, LEAF_TY = 16, LEAF_R = 4, LEAF_C = 2;

/* Shared memory of the block kernel for an n x n block: row k twice (double-buffered), the
 * pivots, 1 / pivot twice, and the n x (n + 1) transpose of the result for the write-out (35 KB
 * at n = 64: no opt-in beyond the default 48 KB). */
size_t leaf_shared_bytes(int n)
{
    return sizeof(double) * (3 * (size_t)LEAF_MAX + 2 + (size_t)n * (n + 1));
}

/* One thread block per matrix b: the n x n diagonal block at (o, o) of P (leading dimension d,
 * matrix b at P + b d^2). Reads its upper triangle S and writes U = R^{-1} (S = R^T R) over the
 * block, zeros below the diagonal.
 *
 * Symmetric Gaussian elimination on [S | I]: step k subtracts S[k][i] / S[k][k] times row k
 * from every row i > k, on the upper triangle of the left half (which ends as D L^T, with
 * S = L D L^T, L unit lower) and on the right half (which ends as M = L^{-1}, unit lower). Then
 * R = D^{1/2} L^T and U = M^T D^{-1/2}: U[i][j] = M[j][i] / sqrt(D[j]). Both halves share one
 * n x n array C held in registers (thread (ty, tx) holds rows ty + TY r, columns tx + 32 c):
 * after step k the columns j <= k of a row i > k are M's (the left half's are not needed any
 * more: the multipliers come from row k's upper triangle), so step k updates, for rows i > k,
 * the columns j <= k (M; column k starts at M[i][k] = 0, the lower triangle's untouched zero,
 * against row k's M[k][k] = 1) and j >= i (S's upper triangle). Per step: the owner of row k
 * publishes it in shared memory (with 1 at column k, the pivot apart), one barrier, and every
 * thread updates its registers. A pivot that is not > 0 records o + k + 1 in info[b] (unless an
 * earlier block already recorded a failure) and leaves the block as it was. */
__global__ void __launch_bounds__(LEAF_TY * LEAF_TX, 1)
    leaf_kernel(double *P, int d, int o, int n, int *info)
{
    constexpr int MOST = LEAF_MAX; /* n <= MOST = LEAF_TY * LEAF_R = LEAF_TX * LEAF_C */
    extern __shared__ double shared[];
    double *row = shared, *pivot = shared + 2 * MOST, *inverse = pivot + MOST;
    double *T = inverse + 2;
    const int b = blockIdx.x, tx = threadIdx.x, ty = threadIdx.y;
    double *Pb = P + (size_t)b * d * d + (size_t)o * d + o;
    double v[LEAF_R][LEAF_C];
#pragma unroll
    for (int r = 0; r < LEAF_R; r++)
#pragma unroll
        for (int c = 0; c < LEAF_C; c++) {
            const int i = ty + LEAF_TY * r, j = tx + LEAF_TX * c;
            v[r][c] = i < n && j < n && i <= j ? Pb[(size_t)i * d + j] : 0.0;
        }
    for (int k = 0; k < n; k++) {
        double *rk = row + (k & 1) * MOST;
        if (ty == k % LEAF_TY) { /* the owner of row k publishes it (registers: static indices) */
            const int owner_r = k / LEAF_TY; /* hoisted: keeps v in registers */
#pragma unroll
            for (int r = 0; r < LEAF_R; r++)
                if (r == owner_r) {
#pragma unroll
                    for (int c = 0; c < LEAF_C; c++) {
                        const int j = tx + LEAF_TX * c;
                        if (j == k) {
                            pivot[k] = v[r][c];
                            inverse[k & 1] = __drcp_rn(v[r][c]); /* 1 / pivot, rounded */
                            v[r][c] = 1.0;                       /* M[k][k] */
                        }
                        if (j < n) rk[j] = v[r][c];
                    }
                }
        }
        __syncthreads();
        /* no test of the pivot here (it would wait on its load): a bad one makes NaNs or
         * garbage from here on, and the pivots are checked once at the end */
        const double inv = inverse[k & 1];
        double rv[LEAF_C];
#pragma unroll
        for (int c = 0; c < LEAF_C; c++) rv[c] = rk[tx + LEAF_TX * c]; /* past n: unused */
#pragma unroll
        for (int r = 0; r < LEAF_R; r++) {
            const int i = ty + LEAF_TY * r;
            if (i > k && i < n) { /* the same for the whole warp (one ty) */
                const double f = rk[i] * inv;
#pragma unroll
                for (int c = 0; c < LEAF_C; c++) {
                    const int j = tx + LEAF_TX * c;
                    if (j <= k || j >= i) v[r][c] -= f * rv[c];
                }
            }
        }
    }
    /* the first pivot that is not > 0 (NaN included) fails the block, which is left as it was */
    __shared__ int failed_at;
    if (tx == 0 && ty == 0) {
        int k = 0;
        while (k < n && pivot[k] > 0.0) k++;
        failed_at = k < n ? k + 1 : 0;
        if (failed_at && info[b] == 0) info[b] = o + failed_at;
    }
    __syncthreads();
    if (failed_at) return;
    /* U[j][i] = M[i][j] / sqrt(D[i]) for j <= i, 0 above; through T for coalesced writes */
#pragma unroll
    for (int r = 0; r < LEAF_R; r++)
#pragma unroll
        for (int c = 0; c < LEAF_C; c++) {
            const int i = ty + LEAF_TY * r, j = tx + LEAF_TX * c;
            if (i < n && j < n) T[j * (n + 1) + i] = j <= i ? v[r][c] / sqrt(pivot[i]) : 0.0;
        }
    __syncthreads();
    for (int e = ty * LEAF_TX + tx; e < n * n; e += LEAF_TY * LEAF_TX) {
        const int i = e / n, j = e - i * n;
        Pb[(size_t)i * d + j] = T[i * (n + 1) + j];
    }
}

/* P[i][j] = S[i][j] on and above the diagonal of every matrix (the lower triangle is not
 * needed: see the top of the file). */
__global__ void copy_upper_kernel(const double *__restrict__ S, double *__restrict__ P, int d,
                                  int batch)
{
    const int64_t dd = (int64_t)d * d, n = dd * batch;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        if (rem / d <= rem % d) P[e] = S[e];
    }
}

/* Zeros the rows x cols block at (r0, c0) of every matrix (blockIdx.z: the matrix). */
__global__ void zero_block_kernel(double *P, int d, int r0, int c0, int rows, int cols)
{
    double *Pb = P + (size_t)blockIdx.z * d * d;
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < rows; i += gridDim.y * blockDim.y)
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x)
            Pb[(size_t)(r0 + i) * d + c0 + j] = 0.0;
}

struct run {
    gmm_gpu *gpu;
    cudaStream_t stream;
    double *P, *Q;
    int d, batch;
    int *info;
};

/* Row-major block (i, j) of matrix 0 (the batch strides add the others). */
inline double *at(const run &r, double *X, int i, int j) { return X + (size_t)i * r.d + j; }

gmm_status product(const run &r, bool ta, bool tb, int m, int n, int k, double alpha,
                   const double *A, const double *B, double beta, double *C)
{
    const long long dd = (long long)r.d * r.d;
    return gmm_gpu_dgemm_strided(r.gpu, ta, tb, m, n, k, alpha, A, r.d, dd, B, r.d, dd, beta, C,
                                 r.d, dd, r.batch);
}

/* U of the n x n diagonal block at (o, o), in place in P. */
gmm_status factor_block(const run &r, int o, int n)
{
    gmm_status status = GMM_OK;
    const int n1 = n / 2, n2 = n - n1, a = o, b = o + n1;
    double *P = r.P, *Q = r.Q;
    if (n <= LEAF_MAX) {
        leaf_kernel<<<r.batch, dim3(LEAF_TX, LEAF_TY), leaf_shared_bytes(n), r.stream>>>(
            r.P, r.d, o, n, r.info);
        GMM_LAUNCH_CHECK("chol_inverse leaf_kernel");
        return GMM_OK;
    }
    if ((status = factor_block(r, a, n1)) != GMM_OK) goto fail;
    /* R12 = U11^T S12 into Q's upper-right block; S22 -= R12^T R12 */
    if ((status = product(r, true, false, n1, n2, n1, 1.0, at(r, P, a, a), at(r, P, a, b), 0.0,
                          at(r, Q, a, b))) != GMM_OK)
        goto fail;
    if ((status = product(r, true, false, n2, n2, n1, -1.0, at(r, Q, a, b), at(r, Q, a, b), 1.0,
                          at(r, P, b, b))) != GMM_OK)
        goto fail;
    if ((status = factor_block(r, b, n2)) != GMM_OK) goto fail;
    /* (R12 U22)^T = U22^T R12^T into Q's lower-left block; U12 = -U11 (R12 U22) */
    if ((status = product(r, true, true, n2, n1, n2, 1.0, at(r, P, b, b), at(r, Q, a, b), 0.0,
                          at(r, Q, b, a))) != GMM_OK)
        goto fail;
    if ((status = product(r, false, true, n1, n2, n1, -1.0, at(r, P, a, a), at(r, Q, b, a), 0.0,
                          at(r, P, a, b))) != GMM_OK)
        goto fail;
    {
        dim3 block(32, 8), grid((n1 + 31) / 32, (n2 + 7) / 8 < 64 ? (n2 + 7) / 8 : 64, r.batch);
        zero_block_kernel<<<grid, block, 0, r.stream>>>(P, r.d, b, a, n2, n1);
        GMM_LAUNCH_CHECK("chol_inverse zero_block_kernel");
    }
fail:
    return status;
}

} // namespace

extern "C" gmm_status chol_inverse_cuda(const double *d_S, int dim, int batch, double *d_U,
                                        double *d_work, int *d_info, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    if (!d_S || !d_U || !d_work || !d_info || !gpu || dim <= 0 || batch <= 0 || batch > 65535)
        return gmm_error(GMM_ERR_ARG, "chol_inverse_cuda: bad arguments");
    run r = {gpu, dense_stream(gmm_gpu_stream(gpu)), d_U, d_work, dim, batch, d_info};
    GMM_CUDA_CHECK(cudaMemsetAsync(d_info, 0, sizeof(int) * batch, r.stream));
    if (d_S != d_U) {
        const int64_t n = (int64_t)dim * dim * batch;
        copy_upper_kernel<<<(int)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0,
                            r.stream>>>(d_S, d_U, dim, batch);
        GMM_LAUNCH_CHECK("chol_inverse copy_upper_kernel");
    }
    status = factor_block(r, 0, dim);
fail:
    return status;
}
