/* Scoring with a fitted model (score_samples, score, predict, predict_proba) through a backend,
 * and drawing samples from it. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/cholesky.h"
#include "models/core/score.h"

#include "models/backend/backend.h"
#include "kernels/rng.h"

gmm_status gmm_score_samples(const gmm_model *model, const double *X, int64_t n_samples,
                             gmm_device device, double *log_likelihood, double *proba,
                             int *labels)
{
    return gmm_score_samples_on(model, X, n_samples, device, NULL, log_likelihood, proba, labels);
}

/* A scoring context on be for n rows of X under model's parameters (a variational model's E-step
 * takes its posterior's terms, models/bayes.h). */
static gmm_status scoring_context(const gmm_backend *be, const gmm_model *model, const double *X,
                                  int64_t n_samples, gmm_gpu *gpu, gmm_backend_ctx **ctx)
{
    const gmm_backend_config cfg = {.data = gmm_data_view_f64(X, n_samples, model->dim),
                                    .n_components = model->n_components,
                                    .type = model->covariance_type,
                                    .precision = GMM_PRECISION_FP64, .gpu = gpu,
                                    .bayes = model->bayes};
    gmm_status status = be->create(ctx, &cfg);
    if (status != GMM_OK) return status;
    if ((status = be->set_params(*ctx, model)) != GMM_OK) {
        be->destroy(*ctx);
        *ctx = NULL;
    }
    return status;
}

/* The E-step on the context's rows and the outputs from it (any may be NULL). */
static gmm_status score_on_context(const gmm_backend *be, gmm_backend_ctx *ctx, int K,
                                   int64_t n_samples, double *log_likelihood, double *proba,
                                   int *labels)
{
    gmm_status status = GMM_OK;
    double *log_resp = NULL, *loglik = NULL;
    if ((proba || labels) && !(log_resp = malloc(sizeof(double) * (size_t)n_samples * K))) goto nomem;
    if (!log_likelihood && !(loglik = malloc(sizeof(double) * n_samples))) goto nomem;
    double mean;
    if ((status = be->e_step(ctx, &mean)) != GMM_OK) goto fail;
    status = be->get_estep(ctx, log_likelihood ? log_likelihood : loglik, log_resp);
    if (status != GMM_OK) goto fail;
    for (int64_t i = 0; log_resp && i < n_samples; i++) {
        const double *row = log_resp + (size_t)i * K;
        int best = 0;
        for (int k = 1; k < K; k++)
            if (row[k] > row[best]) best = k;
        if (labels) labels[i] = best;
        if (proba)
            for (int k = 0; k < K; k++) proba[(size_t)i * K + k] = exp(row[k]);
    }
    goto fail;
nomem:
    status = gmm_error(GMM_ERR_NOMEM, "out of memory scoring %lld samples", (long long)n_samples);
fail:
    free(log_resp);
    free(loglik);
    return status;
}

gmm_status gmm_score_samples_on(const gmm_model *model, const double *X, int64_t n_samples,
                                gmm_device device, gmm_gpu *gpu, double *log_likelihood,
                                double *proba, int *labels)
{
    gmm_status status = GMM_OK;
    const gmm_backend *be = NULL;
    gmm_backend_ctx *ctx = NULL;
    if (n_samples < 1) return gmm_error(GMM_ERR_ARG, "no samples to score");
    if ((status = gmm_backend_select(device, gpu, &be, NULL)) != GMM_OK) return status;
    if (!be->supports(model->covariance_type, GMM_PRECISION_FP64)) be = &gmm_backend_cpu;
    if ((status = scoring_context(be, model, X, n_samples, gpu, &ctx)) != GMM_OK) return status;
    status = score_on_context(be, ctx, model->n_components, n_samples, log_likelihood, proba,
                              labels);
    be->destroy(ctx);
    return status;
}

struct gmm_scorer {
    gmm_backend_ctx *ctx; /* the CPU backend's, parameters prepared */
    int64_t capacity;     /* the rows it was made for */
};

void gmm_scorer_free(gmm_scorer *s)
{
    if (!s) return;
    gmm_backend_cpu.destroy(s->ctx);
    free(s);
}

