/* The CUDA backend's M-step (see backend_cuda.cu), composed from the kernel layer's operations:
 *   N_k and the weights        mixture_weights_cuda                     (kernels/mixture_weights.h)
 *   means R^T X / N_k          cuBLAS DGEMM, or wsum_cuda for float32 data; when the data is
 *                              read chunk by chunk (streamed, or bytes converted a chunk at a
 *                              time) the E-step has already summed them on its own pass
 *                              (cuda_estep_chunk_sums), so the M-step reads the data once
 *   full (tied float32)        per row chunk: compact_rows_cuda (flags, scan, packed gather of the
 *                              sqrt(r)-scaled centred rows; kernels/compact.h) or, without
 *                              compaction, scaled_centre_cuda; then the K products A_k^T A_k on
 *                              the cuBLAS lanes (cov_product.cuh), into float64
 *   tied (float64)             X^T X - sum_k N_k mu_k mu_k^T as scikit-learn (cuBLAS SYRKs)
 *   diag, spherical            wsum_cuda about the means (kernels/wsum.h)
 * then reg_covar, and the precision factors of cuda_factorise.cu.
 * The element-wise finishing kernels stay here, private: each is a line of arithmetic on the
 * backend's own buffers (exp, a row division, symmetrise-divide-regularise, the spherical mean,
 * 1/sqrt of the variances) whose CPU counterparts are inline loops of backend_cpu.c or
 * models/precisions.c, not operations of their own. The means by matmul_cuda and the covariance
 * products as one GEMM, SYRK or the tensor-core kernel measured slower: bench/experiments/. */
#include "kernels/compact.h"
#include "kernels/mixture_weights.h"
#include "kernels/reduce.h"
#include "kernels/scaled_centre.h"
#include "kernels/wsum.h"
#include "models/backend/cuda/backend_cuda.cuh"
#include "models/backend/cuda/cov_product.cuh"

static __global__ void exp_kernel(const double *__restrict__ x, double *__restrict__ y, int64_t n)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        y[i] = exp(x[i]);
}

/* acc[i] += x[i] */
static __global__ void add_kernel(const double *__restrict__ x, int64_t n, double *acc)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        acc[i] += x[i];
}

/* x[k, j] = x[k, j] / nk[k] + add */
static __global__ void divide_add_kernel(double *x, int K, int d, const double *__restrict__ nk,
                                         double add)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x)
        x[e] = x[e] / nk[e / d] + add;
}

/* From the summed statistics (stats[0..K): sum_i r_ik): nk[k] = stats[k] + 10 eps, nk[K] their
 * sum in k order, weights = nk / nk[K], as mixture_weights_cuda (one thread). */
static __global__ void weights_from_stats_kernel(const double *__restrict__ stats, int K,
                                                 double *nk, double *weights)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    double total = 0;
    for (int k = 0; k < K; k++) {
        nk[k] = stats[k] + 10 * DBL_EPSILON;
        total += nk[k];
    }
    nk[K] = total;
    for (int k = 0; k < K; k++) weights[k] = nk[k] / total;
}

/* Whether the M-step's sums are split (over chunks or ranks) and so formed as plain sums, added
 * up, summed over the ranks, then divided: otherwise one pass divides at once (one rank, the
 * data resident in the compute type: the former arithmetic, bit for bit). */
static bool split_sums(const gmm_backend_ctx *c)
{
    return gmm_comm_size(c->comm) > 1 ||
           cuda_chunk_step(c, compute_elem(c), c->n_samples) < c->n_samples;
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
 * triangle; acc float64, or the float32 products themselves (one chunk on one rank: what
 * sum_products_kernel would have copied into float64 first). */
template <typename TA>
static __global__ void cov_finish_kernel(const TA *__restrict__ acc, int n_mats, int d,
                                  const double *__restrict__ nk, int K, int tied, double reg,
                                  double *cov)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t m = e / dd, rem = e - m * dd;
        const int r = (int)(rem / d), c = (int)(rem - (int64_t)r * d);
        const int hi = r > c ? r : c, lo = r > c ? c : r;
        double v = (double)acc[m * dd + (int64_t)hi * d + lo] / (tied ? nk[K] : nk[m]);
        if (r == c) v += reg;
        cov[e] = v;
    }
}

