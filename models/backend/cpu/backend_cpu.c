/* The CPU backend: the EM operations in float64 through the kernel layer's library paths
 * (matmul_blas, compact_rows_cpu with SYRK, the precision factors: OpenBLAS and LAPACKE), GEMMs
 * for the E-step (full/tied: the triangle-blocked product of models/backend/cpu/cpu_estep.h) and
 * OpenMP loops for the row reductions. Under GMM_PRECISION_FP32 (full and tied) the E-step's
 * product is an SGEMM on a float32 copy of the data made once; distances, log-sum-exp, every sum
 * and the M-step stay float64, and e_step_f64 (a fit's final scores) runs the float64 product on
 * the view's rows with float64 factors made for the call. The data view (models/data_view.h) is
 * not copied: float64 rows are read where they are, bytes and float32 are converted chunk by
 * chunk. Work is done in row chunks so that the temporaries stay near CHUNK_BYTES (or a quarter
 * of tuning.memory_budget) whatever N and K are. In a distributed fit (models/dist/comm.h) the
 * M-step's sufficient statistics (N_k, the K x d sums, the covariance scatters), X^T X (tied) and
 * the lower bound are summed over the ranks, and k-means runs on every rank's rows
 * (models/backend/cpu/kmeans.h). This file makes the context and runs the E-step; the M-step is
 * models/backend/cpu/cpu_mstep.c. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "kernels/estep_rows.h"
#include "kernels/parallel.h"
#include "kernels/reduce.h"
#include "models/backend/cpu/backend_cpu.h"
#include "models/backend/cpu/cpu_estep.h"
#include "models/backend/cpu/kmeans.h"
#include "models/bayes.h"
#include "models/precisions.h"

#define CHUNK_BYTES (64u << 20)

static bool cpu_available(void) { return true; }

/* fp32 for full and tied, where the E-step is a GEMM of N d^2 K (or N d^2) FLOP; tf32 is a
 * tensor-core format and stays on the GPU. */
static bool cpu_supports(gmm_cov_type type, gmm_precision precision)
{
    return precision == GMM_PRECISION_FP64 ||
           (precision == GMM_PRECISION_FP32 && (type == GMM_COV_FULL || type == GMM_COV_TIED));
}

static gmm_gpu *cpu_resources(gmm_backend_ctx *c)
{
    (void)c;
    return NULL;
}

/* Frees what depends on the number of components (everything but the data and what is derived
 * from the data alone), leaving the pointers NULL. */
static void free_component_buffers(gmm_backend_ctx *c)
{
    free(c->weights);
    free(c->means);
    free(c->covariances);
    free(c->prec_chol);
    free(c->log_const);
    free(c->prec_concat);
    free(c->mean_prec);
    free(c->mean_term);
    free(c->log_resp);
    free(c->work);
    free(c->x_chunk);
    free(c->packed);
    gmm_bayes_free(c->bayes);
    free(c->bayes_diff);
    free(c->bayes_coef);
    free(c->log_det);
    c->bayes = NULL;
    c->bayes_diff = c->bayes_coef = c->log_det = NULL;
    c->x_chunk = c->packed = NULL;
    c->weights = c->means = c->covariances = c->prec_chol = c->log_const = NULL;
    c->mean_prec = c->mean_term = c->log_resp = NULL;
    c->prec_concat = c->work = NULL;
    c->have_params = c->have_resp = 0;
}

static void cpu_destroy(gmm_backend_ctx *c)
{
    if (!c) return;
    free_component_buffers(c);
    free(c->x_sq_norm);
    free(c->x_squared);
    free(c->xtx);
    free(c->X_f32);
    free(c->log_prob_norm);
    free(c);
}

