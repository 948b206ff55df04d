/* CUDA versions of the k-means++ steps (see kmeans.h): the distances to candidate rows, the
 * potentials and the weighted draws, moved from kmeans.cu unchanged in arithmetic and launch
 * shape. */
#include "kernels/kmeans.h"
#include "kernels/grid.cuh"
#include "kernels/reduce.cuh"

#include "kernels/cuda_check.h"

#define KM_THREADS REDUCE_THREADS /* threads of the one-block reductions */
#define KM_BLOCKS REDUCE_BLOCKS   /* most blocks of a potential's first stage */
#define KPP_ROWS 8         /* rows (warps) per 256-thread block of the k-means++ distances */
#define KPP_CHUNK 256      /* rows per chunk of the k-means++ cumsum */

static inline cudaStream_t as_stream(void *stream) { return (cudaStream_t)stream; }

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
    int B = kernel_grid_for(n, KM_THREADS);
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
