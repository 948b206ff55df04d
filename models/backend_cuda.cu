/* The CUDA backend: the whole EM iteration on one GPU with cuBLAS, cuSOLVER and a few fused
 * kernels. The data goes to the device once per context (float64, or float32 under
 * --precision fp32|tf32); responsibilities, parameters and every temporary stay there, and an
 * iteration returns only scalars (the mean log-likelihood, N_k, Cholesky info flags).
 *
 *   E-step  full/tied: Y = X_chunk [U_1 .. U_K] (one GEMM, N x d by d x Kd), then one fused
 *           kernel per row: ||y_k - mu_k U_k||^2, + log det + log w, log-sum-exp over k, all in
 *           float64. diag/spherical: the same fused kernel on X directly.
 *   M-step  resp = exp(log_resp); N_k (column sums); means = R^T X / N_k (GEMM); full: per
 *           component A_k^T A_k of sqrt(r_k)-scaled centred rows (lower block triangle of
 *           GEMMs, the K products concurrent on cuBLAS lanes), chunk by chunk into a float64
 *           accumulator; tied: X^T X - sum_k N_k mu_k mu_k^T as scikit-learn (float64) or the
 *           centred sum (float32); diag/spherical: one weighted centred column-sum kernel.
 *           reg_covar on the diagonal, Cholesky (cuSOLVER), U = R^{-1} (TRSM).
 *
 * Rows are processed in chunks sized from free device memory (GMM_CUDA_CHUNK_ROWS forces a
 * smaller chunk, for tests). Every reduction has a fixed order, so a fit is deterministic.
 * Variants for measurement: GMM_CUDA_ESTEP=kgemm (K GEMMs instead of one), GMM_CUDA_POTRF=loop
 * (K cusolverDnDpotrf calls instead of the batched one), GMM_CUDA_COV=gemm|syrk (a full GEMM or
 * SYRK instead of the lower block triangle for the covariance products), GMM_CUDA_NO_COMPACT=1 (the
 * covariance products over every row instead of the packed rows with r_ik > 1e-20).
 *
 * Compaction (default): per chunk, flags r_ik > 1e-20 (component-major), one CUB exclusive scan,
 * K + 1 packed bounds back to the host, then one kernel gathers the sqrt(r)-scaled centred rows
 * of the kept (i, k) into packed per-component blocks and the products run over those rows only
 * (responsibilities in 784 dimensions are nearly hard: ~N/K rows per component).
 *
 * k-means (kmeans_lloyd): Lloyd iterations from host seeds with the distances as one GEMM
 * (||x||^2 - 2 x c^T + ||c||^2), labels and the changed count on the device, center sums as the
 * GEMM onehot^T X; the K x d sums and K counts come back each iteration (the empty-cluster rule,
 * the division and the shift run on the host exactly as models/init.c). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cub/device/device_scan.cuh>

#include "kernels/cuda_check.h"
#include "kernels/gpu_info.h"
#include "linalg/blas_cuda.h"
#include "models/backend.h"

#define LSE_THREADS 128
#define WSUM_THREADS 128
#define WSUM_KT 8
#define REDUCE_THREADS 256
#define REDUCE_BLOCKS 256

/* How A_k^T A_k is formed: the lower 2 x 2 block triangle as three GEMMs (the default for
 * d >= 128: 3/4 of a GEMM's work at the GEMM rate), a full GEMM, or SYRK (cuBLAS's DSYRK ran
 * at about a third of the DGEMM rate on this d x d output, 60000-deep shape; see
 * models/GPU_NOTES.md). The covariance reads the lower triangle only. */
enum { COV_GEMM = 0, COV_SYRK = 1, COV_LOWER = 2 };

struct gmm_backend_ctx {
    int64_t n_samples;
    int dim, n_components;
    gmm_cov_type type;
    gmm_precision precision;
    bool single;      /* data and GEMMs in float32 */
    int n_mats;       /* d x d matrices: K (full), 1 (tied), 0 */
    size_t cov_n;     /* doubles in covariances / precisions_cholesky */
    la_cuda *la;

    void *d_X;               /* N x d, double or float */
    double *d_log_resp;      /* N x K */
    double *d_resp;          /* N x K */
    double *d_lpn;           /* N: log p(x_i) */
    int resp_state;          /* 0: none, 1: d_resp valid (set_resp), 2: d_log_resp valid */
    bool have_params;

    double *d_weights, *d_means, *d_cov, *d_prec; /* current parameters */
    double *d_const;         /* K: log w_k + log det U_k - d/2 log 2 pi */
    double *d_b;             /* K x d: mu_k U_k (full, tied) */
    void *d_ucat;            /* full: d x Kd [U_1 .. U_K]; tied: d x d U (double or float) */
    double *d_acc;           /* cov_n (>= K d): accumulators, then the Cholesky factors */
    double *d_nk;            /* K+1: N_k, then their sum */
    int *d_info;             /* K */
    double **d_ptrs;         /* n_mats device pointers into d_acc */
    double **h_ptrs;
    double *d_potrf_work;
    int potrf_lwork;
    void *d_tmp;             /* per-component products before their float64 sum (TF32 full,
                                tied in float32/TF32): K d x d of the product's type */
    int n_lanes;             /* concurrent cuBLAS lanes for the per-component products */
    double *d_partial;       /* reduction partials */
    size_t partial_n;
    double *d_scalar;        /* 1 */
    void *d_work;            /* chunk workspace */
    int64_t chunk_rows;      /* E-step rows per chunk */
    int64_t mstep_rows;      /* M-step rows per chunk (full, tied in float32): rows x K x d
                                scaled centred values fill the workspace */

    /* M-step compaction (full, tied float32): rows with r_ik <= 1e-20 are left out of
     * component k's product, as the CPU's wcov_blas does */
    bool compact;            /* false under GMM_CUDA_NO_COMPACT=1 */
    int *d_flags;            /* K * mstep_rows + 1: keep flags, component-major */
    int *d_pos;              /* their exclusive scan: packed row of (k, i) */
    int *d_bounds;           /* K + 1: packed start of each component */
    int *h_bounds;
    void *d_scan_tmp;
    size_t scan_tmp_bytes;

    bool kgemm, potrf_batched;
    int cov_mode;            /* COV_GEMM, COV_SYRK or COV_LOWER */
    double *h_nk;
    int *h_info;
};

/* ---- kernels ------------------------------------------------------------------------------- */

__device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

__device__ __forceinline__ double warp_max(double v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* One block per row i: for each component k (one warp each), s = sum_j t_j^2 with
 *   MODE 0 (full, tied): t_j = Y[i, k*koff + j] - b[k, j]       (Y = X U, b = mu U)
 *   MODE 1 (diag):       t_j = (X[i, j] - mu[k, j]) * p[k, j]
 *   MODE 2 (spherical):  t_j = X[i, j] - mu[k, j], s *= p[k]^2
 * then log_prob = const_k - s/2, its log-sum-exp over k, and log_resp = log_prob - lse. */
template <int MODE, typename T>
__global__ void __launch_bounds__(LSE_THREADS)
estep_rows_kernel(const T *__restrict__ Y, int64_t ldy, int64_t koff,
                  const double *__restrict__ b, const double *__restrict__ p,
                  const double *__restrict__ cst, int K, int d, double *__restrict__ log_resp,
                  double *__restrict__ lpn)
{
    extern __shared__ double lp[];
    const int64_t i = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const T *y = Y + i * ldy;
    for (int k = warp; k < K; k += nwarps) {
        const T *yk = y + (int64_t)k * koff;
        const double *bk = b + (int64_t)k * d;
        double s0 = 0, s1 = 0;
        int j = lane;
        for (; j + 32 < d; j += 64) {
            double t0 = (double)yk[j] - bk[j];
            double t1 = (double)yk[j + 32] - bk[j + 32];
            if (MODE == 1) {
                t0 *= p[(int64_t)k * d + j];
                t1 *= p[(int64_t)k * d + j + 32];
            }
            s0 += t0 * t0;
            s1 += t1 * t1;
        }
        if (j < d) {
            double t0 = (double)yk[j] - bk[j];
            if (MODE == 1) t0 *= p[(int64_t)k * d + j];
            s0 += t0 * t0;
        }
        double s = warp_sum(s0 + s1);
        if (MODE == 2) s *= p[k] * p[k];
        if (lane == 0) lp[k] = cst[k] - 0.5 * s;
    }
    __syncthreads();
    if (warp == 0) {
        double mx = -INFINITY;
        for (int k = lane; k < K; k += 32) mx = fmax(mx, lp[k]);
        mx = warp_max(mx);
        double s = 0;
        for (int k = lane; k < K; k += 32) s += exp(lp[k] - mx);
        s = warp_sum(s);
        double norm = mx + log(s);
        for (int k = lane; k < K; k += 32) log_resp[i * K + k] = lp[k] - norm;
        if (lane == 0) lpn[i] = norm;
    }
}

/* Fixed-order block sum (blockDim.x == REDUCE_THREADS). */
__device__ double block_sum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

__global__ void reduce_stage1_kernel(const double *__restrict__ x, int64_t n, double *partial)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        s += x[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

__global__ void reduce_stage2_kernel(const double *__restrict__ partial, int n, double scale,
                                     double *out)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += partial[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) *out = s * scale;
}

__global__ void exp_kernel(const double *__restrict__ x, double *__restrict__ y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = exp(x[i]);
}

/* nk[k] = sum_i R[i, k] + 10 eps, one block per k. */
__global__ void nk_kernel(const double *__restrict__ R, int64_t n, int K, double *nk)
{
    __shared__ double sh[REDUCE_THREADS];
    const int k = blockIdx.x;
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += R[i * K + k];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) nk[k] = s + 10 * DBL_EPSILON;
}

