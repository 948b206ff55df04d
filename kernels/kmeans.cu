/* CUDA versions of the k-means steps (see kmeans.h). The kernels are the CUDA backend's k-means
 * kernels as they were in models/cuda_kmeans.cu, moved here unchanged in arithmetic and launch
 * shape, so that a fit gives the same bits as before; and the GEMM-free assignment and label
 * sums that replace the two GEMMs of Lloyd's pass on MNIST-sized data. */
#include "kernels/kmeans.h"
#include "kernels/grid.cuh"
#include "kernels/reduce.cuh"

#include <math.h>

#include "kernels/cuda_check.h"

#define KM_THREADS REDUCE_THREADS /* threads of the one-block reductions */
#define KM_BLOCKS REDUCE_BLOCKS   /* most blocks of a potential's first stage */
#define KPP_ROWS 8         /* rows (warps) per 256-thread block of the k-means++ distances */
#define KPP_CHUNK 256      /* rows per chunk of the k-means++ cumsum */
#define COL_SLABS 64       /* row slabs of the column means */

static inline cudaStream_t as_stream(void *stream) { return (cudaStream_t)stream; }

static inline int grid_for(int64_t n, int threads) { return kernel_grid_for(n, threads); }

/* ---- the data ------------------------------------------------------------------------------ */

template <typename T>
static __global__ void to_double_kernel(const T *__restrict__ x, double *__restrict__ y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = (double)x[i];
}

/* partial[s, j] = sum of X[i, j] over the rows of slab s */
static __global__ void col_sum_kernel(const double *__restrict__ X, int64_t n, int d, int64_t per,
                                      double *partial)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    const int64_t i0 = blockIdx.y * per, i1 = i0 + per < n ? i0 + per : n;
    double s = 0;
    for (int64_t i = i0; i < i1; i++) s += X[i * d + j];
    partial[(int64_t)blockIdx.y * d + j] = s;
}

static __global__ void col_sum_finish_kernel(const double *__restrict__ partial, int S, int d,
                                             double *sums)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    double s = 0;
    for (int t = 0; t < S; t++) s += partial[(int64_t)t * d + j];
    sums[j] += s;
}

/* one warp per row: xn[i] = ||x_i||^2, dev[i] = ||x_i - mean||^2 */
static __global__ void row_norms_kernel(const double *__restrict__ X, int64_t n, int d,
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
static __global__ void center_norms_kernel(const double *__restrict__ C, int K, int d, double *cn)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    double s = 0;
    for (int j = 0; j < d; j++) s += C[(int64_t)k * d + j] * C[(int64_t)k * d + j];
    cn[k] = s;
}

gmm_status kmeans_to_double_cuda(const float *d_x, size_t n, double *d_y, void *stream)
{
    gmm_status status = GMM_OK;
    if (n == 0) return GMM_OK;
    if (!d_x || !d_y) return gmm_error(GMM_ERR_ARG, "kmeans_to_double_cuda: bad arguments");
    to_double_kernel<float><<<grid_for((int64_t)n, 256), 256, 0, as_stream(stream)>>>(
        d_x, d_y, (int64_t)n);
    GMM_LAUNCH_CHECK("to_double_kernel");
fail:
    return status;
}

gmm_status kmeans_column_sums_cuda(const double *d_X, int64_t n_samples, int dim, double *d_sums,
                                   void *stream)
{
    gmm_status status = GMM_OK;
    const int64_t N = n_samples;
    const int d = dim;
    double *d_colp = NULL;
    int S = COL_SLABS;
    int64_t per;
    if (!d_X || !d_sums || N < 1 || d < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_column_sums_cuda: bad arguments");
    if (S > N) S = (int)N;
    per = (N + S - 1) / S;
    S = (int)((N + per - 1) / per);
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_colp, sizeof(double) * (size_t)S * d));
    col_sum_kernel<<<dim3((d + 127) / 128, S), 128, 0, as_stream(stream)>>>(d_X, N, d, per,
                                                                            d_colp);
    GMM_LAUNCH_CHECK("col_sum_kernel");
    col_sum_finish_kernel<<<(d + 127) / 128, 128, 0, as_stream(stream)>>>(d_colp, S, d, d_sums);
    GMM_LAUNCH_CHECK("col_sum_finish_kernel");