/* The buffers of a model of n_components components and the row chunk they allow. */
static gmm_status alloc_component_buffers(gmm_backend_ctx *c, int n_components)
{
    const int f32 = c->precision == GMM_PRECISION_FP32;
    size_t K = n_components, d = c->dim, N = c->n_samples;
    size_t cov_n = gmm_cov_size(c->type, n_components, c->dim);
    int mats = c->type == GMM_COV_FULL ? (int)K : 1;
    c->n_components = n_components;

    /* The widest per-row temporary: full/tied GEMM output K*d (tied: d), or d for the M-step. */
    size_t row_width = c->type == GMM_COV_FULL ? K * d : d;
    if (row_width < d) row_width = d;
    int64_t rows = c->chunk_bytes / ((f32 ? sizeof(float) : sizeof(double)) * row_width);
    if (rows < 1) rows = 1;
    if (rows > c->n_samples) rows = c->n_samples;
    if (c->tuning_chunk_rows > 0 && c->tuning_chunk_rows < rows) rows = c->tuning_chunk_rows;
    c->chunk_rows = rows;

    c->weights = calloc(K, sizeof(double));
    c->means = calloc(K * d, sizeof(double));
    c->covariances = calloc(cov_n, sizeof(double));
    c->prec_chol = calloc(cov_n, sizeof(double));
    c->log_const = calloc(K, sizeof(double));
    c->mean_prec = calloc(K * d, sizeof(double));
    c->mean_term = calloc(K, sizeof(double));
    c->log_resp = malloc(sizeof(double) * N * K);
    /* the M-step's chunks are rows x d: more rows than the E-step's, so that each
     * component's SYRK adds hundreds of kept rows at a time, not tens */
    int64_t mrows = c->chunk_bytes / (sizeof(double) * d);
    if (mrows < rows) mrows = rows;
    if (mrows > c->n_samples) mrows = c->n_samples;
    if (c->tuning_chunk_rows > 0 && c->tuning_chunk_rows < mrows) mrows = c->tuning_chunk_rows;
    c->mstep_rows = mrows;
    if (c->data.elem != GMM_ELEM_F64) c->x_chunk = malloc(sizeof(double) * (size_t)mrows * d);
    if (c->type == GMM_COV_FULL) c->packed = malloc(sizeof(double) * (size_t)mrows * d);
    /* the M-step's diag/spherical chunks are float64 whatever the precision */
    c->work = malloc((f32 ? sizeof(float) : sizeof(double)) * (size_t)rows * row_width);
    if (c->type == GMM_COV_FULL || c->type == GMM_COV_TIED)
        c->prec_concat = malloc((f32 ? sizeof(float) : sizeof(double)) *
                                cpu_estep_packed_size(mats, c->dim));
    else if (c->type == GMM_COV_DIAG)
        c->prec_concat = malloc(sizeof(double) * K * d);
    if (!c->weights || !c->means || !c->covariances || !c->prec_chol || !c->log_const ||
        !c->mean_prec || !c->mean_term || !c->log_resp || !c->work ||
        (c->data.elem != GMM_ELEM_F64 && !c->x_chunk) || (c->type == GMM_COV_FULL && !c->packed) ||
        (c->type != GMM_COV_SPHERICAL && !c->prec_concat))
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the CPU backend (N=%lld, d=%d, K=%d)",
                         (long long)c->n_samples, c->dim, n_components);
    if (c->bayes_prior) {
        gmm_status status = gmm_bayes_new_from_prior(&c->bayes, c->bayes_prior, c->type,
                                                     n_components, c->dim);
        if (status != GMM_OK) return status;
        c->bayes_diff = malloc(sizeof(double) * K * d);
        c->bayes_coef = malloc(sizeof(double) * 3 * K);
        c->log_det = malloc(sizeof(double) * K);
        if (!c->bayes_diff || !c->bayes_coef || !c->log_det)
            return gmm_error(GMM_ERR_NOMEM, "out of memory for the variational parameters");
    }
    return GMM_OK;
}

/* The table's set_n_components: the data and what derives from it stay; the rest is re-made. */
static gmm_status cpu_set_n_components(gmm_backend_ctx *c, int n_components)
{
    if (n_components < 1)
        return gmm_error(GMM_ERR_ARG, "set_n_components: n_components=%d must be >= 1",
                         n_components);
    free_component_buffers(c);
    return alloc_component_buffers(c, n_components);
}

/* Rows [r0, r0 + rows) of the view in float64 (converted into x_chunk unless float64). */
const double *cpu_chunk_f64(gmm_backend_ctx *c, int64_t r0, int64_t rows)
{
    return gmm_data_view_f64_rows(&c->data, r0, rows, c->x_chunk);
}

int64_t cpu_chunk_len(const gmm_backend_ctx *c, int64_t r0)
{
    return c->n_samples - r0 < c->chunk_rows ? c->n_samples - r0 : c->chunk_rows;
}