/* weights = nk / sum nk (summed in order, as the CPU backend); nk[K] = the sum. */
__global__ void weights_kernel(double *nk, int K, double *weights)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double t = 0;
    for (int k = 0; k < K; k++) t += nk[k];
    for (int k = 0; k < K; k++) weights[k] = nk[k] / t;
    nk[K] = t;
}

/* partial[s, k, j] = sum over the rows of slab s of R[i, k] * f(X[i, j]) with
 * f = x (MODE 0, the means) or (x - mu[k, j])^2 (MODE 1, the diagonal variances). */
template <int MODE, typename T>
__global__ void __launch_bounds__(WSUM_THREADS)
wsum_kernel(const T *__restrict__ X, int64_t n, int d, const double *__restrict__ R, int K,
            const double *__restrict__ mu, int64_t rows_per_slab, double *__restrict__ partial)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int k0 = blockIdx.y * WSUM_KT;
    const int64_t i0 = blockIdx.z * rows_per_slab;
    const int64_t i1 = i0 + rows_per_slab < n ? i0 + rows_per_slab : n;
    if (j >= d) return;
    double acc[WSUM_KT], m[WSUM_KT];
#pragma unroll
    for (int t = 0; t < WSUM_KT; t++) {
        acc[t] = 0;
        m[t] = (MODE == 1 && k0 + t < K) ? mu[(int64_t)(k0 + t) * d + j] : 0;
    }
    for (int64_t i = i0; i < i1; i++) {
        const double x = (double)X[i * d + j];
        const double *r = R + i * K + k0;
#pragma unroll
        for (int t = 0; t < WSUM_KT; t++) {
            if (k0 + t < K) {
                double v = MODE == 0 ? x : (x - m[t]) * (x - m[t]);
                acc[t] += r[t] * v;
            }
        }
    }
#pragma unroll
    for (int t = 0; t < WSUM_KT; t++)
        if (k0 + t < K) partial[((int64_t)blockIdx.z * K + k0 + t) * d + j] = acc[t];
}

/* out[k, j] = sum_s partial[s, k, j] / nk[k] (+ reg when MODE 1). */
template <int MODE>
__global__ void wsum_finish_kernel(const double *__restrict__ partial, int S, int K, int d,
                                   const double *__restrict__ nk, double reg, double *out)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        double s = 0;
        for (int sl = 0; sl < S; sl++) s += partial[(int64_t)sl * n + e];
        double v = s / nk[e / d];
        if (MODE == 1) v += reg;
        out[e] = v;
    }
}

/* means[k, j] /= nk[k] */
__global__ void divide_rows_kernel(double *x, int K, int d, const double *__restrict__ nk)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        x[e] /= nk[e / d];
}

/* spherical variance: the mean over j of the diagonal variances (K threads, in order). */
__global__ void spherical_kernel(const double *__restrict__ diag, int K, int d, double *var)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    double s = 0;
    for (int j = 0; j < d; j++) s += diag[(int64_t)k * d + j];
    var[k] = s / d;
}

/* prec = 1/sqrt(var) for diag/spherical; info[k] = first j+1 whose variance is not > 0. */
__global__ void diag_prec_kernel(const double *__restrict__ var, int K, int per, double *prec,
                                 int *info)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    int bad = 0;
    for (int j = 0; j < per; j++) {
        double v = var[(int64_t)k * per + j];
        if (!(v > 0.0) && !bad) bad = j + 1;
        prec[(int64_t)k * per + j] = 1.0 / sqrt(v);
    }
    info[k] = bad;
}

/* A[k][i, j] = sqrt(R[i, k]) * (X[i, j] - mu[k, j]) for the rows of one chunk and every k:
 * K blocks of rows x d, X read once. */
template <typename TX, typename TA>
__global__ void scaled_centre_kernel(const TX *__restrict__ X, int64_t rows, int d,
                                     const double *__restrict__ R, int K,
                                     const double *__restrict__ mu, TA *__restrict__ A)
{
    const int64_t n = rows * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e / d;
        const int j = (int)(e - i * d);
        const double x = (double)X[e];
        for (int k = 0; k < K; k++)
            A[(int64_t)k * n + e] = (TA)(sqrt(R[i * K + k]) * (x - mu[(int64_t)k * d + j]));
    }
}

#define NEGLIGIBLE_RESP 1e-20

/* flags[k * rows + i] = R[i, k] > 1e-20; flags[K * rows] = 0 (so the scan's last entry is the
 * total). */
__global__ void keep_flags_kernel(const double *__restrict__ R, int64_t rows, int K, int *flags)
{
    const int64_t n = rows * K;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e <= n;
         e += (int64_t)gridDim.x * blockDim.x) {
        if (e == n) {
            flags[n] = 0;
            continue;
        }
        const int64_t k = e / rows, i = e - k * rows;
        flags[e] = R[i * K + k] > NEGLIGIBLE_RESP ? 1 : 0;
    }
}

/* bounds[k] = pos[k * rows] for k = 0..K */
__global__ void bounds_kernel(const int *__restrict__ pos, int64_t rows, int K, int *bounds)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k <= K) bounds[k] = pos[(int64_t)k * rows];
}

/* The packed form of scaled_centre_kernel: row i of component k goes to packed row
 * pos[k * rows + i] when R[i, k] > 1e-20 and is left out otherwise. */
template <typename TX, typename TA>
__global__ void packed_centre_kernel(const TX *__restrict__ X, int64_t rows, int d,
                                     const double *__restrict__ R, int K,
                                     const double *__restrict__ mu, const int *__restrict__ pos,
                                     TA *__restrict__ A)
{
    const int64_t n = rows * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e / d;
        const int j = (int)(e - i * d);
        const double x = (double)X[e];
        for (int k = 0; k < K; k++) {
            const double r = R[i * K + k];
            if (r > NEGLIGIBLE_RESP)
                A[(int64_t)pos[(int64_t)k * rows + i] * d + j] =
                    (TA)(sqrt(r) * (x - mu[(int64_t)k * d + j]));
        }
    }
}

/* acc[m] (+)= sum over g < group of tmp[m * group + g] (n_out matrices of dd values): the
 * per-component products summed in a fixed order in float64. */
template <typename TA>
__global__ void sum_products_kernel(const TA *__restrict__ tmp, int n_out, int group, int64_t dd,
                                    double *acc, int first)
{
    const int64_t n = dd * n_out;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = e / dd, r = e - m * dd;
        double s = first ? 0.0 : acc[e];
        for (int g = 0; g < group; g++) s += (double)tmp[((int64_t)m * group + g) * dd + r];
        acc[e] = s;
    }
}

/* B[k, j] = sqrt(nk[k]) * mu[k, j] (tied: X^T X - B^T B). */
__global__ void sqrt_nk_means_kernel(const double *__restrict__ mu, const double *__restrict__ nk,
                                     int K, int d, double *B)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        B[e] = sqrt(nk[e / d]) * mu[e];
}

/* cov[m] = sym(acc[m]) / nk[m] (full) or / nk[K] = sum N_k (tied) + reg I, from the lower
 * triangle. */
__global__ void cov_finish_kernel(const double *__restrict__ acc, int n_mats, int d,
                                  const double *__restrict__ nk, int K, int tied, double reg,
                                  double *cov)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = e / dd, rem = e - m * dd;
        const int r = (int)(rem / d), c = (int)(rem - (int64_t)r * d);
        const int hi = r > c ? r : c, lo = r > c ? c : r;
        double v = acc[m * dd + (int64_t)hi * d + lo] / (tied ? nk[K] : nk[m]);
        if (r == c) v += reg;
        cov[e] = v;
    }
}

__global__ void identity_kernel(double *x, int n_mats, int d)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        x[e] = (rem / d == rem % d) ? 1.0 : 0.0;
    }
}

/* zero the strict lower triangle (row > col) of each matrix */
__global__ void triu_kernel(double *x, int n_mats, int d)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        if (rem / d > rem % d) x[e] = 0.0;
    }
}

/* const[k] = log w_k + log det U_k - d/2 log(2 pi), log det summed in order like the CPU. */
__global__ void const_kernel(const double *__restrict__ w, const double *__restrict__ prec,
                             int type, int K, int d, double *cst)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    const int64_t dd = (int64_t)d * d;
    double s = 0;
    switch (type) {
    case GMM_COV_FULL:
        for (int j = 0; j < d; j++) s += log(prec[k * dd + (int64_t)j * d + j]);
        break;
    case GMM_COV_TIED:
        for (int j = 0; j < d; j++) s += log(prec[(int64_t)j * d + j]);
        break;
    case GMM_COV_DIAG:
        for (int j = 0; j < d; j++) s += log(prec[(int64_t)k * d + j]);
        break;
    default: s = d * log(prec[k]); break;
    }
    cst[k] = -0.5 * (d * log(2.0 * M_PI)) + s + log(w[k]);
}

/* full: ucat[j, k*d + l] = U_k[j, l] (d x Kd); tied: ucat = U. Converted to T. */
template <typename T>
__global__ void ucat_kernel(const double *__restrict__ prec, int n_mats, int d, T *ucat)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats, W = (int64_t)n_mats * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = e / dd, rem = e - k * dd, j = rem / d, l = rem - j * d;
        ucat[j * W + k * d + l] = (T)prec[e];
    }
}

/* b[k, l] = sum_j mu[k, j] U_k[j, l], with U read from ucat (the same rounded values the GEMM
 * uses), so that y - b = (x - mu) U up to the GEMM's rounding. */