/* One chunk's plain weighted column sums sum_{i in chunk} R[i,k] f(X[i,j]) (f as
 * weighted_sums below; X: rows [r0, r0 + rows) in `want`) into out for the first chunk (r0 = 0),
 * else added to out in chunk order. */
static gmm_status chunk_sums(gmm_backend_ctx *c, const void *X, gmm_elem want, int64_t r0,
                             int64_t rows, bool centred, double *out)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    status = wsum_cuda(X, want, (size_t)rows, d, c->d_resp + r0 * K, K,
                       centred ? c->d_means : NULL, c->d_ones, 0.0, c->d_partial, c->partial_n,
                       r0 == 0 ? out : c->d_chunk_sums, NULL);
    if (status != GMM_OK) goto fail;
    if (r0 > 0) {
        add_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_chunk_sums, (int64_t)K * d, out);
        GMM_LAUNCH_CHECK("add_kernel");
    }
fail:
    return status;
}

/* The means' sums sum_{i in chunk} r_ik x_i of rows [r0, r0 + rows) (X in the compute type)
 * into sum_x (r0 = 0) or added to it: a DGEMM R^T X with beta 1 after the first chunk
 * (float64), chunk_sums (float32). */
static gmm_status means_chunk(gmm_backend_ctx *c, const void *X, int64_t r0, int64_t rows,
                              double *sum_x)
{
    const int K = c->n_components, d = c->dim;
    if (c->single) return chunk_sums(c, X, GMM_ELEM_F32, r0, rows, false, sum_x);
    return gmm_gpu_dgemm(c->gpu, true, false, K, d, (int)rows, 1.0, c->d_resp + r0 * K, K,
                         (const double *)X, d, r0 > 0 ? 1.0 : 0.0, sum_x, d);
}

bool cuda_estep_sums_means(const gmm_backend_ctx *c)
{
    const gmm_elem want = compute_elem(c);
    return split_sums(c) &&
           cuda_chunk_step(c, want, c->estep_step) == cuda_chunk_step(c, want, c->n_samples);
}

gmm_status cuda_estep_chunk_sums(gmm_backend_ctx *c, const void *X, int64_t r0, int64_t rows)
{
    gmm_status status = GMM_OK;
    const int64_t n = rows * c->n_components;
    exp_kernel<<<grid_for(n, 256), 256>>>(c->d_log_resp + r0 * c->n_components,
                                          c->d_resp + r0 * c->n_components, n);
    GMM_LAUNCH_CHECK("exp_kernel");
    status = means_chunk(c, X, r0, rows, c->d_stats + c->n_components);
fail:
    return status;
}

/* The weighted column sums over all rows: out[k, j] = sum_i R[i,k] f(X[i,j]) / N_k (+ reg):
 * f(x) = x (centred false) or (x - mu[k, j])^2 (centred true), every rank's rows. Split over
 * chunks or ranks, the chunks' plain sums are added up; finish false leaves those (this rank's)
 * in out for the caller to sum over the ranks and divide. */
static gmm_status weighted_sums(gmm_backend_ctx *c, bool centred, double reg, double *out,
                                bool finish)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    const gmm_elem want = compute_elem(c);
    const bool whole = !split_sums(c) && cuda_chunk_step(c, want, N) >= N;
    cuda_chunk_loop L;
    if ((status = cuda_chunks_begin(c, want, N, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status)) {
        if (whole) /* one chunk, one rank: divided and regularised at once */
            status = wsum_cuda(L.X, want, (size_t)N, d, c->d_resp, K, centred ? c->d_means : NULL,
                               c->d_nk, reg, c->d_partial, c->partial_n, out, NULL);
        else
            status = chunk_sums(c, L.X, want, L.r0, L.rows, centred, out);
        if (status != GMM_OK) goto fail;
    }
    if (status != GMM_OK) goto fail;
    if (!whole && finish) {
        if ((status = cuda_comm_sum(c, out, (size_t)K * d)) != GMM_OK) goto fail;
        divide_add_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(out, K, d, c->d_nk, reg);
        GMM_LAUNCH_CHECK("divide_add_kernel");
    }
fail:
    return status;
}

