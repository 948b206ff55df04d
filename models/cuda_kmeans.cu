/* The CUDA backend's k-means (see backend_cuda.cu): greedy k-means++ seeding with the host's
 * random draws, and Lloyd's iterations with the distances as one GEMM. */
#include "models/backend_cuda.cuh"

/* ---- k-means kernels ------------------------------------------------------------------------ */

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

static __global__ void col_mean_finish_kernel(const double *__restrict__ partial, int S, int d, int64_t n,
                                       double *mean)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= d) return;
    double s = 0;
    for (int t = 0; t < S; t++) s += partial[(int64_t)t * d + j];
    mean[j] = s / (double)n;
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

/* labels from the distances xn - 2 dots + cn (first minimum, as the CPU), min_dist, the number
 * of changed labels (integer atomics: order-free), and the one-hot matrix when onehot != NULL. */
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
    if (threadIdx.x == 0 && block_changed) atomicAdd(changed, (unsigned long long)block_changed);
}

/* counts[k] = number of labels equal to k, one block per k */
static __global__ void label_counts_kernel(const int *__restrict__ labels, int64_t n, int *counts)
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
static __global__ void argmax_kernel(const double *__restrict__ x, int64_t n, int64_t *out)
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
static __global__ void kpp_dist_kernel(const TX *__restrict__ X, int64_t n, int d,
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
static __global__ void kpp_pot_stage1_kernel(const double *__restrict__ x, int64_t n, double *partial)
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

static __global__ void kpp_pot_stage2_kernel(const double *__restrict__ partial, int B, double *pots)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int i = threadIdx.x; i < B; i += blockDim.x) s += partial[(size_t)blockIdx.x * B + i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) pots[blockIdx.x] = s;
}

/* The cumsum of the closest distances, deterministic: sequential sums of KPP_CHUNK-row chunks,
 * then their sequential inclusive scan (one thread; N / 256 values). */
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

/* Lloyd's k-means on the device with models/init.c's semantics (see backend.h). */
gmm_status cuda_kmeans_lloyd(gmm_backend_ctx *c, int max_iter, double *centers,
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
        if ((status = gmm_gpu_dgemm(c->gpu, false, true, (int)N, K, d, 1.0, dX, d, d_C, d, 0.0,
                                    d_dots, K)) != GMM_OK)
            goto fail;
        GMM_CUDA_CHECK(cudaMemset(d_changed, 0, sizeof(unsigned long long)));
        assign_kernel<<<assign_blocks, 256>>>(d_dots, d_xn, d_cn, N, K, d_lab, d_min, d_R,
                                              d_changed);
        GMM_LAUNCH_CHECK("assign_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(&changed, d_changed, sizeof changed, cudaMemcpyDeviceToHost));
        if (changed == 0 && it > 1) break;
        /* center sums onehot^T X and counts */
        if ((status = gmm_gpu_dgemm(c->gpu, true, false, K, d, (int)N, 1.0, d_R, K, dX, d, 0.0,
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
            if ((status = gmm_gpu_dgemm(c->gpu, false, true, (int)N, K, d, 1.0, dX, d, d_C, d,
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

gmm_status cuda_kmeans_plusplus(gmm_backend_ctx *c, gmm_rng *rng, int64_t *indices)
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
