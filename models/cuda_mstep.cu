/* The CUDA backend's M-step (see backend_cuda.cu): N_k and the weights, the means, the
 * covariances (compacted sqrt(r)-scaled centred rows and their products on the cuBLAS lanes for
 * full; the scikit-learn formula or the centred sum for tied; weighted column sums for diag and
 * spherical), reg_covar, Cholesky and the precision factors. */
#include <cub/device/device_scan.cuh>

#include "models/backend_cuda.cuh"

static __global__ void exp_kernel(const double *__restrict__ x, double *__restrict__ y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = exp(x[i]);
}

/* nk[k] = sum_i R[i, k] + 10 eps, one block per k. */
static __global__ void nk_kernel(const double *__restrict__ R, int64_t n, int K, double *nk)
{
    __shared__ double sh[REDUCE_THREADS];
    const int k = blockIdx.x;
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += R[i * K + k];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) nk[k] = s + 10 * DBL_EPSILON;
}

/* weights = nk / sum nk (summed in order, as the CPU backend); nk[K] = the sum. */
static __global__ void weights_kernel(double *nk, int K, double *weights)
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
static __global__ void __launch_bounds__(WSUM_THREADS)
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
static __global__ void wsum_finish_kernel(const double *__restrict__ partial, int S, int K, int d,
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
static __global__ void divide_rows_kernel(double *x, int K, int d, const double *__restrict__ nk)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        x[e] /= nk[e / d];
}

/* spherical variance: the mean over j of the diagonal variances (K threads, in order). */
static __global__ void spherical_kernel(const double *__restrict__ diag, int K, int d, double *var)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    double s = 0;
    for (int j = 0; j < d; j++) s += diag[(int64_t)k * d + j];
    var[k] = s / d;
}

/* prec = 1/sqrt(var) for diag/spherical; info[k] = first j+1 whose variance is not > 0. */
static __global__ void diag_prec_kernel(const double *__restrict__ var, int K, int per, double *prec,
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
static __global__ void scaled_centre_kernel(const TX *__restrict__ X, int64_t rows, int d,
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
static __global__ void keep_flags_kernel(const double *__restrict__ R, int64_t rows, int K, int *flags)
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
static __global__ void bounds_kernel(const int *__restrict__ pos, int64_t rows, int K, int *bounds)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k <= K) bounds[k] = pos[(int64_t)k * rows];
}

/* The packed form of scaled_centre_kernel: row i of component k goes to packed row
 * pos[k * rows + i] when R[i, k] > 1e-20 and is left out otherwise. */
template <typename TX, typename TA>
static __global__ void packed_centre_kernel(const TX *__restrict__ X, int64_t rows, int d,
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
static __global__ void sum_products_kernel(const TA *__restrict__ tmp, int n_out, int group, int64_t dd,
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
static __global__ void sqrt_nk_means_kernel(const double *__restrict__ mu, const double *__restrict__ nk,
                                     int K, int d, double *B)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        B[e] = sqrt(nk[e / d]) * mu[e];
}

/* cov[m] = sym(acc[m]) / nk[m] (full) or / nk[K] = sum N_k (tied) + reg I, from the lower
 * triangle. */
static __global__ void cov_finish_kernel(const double *__restrict__ acc, int n_mats, int d,
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

static __global__ void identity_kernel(double *x, int n_mats, int d)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        x[e] = (rem / d == rem % d) ? 1.0 : 0.0;
    }
}

/* zero the strict lower triangle (row > col) of each matrix */
static __global__ void triu_kernel(double *x, int n_mats, int d)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        if (rem / d > rem % d) x[e] = 0.0;
    }
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

static gmm_status gemm_at_b(gmm_gpu *h, int m, int n, int k, const double *A, const double *B,
                            int ld, double beta, double *C, int ldc)
{
    return gmm_gpu_dgemm(h, true, false, m, n, k, 1.0, A, ld, B, ld, beta, C, ldc);
}

static gmm_status gemm_at_b(gmm_gpu *h, int m, int n, int k, const float *A, const float *B,
                            int ld, float beta, float *C, int ldc)
{
    return gmm_gpu_sgemm(h, true, false, m, n, k, 1.0f, A, ld, B, ld, beta, C, ldc);
}

static gmm_status syrk_at_a(gmm_gpu *h, int n, int k, const double *A, double beta, double *C)
{
    return gmm_gpu_dsyrk_at_a(h, n, k, 1.0, A, n, beta, C, n);
}

static gmm_status syrk_at_a(gmm_gpu *h, int n, int k, const float *A, float beta, float *C)
{
    return gmm_gpu_ssyrk_at_a(h, n, k, 1.0f, A, n, beta, C, n);
}

/* out (d x d, lower triangle valid) (+)= A^T A for A rows x d. */
template <typename TA>
static gmm_status product(gmm_gpu *h, int mode, const TA *A, int rows, int d, TA beta, TA *out)
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
            gmm_gpu *lane = gmm_gpu_lane(c->gpu, k % c->n_lanes);
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
        if ((status = gmm_gpu_dgemm(c->gpu, true, false, K, d, (int)N, 1.0, c->d_resp, K,
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
            if ((status = gmm_gpu_dsyrk_at_a(c->gpu, d, (int)N, 1.0, (const double *)c->d_X, d,
                                             0.0, c->d_acc, d)) != GMM_OK)
                goto fail;
            sqrt_nk_means_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_means, c->d_nk, K,
                                                                          d, c->d_b);
            GMM_LAUNCH_CHECK("sqrt_nk_means_kernel");
            if ((status = gmm_gpu_dsyrk_at_a(c->gpu, d, K, -1.0, c->d_b, d, 1.0, c->d_acc, d)) !=
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
        if ((status = gmm_gpu_dpotrf_upper_many(c->gpu, d, c->d_ptrs, c->h_ptrs, d, nm,
                                                c->potrf_batched,
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
            gmm_gpu *lane = gmm_gpu_lane(c->gpu, m % c->n_lanes);
            if (!lane) {
                status = GMM_ERR_CUDA;
                goto fail;
            }
            if ((status = gmm_gpu_upper_inverse(lane, d, c->h_ptrs[m], d, c->d_prec + m * dd,
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
    if ((status = cuda_prepare_estep(c)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(c->h_nk, c->d_nk, sizeof(double) * K, cudaMemcpyDeviceToHost));
    if (report && report->nk) memcpy(report->nk, c->h_nk, sizeof(double) * K);
fail:
    return status;
}

gmm_status cuda_m_step(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report)
{
    if (c->resp_state == 0)
        return gmm_error(GMM_ERR_ARG, "M-step before responsibilities were set");
    return c->single ? mstep_impl<float>(c, reg_covar, report)
                     : mstep_impl<double>(c, reg_covar, report);
}