/* Accumulates sum_i r_ik (x_i - mu_k)(x_i - mu_k)^T into acc (lower triangle valid), per
 * component (full) or summed over components (tied). Per chunk: the K blocks of sqrt(r_k)-scaled
 * centred rows (packed, or whole), then the K products A_k^T A_k run concurrently on the cuBLAS
 * lanes (each alone fills only ~36 SMs: its d x d output is small, its depth large) by
 * cov_product.cuh on the lane's handle.
 * TX: the data's type; TA: the products' (double, or float under TF32). */
template <typename TX, typename TA>
static gmm_status centred_scatter(gmm_backend_ctx *c, bool tied, bool *in_tmp)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t dd = (int64_t)d * d;
    const bool direct = sizeof(TA) == sizeof(double) && !tied; /* straight into acc */
    TA *A = (TA *)c->d_work;
    TA *tmp = (TA *)c->d_tmp;
    const gmm_elem x_elem = sizeof(TX) == sizeof(float) ? GMM_ELEM_F32 : GMM_ELEM_F64;
    const gmm_elem a_elem = sizeof(TA) == sizeof(float) ? GMM_ELEM_F32 : GMM_ELEM_F64;
    cuda_chunk_loop L;
    *in_tmp = false;
    if ((status = cuda_chunks_begin(c, x_elem, c->mstep_rows, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status)) {
        const int64_t r0 = L.r0, rows = L.rows;
        const double *Rc = c->d_resp + r0 * K;
        const void *Xc = L.X;
        if (c->compact)
            status = compact_rows_cuda(Xc, x_elem, (size_t)rows, d, Rc, (size_t)K, K, c->d_means,
                                       A, a_elem, c->d_compact_ws, c->compact_ws_bytes,
                                       c->h_bounds, NULL);
        else
            status = scaled_centre_cuda(Xc, x_elem, (size_t)rows, d, Rc, (size_t)K, K,
                                        c->d_means, A, a_elem, NULL);
        if (status != GMM_OK) goto fail;
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
            if ((status = cov_product<TA>(lane, Ak, nrows, d, beta, out)) != GMM_OK) goto fail;
        }
        *in_tmp = !direct && !tied && r0 == 0 && rows == c->n_samples &&
                  gmm_comm_size(c->comm) == 1;
        if (!direct && !*in_tmp) { /* the float32 products summed into acc in float64 */
            int n_out = tied ? 1 : K, group = tied ? K : 1;
            sum_products_kernel<TA><<<grid_for(dd * n_out, 256), 256>>>(tmp, n_out, group, dd,
                                                                        c->d_acc, r0 == 0);
            GMM_LAUNCH_CHECK("sum_products_kernel");
        }
    }
    if (status != GMM_OK) goto fail;
    /* the accumulators of every rank's rows (lower triangles) */
    if (!*in_tmp) status = cuda_comm_sum(c, c->d_acc, (size_t)dd * (tied ? 1 : K));
fail:
    return status;
}

/* N_k, the weights and the means = R^T X / N_k over every rank's rows. One rank with the data
 * resident in the compute type: mixture_weights_cuda and one product, as always. Otherwise the
 * statistics [sum_i r_ik (K) | R^T X (K x d)] chunk by chunk into d_stats, summed over the
 * ranks in one call, then the weights and the division. */