int64_t cpu_mstep_len(const gmm_backend_ctx *c, int64_t r0)
{
    return c->n_samples - r0 < c->mstep_rows ? c->n_samples - r0 : c->mstep_rows;
}

/* What the E-step reads of the rows besides the rows: X * X (diag), ||x||^2 (spherical). */
static void derive_row_values(gmm_backend_ctx *c)
{
    const int64_t N = c->n_samples;
    const size_t d = (size_t)c->dim;
    for (int64_t r0 = 0, rows; r0 < N && (c->x_squared || c->x_sq_norm); r0 += rows) {
        rows = cpu_chunk_len(c, r0);
        const double *X = cpu_chunk_f64(c, r0, rows);
        if (c->x_squared) {
            double *x2 = c->x_squared + (size_t)r0 * d;
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)rows * d))
            for (int64_t i = 0; i < (int64_t)(rows * d); i++) x2[i] = X[i] * X[i];
        } else {
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(2.0 * rows * d))
            for (int64_t i = 0; i < rows; i++) {
                double s = 0;
                for (size_t j = 0; j < d; j++) s += X[i * d + j] * X[i * d + j];
                c->x_sq_norm[r0 + i] = s;
            }
        }
    }
}

static gmm_status cpu_create(gmm_backend_ctx **out, const gmm_backend_config *cfg)
{
    gmm_status status = GMM_OK;
    const gmm_data_view *v = &cfg->data;
    const gmm_cov_type type = cfg->type;
    const gmm_precision precision = cfg->precision;
    *out = NULL;
    if ((status = gmm_data_view_check(v)) != GMM_OK) return status;
    if (cfg->n_components < 1)
        return gmm_error(GMM_ERR_ARG, "n_components=%d must be >= 1", cfg->n_components);
    if (precision == GMM_PRECISION_TF32)
        return gmm_error(GMM_ERR_UNSUPPORTED,
                         "tf32 is a GPU tensor-core format: the CPU backend computes in fp64 or "
                         "fp32 (full and tied covariance)");
    if (!cpu_supports(type, precision))
        return gmm_error(GMM_ERR_UNSUPPORTED,
                         "the CPU backend computes %s covariance in fp64 only (fp32: full and "
                         "tied)", gmm_cov_type_name(type));
    gmm_backend_ctx *c = calloc(1, sizeof *c);
    if (!c) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    const int64_t n_samples = v->n_rows;
    const int dim = v->dim;
    c->data = *v;
    c->comm = cfg->comm;
    c->n_samples = n_samples;
    c->dim = dim;
    c->n_components = cfg->n_components;
    c->type = type;
    c->precision = precision;
    c->bayes_prior = cfg->bayes;
    c->capacity_rows = n_samples;
    c->tuning_chunk_rows = cfg->tuning ? cfg->tuning->chunk_rows : 0;
    c->estep_all_pairs = cfg->tuning ? cfg->tuning->estep_all_pairs : 0;
    c->chunk_bytes = CHUNK_BYTES;
    if (cfg->tuning && cfg->tuning->memory_budget > 0 &&
        (size_t)cfg->tuning->memory_budget / 4 < c->chunk_bytes)
        c->chunk_bytes = (size_t)cfg->tuning->memory_budget / 4;
    const int f32 = precision == GMM_PRECISION_FP32;
    size_t d = dim, N = n_samples;
    if ((status = alloc_component_buffers(c, cfg->n_components)) != GMM_OK) goto fail;
    c->log_prob_norm = malloc(sizeof(double) * N);
    if (!c->log_prob_norm) goto nomem;
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) {
        if (f32) {
            if (!(c->X_f32 = malloc(sizeof(float) * N * d))) goto nomem;
            if ((status = convert_rows_cpu(v->rows, v->elem, N * d, c->X_f32, GMM_ELEM_F32)) !=
                GMM_OK)
                goto fail;
        }
    } else if (type == GMM_COV_DIAG) {
        if (!(c->x_squared = malloc(sizeof(double) * N * d))) goto nomem;
        derive_row_values(c);
    } else {
        if (!(c->x_sq_norm = malloc(sizeof(double) * N))) goto nomem;
        derive_row_values(c);
    }
    if (type == GMM_COV_TIED) {
        /* X^T X of every rank's rows: one SYRK over a float64 view, chunk by chunk otherwise */
        c->xtx = calloc(d * d, sizeof(double));
        if (!c->xtx) goto nomem;
        int64_t step = v->elem == GMM_ELEM_F64 ? (int64_t)N : c->chunk_rows;
        for (int64_t r0 = 0; r0 < (int64_t)N; r0 += step) {
            int64_t rows = (int64_t)N - r0 < step ? (int64_t)N - r0 : step;
            la_dsyrk_at_a(dim, (int)rows, 1.0, cpu_chunk_f64(c, r0, rows), dim, r0 ? 1.0 : 0.0,
                          c->xtx, dim);
        }
        la_symmetrize_from_lower(dim, c->xtx, dim);
        if ((status = gmm_comm_sum(c->comm, c->xtx, d * d)) != GMM_OK) goto fail;
    }
    *out = c;
    return GMM_OK;