gmm_status gmm_scorer_score(gmm_scorer **scorer, const gmm_model *model, const double *X,
                            int64_t n_samples, double *log_likelihood, double *proba,
                            int *labels)
{
    const gmm_backend *be = &gmm_backend_cpu;
    if (n_samples < 1) return gmm_error(GMM_ERR_ARG, "no samples to score");
    if (n_samples > GMM_SCORER_MAX_ROWS) /* the set-up is a small part of such a call */
        return gmm_score_samples_on(model, X, n_samples, GMM_DEVICE_CPU, NULL, log_likelihood,
                                    proba, labels);
    gmm_scorer *s = *scorer;
    gmm_status status;
    if (s && n_samples <= s->capacity) {
        const gmm_data_view rows = gmm_data_view_f64(X, n_samples, model->dim);
        if ((status = be->set_rows(s->ctx, &rows)) != GMM_OK) return status;
    } else {
        /* made (again) for these rows: a larger batch than the context holds */
        gmm_scorer_free(s);
        *scorer = NULL;
        if (!(s = calloc(1, sizeof *s)))
            return gmm_error(GMM_ERR_NOMEM, "out of memory for a scorer");
        if ((status = scoring_context(be, model, X, n_samples, NULL, &s->ctx)) != GMM_OK) {
            free(s);
            return status;
        }
        s->capacity = n_samples;
        *scorer = s;
    }
    return score_on_context(be, s->ctx, model->n_components, n_samples, log_likelihood, proba,
                            labels);
}

gmm_status gmm_score(const gmm_model *model, const double *X, int64_t n_samples,
                     gmm_device device, double *mean_log_likelihood)
{
    double *ll = malloc(sizeof(double) * (n_samples > 0 ? n_samples : 1));
    if (!ll) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    gmm_status status = gmm_score_samples(model, X, n_samples, device, ll, NULL, NULL);
    if (status == GMM_OK) {
        double s = 0;
        for (int64_t i = 0; i < n_samples; i++) s += ll[i];
        *mean_log_likelihood = s / (double)n_samples;
    }
    free(ll);
    return status;
}

gmm_status gmm_sample(const gmm_model *model, int64_t n_samples, uint64_t seed, double *X,
                      int *labels)
{
    gmm_status status = GMM_OK;
    int K = model->n_components, d = model->dim;
    size_t dd = (size_t)d * d;
    double *lower = NULL, *z = NULL;
    int64_t *counts = calloc(K, sizeof(int64_t));
    if (!counts) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    if (n_samples < 1) {
        free(counts);
        return gmm_error(GMM_ERR_ARG, "n_samples must be >= 1 (got %lld)", (long long)n_samples);
    }
    gmm_rng rng;
    gmm_rng_seed(&rng, seed);
    /* multinomial split of n_samples over the weights, then components in order (as
     * scikit-learn's sample) */
    for (int64_t i = 0; i < n_samples; i++) {
        double u = gmm_rng_uniform(&rng), acc = 0;
        int k = K - 1;
        for (int j = 0; j < K; j++) {
            acc += model->weights[j];
            if (u < acc) {
                k = j;
                break;
            }
        }
        counts[k]++;
    }
    int full = model->covariance_type == GMM_COV_FULL || model->covariance_type == GMM_COV_TIED;
    if (full && (!(lower = malloc(sizeof(double) * dd)) || !(z = malloc(sizeof(double) * d)))) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    int64_t row = 0;
    for (int k = 0; k < K; k++) {
        if (full) {
            const double *cov = model->covariances + (model->covariance_type == GMM_COV_FULL ? k * dd : 0);
            memcpy(lower, cov, sizeof(double) * dd);
            int minor = 0;
            if (cholesky_blas(lower, d, 1, &minor) != GMM_OK) {
                status = gmm_error(GMM_ERR_CHOLESKY,
                                   "component %d: covariance is not positive definite (leading "
                                   "minor %d), cannot sample",
                                   k, minor);
                goto fail;
            }
        }
        for (int64_t c = 0; c < counts[k]; c++, row++) {
            double *x = X + (size_t)row * d;
            const double *mu = model->means + (size_t)k * d;
            if (full) {
                for (int j = 0; j < d; j++) z[j] = gmm_rng_normal(&rng);
                for (int a = 0; a < d; a++) {
                    double s = 0;
                    for (int b = 0; b <= a; b++) s += lower[(size_t)a * d + b] * z[b];
                    x[a] = mu[a] + s;
                }
            } else {
                for (int j = 0; j < d; j++) {
                    double var = model->covariance_type == GMM_COV_DIAG
                                     ? model->covariances[(size_t)k * d + j]
                                     : model->covariances[k];
                    x[j] = mu[j] + sqrt(var) * gmm_rng_normal(&rng);
                }
            }
            if (labels) labels[row] = k;
        }
    }
fail:
    free(counts);
    free(lower);
    free(z);
    return status;
}