template <typename T>
__global__ void mean_prec_kernel(const double *__restrict__ mu, const T *__restrict__ ucat,
                                 int K, int d, int full, double *b)
{
    const int64_t n = (int64_t)K * d, W = full ? (int64_t)K * d : d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = e / d, l = e - k * d;
        const T *u = ucat + (full ? k * d : 0) + l;
        const double *m = mu + k * d;
        double s = 0;
        for (int j = 0; j < d; j++) s += m[j] * (double)u[j * W];
        b[e] = s;
    }
}

/* ---- k-means kernels ------------------------------------------------------------------------ */

template <typename T>
__global__ void to_double_kernel(const T *__restrict__ x, double *__restrict__ y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = (double)x[i];
}

/* partial[s, j] = sum of X[i, j] over the rows of slab s */
__global__ void col_sum_kernel(const double *__restrict__ X, int64_t n, int d, int64_t per,
                               double *partial)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    const int64_t i0 = blockIdx.y * per, i1 = i0 + per < n ? i0 + per : n;
    double s = 0;
    for (int64_t i = i0; i < i1; i++) s += X[i * d + j];
    partial[(int64_t)blockIdx.y * d + j] = s;
}

__global__ void col_mean_finish_kernel(const double *__restrict__ partial, int S, int d, int64_t n,
                                       double *mean)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    double s = 0;
    for (int t = 0; t < S; t++) s += partial[(int64_t)t * d + j];
    mean[j] = s / (double)n;
}

/* one warp per row: xn[i] = ||x_i||^2, dev[i] = ||x_i - mean||^2 */
__global__ void row_norms_kernel(const double *__restrict__ X, int64_t n, int d,
                                 const double *__restrict__ mean, double *xn, double *dev)
{
    const int64_t i = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (i >= n) return;
    double a = 0, b = 0;
    for (int j = lane; j < d; j += 32) {
        double v = X[i * d + j];
        a += v * v;
        b += (v - mean[j]) * (v - mean[j]);
    }
    a = warp_sum(a);
    b = warp_sum(b);
    if (lane == 0) {
        xn[i] = a;
        dev[i] = b;
    }
}

/* cn[k] = ||c_k||^2 in order, as the CPU */
__global__ void center_norms_kernel(const double *__restrict__ C, int K, int d, double *cn)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    double s = 0;
    for (int j = 0; j < d; j++) s += C[(int64_t)k * d + j] * C[(int64_t)k * d + j];
    cn[k] = s;
}

/* labels from the distances xn - 2 dots + cn (first minimum, as the CPU), min_dist, the number
 * of changed labels (integer atomics: order-free), and the one-hot matrix when onehot != NULL. */
__global__ void assign_kernel(const double *__restrict__ dots, const double *__restrict__ xn,
                              const double *__restrict__ cn, int64_t n, int K, int *labels,
                              double *min_dist, double *onehot, unsigned long long *changed)
{
    __shared__ unsigned int block_changed;
    if (threadIdx.x == 0) block_changed = 0;
    __syncthreads();
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) {
        int best = 0;
        double bd = INFINITY;
        for (int k = 0; k < K; k++) {
            double dd = xn[i] - 2 * dots[i * K + k] + cn[k];
            if (dd < bd) {
                bd = dd;
                best = k;
            }
        }
        if (labels[i] != best) atomicAdd(&block_changed, 1u);
        labels[i] = best;
        min_dist[i] = bd < 0 ? 0 : bd;
        if (onehot)
            for (int k = 0; k < K; k++) onehot[i * K + k] = k == best ? 1.0 : 0.0;
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_changed) atomicAdd(changed, (unsigned long long)block_changed);
}

/* counts[k] = number of labels equal to k, one block per k */
__global__ void label_counts_kernel(const int *__restrict__ labels, int64_t n, int *counts)
{
    __shared__ int sh[REDUCE_THREADS];
    const int k = blockIdx.x;
    int s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += labels[i] == k;
    sh[threadIdx.x] = s;
    __syncthreads();
    for (int t = blockDim.x / 2; t > 0; t >>= 1) {
        if ((int)threadIdx.x < t) sh[threadIdx.x] += sh[threadIdx.x + t];
        __syncthreads();
    }
    if (threadIdx.x == 0) counts[k] = sh[0];
}

/* *out = the first index of the maximum of x (one block of REDUCE_THREADS) */
__global__ void argmax_kernel(const double *__restrict__ x, int64_t n, int64_t *out)
{
    __shared__ double sv[REDUCE_THREADS];
    __shared__ int64_t si[REDUCE_THREADS];
    double bv = -INFINITY;
    int64_t bi = -1;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x)
        if (bi < 0 || x[i] > bv) {
            bv = x[i];
            bi = i;
        }
    sv[threadIdx.x] = bv;
    si[threadIdx.x] = bi;
    __syncthreads();
    for (int t = blockDim.x / 2; t > 0; t >>= 1) {
        if ((int)threadIdx.x < t) {
            double ov = sv[threadIdx.x + t];
            int64_t oi = si[threadIdx.x + t];
            if (oi >= 0 && (si[threadIdx.x] < 0 || ov > sv[threadIdx.x] ||
                            (ov == sv[threadIdx.x] && oi < si[threadIdx.x]))) {
                sv[threadIdx.x] = ov;
                si[threadIdx.x] = oi;
            }
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *out = si[0] < 0 ? 0 : si[0];
}

/* k-means++ (kmeans_plusplus): squared distances of every row to n_trials candidate rows, one
 * warp per (row, trial), in float64 (from float data under fp32/TF32), min'd with the closest
 * distance so far when closest is not NULL. */
#define KPP_ROWS 8 /* rows (warps) per 256-thread block */
#define KPP_CHUNK 256
template <typename TX>
__global__ void kpp_dist_kernel(const TX *__restrict__ X, int64_t n, int d,
                                const int64_t *__restrict__ cand,
                                const double *__restrict__ closest, double *__restrict__ out)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t i = (int64_t)blockIdx.x * KPP_ROWS + warp;
    const int t = blockIdx.y;
    if (i >= n) return;
    const TX *x = X + i * d, *c = X + cand[t] * d;
    double s = 0;
    for (int j = lane; j < d; j += 32) {
        double v = (double)x[j] - (double)c[j];
        s += v * v;
    }
    s = warp_sum(s);
    if (lane == 0) {
        double m = s;
        if (closest) m = s < closest[i] ? s : closest[i];
        out[(int64_t)t * n + i] = m;
    }
}

/* Per-trial potentials sum_i out[t n + i]: fixed-order partials (grid B x T), then one block per
 * trial sums its B partials in a fixed order. */
__global__ void kpp_pot_stage1_kernel(const double *__restrict__ x, int64_t n, double *partial)
{
    __shared__ double sh[REDUCE_THREADS];
    const double *xt = x + (int64_t)blockIdx.y * n;
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        s += xt[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) partial[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = s;
}

__global__ void kpp_pot_stage2_kernel(const double *__restrict__ partial, int B, double *pots)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int i = threadIdx.x; i < B; i += blockDim.x) s += partial[(size_t)blockIdx.x * B + i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) pots[blockIdx.x] = s;
}

/* The cumsum of the closest distances, deterministic: sequential sums of KPP_CHUNK-row chunks,
 * then their sequential inclusive scan (one thread; N / 256 values). */
__global__ void kpp_chunk_sums_kernel(const double *__restrict__ x, int64_t n, int nch,
                                      double *sums)
{
    int ch = blockIdx.x * blockDim.x + threadIdx.x;
    if (ch >= nch) return;
    int64_t i0 = (int64_t)ch * KPP_CHUNK, i1 = i0 + KPP_CHUNK < n ? i0 + KPP_CHUNK : n;
    double s = 0;
    for (int64_t i = i0; i < i1; i++) s += x[i];
    sums[ch] = s;
}

__global__ void kpp_chunk_scan_kernel(const double *__restrict__ sums, int nch, double *pre)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double run = 0;
    for (int c = 0; c < nch; c++) pre[c] = (run += sums[c]);
}

/* searchsorted: per draw r_t, the first index whose cumsum exceeds r_t (binary search over the
 * chunk prefixes, then a sequential run inside the chunk from the previous prefix), clipped to
 * n - 1 as the host's. */
__global__ void kpp_search_kernel(const double *__restrict__ x, int64_t n,
                                  const double *__restrict__ pre, int nch,
                                  const double *__restrict__ r, int T, int64_t *cand)
{
    int t = threadIdx.x;
    if (t >= T) return;
    double rv = r[t];
    int lo = 0, hi = nch;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (pre[mid] > rv) hi = mid; else lo = mid + 1;
    }
    if (lo == nch) {
        cand[t] = n - 1;
        return;
    }
    int64_t i0 = (int64_t)lo * KPP_CHUNK, i1 = i0 + KPP_CHUNK < n ? i0 + KPP_CHUNK : n;
    double run = lo > 0 ? pre[lo - 1] : 0.0;
    int64_t res = i1 - 1;
    for (int64_t i = i0; i < i1; i++) {
        run += x[i];
        if (run > rv) {
            res = i;
            break;
        }
    }
    cand[t] = res;
}

/* ---- helpers ------------------------------------------------------------------------------- */

static int grid_for(int64_t n, int threads)
{
    int64_t g = (n + threads - 1) / threads;
    if (g > 65536) g = 65536;
    if (g < 1) g = 1;
    return (int)g;
}

static size_t elem_size(const gmm_backend_ctx *c) { return c->single ? sizeof(float) : sizeof(double); }