nomem:
    status = gmm_error(GMM_ERR_NOMEM, "out of memory for the CPU backend (N=%lld, d=%d, K=%d)",
                       (long long)n_samples, dim, cfg->n_components);
fail:
    cpu_destroy(c);
    return status;
}

/* Derived E-step quantities from the current weights, precision factors and means. */
void cpu_prepare_estep(gmm_backend_ctx *c)
{
    int K = c->n_components, d = c->dim;
    /* the sizes are the context's own, so the operation cannot refuse them */
    if (c->bayes) { /* the posterior's terms in place of log w_k */
        (void)log_det_cholesky_cpu(gmm_log_det_layout(c->type), K, d, c->prec_chol, NULL,
                                   c->log_det);
        gmm_bayes_estep_constants(c->bayes, K, d, c->log_det, c->log_const);
    } else {
        (void)log_det_cholesky_cpu(gmm_log_det_layout(c->type), K, d, c->prec_chol, c->weights,
                                   c->log_const);
    }
    switch (c->type) {
    case GMM_COV_FULL:
    case GMM_COV_TIED: {
        /* the factors packed by column block (models/backend/cpu/cpu_estep.h), the centers mu_k U_k */
        int mats = c->type == GMM_COV_FULL ? K : 1, f32 = c->precision == GMM_PRECISION_FP32;
        if (f32)
            cpu_estep_pack_f32(c->prec_chol, mats, d, c->prec_concat);
        else
            cpu_estep_pack_f64(c->prec_chol, mats, d, c->prec_concat);
        cpu_estep_centers(c->means, c->prec_chol, mats, K, d, f32, c->mean_prec);
        break;
    }
    case GMM_COV_DIAG:
        for (int k = 0; k < K; k++) {
            double *p2s = c->prec_concat, t = 0;
            for (int j = 0; j < d; j++) {
                double p2 = c->prec_chol[(size_t)k * d + j] * c->prec_chol[(size_t)k * d + j];
                double m = c->means[(size_t)k * d + j];
                p2s[(size_t)k * d + j] = p2;
                c->mean_prec[(size_t)k * d + j] = m * p2;
                t += m * m * p2;
            }
            c->mean_term[k] = t;
        }
        break;
    case GMM_COV_SPHERICAL:
        for (int k = 0; k < K; k++) {
            double t = 0;
            for (int j = 0; j < d; j++) t += c->means[(size_t)k * d + j] * c->means[(size_t)k * d + j];
            c->mean_term[k] = t;
        }
        break;
    }
    c->have_params = 1;
}

static gmm_status cpu_set_params(gmm_backend_ctx *c, const gmm_model *m)
{
    size_t cov_n = gmm_cov_size(c->type, c->n_components, c->dim);
    memcpy(c->weights, m->weights, sizeof(double) * c->n_components);
    memcpy(c->means, m->means, sizeof(double) * c->n_components * c->dim);
    memcpy(c->covariances, m->covariances, sizeof(double) * cov_n);
    memcpy(c->prec_chol, m->precisions_cholesky, sizeof(double) * cov_n);
    if (c->bayes) {
        gmm_status status = gmm_bayes_from_model(c->bayes, m);
        if (status != GMM_OK) return status;
    }
    cpu_prepare_estep(c);
    return GMM_OK;
}