static gmm_status weights_and_means(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    const bool split = split_sums(c);
    double *sum_x = split ? c->d_stats + K : c->d_means;
    if (!split) {
        if ((status = mixture_weights_cuda(c->d_resp, (size_t)N, K, c->d_nk, c->d_weights,
                                           NULL)) != GMM_OK)
            goto fail;
    } else {
        if ((status = reduce_cols_cuda(c->d_resp, (size_t)N, K, c->d_stats, NULL)) != GMM_OK)
            goto fail;
    }
    if (c->resp_state == 3) {
        /* the E-step summed them chunk by chunk as it went: one pass over the data fewer */
    } else if (!c->single) {
        cuda_chunk_loop L;
        if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, N, &L)) != GMM_OK) goto fail;
        while (cuda_chunks_next(&L, &status))
            if ((status = means_chunk(c, L.X, L.r0, L.rows, sum_x)) != GMM_OK) goto fail;
        if (status != GMM_OK) goto fail;
        if (!split) {
            divide_rows_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_means, K, d, c->d_nk);
            GMM_LAUNCH_CHECK("divide_rows_kernel");
        }
    } else {
        if ((status = weighted_sums(c, false, 0.0, sum_x, false)) != GMM_OK) goto fail;
    }
    if (split) {
        if ((status = cuda_comm_sum(c, c->d_stats, (size_t)K + (size_t)K * d)) != GMM_OK)
            goto fail;
        weights_from_stats_kernel<<<1, 1>>>(c->d_stats, K, c->d_nk, c->d_weights);
        GMM_LAUNCH_CHECK("weights_from_stats_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(c->d_means, sum_x, sizeof(double) * K * d,
                                  cudaMemcpyDeviceToDevice));
        divide_rows_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_means, K, d, c->d_nk);
        GMM_LAUNCH_CHECK("divide_rows_kernel");
    }
fail:
    return status;
}

/* acc (lower triangle) = X^T X over every rank's rows (the tied float64 covariance), chunk by
 * chunk, summed over the ranks. */
static gmm_status data_gram(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    const int d = c->dim;
    cuda_chunk_loop L;
    if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, c->n_samples, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status))
        if ((status = gmm_gpu_dsyrk_at_a(c->gpu, d, (int)L.rows, 1.0, (const double *)L.X, d,
                                         L.r0 > 0 ? 1.0 : 0.0, c->d_acc, d)) != GMM_OK)
            goto fail;
    if (status != GMM_OK) goto fail;
    status = cuda_comm_sum(c, c->d_acc, (size_t)d * d);
fail:
    return status;
}

/* The M-step's parts timed with events when report->phase_ms asks for them (gmm-bench em):
 * 0 weights and means, 1 covariance products, 2 factorisation, 3 E-step constants. */
typedef struct {
    cudaEvent_t ev[GMM_MSTEP_PHASES + 1];
    bool on;
} phase_timer;

