/* Fits over a range of K on one backend context (models/fit/select_k.h): the context is made once
 * for the first K and re-sized with the table's set_n_components before each other K, each fit
 * runs through gmm_fit_on_context exactly as gmm_fit_scored, and the chosen fit is kept. */
#include "models/fit/select_k.h"

#include <math.h>
#include <string.h>

#include "kernels/clock.h"

int gmm_k_criterion_parse(const char *name, gmm_k_criterion *out)
{
    if (!strcmp(name, "bic")) *out = GMM_SELECT_BIC;
    else if (!strcmp(name, "aic")) *out = GMM_SELECT_AIC;
    else if (!strcmp(name, "icl")) *out = GMM_SELECT_ICL;
    else return -1;
    return 0;
}

const char *gmm_k_criterion_name(gmm_k_criterion criterion)
{
    return criterion == GMM_SELECT_AIC ? "aic" : criterion == GMM_SELECT_ICL ? "icl" : "bic";
}

/* one thread, in order: the same sum on every run (a reduction's order is not fixed) */
double gmm_resp_entropy(const double *proba, int64_t n_samples, int n_components)
{
    double entropy = 0;
    const int64_t n = n_samples * n_components;
    for (int64_t i = 0; i < n; i++)
        if (proba[i] > 0) entropy -= proba[i] * log(proba[i]);
    return entropy;
}

gmm_status gmm_k_range_validate(const gmm_k_range *range, int64_t n_samples, int *n_fits)
{
    if (!range) return gmm_error(GMM_ERR_ARG, "the K range is NULL");
    const gmm_k_range *r = range;
    if (r->k_first < 1)
        return gmm_error(GMM_ERR_ARG, "the K range %d:%d starts below 1", r->k_first, r->k_last);
    if (r->k_last < r->k_first)
        return gmm_error(GMM_ERR_ARG, "the K range %d:%d ends before it starts", r->k_first,
                         r->k_last);
    if (r->k_step < 1)
        return gmm_error(GMM_ERR_ARG, "the K range's step %d must be >= 1", r->k_step);
    int64_t count = ((int64_t)r->k_last - r->k_first) / r->k_step + 1;
    if (count > GMM_K_RANGE_MAX_FITS)
        return gmm_error(GMM_ERR_ARG, "the K range %d:%d:%d is %lld fits, more than %d",
                         r->k_first, r->k_last, r->k_step, (long long)count,
                         GMM_K_RANGE_MAX_FITS);
    if (r->k_last > n_samples)
        return gmm_error(GMM_ERR_ARG, "the K range ends at %d components but there are only %lld "
                         "samples", r->k_last, (long long)n_samples);
    if (n_fits) *n_fits = (int)count;
    return GMM_OK;
}

static double criterion_value(const gmm_k_result *r, gmm_k_criterion c)
{
    return c == GMM_SELECT_AIC ? r->aic : c == GMM_SELECT_ICL ? r->icl : r->bic;
}

gmm_status gmm_fit_k_range(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                           const gmm_k_range *range, gmm_k_result *results, int *n_done,
                           int *chosen, gmm_model *model, gmm_fit_scores *scores)
{
    gmm_status status = GMM_OK;
    const gmm_backend *be = NULL;
    gmm_backend_ctx *ctx = NULL;
    gmm_model fitted = {0};
    gmm_fit_scores fitted_scores = {0};
    int n_fits = 0;
    *n_done = 0;
    *chosen = -1;
    memset(model, 0, sizeof *model);
    memset(scores, 0, sizeof *scores);
    if (!options || !results) return gmm_error(GMM_ERR_ARG, "gmm_fit_k_range: NULL argument");
    if ((status = gmm_k_range_validate(range, n_samples, &n_fits)) != GMM_OK) return status;
    if (options->init_model)
        return gmm_error(GMM_ERR_ARG, "a K range cannot start from a given model");
    gmm_options o = *options;
    for (int k = range->k_first; k <= range->k_last; k += range->k_step) {
        o.n_components = k; /* every K of the range, checked before the first fit */
        if ((status = gmm_options_validate(&o, n_samples, dim)) != GMM_OK) return status;
    }
    if (o.checkpoint_every < 0)
        return gmm_error(GMM_ERR_ARG, "checkpoint_every=%d must be >= 0", o.checkpoint_every);
    if ((status = gmm_fit_backend_select(&o, &be)) != GMM_OK) return status;

    double best = INFINITY;
    for (int i = 0; i < n_fits; i++) {
        int k = range->k_first + i * range->k_step;
        o.n_components = k;
        double t0 = gmm_clock_seconds();
        if (!ctx)
            status = gmm_backend_create_f64(be, &ctx, X, n_samples, dim, k, o.covariance_type,
                                            o.precision, &o.tuning, o.gpu);
        else
            status = be->set_n_components(ctx, k);
        if (status != GMM_OK) goto fail;
        double seconds_setup = gmm_clock_seconds() - t0;
        const gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
        status = gmm_fit_on_context(be, ctx, seconds_setup, &data, &o, NULL, &fitted,
                                    &fitted_scores);
        if (status == GMM_INTERRUPTED) gmm_model_free(&fitted);
        if (status != GMM_OK) goto fail;
        gmm_k_result *r = &results[i];
        double ll = fitted_scores.mean_log_likelihood, bic = gmm_bic(&fitted, ll, n_samples);
        double entropy = gmm_resp_entropy(fitted_scores.proba, n_samples, k);
        *r = (gmm_k_result){.n_components = k,
                            .n_iter = fitted.n_iter,
                            .converged = fitted.converged,
                            .lower_bound = fitted.lower_bound,
                            .mean_log_likelihood = ll,
                            .bic = bic,
                            .aic = gmm_aic(&fitted, ll, n_samples),
                            .entropy = entropy,
                            .icl = bic + 2 * entropy,
                            .n_parameters = gmm_n_parameters(&fitted),
                            .seconds = gmm_clock_seconds() - t0};
        *n_done = i + 1;
        if (range->on_result &&
            (status = range->on_result(range->user, r, &fitted, &fitted_scores)) != GMM_OK)
            goto fail;
        double value = criterion_value(r, range->criterion);
        if (*chosen < 0 || value < best || (isnan(best) && !isnan(value))) {
            best = value;
            *chosen = i;
            gmm_model_free(model);
            gmm_fit_scores_free(scores);
            *model = fitted;
            *scores = fitted_scores;
            memset(&fitted, 0, sizeof fitted);
            memset(&fitted_scores, 0, sizeof fitted_scores);
        } else {
            gmm_model_free(&fitted);
            gmm_fit_scores_free(&fitted_scores);
        }
    }
fail:
    gmm_model_free(&fitted);
    gmm_fit_scores_free(&fitted_scores);
    if (status != GMM_OK && status != GMM_INTERRUPTED) {
        gmm_model_free(model);
        gmm_fit_scores_free(scores);
        *chosen = -1;
    }
    if (be && ctx) be->destroy(ctx);
    return status;
}