static gmm_status cpu_get_params(gmm_backend_ctx *c, gmm_model *m)
{
    size_t cov_n = gmm_cov_size(c->type, c->n_components, c->dim);
    memcpy(m->weights, c->weights, sizeof(double) * c->n_components);
    memcpy(m->means, c->means, sizeof(double) * c->n_components * c->dim);
    memcpy(m->covariances, c->covariances, sizeof(double) * cov_n);
    memcpy(m->precisions_cholesky, c->prec_chol, sizeof(double) * cov_n);
    return c->bayes ? gmm_bayes_to_model(c->bayes, m) : GMM_OK;
}

static gmm_status cpu_set_resp(gmm_backend_ctx *c, const double *resp)
{
    size_t n = (size_t)c->n_samples * c->n_components;
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(20.0 * n))
    for (int64_t i = 0; i < (int64_t)n; i++) c->log_resp[i] = log(resp[i]);
    c->have_resp = 1;
    return GMM_OK;
}

/* Squared Mahalanobis distances of rows [r0, r0 + rows) to every component, into out
 * (rows x K), for diag and spherical: the GEMM expansions (x - mu)^2 p^2 = x^2 p^2 - 2 x mu p^2
 * + mu^2 p^2 of scikit-learn, a BLAS product instead of estep_rows_cpu's direct loops. */
static void mahalanobis_chunk(gmm_backend_ctx *c, int64_t r0, int64_t rows, double *out)
{
    int K = c->n_components, d = c->dim;
    const double *Xc = cpu_chunk_f64(c, r0, rows);
    if (c->type == GMM_COV_DIAG) {
        /* sum_j (x - mu)^2 p^2 = x^2 . p^2 - 2 x . (mu p^2) + mu^2 . p^2 */
        la_dgemm(false, true, (int)rows, K, d, 1.0, c->x_squared + (size_t)r0 * d, d,
                 c->prec_concat, d, 0.0, out, K);
        la_dgemm(false, true, (int)rows, K, d, -2.0, Xc, d, c->mean_prec, d, 1.0, out, K);
        for (int64_t i = 0; i < rows; i++)
            for (int k = 0; k < K; k++) out[i * K + k] += c->mean_term[k];
    } else {
        la_dgemm(false, true, (int)rows, K, d, -2.0, Xc, d, c->means, d, 0.0, out, K);
        for (int64_t i = 0; i < rows; i++)
            for (int k = 0; k < K; k++) {
                double p2 = c->prec_chol[k] * c->prec_chol[k];
                out[i * K + k] = p2 * (out[i * K + k] + c->x_sq_norm[r0 + i] + c->mean_term[k]);
            }
    }
}

/* Per row chunk of `step` rows: full/tied the triangle-blocked product [X U_1 .. X U_K] and
 * its squared distances (models/backend/cpu/cpu_estep.h: SGEMM on the float32 copy when f32,
 * else DGEMM on the rows in float64) from the packed factors, centers and workspace given,
 * diag/spherical the GEMM expansion; then the kernel layer's row operation from the distances
 * (log-sum-exp, log responsibilities). Then the mean of log p(x_i), summed in index order. */