static gmm_status phase_mark(phase_timer *t, int i)
{
    gmm_status status = GMM_OK;
    if (t->on) GMM_CUDA_CHECK(cudaEventRecord(t->ev[i], 0));
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
    phase_timer timer = {};
    bool products_in_tmp = false; /* the TF32 products left in d_tmp for cov_finish */
    const bool from_estep = c->resp_state == 3; /* resp and the means' sums formed already */
    timer.on = report && report->phase_ms;
    for (int i = 0; timer.on && i <= GMM_MSTEP_PHASES; i++)
        GMM_CUDA_CHECK(cudaEventCreate(&timer.ev[i]));
    if ((status = phase_mark(&timer, 0)) != GMM_OK) goto fail;

    if (c->resp_state == 2) {
        exp_kernel<<<grid_for(N * K, 256), 256>>>(c->d_log_resp, c->d_resp, N * K);
        GMM_LAUNCH_CHECK("exp_kernel");
    }
    if (report && from_estep) report->means_from_estep = true;
    status = weights_and_means(c);
    /* d_resp stays valid; a second M-step on the same responsibilities sums them again */
    if (from_estep) c->resp_state = 1;
    if (status != GMM_OK) goto fail;
    if ((status = phase_mark(&timer, 1)) != GMM_OK) goto fail;

    switch (c->type) {
    case GMM_COV_FULL:
        status = c->precision == GMM_PRECISION_TF32
                     ? centred_scatter<float, float>(c, false, &products_in_tmp)
                     : centred_scatter<T, double>(c, false, &products_in_tmp);
        if (status != GMM_OK) goto fail;
        break;
    case GMM_COV_TIED:
        if (!c->single) {
            /* scikit-learn: (X^T X - sum_k N_k mu_k mu_k^T) / sum N_k */
            if ((status = data_gram(c)) != GMM_OK) goto fail;
            sqrt_nk_means_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_means, c->d_nk, K,
                                                                          d, c->d_b);
            GMM_LAUNCH_CHECK("sqrt_nk_means_kernel");
            if ((status = gmm_gpu_dsyrk_at_a(c->gpu, d, K, -1.0, c->d_b, d, 1.0, c->d_acc, d)) !=
                GMM_OK)
                goto fail;
        } else {
            /* float32 would lose X^T X - sum N_k mu mu^T to cancellation: centred sum instead */
            status = c->precision == GMM_PRECISION_TF32
                         ? centred_scatter<float, float>(c, true, &products_in_tmp)
                         : centred_scatter<T, double>(c, true, &products_in_tmp);
            if (status != GMM_OK) goto fail;
        }
        break;
    case GMM_COV_DIAG:
        if ((status = weighted_sums(c, true, reg_covar, c->d_cov, true)) != GMM_OK) goto fail;
        break;
    case GMM_COV_SPHERICAL:
        if ((status = weighted_sums(c, true, reg_covar, c->d_acc, true)) != GMM_OK) goto fail;
        spherical_kernel<<<(K + 127) / 128, 128>>>(c->d_acc, K, d, c->d_cov);
        GMM_LAUNCH_CHECK("spherical_kernel");
        break;
    }

    if (nm > 0) {
        if (products_in_tmp)
            cov_finish_kernel<float><<<grid_for(dd * nm, 256), 256>>>(
                (const float *)c->d_tmp, nm, d, c->d_nk, K, c->type == GMM_COV_TIED, reg_covar,
                c->d_cov);
        else
            cov_finish_kernel<double><<<grid_for(dd * nm, 256), 256>>>(
                c->d_acc, nm, d, c->d_nk, K, c->type == GMM_COV_TIED, reg_covar, c->d_cov);
        GMM_LAUNCH_CHECK("cov_finish_kernel");
        /* a variational fit: the posterior's means and covariances (cuda_bayes.cu) */
        if (c->bayes && (status = cuda_bayes_posterior(c)) != GMM_OK) goto fail;
        if ((status = phase_mark(&timer, 2)) != GMM_OK) goto fail;
        if ((status = cuda_factorise(c, reg_covar)) != GMM_OK) goto fail;
        /* d_cov is d_prec's source: the pruned E-step may reorder it (not a posterior's) */
        c->order_source = !c->bayes;
        c->order_current = c->order_usable = false;
        if ((status = phase_mark(&timer, 3)) != GMM_OK) goto fail;
    } else {
        int per = c->type == GMM_COV_DIAG ? d : 1;
        if (c->bayes && (status = cuda_bayes_posterior(c)) != GMM_OK) goto fail;
        if ((status = phase_mark(&timer, 2)) != GMM_OK) goto fail;
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
        if ((status = phase_mark(&timer, 3)) != GMM_OK) goto fail;
    }
    if ((status = cuda_prepare_estep(c)) != GMM_OK) goto fail;
    if ((status = phase_mark(&timer, 4)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(c->h_nk, c->d_nk, sizeof(double) * K, cudaMemcpyDeviceToHost));
    if (report && report->nk) memcpy(report->nk, c->h_nk, sizeof(double) * K);
    if (c->bayes && report) report->lower_bound = cuda_bayes_lower_bound(c);
    for (int i = 0; timer.on && i < GMM_MSTEP_PHASES; i++) {
        float ms = 0;
        GMM_CUDA_CHECK(cudaEventElapsedTime(&ms, timer.ev[i], timer.ev[i + 1]));
        report->phase_ms[i] = ms;
    }
fail:
    for (int i = 0; timer.on && i <= GMM_MSTEP_PHASES; i++)
        if (timer.ev[i]) cudaEventDestroy(timer.ev[i]);
    return status;
}

gmm_status cuda_m_step(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report)
{
    if (c->resp_state == 0)
        return gmm_error(GMM_ERR_ARG, "M-step before responsibilities were set");
    return c->single ? mstep_impl<float>(c, reg_covar, report)
                     : mstep_impl<double>(c, reg_covar, report);
}