static const char *env_str(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* ---- table operations ---------------------------------------------------------------------- */

static bool cuda_available(void) { return gmm_gpu_count() > 0; }

static bool cuda_supports(gmm_cov_type type, gmm_precision precision)
{
    return (type == GMM_COV_FULL || type == GMM_COV_TIED || type == GMM_COV_DIAG ||
            type == GMM_COV_SPHERICAL) &&
           (precision == GMM_PRECISION_FP64 || precision == GMM_PRECISION_FP32 ||
            precision == GMM_PRECISION_TF32);
}

static void cuda_destroy(gmm_backend_ctx *c)
{
    if (!c) return;
    cudaFree(c->d_X);
    cudaFree(c->d_log_resp);
    cudaFree(c->d_resp);
    cudaFree(c->d_lpn);
    cudaFree(c->d_weights);
    cudaFree(c->d_means);
    cudaFree(c->d_cov);
    cudaFree(c->d_prec);
    cudaFree(c->d_const);
    cudaFree(c->d_b);
    cudaFree(c->d_ucat);
    cudaFree(c->d_acc);
    cudaFree(c->d_nk);
    cudaFree(c->d_info);
    cudaFree(c->d_ptrs);
    cudaFree(c->d_potrf_work);
    cudaFree(c->d_tmp);
    cudaFree(c->d_partial);
    cudaFree(c->d_scalar);
    cudaFree(c->d_work);
    cudaFree(c->d_flags);
    cudaFree(c->d_pos);
    cudaFree(c->d_bounds);
    cudaFree(c->d_scan_tmp);
    free(c->h_bounds);
    la_cuda_destroy(c->la);
    free(c->h_ptrs);
    free(c->h_nk);
    free(c->h_info);
    free(c);
}

#define DMALLOC(ptr, bytes) GMM_CUDA_CHECK(cudaMalloc((void **)&(ptr), (bytes)))

static gmm_status cuda_create(gmm_backend_ctx **out, const double *X, int64_t n_samples, int dim,
                              int n_components, gmm_cov_type type, gmm_precision precision)
{
    gmm_status status = GMM_OK;
    gmm_backend_ctx *c = NULL;
    float *hx = NULL;
    size_t N = (size_t)n_samples, d = (size_t)dim, K = (size_t)n_components, es, dd;
    size_t free_b = 0, total_b = 0, budget, row_bytes, ws_bytes;
    int64_t rows;
    size_t w_e, row_e, row_m, prod_es;
    const char *v;
    *out = NULL;
    if (n_samples < 1 || dim < 1 || n_components < 1 || n_samples > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "CUDA backend: bad sizes N=%lld d=%d K=%d",
                         (long long)n_samples, dim, n_components);
    if (!cuda_available()) return gmm_error(GMM_ERR_NO_DEVICE, "no CUDA GPU is available");
    c = (gmm_backend_ctx *)calloc(1, sizeof *c);
    if (!c) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    c->n_samples = n_samples;
    c->dim = dim;
    c->n_components = n_components;
    c->type = type;
    c->precision = precision;
    c->single = precision != GMM_PRECISION_FP64;
    c->n_mats = type == GMM_COV_FULL ? n_components : type == GMM_COV_TIED ? 1 : 0;
    c->cov_n = gmm_cov_size(type, n_components, dim);
    es = elem_size(c);
    dd = d * d;
    c->kgemm = (v = env_str("GMM_CUDA_ESTEP")) && strcmp(v, "kgemm") == 0;
    c->potrf_batched = !((v = env_str("GMM_CUDA_POTRF")) && strcmp(v, "loop") == 0);
    c->cov_mode = dim >= 128 ? COV_LOWER : COV_GEMM;
    if ((v = env_str("GMM_CUDA_COV")) && strcmp(v, "syrk") == 0 && precision != GMM_PRECISION_TF32)
        c->cov_mode = COV_SYRK; /* TF32 runs on the tensor cores through GEMM only */
    if ((v = env_str("GMM_CUDA_COV")) && strcmp(v, "gemm") == 0) c->cov_mode = COV_GEMM;

    if ((status = la_cuda_create(&c->la)) != GMM_OK) goto fail;
    if ((status = la_cuda_set_tf32(c->la, precision == GMM_PRECISION_TF32)) != GMM_OK) goto fail;

    DMALLOC(c->d_X, es * N * d);
    if (c->single) {
        hx = (float *)malloc(sizeof(float) * N * d);
        if (!hx) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory converting the data to float32");
            goto fail;
        }
        for (size_t i = 0; i < N * d; i++) hx[i] = (float)X[i];
        GMM_CUDA_CHECK(cudaMemcpy(c->d_X, hx, es * N * d, cudaMemcpyHostToDevice));
    } else {
        GMM_CUDA_CHECK(cudaMemcpy(c->d_X, X, es * N * d, cudaMemcpyHostToDevice));
    }
    DMALLOC(c->d_log_resp, sizeof(double) * N * K);
    DMALLOC(c->d_resp, sizeof(double) * N * K);
    DMALLOC(c->d_lpn, sizeof(double) * N);
    DMALLOC(c->d_weights, sizeof(double) * K);
    DMALLOC(c->d_means, sizeof(double) * K * d);
    DMALLOC(c->d_cov, sizeof(double) * c->cov_n);
    DMALLOC(c->d_prec, sizeof(double) * c->cov_n);
    DMALLOC(c->d_const, sizeof(double) * K);
    DMALLOC(c->d_b, sizeof(double) * K * d);
    DMALLOC(c->d_acc, sizeof(double) * (c->cov_n > K * d ? c->cov_n : K * d));
    DMALLOC(c->d_nk, sizeof(double) * (K + 1));
    DMALLOC(c->d_info, sizeof(int) * K);
    DMALLOC(c->d_scalar, sizeof(double));
    GMM_CUDA_CHECK(cudaMemset(c->d_info, 0, sizeof(int) * K));
    GMM_CUDA_CHECK(cudaMemset(c->d_lpn, 0, sizeof(double) * N));
    GMM_CUDA_CHECK(cudaMemset(c->d_log_resp, 0, sizeof(double) * N * K));
    c->h_nk = (double *)malloc(sizeof(double) * (K + 1));
    c->h_info = (int *)malloc(sizeof(int) * K);
    if (!c->h_nk || !c->h_info) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (c->n_mats > 0) {
        DMALLOC(c->d_ucat, es * dd * c->n_mats);
        DMALLOC(c->d_ptrs, sizeof(double *) * c->n_mats);
        c->h_ptrs = (double **)malloc(sizeof(double *) * c->n_mats);
        if (!c->h_ptrs) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory");
            goto fail;
        }
        for (int m = 0; m < c->n_mats; m++) c->h_ptrs[m] = c->d_acc + m * dd;
        GMM_CUDA_CHECK(cudaMemcpy(c->d_ptrs, c->h_ptrs, sizeof(double *) * c->n_mats,
                                  cudaMemcpyHostToDevice));
        if ((status = la_cuda_dpotrf_work_size(c->la, dim, dim, c->d_acc, &c->potrf_lwork)) !=
            GMM_OK)
            goto fail;
        DMALLOC(c->d_potrf_work, sizeof(double) * (c->potrf_lwork > 0 ? c->potrf_lwork : 1));
        c->n_lanes = c->n_mats < 12 ? c->n_mats : 12;
        for (int l = 0; l < c->n_lanes; l++)
            if (!la_cuda_lane(c->la, l)) {
                status = GMM_ERR_CUDA;
                goto fail;
            }
    }
    /* the per-component products are float32 under TF32, float64 otherwise */
    prod_es = precision == GMM_PRECISION_TF32 ? sizeof(float) : sizeof(double);
    if ((type == GMM_COV_FULL && precision == GMM_PRECISION_TF32) ||
        (type == GMM_COV_TIED && c->single))
        DMALLOC(c->d_tmp, prod_es * dd * K);
    /* reduction partials: the weighted column sums use up to 256 slabs of K x d */
    c->partial_n = 256 * K * d;
    if (c->partial_n < REDUCE_BLOCKS) c->partial_n = REDUCE_BLOCKS;
    if (c->partial_n > (size_t)64 << 20) c->partial_n = (size_t)64 << 20;
    if (c->partial_n < K * d) c->partial_n = K * d;
    DMALLOC(c->d_partial, sizeof(double) * c->partial_n);

    /* The chunk workspace: E-step GEMM output (rows x Kd, tied rows x d) and M-step scaled rows
     * (rows x d), sized from what is free now, leaving room for cuBLAS/cuSOLVER workspaces. */
    w_e = type == GMM_COV_FULL ? K * d : type == GMM_COV_TIED ? d : 0;
    row_e = w_e * es;
    row_m = (type == GMM_COV_FULL || (type == GMM_COV_TIED && c->single)) ? K * d * prod_es : 0;
    row_bytes = row_e > row_m ? row_e : row_m;
    if (row_bytes > 0) {
        GMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        size_t reserve = ((size_t)1 << 30) + total_b / 20;
        budget = free_b > reserve ? free_b - reserve : free_b / 4;
        rows = (int64_t)(budget / row_bytes);
        if (w_e && (size_t)rows * w_e > (size_t)INT32_MAX) rows = (int64_t)(INT32_MAX / w_e);
        if (rows > n_samples) rows = n_samples;
        if ((v = env_str("GMM_CUDA_CHUNK_ROWS")) && atoll(v) > 0 && atoll(v) < rows)
            rows = atoll(v);
        if (rows < 1) {
            status = gmm_error(GMM_ERR_NOMEM,
                               "not enough free device memory for one row of %zu bytes",
                               row_bytes);
            goto fail;
        }
        c->chunk_rows = rows;
        ws_bytes = (size_t)rows * row_bytes;
        DMALLOC(c->d_work, ws_bytes);
        c->mstep_rows = row_m ? (int64_t)(ws_bytes / row_m) : n_samples;
        if ((size_t)c->mstep_rows * d > (size_t)INT32_MAX) c->mstep_rows = INT32_MAX / d;
        if (c->mstep_rows > n_samples) c->mstep_rows = n_samples;
        if ((v = env_str("GMM_CUDA_CHUNK_ROWS")) && atoll(v) > 0 && atoll(v) < c->mstep_rows)
            c->mstep_rows = atoll(v);
    } else {
        c->chunk_rows = n_samples;
        c->mstep_rows = n_samples;
    }
    /* compaction buffers for the covariance products (full; tied in float32/TF32) */
    c->compact = row_m > 0 && !((v = env_str("GMM_CUDA_NO_COMPACT")) && strcmp(v, "0") != 0) &&
                 (size_t)c->mstep_rows * K + 1 < (size_t)INT32_MAX;
    if (c->compact) {
        size_t items = (size_t)c->mstep_rows * K + 1;
        DMALLOC(c->d_flags, sizeof(int) * items);
        DMALLOC(c->d_pos, sizeof(int) * items);
        DMALLOC(c->d_bounds, sizeof(int) * (K + 1));
        c->h_bounds = (int *)malloc(sizeof(int) * (K + 1));
        if (!c->h_bounds) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory");
            goto fail;
        }
        GMM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, c->scan_tmp_bytes, c->d_flags,
                                                     c->d_pos, (int)items, (cudaStream_t)0));
        DMALLOC(c->d_scan_tmp, c->scan_tmp_bytes > 0 ? c->scan_tmp_bytes : 16);
    }
    free(hx);
    *out = c;
    return GMM_OK;