static gmm_status e_step_chunks(gmm_backend_ctx *c, int f32, const void *packed,
                                const double *centers, void *work, int64_t step,
                                double *mean_log_likelihood)
{
    gmm_status status = GMM_OK;
    int K = c->n_components, d = c->dim;
    for (int64_t r0 = 0; r0 < c->n_samples; r0 += step) {
        int64_t rows = c->n_samples - r0 < step ? c->n_samples - r0 : step;
        double *lr = c->log_resp + (size_t)r0 * K, *lpn = c->log_prob_norm + r0;
        int mats = c->type == GMM_COV_FULL ? K : 1;
        if (f32)
            cpu_estep_dist_f32(c->X_f32 + (size_t)r0 * d, rows, d, mats, K, packed, centers,
                               work, lr);
        else if (c->type == GMM_COV_FULL && c->estep_all_pairs <= 0 && K >= 2 &&
                 d > 2 * CPU_ESTEP_BLOCK) {
            /* the pairs of no weight left partial; the last E-step's responsibilities (still
             * in lr) name each row's candidate */
            status = cpu_estep_dist_pruned_f64(cpu_chunk_f64(c, r0, rows), rows, d, K, packed,
                                               centers, c->log_const,
                                               c->have_resp ? lr : NULL, work, lr);
            if (status != GMM_OK) return status;
        } else if (c->type == GMM_COV_FULL || c->type == GMM_COV_TIED)
            cpu_estep_dist_f64(cpu_chunk_f64(c, r0, rows), rows, d, mats, K, packed, centers,
                               work, lr);
        else
            mahalanobis_chunk(c, r0, rows, lr);
        status = estep_rows_from_dist_cpu(c->log_const, (size_t)rows, K, lr, lpn);
        if (status != GMM_OK) return status;
    }
    /* summed in row order, not by an OpenMP reduction (whose order varies between runs): the
     * same seed gives the same lower bound to the bit, whatever the thread count */
    double total;
    if ((status = reduce_sum_cpu(c->log_prob_norm, (size_t)c->n_samples, 1.0, &total)) != GMM_OK)
        return status;
    if ((status = gmm_comm_sum(c->comm, &total, 1)) != GMM_OK) return status;
    if (c->bayes) { /* the entropy term of the lower bound the next M-step reports */
        double h;
        if ((status = reduce_resp_entropy_cpu(c->log_resp, (size_t)c->n_samples * K, &h)) !=
            GMM_OK)
            return status;
        if ((status = gmm_comm_sum(c->comm, &h, 1)) != GMM_OK) return status;
        c->entropy = h;
    }
    c->have_resp = 1;
    *mean_log_likelihood = total / (double)c->data.n_total;
    if (!isfinite(*mean_log_likelihood))
        return gmm_error(GMM_ERR_NUMERIC, "the log-likelihood is not finite (%g)",
                         *mean_log_likelihood);
    return GMM_OK;
}

/* The table's e_step: in the context's precision, with its prepared factors. */
static gmm_status cpu_e_step(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    if (!c->have_params) return gmm_error(GMM_ERR_ARG, "E-step before parameters were set");
    return e_step_chunks(c, c->X_f32 != NULL, c->prec_concat, c->mean_prec, c->work,
                         c->chunk_rows, mean_log_likelihood);
}

/* The table's e_step_f64: on an fp32 context (full, tied: the only ones with a float32 copy)
 * the factors packed in float64, mu_k U_k from the unrounded factors and a float64 workspace
 * of the rows a float64 context would take a chunk, then the same chunks in float64 on the
 * view's rows (converted chunk by chunk when stored otherwise, as e_step of fp64 reads them);
 * the float32 factors stay for the next e_step. Elsewhere it is e_step. */
static gmm_status cpu_e_step_f64(gmm_backend_ctx *c, double *mean_log_likelihood)
{
    if (!c->X_f32) return cpu_e_step(c, mean_log_likelihood);
    if (!c->have_params) return gmm_error(GMM_ERR_ARG, "E-step before parameters were set");
    const int K = c->n_components, d = c->dim, mats = c->type == GMM_COV_FULL ? K : 1;
    const size_t row_width = (size_t)mats * d; /* as alloc_component_buffers sizes fp64 */
    int64_t rows = c->chunk_bytes / (sizeof(double) * row_width);
    if (rows < 1) rows = 1;
    if (rows > c->n_samples) rows = c->n_samples;
    if (c->tuning_chunk_rows > 0 && c->tuning_chunk_rows < rows) rows = c->tuning_chunk_rows;
    if (rows < 1) rows = 1; /* a rank without rows */
    gmm_status status = GMM_OK;
    double *packed = malloc(sizeof(double) * cpu_estep_packed_size(mats, d));
    double *centers = malloc(sizeof(double) * (size_t)K * d);
    double *work = malloc(sizeof(double) * (size_t)rows * row_width);
    if (!packed || !centers || !work) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory for a float64 E-step (%lld rows of "
                           "%zu values)", (long long)rows, row_width);
        goto fail;
    }
    cpu_estep_pack_f64(c->prec_chol, mats, d, packed);
    cpu_estep_centers(c->means, c->prec_chol, mats, K, d, 0, centers);
    status = e_step_chunks(c, 0, packed, centers, work, rows, mean_log_likelihood);
fail:
    free(packed);
    free(centers);
    free(work);
    return status;
}