fail:
    cudaFree(d_colp);
    return status;
}

gmm_status kmeans_row_norms_cuda(const double *d_X, int64_t n_samples, int dim,
                                 const double *d_mean, double *d_x_norm, double *d_deviation,
                                 void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_X || !d_mean || !d_x_norm || !d_deviation || n_samples < 1 || dim < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_row_norms_cuda: bad arguments");
    row_norms_kernel<<<(unsigned)((n_samples + 7) / 8), 256, 0, as_stream(stream)>>>(
        d_X, n_samples, dim, d_mean, d_x_norm, d_deviation);
    GMM_LAUNCH_CHECK("row_norms_kernel");
fail:
    return status;
}

gmm_status kmeans_sq_norms_cuda(const double *d_A, int n_rows, int dim, double *d_norm,
                                void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_A || !d_norm || n_rows < 1 || dim < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_sq_norms_cuda: bad arguments");
    center_norms_kernel<<<(n_rows + 127) / 128, 128, 0, as_stream(stream)>>>(d_A, n_rows, dim,
                                                                             d_norm);
    GMM_LAUNCH_CHECK("center_norms_kernel");
fail:
    return status;
}

/* ---- Lloyd's iteration ------------------------------------------------------------------- */

/* labels from the distances xn - 2 dots + cn (first minimum, as the CPU), min_dist, the number
 * of changed labels (integer atomics: order-free; not counted when changed is NULL), and the
 * one-hot matrix when onehot != NULL. */
static __global__ void assign_kernel(const double *__restrict__ dots, const double *__restrict__ xn,
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
    if (threadIdx.x == 0 && block_changed && changed)
        atomicAdd(changed, (unsigned long long)block_changed);
}