fail:
    free(hx);
    if (status == GMM_ERR_CUDA && strstr(gmm_error_message(status), "cudaMalloc"))
        status = gmm_error(GMM_ERR_NOMEM,
                           "out of device memory for N=%lld, d=%d, K=%d (%s): %s",
                           (long long)n_samples, dim, n_components, gmm_cov_type_name(type),
                           gmm_error_message(GMM_ERR_CUDA));
    cuda_destroy(c);
    return status;
}

/* Derived E-step quantities: constants, [U_1 .. U_K] in the data's precision, mu_k U_k. */
static gmm_status prepare_estep(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    int K = c->n_components, d = c->dim;
    int64_t nm = (int64_t)d * d * c->n_mats;
    const_kernel<<<(K + 127) / 128, 128>>>(c->d_weights, c->d_prec, (int)c->type, K, d, c->d_const);
    GMM_LAUNCH_CHECK("const_kernel");
    if (c->n_mats > 0) {
        if (c->single) {
            ucat_kernel<float><<<grid_for(nm, 256), 256>>>(c->d_prec, c->n_mats, d, (float *)c->d_ucat);
            GMM_LAUNCH_CHECK("ucat_kernel");
            mean_prec_kernel<float><<<grid_for((int64_t)K * d, 128), 128>>>(
                c->d_means, (const float *)c->d_ucat, K, d, c->type == GMM_COV_FULL, c->d_b);
            GMM_LAUNCH_CHECK("mean_prec_kernel");
        } else {
            ucat_kernel<double><<<grid_for(nm, 256), 256>>>(c->d_prec, c->n_mats, d, (double *)c->d_ucat);
            GMM_LAUNCH_CHECK("ucat_kernel");
            mean_prec_kernel<double><<<grid_for((int64_t)K * d, 128), 128>>>(
                c->d_means, (const double *)c->d_ucat, K, d, c->type == GMM_COV_FULL, c->d_b);
            GMM_LAUNCH_CHECK("mean_prec_kernel");
        }
    }
    c->have_params = true;
fail:
    return status;
}

static gmm_status cuda_set_params(gmm_backend_ctx *c, const gmm_model *m)
{
    gmm_status status = GMM_OK;
    size_t K = c->n_components, d = c->dim;
    if (m->n_components != c->n_components || m->dim != c->dim || m->covariance_type != c->type)
        return gmm_error(GMM_ERR_ARG, "set_params: the model's shape does not match the context");
    GMM_CUDA_CHECK(cudaMemcpy(c->d_weights, m->weights, sizeof(double) * K, cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_means, m->means, sizeof(double) * K * d, cudaMemcpyHostToDevice));
    if (m->covariances)
        GMM_CUDA_CHECK(cudaMemcpy(c->d_cov, m->covariances, sizeof(double) * c->cov_n,
                                  cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_prec, m->precisions_cholesky, sizeof(double) * c->cov_n,
                              cudaMemcpyHostToDevice));
    status = prepare_estep(c);
fail:
    return status;
}

