/* CUDA versions of the k-means steps (see kmeans.h). The kernels are the CUDA backend's k-means
 * kernels as they were in models/backend/cuda/cuda_kmeans.cu, moved here unchanged in arithmetic and launch
 * shape, so that a fit gives the same bits as before; and the GEMM-free assignment and label
 * sums that replace the two GEMMs of Lloyd's pass on MNIST-sized data. k-means++'s steps are in
 * kmeans_pp.cu. */
#include "kernels/kmeans.h"
#include "kernels/grid.cuh"
#include "kernels/reduce.cuh"

#include <math.h>

#include "kernels/cuda_check.h"

#define KM_THREADS REDUCE_THREADS /* threads of the one-block reductions */
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
                const double dd = xn[i] - 2 * warp_sum(acc[t]) + cn[k0 + t];
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
