/* The public interface's scoring (include/gmm/gmm.h): the data checked and converted (a umap
 * model's placed in its space), log p(x), responsibilities and labels through the handle's
 * scorer on the CPU (its prepared parameters kept between calls) or per call on a GPU, the mean
 * log-likelihood, BIC, AIC, transform and sampling. */
#include "include/gmm/gmm.h"

#include <stdlib.h>
#include <string.h>

#include "models/api/api_data.h"
#include "models/api/api_mixture.h"
#include "models/api/api_space.h"
#include "models/backend/backend.h"
#include "models/core/score.h"

/* The features per sample the scoring functions take: a umap space's inputs (the data is
 * placed in it), else the mixture's own (a model file with a PCA or spectral space from
 * gmm-train is scored on its coordinates, as before). */
int gmm_api_scoring_dim(const gmm_model *m)
{
    return gmm_space_umap(m->space) ? gmm_model_input_dim(m) : m->dim;
}

/* Data checked and converted for scoring against the model's features: float64 rows of the
 * model's dim (a umap model's placed in its space). */
static gmm_status scoring_data(const gmm_mixture *model, const void *X, int64_t n, int dim,
                               int dtype, double scale, const double **x, double **owned)
{
    *x = NULL;
    *owned = NULL;
    if (!model) return gmm_error(GMM_ERR_ARG, "the model handle is NULL");
    if (dim != gmm_api_scoring_dim(&model->model))
        return gmm_error(GMM_ERR_ARG, "the data has %d features per sample but the model was "
                         "fitted on %d", dim, gmm_api_scoring_dim(&model->model));
    if (!gmm_space_umap(model->model.space))
        return gmm_api_as_float64(X, n, dim, dtype, scale, x, owned);
    gmm_status st = gmm_api_umap_place(&model->model, X, n, dim, dtype, scale, model->device,
                                       owned);
    *x = *owned;
    return st;
}

int gmm_mixture_transform(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                          int dtype, double scale, double *coords)
{
    if (!model || !coords) return gmm_api_fail_arg("gmm_mixture_transform: model or output is NULL");
    if (!gmm_space_umap(model->model.space))
        return gmm_api_fail_arg("transform needs a model fitted with space umap (this one: %s)",
                        gmm_feature_space_name(model->model.space));
    const double *x;
    double *owned;
    gmm_status status = scoring_data(model, X, n_samples, dim, dtype, scale, &x, &owned);
    if (status == GMM_OK) memcpy(coords, x, sizeof(double) * (size_t)n_samples * model->model.dim);
    free(owned);
    return gmm_api_finish(status);
}

/* Scores float64 rows of the mixture's dim: on the CPU through the handle's scorer, which keeps
 * the prepared parameters between calls (models/core/score.h); on a GPU per call. */
static gmm_status score_rows(const gmm_mixture *model, const double *x, int64_t n,
                             double *log_likelihood, double *proba, int *labels)
{
    const gmm_backend *be = NULL;
    gmm_status status = gmm_backend_select(model->device, NULL, &be, NULL);
    if (status != GMM_OK) return status;
    if (be != &gmm_backend_cpu)
        return gmm_score_samples(&model->model, x, n, model->device, log_likelihood, proba,
                                 labels);
    gmm_mixture *m = (gmm_mixture *)model; /* the handle's own cache, behind its lock */
    pthread_mutex_lock(&m->score_lock);
    status = gmm_scorer_score(&m->scorer, &m->model, x, n, log_likelihood, proba, labels);
    pthread_mutex_unlock(&m->score_lock);
    return status;
}

int gmm_mixture_score_samples(const gmm_mixture *model, const void *X, int64_t n_samples,
                              int dim, int dtype, double scale, double *log_likelihood,
                              double *proba, int32_t *labels)
{
    const double *x;
    double *owned;
    gmm_status status = scoring_data(model, X, n_samples, dim, dtype, scale, &x, &owned);
    if (status == GMM_OK)
        status = score_rows(model, x, n_samples, log_likelihood, proba, (int *)labels);
    free(owned);
    return gmm_api_finish(status);
}

int gmm_mixture_score(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                      int dtype, double scale, double *mean_log_likelihood)
{
    if (!mean_log_likelihood) return gmm_api_fail_arg("gmm_mixture_score: the output is NULL");
    const double *x;
    double *owned;
    gmm_status status = scoring_data(model, X, n_samples, dim, dtype, scale, &x, &owned);
    double *ll = status == GMM_OK ? malloc(sizeof(double) * (size_t)n_samples) : NULL;
    if (status == GMM_OK && !ll)
        status = gmm_error(GMM_ERR_NOMEM, "out of memory scoring %lld samples",
                           (long long)n_samples);
    if (status == GMM_OK && (status = score_rows(model, x, n_samples, ll, NULL, NULL)) == GMM_OK) {
        double sum = 0; /* in index order, as gmm_score */
        for (int64_t i = 0; i < n_samples; i++) sum += ll[i];
        *mean_log_likelihood = sum / (double)n_samples;
    }
    free(ll);
    free(owned);
    return gmm_api_finish(status);
}

static int criterion(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                     int dtype, double scale, int bic, double *out)
{
    if (!out) return gmm_api_fail_arg("the output of gmm_mixture_%s is NULL", bic ? "bic" : "aic");
    double mean;
    int code = gmm_mixture_score(model, X, n_samples, dim, dtype, scale, &mean);
    if (code != GMM_CODE_OK) return code;
    *out = bic ? gmm_bic(&model->model, mean, n_samples) : gmm_aic(&model->model, mean, n_samples);
    return GMM_CODE_OK;
}

int gmm_mixture_bic(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                    int dtype, double scale, double *bic)
{
    return criterion(model, X, n_samples, dim, dtype, scale, 1, bic);
}

int gmm_mixture_aic(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                    int dtype, double scale, double *aic)
{
    return criterion(model, X, n_samples, dim, dtype, scale, 0, aic);
}

int gmm_mixture_sample(const gmm_mixture *model, int64_t n_samples, uint64_t seed, double *X,
                       int32_t *labels)
{
    if (!model || !X) return gmm_api_fail_arg("gmm_mixture_sample: model or output is NULL");
    if (n_samples < 1) return gmm_api_fail_arg("n_samples=%lld must be >= 1", (long long)n_samples);
    if (gmm_space_umap(model->model.space))
        return gmm_api_finish(gmm_error(GMM_ERR_UNSUPPORTED, "the model was fitted in a umap space, "
                                "which has no way back from its coordinates to the data: it "
                                "cannot be sampled"));
    return gmm_api_finish(gmm_sample(&model->model, n_samples, seed, X, (int *)labels));
}