static gmm_status cuda_get_params(gmm_backend_ctx *c, gmm_model *m)
{
    gmm_status status = GMM_OK;
    size_t K = c->n_components, d = c->dim;
    GMM_CUDA_CHECK(cudaMemcpy(m->weights, c->d_weights, sizeof(double) * K, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(m->means, c->d_means, sizeof(double) * K * d, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(m->covariances, c->d_cov, sizeof(double) * c->cov_n,
                              cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(m->precisions_cholesky, c->d_prec, sizeof(double) * c->cov_n,
                              cudaMemcpyDeviceToHost));
fail:
    return status;
}

static gmm_status cuda_set_resp(gmm_backend_ctx *c, const double *resp)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemcpy(c->d_resp, resp, sizeof(double) * c->n_samples * c->n_components,
                              cudaMemcpyHostToDevice));
    c->resp_state = 1;
fail:
    return status;
}

template <typename T>
static gmm_status estep_chunk(gmm_backend_ctx *c, int64_t r0, int64_t rows)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const T *Xc = (const T *)c->d_X + r0 * d;
    T *Y = (T *)c->d_work;
    const T *U = (const T *)c->d_ucat;
    double *lr = c->d_log_resp + r0 * K, *lpn = c->d_lpn + r0;
    size_t shmem = sizeof(double) * K;
    int W = c->type == GMM_COV_FULL ? K * d : d;
    if (c->type == GMM_COV_FULL || c->type == GMM_COV_TIED) {
        if (c->kgemm && c->type == GMM_COV_FULL) {
            for (int k = 0; k < K; k++) {
                if (c->single)
                    status = la_cuda_sgemm(c->la, false, false, (int)rows, d, d, 1.0f,
                                           (const float *)Xc, d, (const float *)U + (size_t)k * d,
                                           W, 0.0f, (float *)Y + (size_t)k * d, W);
                else
                    status = la_cuda_dgemm(c->la, false, false, (int)rows, d, d, 1.0,
                                           (const double *)Xc, d,
                                           (const double *)U + (size_t)k * d, W, 0.0,
                                           (double *)Y + (size_t)k * d, W);
                if (status != GMM_OK) goto fail;
            }
        } else {
            if (c->single)
                status = la_cuda_sgemm(c->la, false, false, (int)rows, W, d, 1.0f,
                                       (const float *)Xc, d, (const float *)U, W, 0.0f,
                                       (float *)Y, W);
            else
                status = la_cuda_dgemm(c->la, false, false, (int)rows, W, d, 1.0,
                                       (const double *)Xc, d, (const double *)U, W, 0.0,
                                       (double *)Y, W);
            if (status != GMM_OK) goto fail;
        }
        estep_rows_kernel<0, T><<<(unsigned)rows, LSE_THREADS, shmem>>>(
            Y, W, c->type == GMM_COV_FULL ? d : 0, c->d_b, NULL, c->d_const, K, d, lr, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<full/tied>");
    } else if (c->type == GMM_COV_DIAG) {
        estep_rows_kernel<1, T><<<(unsigned)rows, LSE_THREADS, shmem>>>(
            Xc, d, 0, c->d_means, c->d_prec, c->d_const, K, d, lr, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<diag>");
    } else {
        estep_rows_kernel<2, T><<<(unsigned)rows, LSE_THREADS, shmem>>>(
            Xc, d, 0, c->d_means, c->d_prec, c->d_const, K, d, lr, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<spherical>");
    }
fail:
    return status;
}

static gmm_status cuda_e_step(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    gmm_status status = GMM_OK;
    int64_t N = c->n_samples;
    int blocks = grid_for(N, REDUCE_THREADS);
    if (!c->have_params) return gmm_error(GMM_ERR_ARG, "E-step before parameters were set");
    if (c->n_components > 6000)
        return gmm_error(GMM_ERR_UNSUPPORTED, "the CUDA E-step supports at most 6000 components");
    for (int64_t r0 = 0; r0 < N; r0 += c->chunk_rows) {
        int64_t rows = N - r0 < c->chunk_rows ? N - r0 : c->chunk_rows;
        status = c->single ? estep_chunk<float>(c, r0, rows) : estep_chunk<double>(c, r0, rows);
        if (status != GMM_OK) goto fail;
    }
    if (blocks > REDUCE_BLOCKS) blocks = REDUCE_BLOCKS;
    reduce_stage1_kernel<<<blocks, REDUCE_THREADS>>>(c->d_lpn, N, c->d_partial);
    GMM_LAUNCH_CHECK("reduce_stage1_kernel");
    reduce_stage2_kernel<<<1, REDUCE_THREADS>>>(c->d_partial, blocks, 1.0 / (double)N, c->d_scalar);
    GMM_LAUNCH_CHECK("reduce_stage2_kernel");
    GMM_CUDA_CHECK(cudaMemcpy(mean_log_likelihood, c->d_scalar, sizeof(double),
                              cudaMemcpyDeviceToHost));
    c->resp_state = 2;
    if (!isfinite(*mean_log_likelihood))
        return gmm_error(GMM_ERR_NUMERIC, "the log-likelihood is not finite (%g)",
                         *mean_log_likelihood);
fail:
    return status;
}

/* Weighted column sums over all rows: out[k, j] = sum_i R[i,k] f(X[i,j]) / nk[k] (+ reg). */
template <typename T>
static gmm_status weighted_sums(gmm_backend_ctx *c, int mode, double reg, double *out)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    dim3 grid((d + WSUM_THREADS - 1) / WSUM_THREADS, (K + WSUM_KT - 1) / WSUM_KT, 1);
    int64_t S = (528 + grid.x * grid.y - 1) / (grid.x * grid.y);
    int64_t per;
    if (S > 256) S = 256;
    if (S > N) S = N;
    while (S > 1 && (size_t)S * K * d > c->partial_n) S--;
    per = (N + S - 1) / S;
    S = (N + per - 1) / per;
    grid.z = (unsigned)S;
    if (mode == 0)
        wsum_kernel<0, T><<<grid, WSUM_THREADS>>>((const T *)c->d_X, N, d, c->d_resp, K,
                                                  c->d_means, per, c->d_partial);
    else
        wsum_kernel<1, T><<<grid, WSUM_THREADS>>>((const T *)c->d_X, N, d, c->d_resp, K,
                                                  c->d_means, per, c->d_partial);
    GMM_LAUNCH_CHECK("wsum_kernel");
    if (mode == 0)
        wsum_finish_kernel<0><<<grid_for((int64_t)K * d, 256), 256>>>(c->d_partial, (int)S, K, d,
                                                                      c->d_nk, reg, out);
    else
        wsum_finish_kernel<1><<<grid_for((int64_t)K * d, 256), 256>>>(c->d_partial, (int)S, K, d,
                                                                      c->d_nk, reg, out);
    GMM_LAUNCH_CHECK("wsum_finish_kernel");
fail:
    return status;
}

static gmm_status gemm_at_b(la_cuda *h, int m, int n, int k, const double *A, const double *B,
                            int ld, double beta, double *C, int ldc)
{
    return la_cuda_dgemm(h, true, false, m, n, k, 1.0, A, ld, B, ld, beta, C, ldc);
}

static gmm_status gemm_at_b(la_cuda *h, int m, int n, int k, const float *A, const float *B,
                            int ld, float beta, float *C, int ldc)
{
    return la_cuda_sgemm(h, true, false, m, n, k, 1.0f, A, ld, B, ld, beta, C, ldc);
}

static gmm_status syrk_at_a(la_cuda *h, int n, int k, const double *A, double beta, double *C)
{
    return la_cuda_dsyrk_at_a(h, n, k, 1.0, A, n, beta, C, n);
}

static gmm_status syrk_at_a(la_cuda *h, int n, int k, const float *A, float beta, float *C)
{
    return la_cuda_ssyrk_at_a(h, n, k, 1.0f, A, n, beta, C, n);
}

/* out (d x d, lower triangle valid) (+)= A^T A for A rows x d. */
template <typename TA>
static gmm_status product(la_cuda *h, int mode, const TA *A, int rows, int d, TA beta, TA *out)
{
    gmm_status status = GMM_OK;
    if (mode == COV_SYRK) return syrk_at_a(h, d, rows, A, beta, out);
    if (mode == COV_GEMM) return gemm_at_b(h, d, d, rows, A, A, d, beta, out, d);
    const int h0 = (d + 1) / 2, sz[2] = {h0, d - h0};
    for (int bi = 0; bi < 2; bi++)
        for (int bj = 0; bj <= bi; bj++) {
            status = gemm_at_b(h, sz[bi], sz[bj], rows, A + bi * h0, A + bj * h0, d, beta,
                               out + (size_t)bi * h0 * d + bj * h0, d);
            if (status != GMM_OK) return status;
        }
    return status;
}

/* Accumulates sum_i r_ik (x_i - mu_k)(x_i - mu_k)^T into acc (lower triangle valid), per
 * component (full) or summed over components (tied). Per chunk: one kernel writes the K blocks
 * of sqrt(r_k)-scaled centred rows, then the K products A_k^T A_k run concurrently on the
 * cuBLAS lanes (each alone fills only ~36 SMs: its d x d output is small, its depth large).
 * TX: the data's type; TA: the products' (double, or float under TF32). */
template <typename TX, typename TA>
static gmm_status centred_scatter(gmm_backend_ctx *c, bool tied)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples, dd = (int64_t)d * d;
    const bool direct = sizeof(TA) == sizeof(double) && !tied; /* straight into acc */
    TA *A = (TA *)c->d_work;
    TA *tmp = (TA *)c->d_tmp;
    for (int64_t r0 = 0; r0 < N; r0 += c->mstep_rows) {
        int64_t rows = N - r0 < c->mstep_rows ? N - r0 : c->mstep_rows;
        const double *Rc = c->d_resp + r0 * K;
        if (c->compact) {
            /* flags, exclusive scan, K + 1 packed bounds to the host, gather of the kept rows */
            int n_items = (int)(rows * K + 1);
            size_t tmp_bytes = c->scan_tmp_bytes;
            keep_flags_kernel<<<grid_for(rows * K + 1, 256), 256>>>(Rc, rows, K, c->d_flags);
            GMM_LAUNCH_CHECK("keep_flags_kernel");
            GMM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(c->d_scan_tmp, tmp_bytes, c->d_flags,
                                                         c->d_pos, n_items, (cudaStream_t)0));
            bounds_kernel<<<(K + 1 + 127) / 128, 128>>>(c->d_pos, rows, K, c->d_bounds);
            GMM_LAUNCH_CHECK("bounds_kernel");
            GMM_CUDA_CHECK(cudaMemcpy(c->h_bounds, c->d_bounds, sizeof(int) * (K + 1),
                                      cudaMemcpyDeviceToHost));
            packed_centre_kernel<TX, TA><<<grid_for(rows * d, 256), 256>>>(
                (const TX *)c->d_X + r0 * d, rows, d, Rc, K, c->d_means, c->d_pos, A);
            GMM_LAUNCH_CHECK("packed_centre_kernel");
        } else {
            scaled_centre_kernel<TX, TA><<<grid_for(rows * d, 256), 256>>>(
                (const TX *)c->d_X + r0 * d, rows, d, Rc, K, c->d_means, A);
            GMM_LAUNCH_CHECK("scaled_centre_kernel");
        }
        for (int k = 0; k < K; k++) {
            la_cuda *lane = la_cuda_lane(c->la, k % c->n_lanes);
            const TA *Ak = c->compact ? A + (int64_t)c->h_bounds[k] * d : A + (int64_t)k * rows * d;
            const int nrows = c->compact ? c->h_bounds[k + 1] - c->h_bounds[k] : (int)rows;
            if (!lane) {
                status = GMM_ERR_CUDA;
                goto fail;
            }
            TA *out = direct ? (TA *)(c->d_acc + k * dd) : tmp + k * dd;
            TA beta = direct && r0 > 0 ? (TA)1 : (TA)0;
            if (nrows == 0) {
                /* nothing kept: the product is 0 (beta 1: nothing to add) */
                if (beta == (TA)0) GMM_CUDA_CHECK(cudaMemset(out, 0, sizeof(TA) * dd));
                continue;
            }
            status = product<TA>(lane, c->cov_mode, Ak, nrows, d, beta, out);
            if (status != GMM_OK) goto fail;
        }
        if (!direct) {
            int n_out = tied ? 1 : K, group = tied ? K : 1;
            sum_products_kernel<TA><<<grid_for(dd * n_out, 256), 256>>>(tmp, n_out, group, dd,
                                                                        c->d_acc, r0 == 0);
            GMM_LAUNCH_CHECK("sum_products_kernel");
        }
    }
fail:
    return status;
}