/* k-means++ seeds over every rank's rows (models/backend/cpu/kmeans.h). */
static gmm_status cpu_kmeans_plusplus(gmm_backend_ctx *c, gmm_rng *rng, int64_t *indices,
                                      double *centers)
{
    return gmm_kmeans_plusplus_view(&c->data, c->comm, c->n_components, rng, indices, centers);
}

/* Lloyd's iterations over every rank's rows; the one-hot responsibilities of the final labels
 * into resp or, as set_resp would, into the context. */
static gmm_status cpu_kmeans_lloyd(gmm_backend_ctx *c, int max_iter, double *centers,
                                   double *resp)
{
    const int K = c->n_components;
    const int64_t N = c->n_samples;
    int *labels = malloc(sizeof(int) * (size_t)N);
    if (!labels) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
    c->have_params = c->have_resp = 0;
    gmm_status status =
        gmm_kmeans_lloyd_view(&c->data, c->comm, K, max_iter, centers, labels, NULL);
    if (status == GMM_OK) {
        /* log(1) = 0, log(0) = -inf, exactly what set_resp makes of the one-hot rows */
        double *out = resp ? resp : c->log_resp;
        double off = resp ? 0.0 : -INFINITY, on = resp ? 1.0 : 0.0;
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)N * K))
        for (int64_t i = 0; i < N; i++)
            for (int k = 0; k < K; k++) out[(size_t)i * K + k] = labels[i] == k ? on : off;
        if (!resp) c->have_resp = 1;
    }
    free(labels);
    return status;
}

/* The table's set_rows: other float64 rows for the E-step, as many as the context was made for
 * at most; the parameters stay prepared. X^T X (tied) and the float32 copy are the first rows':
 * an M-step after it is refused. */
static gmm_status cpu_set_rows(gmm_backend_ctx *c, const gmm_data_view *v)
{
    gmm_status status = gmm_data_view_check(v);
    if (status != GMM_OK) return status;
    if (v->dim != c->dim || v->n_rows > c->capacity_rows || v->elem != GMM_ELEM_F64 ||
        v->n_total != v->n_rows || c->X_f32 || gmm_comm_size(c->comm) > 1)
        return gmm_error(GMM_ERR_ARG, "set_rows: %lld float64 rows of %d values do not fit a "
                         "context of %lld rows of %d on one rank, in fp64",
                         (long long)v->n_rows, v->dim, (long long)c->capacity_rows, c->dim);
    c->data = *v;
    c->n_samples = v->n_rows;
    derive_row_values(c);
    c->have_resp = 0;
    c->rows_replaced = 1;
    return GMM_OK;
}

static gmm_status cpu_get_estep(gmm_backend_ctx *c, double *log_likelihood, double *log_resp)
{
    if (log_likelihood)
        memcpy(log_likelihood, c->log_prob_norm, sizeof(double) * c->n_samples);
    if (log_resp)
        memcpy(log_resp, c->log_resp, sizeof(double) * c->n_samples * c->n_components);
    return GMM_OK;
}

static gmm_status cpu_get_log_resp_rows(gmm_backend_ctx *c, int64_t r0, int64_t n,
                                        double *log_resp)
{
    if (r0 < 0 || n < 0 || r0 + n > c->n_samples)
        return gmm_error(GMM_ERR_ARG, "rows [%lld, %lld) outside the context's %lld",
                         (long long)r0, (long long)(r0 + n), (long long)c->n_samples);
    memcpy(log_resp, c->log_resp + (size_t)r0 * c->n_components,
           sizeof(double) * (size_t)n * c->n_components);
    return GMM_OK;
}

const gmm_backend gmm_backend_cpu = {
    .name = "cpu",
    .available = cpu_available,
    .supports = cpu_supports,
    .create = cpu_create,
    .destroy = cpu_destroy,
    .resources = cpu_resources,
    .set_params = cpu_set_params,
    .get_params = cpu_get_params,
    .set_resp = cpu_set_resp,
    .e_step = cpu_e_step,
    .m_step = cpu_m_step,
    .get_estep = cpu_get_estep,
    .kmeans_lloyd = cpu_kmeans_lloyd,
    .kmeans_plusplus = cpu_kmeans_plusplus,
    .set_n_components = cpu_set_n_components,
    .set_rows = cpu_set_rows,
    .e_step_f64 = cpu_e_step_f64,
    .get_log_resp_rows = cpu_get_log_resp_rows,
};