/* counts[k] = number of labels equal to k, one block per k */
static __global__ void label_counts_kernel(const int *__restrict__ labels, int64_t n, int *counts)
{
    __shared__ int sh[KM_THREADS];
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

/* *out = the first index of the maximum of x (one block of KM_THREADS) */
static __global__ void argmax_kernel(const double *__restrict__ x, int64_t n, int64_t *out)
{
    __shared__ double sv[KM_THREADS];
    __shared__ int64_t si[KM_THREADS];
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

gmm_status kmeans_assign_cuda(const double *d_dots, const double *d_x_norm,
                              const double *d_c_norm, int64_t n_samples, int n_components,
                              int *d_labels, double *d_min_dist, double *d_onehot,
                              unsigned long long *d_n_changed, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_dots || !d_x_norm || !d_c_norm || !d_labels || !d_min_dist || n_samples < 1 ||
        n_components < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_assign_cuda: bad arguments");
    if (d_n_changed)
        GMM_CUDA_CHECK(cudaMemsetAsync(d_n_changed, 0, sizeof(unsigned long long),
                                       as_stream(stream)));
    assign_kernel<<<(unsigned)((n_samples + 255) / 256), 256, 0, as_stream(stream)>>>(
        d_dots, d_x_norm, d_c_norm, n_samples, n_components, d_labels, d_min_dist, d_onehot,
        d_n_changed);
    GMM_LAUNCH_CHECK("assign_kernel");
fail:
    return status;
}

gmm_status kmeans_sums_cuda(gmm_gpu *gpu, const double *d_X, int64_t n_samples, int dim,
                            const int *d_labels, const double *d_onehot, int n_components,
                            double *d_sums, int *d_counts)
{
    gmm_status status = GMM_OK;
    const int K = n_components;
    if (!gpu || !d_X || !d_labels || !d_onehot || !d_sums || !d_counts || n_samples < 1 ||
        n_samples > 0x7fffffff || dim < 1 || K < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_sums_cuda: bad arguments");
    /* center sums onehot^T X */
    if ((status = gmm_gpu_dgemm(gpu, true, false, K, dim, (int)n_samples, 1.0, d_onehot, K, d_X,
                                dim, 0.0, d_sums, dim)) != GMM_OK)
        goto fail;
    label_counts_kernel<<<K, KM_THREADS, 0, as_stream(gmm_gpu_stream(gpu))>>>(d_labels,
                                                                             n_samples, d_counts);
    GMM_LAUNCH_CHECK("label_counts_kernel");
fail:
    return status;
}

/* ---- the same without a GEMM ---------------------------------------------------------------- */

#define ASSIGN_TILE 16 /* centers a warp sums in registers per pass over its row */
#define ASSIGN_WARPS 8 /* rows (warps) per block */

/* A warp per row: the dots x_i . c_k for ASSIGN_TILE centers at a time (lanes over the columns,
 * then a butterfly sum: every lane holds the totals), then as assign_kernel. */
static __global__ void __launch_bounds__(32 * ASSIGN_WARPS)
    assign_rows_kernel(const double *__restrict__ X, int64_t n, int d, const double *__restrict__ C,
                       const double *__restrict__ xn, const double *__restrict__ cn, int K,
                       int *labels, double *min_dist, double *onehot, unsigned long long *changed)
{
    __shared__ unsigned int block_changed;
    if (threadIdx.x == 0) block_changed = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31;
    const int64_t i = blockIdx.x * (int64_t)ASSIGN_WARPS + threadIdx.x / 32;
    if (i < n) {
        const double *x = X + i * d;
        int best = 0;
        double bd = INFINITY;
        for (int k0 = 0; k0 < K; k0 += ASSIGN_TILE) {
            const int kn = K - k0 < ASSIGN_TILE ? K - k0 : ASSIGN_TILE;
            const double *c = C + (size_t)k0 * d;
            double acc[ASSIGN_TILE];
#pragma unroll
            for (int t = 0; t < ASSIGN_TILE; t++) acc[t] = 0;
            for (int j = lane; j < d; j += 32) {
                const double xv = x[j];
#pragma unroll
                for (int t = 0; t < ASSIGN_TILE; t++)
                    if (t < kn) acc[t] = fma(xv, c[(size_t)t * d + j], acc[t]);
            }
#pragma unroll
            for (int t = 0; t < ASSIGN_TILE; t++) {
                if (t >= kn) break; /* uniform across the warp */
                double v = acc[t];
                for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
                const double dd = xn[i] - 2 * v + cn[k0 + t];
                if (dd < bd) {
                    bd = dd;
                    best = k0 + t;
                }
            }
        }
        if (lane == 0) {
            if (labels[i] != best) atomicAdd(&block_changed, 1u);
            labels[i] = best;
            min_dist[i] = bd < 0 ? 0 : bd;
        }
        if (onehot)
            for (int k = lane; k < K; k += 32) onehot[i * K + k] = k == best ? 1.0 : 0.0;
    }
    __syncthreads();
    if (threadIdx.x == 0 && block_changed && changed)
        atomicAdd(changed, (unsigned long long)block_changed);
}

gmm_status kmeans_assign_rows_cuda(const double *d_X, int64_t n_samples, int dim,
                                   const double *d_centers, const double *d_x_norm,
                                   const double *d_c_norm, int n_components, int *d_labels,
                                   double *d_min_dist, double *d_onehot,
                                   unsigned long long *d_n_changed, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_X || !d_centers || !d_x_norm || !d_c_norm || !d_labels || !d_min_dist ||
        n_samples < 1 || dim < 1 || n_components < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_assign_rows_cuda: bad arguments");
    if (d_n_changed)
        GMM_CUDA_CHECK(cudaMemsetAsync(d_n_changed, 0, sizeof(unsigned long long),
                                       as_stream(stream)));
    assign_rows_kernel<<<(unsigned)((n_samples + ASSIGN_WARPS - 1) / ASSIGN_WARPS),
                         32 * ASSIGN_WARPS, 0, as_stream(stream)>>>(
        d_X, n_samples, dim, d_centers, d_x_norm, d_c_norm, n_components, d_labels, d_min_dist,
        d_onehot, d_n_changed);
    GMM_LAUNCH_CHECK("assign_rows_kernel");
fail:
    return status;
}

/* Block (column tile, row slab): thread t owns column j of the tile and adds each row of the
 * slab into its label's sum in shared memory (sums[k * cols + t]; no other thread touches it),
 * then writes the slab's K sums of its column to partial[slab][k][j]. */
static __global__ void label_sums_kernel(const double *__restrict__ X, int64_t n, int d,
                                         const int *__restrict__ labels, int K, int64_t per,
                                         double *__restrict__ partial)
{
    extern __shared__ double sums[];
    const int cols = blockDim.x, t = threadIdx.x, j = blockIdx.x * cols + t;
    for (int k = 0; k < K; k++) sums[k * cols + t] = 0;
    const int64_t r0 = blockIdx.y * per, r1 = r0 + per < n ? r0 + per : n;
    if (j >= d) return;
#pragma unroll 4
    for (int64_t i = r0; i < r1; i++) sums[labels[i] * cols + t] += X[i * d + j];
    for (int k = 0; k < K; k++) partial[((size_t)blockIdx.y * K + k) * d + j] = sums[k * cols + t];
}

/* sums[e] = the slabs' partial sums of entry e, in slab order */
static __global__ void label_sums_finish_kernel(const double *__restrict__ partial, int S,
                                                size_t Kd, double *__restrict__ sums)
{
    for (size_t e = blockIdx.x * (size_t)blockDim.x + threadIdx.x; e < Kd;
         e += (size_t)gridDim.x * blockDim.x) {
        double s = 0;
        for (int b = 0; b < S; b++) s += partial[(size_t)b * Kd + e];
        sums[e] = s;
    }
}

gmm_status kmeans_label_sums_cuda(const double *d_X, int64_t n_samples, int dim,
                                  const int *d_labels, int n_components, double *d_sums,
                                  int *d_counts, double *d_work, void *stream)
{
    gmm_status status = GMM_OK;
    const int K = n_components;
    if (!d_X || !d_labels || !d_sums || !d_counts || !d_work || n_samples < 1 || dim < 1 ||
        K < 1 || K > KMEANS_LABEL_SUMS_MAX_K)
        return gmm_error(GMM_ERR_ARG, "kmeans_label_sums_cuda: bad arguments");
    const int S = kmeans_label_sums_slabs(n_samples);
    const int64_t per = (n_samples + S - 1) / S;
    /* 128 columns a block while K of them fit in 48 KB of shared memory, else 32 */
    const int cols = K <= 48 ? 128 : 32;
    const size_t Kd = (size_t)K * dim;
    label_sums_kernel<<<dim3((dim + cols - 1) / cols, S), cols, sizeof(double) * K * cols,
                        as_stream(stream)>>>(d_X, n_samples, dim, d_labels, K, per, d_work);
    GMM_LAUNCH_CHECK("label_sums_kernel");
    label_sums_finish_kernel<<<grid_for((int64_t)Kd, 256), 256, 0, as_stream(stream)>>>(
        d_work, S, Kd, d_sums);
    GMM_LAUNCH_CHECK("label_sums_finish_kernel");
    label_counts_kernel<<<K, KM_THREADS, 0, as_stream(stream)>>>(d_labels, n_samples, d_counts);
    GMM_LAUNCH_CHECK("label_counts_kernel");
fail:
    return status;
}

gmm_status kmeans_argmax_cuda(const double *d_x, int64_t n, int64_t *d_index, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_x || !d_index || n < 1) return gmm_error(GMM_ERR_ARG, "kmeans_argmax_cuda: bad arguments");
    argmax_kernel<<<1, KM_THREADS, 0, as_stream(stream)>>>(d_x, n, d_index);
    GMM_LAUNCH_CHECK("argmax_kernel");
fail:
    return status;
}

/* ---- k-means++ ----------------------------------------------------------------------------- */

/* Squared distances of every row to n_trials candidate rows, one warp per (row, trial), in
 * float64 (from float data too), min'd with the closest distance so far when closest is not
 * NULL. */
template <typename TX>
static __global__ void kpp_dist_kernel(const TX *__restrict__ X, int64_t n, int d,
                                       const int64_t *__restrict__ cand,
                                       const double *__restrict__ rows,
                                       const double *__restrict__ closest, double *__restrict__ out)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int64_t i = (int64_t)blockIdx.x * KPP_ROWS + warp;
    const int t = blockIdx.y;
    if (i >= n) return;
    const TX *x = X + i * d, *c = rows ? NULL : X + cand[t] * d;
    const double *r = rows ? rows + (int64_t)t * d : NULL;
    double s = 0;
    for (int j = lane; j < d; j += 32) {
        double v = (double)x[j] - (r ? r[j] : (double)c[j]);
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
static __global__ void kpp_pot_stage1_kernel(const double *__restrict__ x, int64_t n, double *partial)
{
    __shared__ double sh[KM_THREADS];
    const double *xt = x + (int64_t)blockIdx.y * n;
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        s += xt[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) partial[(size_t)blockIdx.y * gridDim.x + blockIdx.x] = s;
}

static __global__ void kpp_pot_stage2_kernel(const double *__restrict__ partial, int B, double *pots)
{
    __shared__ double sh[KM_THREADS];
    double s = 0;
    for (int i = threadIdx.x; i < B; i += blockDim.x) s += partial[(size_t)blockIdx.x * B + i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) pots[blockIdx.x] = s;
}

/* The cumsum of the weights, deterministic: sequential sums of KPP_CHUNK-row chunks, then their
 * sequential inclusive scan (one thread; N / 256 values). */
static __global__ void kpp_chunk_sums_kernel(const double *__restrict__ x, int64_t n, int nch,
                                             double *sums)
{
    int ch = blockIdx.x * blockDim.x + threadIdx.x;
    if (ch >= nch) return;
    int64_t i0 = (int64_t)ch * KPP_CHUNK, i1 = i0 + KPP_CHUNK < n ? i0 + KPP_CHUNK : n;
    double s = 0;
    for (int64_t i = i0; i < i1; i++) s += x[i];
    sums[ch] = s;
}

static __global__ void kpp_chunk_scan_kernel(const double *__restrict__ sums, int nch, double *pre)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double run = 0;
    for (int c = 0; c < nch; c++) pre[c] = (run += sums[c]);
}

/* searchsorted: per draw r_t, the first index whose cumsum exceeds r_t (binary search over the
 * chunk prefixes, then a sequential run inside the chunk from the previous prefix), clipped to
 * n - 1 as the host's. */
static __global__ void kpp_search_kernel(const double *__restrict__ x, int64_t n,
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

template <typename TX>
static gmm_status pp_distances(const TX *d_X, int64_t n_samples, int dim,
                               const int64_t *d_candidates, const double *d_rows, int n_candidates,
                               const double *d_closest, double *d_out, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_X || (!d_candidates && !d_rows) || !d_out || n_samples < 1 || dim < 1 || n_candidates < 1 ||
        n_candidates > 65535)
        return gmm_error(GMM_ERR_ARG, "kmeans_pp_distances_cuda: bad arguments");
    const dim3 grid((unsigned)((n_samples + KPP_ROWS - 1) / KPP_ROWS), (unsigned)n_candidates);
    kpp_dist_kernel<TX><<<grid, 256, 0, as_stream(stream)>>>(d_X, n_samples, dim, d_candidates,
                                                            d_rows, d_closest, d_out);
    GMM_LAUNCH_CHECK("kpp_dist_kernel");
fail:
    return status;
}

gmm_status kmeans_pp_distances_cuda(const double *d_X, int64_t n_samples, int dim,
                                    const int64_t *d_candidates, int n_candidates,
                                    const double *d_closest, double *d_out, void *stream)
{
    return pp_distances<double>(d_X, n_samples, dim, d_candidates, NULL, n_candidates, d_closest,
                                d_out, stream);
}

gmm_status kmeans_pp_distances_f32_cuda(const float *d_X, int64_t n_samples, int dim,
                                        const int64_t *d_candidates, int n_candidates,
                                        const double *d_closest, double *d_out, void *stream)
{
    return pp_distances<float>(d_X, n_samples, dim, d_candidates, NULL, n_candidates, d_closest,
                               d_out, stream);
}

gmm_status kmeans_pp_distances_rows_cuda(const void *d_X, gmm_elem x_elem, int64_t n_samples,
                                         int dim, const double *d_rows, int n_rows,
                                         const double *d_closest, double *d_out, void *stream)
{
    if (x_elem == GMM_ELEM_F32)
        return pp_distances<float>((const float *)d_X, n_samples, dim, NULL, d_rows, n_rows,
                                   d_closest, d_out, stream);
    if (x_elem == GMM_ELEM_F64)
        return pp_distances<double>((const double *)d_X, n_samples, dim, NULL, d_rows, n_rows,
                                    d_closest, d_out, stream);
    return gmm_error(GMM_ERR_ARG, "kmeans_pp_distances_rows_cuda: float64 or float32 data only");
}

gmm_status kmeans_pp_potentials_cuda(const double *d_x, int64_t n, int n_rows, double *d_pot,
                                     double *d_work, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_x || !d_pot || !d_work || n < 1 || n_rows < 1 || n_rows > 65535)
        return gmm_error(GMM_ERR_ARG, "kmeans_pp_potentials_cuda: bad arguments");
    int B = grid_for(n, KM_THREADS);
    if (B > KM_BLOCKS) B = KM_BLOCKS; /* as kmeans_pp_potentials_work counts */
    kpp_pot_stage1_kernel<<<dim3(B, n_rows), KM_THREADS, 0, as_stream(stream)>>>(d_x, n, d_work);
    GMM_LAUNCH_CHECK("kpp_pot_stage1_kernel");
    kpp_pot_stage2_kernel<<<n_rows, KM_THREADS, 0, as_stream(stream)>>>(d_work, B, d_pot);
    GMM_LAUNCH_CHECK("kpp_pot_stage2_kernel");
fail:
    return status;
}

gmm_status kmeans_pp_pick_cuda(const double *d_weights, int64_t n, const double *d_draws,
                               int n_draws, int64_t *d_picks, double *d_work, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_weights || !d_draws || !d_picks || !d_work || n < 1 || n_draws < 1 ||
        n_draws > KMEANS_PP_MAX_TRIALS)
        return gmm_error(GMM_ERR_ARG, "kmeans_pp_pick_cuda: bad arguments");
    const int nch = (int)((n + KPP_CHUNK - 1) / KPP_CHUNK);
    double *d_sums = d_work, *d_prefix = d_work + nch; /* kmeans_pp_pick_work(n) = 2 nch */
    kpp_chunk_sums_kernel<<<(nch + 127) / 128, 128, 0, as_stream(stream)>>>(d_weights, n, nch,
                                                                            d_sums);
    GMM_LAUNCH_CHECK("kpp_chunk_sums_kernel");
    kpp_chunk_scan_kernel<<<1, 32, 0, as_stream(stream)>>>(d_sums, nch, d_prefix);
    GMM_LAUNCH_CHECK("kpp_chunk_scan_kernel");
    kpp_search_kernel<<<1, KMEANS_PP_MAX_TRIALS, 0, as_stream(stream)>>>(
        d_weights, n, d_prefix, nch, d_draws, n_draws, d_picks);
    GMM_LAUNCH_CHECK("kpp_search_kernel");
fail:
    return status;
}