template <typename T>
static gmm_status mstep_impl(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples, dd = (int64_t)d * d;
    const int nm = c->n_mats;
    int bad = -1;

    if (c->resp_state == 2) {
        exp_kernel<<<grid_for(N * K, 256), 256>>>(c->d_log_resp, c->d_resp, N * K);
        GMM_LAUNCH_CHECK("exp_kernel");
    }
    nk_kernel<<<K, REDUCE_THREADS>>>(c->d_resp, N, K, c->d_nk);
    GMM_LAUNCH_CHECK("nk_kernel");
    weights_kernel<<<1, 32>>>(c->d_nk, K, c->d_weights);
    GMM_LAUNCH_CHECK("weights_kernel");

    /* means = R^T X / nk */
    if (!c->single) {
        if ((status = la_cuda_dgemm(c->la, true, false, K, d, (int)N, 1.0, c->d_resp, K,
                                    (const double *)c->d_X, d, 0.0, c->d_means, d)) != GMM_OK)
            goto fail;
        divide_rows_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_means, K, d, c->d_nk);
        GMM_LAUNCH_CHECK("divide_rows_kernel");
    } else {
        if ((status = weighted_sums<T>(c, 0, 0.0, c->d_means)) != GMM_OK) goto fail;
    }

    switch (c->type) {
    case GMM_COV_FULL:
        status = c->precision == GMM_PRECISION_TF32 ? centred_scatter<float, float>(c, false)
                                                    : centred_scatter<T, double>(c, false);
        if (status != GMM_OK) goto fail;
        break;
    case GMM_COV_TIED:
        if (!c->single) {
            /* scikit-learn: (X^T X - sum_k N_k mu_k mu_k^T) / sum N_k */
            if ((status = la_cuda_dsyrk_at_a(c->la, d, (int)N, 1.0, (const double *)c->d_X, d,
                                             0.0, c->d_acc, d)) != GMM_OK)
                goto fail;
            sqrt_nk_means_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_means, c->d_nk, K,
                                                                          d, c->d_b);
            GMM_LAUNCH_CHECK("sqrt_nk_means_kernel");
            if ((status = la_cuda_dsyrk_at_a(c->la, d, K, -1.0, c->d_b, d, 1.0, c->d_acc, d)) !=
                GMM_OK)
                goto fail;
        } else {
            /* float32 would lose X^T X - sum N_k mu mu^T to cancellation: centred sum instead */
            status = c->precision == GMM_PRECISION_TF32 ? centred_scatter<float, float>(c, true)
                                                        : centred_scatter<T, double>(c, true);
            if (status != GMM_OK) goto fail;
        }
        break;
    case GMM_COV_DIAG:
        if ((status = weighted_sums<T>(c, 1, reg_covar, c->d_cov)) != GMM_OK) goto fail;
        break;
    case GMM_COV_SPHERICAL:
        if ((status = weighted_sums<T>(c, 1, reg_covar, c->d_acc)) != GMM_OK) goto fail;
        spherical_kernel<<<(K + 127) / 128, 128>>>(c->d_acc, K, d, c->d_cov);
        GMM_LAUNCH_CHECK("spherical_kernel");
        break;
    }

    if (nm > 0) {
        cov_finish_kernel<<<grid_for(dd * nm, 256), 256>>>(c->d_acc, nm, d, c->d_nk, K,
                                                           c->type == GMM_COV_TIED, reg_covar,
                                                           c->d_cov);
        GMM_LAUNCH_CHECK("cov_finish_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(c->d_acc, c->d_cov, sizeof(double) * dd * nm,
                                  cudaMemcpyDeviceToDevice));
        if ((status = la_cuda_dpotrf_upper(c->la, d, c->d_ptrs, c->h_ptrs, d, nm,
                                           c->potrf_batched, c->d_potrf_work, c->potrf_lwork,
                                           c->d_info)) != GMM_OK)
            goto fail;
        identity_kernel<<<grid_for(dd * nm, 256), 256>>>(c->d_prec, nm, d);
        GMM_LAUNCH_CHECK("identity_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(c->h_info, c->d_info, sizeof(int) * nm, cudaMemcpyDeviceToHost));
        for (int m = 0; m < nm; m++)
            if (c->h_info[m] != 0) {
                bad = m;
                break;
            }
        if (bad >= 0) {
            if (c->type == GMM_COV_TIED)
                status = gmm_error(GMM_ERR_CHOLESKY,
                                   "tied covariance is not positive definite (leading minor %d): "
                                   "increase --reg-covar (now %g)",
                                   c->h_info[bad], reg_covar);
            else
                status = gmm_error(GMM_ERR_CHOLESKY,
                                   "component %d: covariance is not positive definite (leading "
                                   "minor %d); the component has ill-defined empirical covariance "
                                   "(collapsed or singleton samples): increase --reg-covar (now "
                                   "%g), use fewer components, or scale the data",
                                   bad, c->h_info[bad], reg_covar);
            goto fail;
        }
        for (int m = 0; m < nm; m++) {
            la_cuda *lane = la_cuda_lane(c->la, m % c->n_lanes);
            if (!lane) {
                status = GMM_ERR_CUDA;
                goto fail;
            }
            if ((status = la_cuda_upper_inverse(lane, d, c->h_ptrs[m], d, c->d_prec + m * dd,
                                                d)) != GMM_OK)
                goto fail;
        }
        triu_kernel<<<grid_for(dd * nm, 256), 256>>>(c->d_prec, nm, d);
        GMM_LAUNCH_CHECK("triu_kernel");
    } else {
        int per = c->type == GMM_COV_DIAG ? d : 1;
        diag_prec_kernel<<<(K + 127) / 128, 128>>>(c->d_cov, K, per, c->d_prec, c->d_info);
        GMM_LAUNCH_CHECK("diag_prec_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(c->h_info, c->d_info, sizeof(int) * K, cudaMemcpyDeviceToHost));
        for (int k = 0; k < K; k++)
            if (c->h_info[k] != 0) {
                double v = 0;
                GMM_CUDA_CHECK(cudaMemcpy(&v, c->d_cov + (size_t)k * per + c->h_info[k] - 1,
                                          sizeof(double), cudaMemcpyDeviceToHost));
                status = gmm_error(GMM_ERR_CHOLESKY,
                                   "component %d: variance %g is not positive; increase "
                                   "--reg-covar (now %g)",
                                   k, v, reg_covar);
                goto fail;
            }
    }
    if ((status = prepare_estep(c)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(c->h_nk, c->d_nk, sizeof(double) * K, cudaMemcpyDeviceToHost));
    if (report && report->nk) memcpy(report->nk, c->h_nk, sizeof(double) * K);
fail:
    return status;
}

static gmm_status cuda_m_step(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report)
{
    if (c->resp_state == 0)
        return gmm_error(GMM_ERR_ARG, "M-step before responsibilities were set");
    return c->single ? mstep_impl<float>(c, reg_covar, report)
                     : mstep_impl<double>(c, reg_covar, report);
}

static gmm_status cuda_get_estep(gmm_backend_ctx *c, double *log_likelihood, double *log_resp)
{
    gmm_status status = GMM_OK;
    if (log_likelihood)
        GMM_CUDA_CHECK(cudaMemcpy(log_likelihood, c->d_lpn, sizeof(double) * c->n_samples,
                                  cudaMemcpyDeviceToHost));
    if (log_resp)
        GMM_CUDA_CHECK(cudaMemcpy(log_resp, c->d_log_resp,
                                  sizeof(double) * c->n_samples * c->n_components,
                                  cudaMemcpyDeviceToHost));
fail:
    return status;
}

/* Lloyd's k-means on the device with models/init.c's semantics (see backend.h). */
static gmm_status cuda_kmeans_lloyd(gmm_backend_ctx *c, int max_iter, double *centers,
                                    double *resp)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    const size_t Kd = (size_t)K * d;
    double *dX = NULL, *own_X = NULL, *d_xn = NULL, *d_colp = NULL;
    int *d_lab = NULL, *d_counts = NULL;
    unsigned long long *d_changed = NULL;
    int64_t *d_far = NULL;
    double *nc = NULL;
    int *counts = NULL, *labels = NULL;
    double *d_C = c->d_means, *d_cn = c->d_const, *d_dots = c->d_log_resp, *d_R = c->d_resp;
    double *d_min = c->d_lpn, *d_sums = c->d_acc, *d_mean = c->d_b;
    const int assign_blocks = (int)((N + 255) / 256);
    int S = 64;
    int64_t per;
    double tol, var_sum = 0;
    int it;

    c->have_params = false;
    c->resp_state = 0;
    nc = (double *)malloc(sizeof(double) * Kd);
    counts = (int *)malloc(sizeof(int) * K);
    labels = (int *)malloc(sizeof(int) * N);
    if (!nc || !counts || !labels) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    if (!c->single) {
        dX = (double *)c->d_X;
    } else {
        /* float data: the distances in float64 from a float64 copy */
        if (c->d_work && (size_t)c->chunk_rows * (c->type == GMM_COV_FULL ? Kd : (size_t)d) *
                                 elem_size(c) >= sizeof(double) * N * d)
            dX = (double *)c->d_work;
        else {
            DMALLOC(own_X, sizeof(double) * N * d);
            dX = own_X;
        }
        to_double_kernel<float><<<grid_for(N * d, 256), 256>>>((const float *)c->d_X, dX, N * d);
        GMM_LAUNCH_CHECK("to_double_kernel");
    }
    if (S > N) S = (int)N;
    per = (N + S - 1) / S;
    S = (int)((N + per - 1) / per);
    DMALLOC(d_xn, sizeof(double) * N);
    DMALLOC(d_colp, sizeof(double) * (size_t)S * d);
    DMALLOC(d_lab, sizeof(int) * N);
    DMALLOC(d_counts, sizeof(int) * K);
    DMALLOC(d_changed, sizeof(unsigned long long));
    DMALLOC(d_far, sizeof(int64_t));

    /* tol = 1e-4 x the mean over features of the variance; ||x_i||^2 */
    col_sum_kernel<<<dim3((d + 127) / 128, S), 128>>>(dX, N, d, per, d_colp);
    GMM_LAUNCH_CHECK("col_sum_kernel");
    col_mean_finish_kernel<<<(d + 127) / 128, 128>>>(d_colp, S, d, N, d_mean);
    GMM_LAUNCH_CHECK("col_mean_finish_kernel");
    row_norms_kernel<<<(unsigned)((N + 7) / 8), 256>>>(dX, N, d, d_mean, d_xn, d_min);
    GMM_LAUNCH_CHECK("row_norms_kernel");
    {
        int blocks = grid_for(N, REDUCE_THREADS);
        if (blocks > REDUCE_BLOCKS) blocks = REDUCE_BLOCKS;
        reduce_stage1_kernel<<<blocks, REDUCE_THREADS>>>(d_min, N, c->d_partial);
        GMM_LAUNCH_CHECK("reduce_stage1_kernel");
        reduce_stage2_kernel<<<1, REDUCE_THREADS>>>(c->d_partial, blocks, 1.0, c->d_scalar);
        GMM_LAUNCH_CHECK("reduce_stage2_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(&var_sum, c->d_scalar, sizeof(double), cudaMemcpyDeviceToHost));
    }
    tol = 1e-4 * var_sum / ((double)N * d);
    GMM_CUDA_CHECK(cudaMemset(d_lab, 0xff, sizeof(int) * N)); /* -1 */

    for (it = 1; it <= max_iter; it++) {
        unsigned long long changed = 0;
        double shift = 0;
        GMM_CUDA_CHECK(cudaMemcpy(d_C, centers, sizeof(double) * Kd, cudaMemcpyHostToDevice));
        center_norms_kernel<<<(K + 127) / 128, 128>>>(d_C, K, d, d_cn);
        GMM_LAUNCH_CHECK("center_norms_kernel");
        if ((status = la_cuda_dgemm(c->la, false, true, (int)N, K, d, 1.0, dX, d, d_C, d, 0.0,
                                    d_dots, K)) != GMM_OK)
            goto fail;
        GMM_CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(unsigned long long)));
        assign_kernel<<<assign_blocks, 256>>>(d_dots, d_xn, d_cn, N, K, d_lab, d_min, d_R,
                                              d_changed);
        GMM_LAUNCH_CHECK("assign_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof changed, cudaMemcpyDeviceToHost));
        if (changed == 0 && it > 1) break;
        /* center sums onehot^T X and counts */
        if ((status = la_cuda_dgemm(c->la, true, false, K, d, (int)N, 1.0, d_R, K, dX, d, 0.0,
                                    d_sums, d)) != GMM_OK)
            goto fail;
        label_counts_kernel<<<K, REDUCE_THREADS>>>(d_lab, N, d_counts);
        GMM_LAUNCH_CHECK("label_counts_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(nc, d_sums, sizeof(double) * Kd, cudaMemcpyDeviceToHost));
        GMM_CUDA_CHECK(cudaMemcpy(counts, d_counts, sizeof(int) * K, cudaMemcpyDeviceToHost));
        for (int k = 0; k < K; k++) {
            if (counts[k] == 0) {
                /* empty cluster: move it to the sample farthest from its center */
                int64_t far = 0;
                argmax_kernel<<<1, REDUCE_THREADS>>>(d_min, N, d_far);
                GMM_LAUNCH_CHECK("argmax_kernel");
                GMM_CUDA_CHECK(cudaMemcpy(&far, d_far, sizeof far, cudaMemcpyDeviceToHost));
                GMM_CUDA_CHECK(cudaMemcpy(nc + (size_t)k * d, dX + far * d, sizeof(double) * d,
                                          cudaMemcpyDeviceToHost));
                GMM_CUDA_CHECK(cudaMemset(d_min + far, 0, sizeof(double)));
                continue;
            }
            for (int j = 0; j < d; j++) nc[(size_t)k * d + j] /= counts[k];
        }
        for (size_t q = 0; q < Kd; q++) shift += (nc[q] - centers[q]) * (nc[q] - centers[q]);
        memcpy(centers, nc, sizeof(double) * Kd);
        if (shift <= tol) {
            GMM_CUDA_CHECK(cudaMemcpy(d_C, centers, sizeof(double) * Kd, cudaMemcpyHostToDevice));
            center_norms_kernel<<<(K + 127) / 128, 128>>>(d_C, K, d, d_cn);
            GMM_LAUNCH_CHECK("center_norms_kernel");
            if ((status = la_cuda_dgemm(c->la, false, true, (int)N, K, d, 1.0, dX, d, d_C, d,
                                        0.0, d_dots, K)) != GMM_OK)
                goto fail;
            assign_kernel<<<assign_blocks, 256>>>(d_dots, d_xn, d_cn, N, K, d_lab, d_min, NULL,
                                                  d_changed);
            GMM_LAUNCH_CHECK("assign_kernel");
            break;
        }
    }
    GMM_CUDA_CHECK(cudaMemcpy(labels, d_lab, sizeof(int) * N, cudaMemcpyDeviceToHost));
    memset(resp, 0, sizeof(double) * N * K);
    for (int64_t i = 0; i < N; i++) resp[i * K + labels[i]] = 1.0;
fail:
    cudaFree(own_X);
    cudaFree(d_xn);
    cudaFree(d_colp);
    cudaFree(d_lab);
    cudaFree(d_counts);
    cudaFree(d_changed);
    cudaFree(d_far);
    free(nc);
    free(counts);
    free(labels);
    return status;
}

/* Greedy k-means++ on the device with gmm_kmeans_plusplus's draws: the closest distances, the
 * candidates' distances, the potentials and the cumsum/searchsorted stay on the device; per new
 * center the n_trials draws go down and n_trials potentials and indices come back. */
static gmm_status kpp_potentials(const double *d_x, int64_t N, int T, double *d_part, int B,
                                 double *d_pots)
{
    gmm_status status = GMM_OK;
    kpp_pot_stage1_kernel<<<dim3(B, T), REDUCE_THREADS>>>(d_x, N, d_part);
    GMM_LAUNCH_CHECK("kpp_pot_stage1_kernel");
    kpp_pot_stage2_kernel<<<T, REDUCE_THREADS>>>(d_part, B, d_pots);
    GMM_LAUNCH_CHECK("kpp_pot_stage2_kernel");
fail:
    return status;
}

static gmm_status cuda_kmeans_plusplus(gmm_backend_ctx *c, gmm_rng *rng, int64_t *indices)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    int T = 2 + (int)log((double)K);
    if (T > 64) T = 64;
    const int nch = (int)((N + KPP_CHUNK - 1) / KPP_CHUNK);
    int B = grid_for(N, REDUCE_THREADS);
    if (B > REDUCE_BLOCKS) B = REDUCE_BLOCKS;
    const dim3 dgrid((unsigned)((N + KPP_ROWS - 1) / KPP_ROWS), 1);
    double *d_closest = NULL, *d_cd = NULL, *d_r = NULL, *d_pots = NULL, *d_part = NULL;
    double *d_cs = NULL, *d_pre = NULL;
    int64_t *d_cand = NULL;
    double r[64], pots[64], pot = 0;
    int64_t cand[64];

    DMALLOC(d_closest, sizeof(double) * N);
    DMALLOC(d_cd, sizeof(double) * N * T);
    DMALLOC(d_r, sizeof(double) * T);
    DMALLOC(d_pots, sizeof(double) * T);
    DMALLOC(d_part, sizeof(double) * B * T);
    DMALLOC(d_cs, sizeof(double) * nch);
    DMALLOC(d_pre, sizeof(double) * nch);
    DMALLOC(d_cand, sizeof(int64_t) * T);

    indices[0] = (int64_t)gmm_rng_below(rng, (uint64_t)N);
    GMM_CUDA_CHECK(cudaMemcpy(d_cand, indices, sizeof(int64_t), cudaMemcpyHostToDevice));
#define KPP_DIST(grid, closest, out)                                                           \
    do {                                                                                       \
        if (c->single)                                                                         \
            kpp_dist_kernel<float><<<grid, 256>>>((const float *)c->d_X, N, d, d_cand, closest, \
                                                  out);                                        \
        else                                                                                   \
            kpp_dist_kernel<double><<<grid, 256>>>((const double *)c->d_X, N, d, d_cand,       \
                                                   closest, out);                              \
        GMM_LAUNCH_CHECK("kpp_dist_kernel");                                                   \
    } while (0)
    KPP_DIST(dgrid, (const double *)NULL, d_closest);
    if ((status = kpp_potentials(d_closest, N, 1, d_part, B, d_pots)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(&pot, d_pots, sizeof(double), cudaMemcpyDeviceToHost));

    for (int k = 1; k < K; k++) {
        kpp_chunk_sums_kernel<<<(nch + 127) / 128, 128>>>(d_closest, N, nch, d_cs);
        GMM_LAUNCH_CHECK("kpp_chunk_sums_kernel");
        kpp_chunk_scan_kernel<<<1, 32>>>(d_cs, nch, d_pre);
        GMM_LAUNCH_CHECK("kpp_chunk_scan_kernel");
        for (int t = 0; t < T; t++) r[t] = gmm_rng_uniform(rng) * pot;
        GMM_CUDA_CHECK(cudaMemcpy(d_r, r, sizeof(double) * T, cudaMemcpyHostToDevice));
        kpp_search_kernel<<<1, 64>>>(d_closest, N, d_pre, nch, d_r, T, d_cand);
        GMM_LAUNCH_CHECK("kpp_search_kernel");
        KPP_DIST(dim3(dgrid.x, T), (const double *)d_closest, d_cd);
        if ((status = kpp_potentials(d_cd, N, T, d_part, B, d_pots)) != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaMemcpy(pots, d_pots, sizeof(double) * T, cudaMemcpyDeviceToHost));
        GMM_CUDA_CHECK(cudaMemcpy(cand, d_cand, sizeof(int64_t) * T, cudaMemcpyDeviceToHost));
        double best_pot = INFINITY;
        int best = 0;
        for (int t = 0; t < T; t++) {
            if (pots[t] < best_pot) {
                best_pot = pots[t];
                best = t;
            }
        }
        indices[k] = cand[best];
        pot = best_pot;
        GMM_CUDA_CHECK(cudaMemcpy(d_closest, d_cd + (size_t)best * N, sizeof(double) * N,
                                  cudaMemcpyDeviceToDevice));
    }
#undef KPP_DIST
fail:
    cudaFree(d_closest);
    cudaFree(d_cd);
    cudaFree(d_r);
    cudaFree(d_pots);
    cudaFree(d_part);
    cudaFree(d_cs);
    cudaFree(d_pre);
    cudaFree(d_cand);
    return status;
}

extern "C" const gmm_backend gmm_backend_cuda = {
    "cuda",
    cuda_available,
    cuda_supports,
    cuda_create,
    cuda_destroy,
    cuda_set_params,
    cuda_get_params,
    cuda_set_resp,
    cuda_e_step,
    cuda_m_step,
    cuda_get_estep,
    cuda_kmeans_lloyd,
    cuda_kmeans_plusplus,
};
