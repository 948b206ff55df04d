/* The model's bookkeeping: enum names, allocation and copying of gmm_model, the fit options with
 * scikit-learn's defaults and their validation, and the parameter count behind BIC and AIC. */
#include "models/gmm.h"

#include "data/file_open.h"
#include "models/pca.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------------------ */

static const char *const cov_type_names[] = {"full", "tied", "diag", "spherical"};
static const char *const init_names[] = {"kmeans", "k-means++", "random", "random_from_data",
                                          "knn", "spectral"};
static const char *const precision_names[] = {"fp64", "fp32", "tf32"};

#define N_NAMES(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse_name(const char *name, const char *const *names, int n_names)
{
    if (!name) return -1;
    for (int i = 0; i < n_names; i++)
        if (strcmp(name, names[i]) == 0) return i;
    return -1;
}

int gmm_cov_type_parse(const char *name, gmm_cov_type *out)
{
    int i = parse_name(name, cov_type_names, N_NAMES(cov_type_names));
    if (i < 0) return -1;
    if (out) *out = (gmm_cov_type)i;
    return 0;
}

const char *gmm_cov_type_name(gmm_cov_type type)
{
    if ((int)type < 0 || (int)type >= N_NAMES(cov_type_names)) return "unknown";
    return cov_type_names[type];
}

int gmm_init_parse(const char *name, gmm_init_method *out)
{
    int i = parse_name(name, init_names, N_NAMES(init_names));
    /* Spellings people type on a command line, where '-' comes more naturally than '_'. */
    if (i < 0 && name) {
        if (strcmp(name, "random-from-data") == 0) i = GMM_INIT_RANDOM_FROM_DATA;
        else if (strcmp(name, "kmeans++") == 0) i = GMM_INIT_KMEANS_PP;
    }
    if (i < 0) return -1;
    if (out) *out = (gmm_init_method)i;
    return 0;
}

const char *gmm_init_name(gmm_init_method method)
{
    if ((int)method < 0 || (int)method >= N_NAMES(init_names)) return "unknown";
    return init_names[method];
}

int gmm_precision_parse(const char *name, gmm_precision *out)
{
    int i = parse_name(name, precision_names, N_NAMES(precision_names));
    if (i < 0) return -1;
    if (out) *out = (gmm_precision)i;
    return 0;
}

const char *gmm_precision_name(gmm_precision precision)
{
    if ((int)precision < 0 || (int)precision >= N_NAMES(precision_names)) return "unknown";
    return precision_names[precision];
}

/* ---- the model -------------------------------------------------------------------------- */

size_t gmm_cov_size(gmm_cov_type type, int n_components, int dim)
{
    if (n_components < 1 || dim < 1) return 0;
    size_t k = (size_t)n_components, d = (size_t)dim;
    switch (type) {
    case GMM_COV_FULL: return k * d * d;
    case GMM_COV_TIED: return d * d;
    case GMM_COV_DIAG: return k * d;
    case GMM_COV_SPHERICAL: return k;
    }
    return 0;
}

/* Array lengths in doubles; 0 when a product would not fit in size_t, so that a huge request
 * fails as an allocation instead of silently wrapping around to a small one. */
static int model_sizes(int n_components, int dim, gmm_cov_type type, size_t *n_means,
                       size_t *n_cov)
{
    size_t k = (size_t)n_components, d = (size_t)dim;
    if (d > SIZE_MAX / sizeof(double) / k) return -1;
    if (type == GMM_COV_FULL && d > SIZE_MAX / sizeof(double) / (k * d)) return -1;
    if (type == GMM_COV_TIED && d > SIZE_MAX / sizeof(double) / d) return -1;
    *n_means = k * d;
    *n_cov = gmm_cov_size(type, n_components, dim);
    return 0;
}

gmm_status gmm_model_alloc(gmm_model *model, int n_components, int dim, gmm_cov_type type)
{
    if (!model) return gmm_error(GMM_ERR_ARG, "gmm_model_alloc: model is NULL");
    memset(model, 0, sizeof *model);
    if (n_components < 1) return gmm_error(GMM_ERR_ARG, "n_components=%d must be >= 1", n_components);
    if (dim < 1) return gmm_error(GMM_ERR_ARG, "dim=%d must be >= 1", dim);
    if ((int)type < 0 || (int)type > GMM_COV_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "unknown covariance type %d", (int)type);

    size_t n_means, n_cov;
    if (model_sizes(n_components, dim, type, &n_means, &n_cov) != 0)
        return gmm_error(GMM_ERR_NOMEM, "a model with n_components=%d, dim=%d is too large",
                         n_components, dim);

    model->n_components = n_components;
    model->dim = dim;
    model->covariance_type = type;
    model->weights = calloc((size_t)n_components, sizeof(double));
    model->means = calloc(n_means, sizeof(double));
    model->covariances = calloc(n_cov, sizeof(double));
    model->precisions_cholesky = calloc(n_cov, sizeof(double));
    if (!model->weights || !model->means || !model->covariances || !model->precisions_cholesky)
        goto fail;
    /* filled right away (a fit's result, a loaded file): 49 MB each at K = 10, d = 784 */
    file_advise_huge(model->covariances, sizeof(double) * n_cov);
    file_advise_huge(model->precisions_cholesky, sizeof(double) * n_cov);
    return GMM_OK;

fail:
    gmm_model_free(model);
    return gmm_error(GMM_ERR_NOMEM, "cannot allocate a model with n_components=%d, dim=%d (%s)",
                     n_components, dim, gmm_cov_type_name(type));
}

void gmm_model_free(gmm_model *model)
{
    if (!model) return;
    free(model->weights);
    free(model->means);
    free(model->covariances);
    free(model->precisions_cholesky);
    model->weights = model->means = model->covariances = model->precisions_cholesky = NULL;
    gmm_projection_free(model->projection);
    model->projection = NULL;
    gmm_spectral_space_free(model->spectral);
    model->spectral = NULL;
}

gmm_status gmm_spectral_space_alloc(int64_t n_train, int input_dim, int n_neighbors, int n_dims,
                                    gmm_spectral_space **out)
{
    *out = NULL;
    if (n_train < 1 || input_dim < 1 || n_dims < 1 || n_neighbors < 1)
        return gmm_error(GMM_ERR_ARG, "spectral space: invalid sizes %lld x %d, k = %d, %d dims",
                         (long long)n_train, input_dim, n_neighbors, n_dims);
    gmm_spectral_space *s = calloc(1, sizeof *s);
    if (!s) return gmm_error(GMM_ERR_NOMEM, "out of memory for the spectral space");
    *s = (gmm_spectral_space){.n_train = n_train, .input_dim = input_dim,
                              .n_neighbors = n_neighbors, .n_dims = n_dims};
    s->images = calloc((size_t)n_train * (size_t)input_dim, 1);
    s->embedding = calloc((size_t)n_train * (size_t)n_dims, sizeof(double));
    s->eigenvalues = calloc((size_t)n_dims, sizeof(double));
    s->degrees = calloc((size_t)n_train, sizeof(double));
    if (!s->images || !s->embedding || !s->eigenvalues || !s->degrees) {
        gmm_spectral_space_free(s);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the spectral space of %lld images",
                         (long long)n_train);
    }
    *out = s;
    return GMM_OK;
}

void gmm_spectral_space_free(gmm_spectral_space *s)
{
    if (!s) return;
    free(s->images);
    free(s->embedding);
    free(s->eigenvalues);
    free(s->degrees);
    free(s);
}

gmm_status gmm_spectral_space_copy(const gmm_spectral_space *src, gmm_spectral_space **out)
{
    gmm_status st = gmm_spectral_space_alloc(src->n_train, src->input_dim, src->n_neighbors,
                                             src->n_dims, out);
    if (st != GMM_OK) return st;
    const size_t n = (size_t)src->n_train;
    memcpy((*out)->images, src->images, n * (size_t)src->input_dim);
    memcpy((*out)->embedding, src->embedding, n * (size_t)src->n_dims * sizeof(double));
    memcpy((*out)->eigenvalues, src->eigenvalues, (size_t)src->n_dims * sizeof(double));
    memcpy((*out)->degrees, src->degrees, n * sizeof(double));
    return GMM_OK;
}

int gmm_model_input_dim(const gmm_model *model)
{
    return model->projection ? model->projection->input_dim
         : model->spectral   ? model->spectral->input_dim
                             : model->dim;
}

gmm_status gmm_model_copy(gmm_model *dst, const gmm_model *src)
{
    if (!dst || !src) return gmm_error(GMM_ERR_ARG, "gmm_model_copy: NULL model");
    if (dst == src) return GMM_OK;
    gmm_model tmp;
    gmm_status st = gmm_model_alloc(&tmp, src->n_components, src->dim, src->covariance_type);
    if (st != GMM_OK) return st;

    /* Take every scalar from src first, then put our own arrays back over its pointers. */
    double *weights = tmp.weights, *means = tmp.means, *cov = tmp.covariances,
           *prec = tmp.precisions_cholesky;
    tmp = *src;
    tmp.weights = weights;
    tmp.means = means;
    tmp.covariances = cov;
    tmp.precisions_cholesky = prec;
    tmp.projection = NULL;
    tmp.spectral = NULL;
    if ((src->projection && (st = gmm_projection_copy(src->projection, &tmp.projection)) != GMM_OK) ||
        (src->spectral && (st = gmm_spectral_space_copy(src->spectral, &tmp.spectral)) != GMM_OK)) {
        gmm_model_free(&tmp);
        return st;
    }

    size_t k = (size_t)src->n_components, d = (size_t)src->dim;
    size_t n_cov = gmm_cov_size(src->covariance_type, src->n_components, src->dim);
    if (src->weights) memcpy(tmp.weights, src->weights, k * sizeof(double));
    if (src->means) memcpy(tmp.means, src->means, k * d * sizeof(double));
    if (src->covariances) memcpy(tmp.covariances, src->covariances, n_cov * sizeof(double));
    if (src->precisions_cholesky)
        memcpy(tmp.precisions_cholesky, src->precisions_cholesky, n_cov * sizeof(double));
    *dst = tmp;
    return GMM_OK;
}

/* ---- options ---------------------------------------------------------------------------- */

void gmm_options_default(gmm_options *options)
{
    if (!options) return;
    memset(options, 0, sizeof *options);
    options->n_components = 1;
    options->covariance_type = GMM_COV_FULL;
    options->tol = 1e-3;
    options->reg_covar = 1e-6;
    options->max_iter = 100;
    options->n_init = 1;
    options->init = GMM_INIT_KMEANS;
    options->seed = 0;
    options->device = GMM_DEVICE_AUTO;
    options->precision = GMM_PRECISION_FP64;
    options->kmeans_max_iter = 300;
    options->knn_neighbors = 10;
    options->knn_sample_size = 60000;
}

gmm_status gmm_options_validate(const gmm_options *options, int64_t n_samples, int dim)
{
    if (!options) return gmm_error(GMM_ERR_ARG, "options are NULL");
    const gmm_options *o = options;
    if (n_samples < 1)
        return gmm_error(GMM_ERR_ARG, "n_samples=%lld must be >= 1", (long long)n_samples);
    if (dim < 1) return gmm_error(GMM_ERR_ARG, "dim=%d must be >= 1", dim);
    if (o->n_components < 1)
        return gmm_error(GMM_ERR_ARG, "n_components=%d must be >= 1", o->n_components);
    if ((int64_t)o->n_components > n_samples)
        return gmm_error(GMM_ERR_ARG, "n_components=%d must be <= n_samples=%lld",
                         o->n_components, (long long)n_samples);
    /* NaN compares false with everything, so it has to be asked for by name. */
    if (isnan(o->tol) || o->tol < 0)
        return gmm_error(GMM_ERR_ARG, "tol=%g must be a number >= 0", o->tol);
    if (!isfinite(o->reg_covar) || o->reg_covar < 0)
        return gmm_error(GMM_ERR_ARG, "reg_covar=%g must be a finite number >= 0", o->reg_covar);
    if (o->max_iter < 1) return gmm_error(GMM_ERR_ARG, "max_iter=%d must be >= 1", o->max_iter);
    if (o->n_init < 1) return gmm_error(GMM_ERR_ARG, "n_init=%d must be >= 1", o->n_init);
    if (o->kmeans_max_iter < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_max_iter=%d must be >= 1", o->kmeans_max_iter);
    if ((int)o->covariance_type < 0 || (int)o->covariance_type > GMM_COV_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "unknown covariance_type %d", (int)o->covariance_type);
    /* 0 stands for the default (10 neighbours, 60000 points) */
    if (o->knn_neighbors < 0 || o->knn_neighbors > 127)
        return gmm_error(GMM_ERR_ARG, "knn_neighbors=%d must be in 1..127 (0 for the default)",
                         o->knn_neighbors);
    if (o->knn_sample_size < 0 || o->knn_sample_size == 1)
        return gmm_error(GMM_ERR_ARG, "knn_sample_size=%lld must be >= 2 (0 for the default)",
                         (long long)o->knn_sample_size);
    if ((int)o->init < 0 || (int)o->init > GMM_INIT_SPECTRAL)
        return gmm_error(GMM_ERR_ARG, "unknown init method %d", (int)o->init);
    if (o->init == GMM_INIT_SPECTRAL &&
        (o->spectral_dims < 0 || o->spectral_dims + 1 >= n_samples ||
         (o->knn_neighbors > 0 && o->knn_neighbors < 2) ||
         (o->knn_neighbors > 0 ? o->knn_neighbors : 10) > n_samples))
        return gmm_error(GMM_ERR_ARG, "init=spectral: %d dimensions and %d neighbours do not fit "
                         "%lld samples (at least 2 neighbours, fewer dimensions than samples - 1)",
                         o->spectral_dims ? o->spectral_dims : 10,
                         o->knn_neighbors ? o->knn_neighbors : 10, (long long)n_samples);
    if ((int)o->device < 0 || (int)o->device > GMM_DEVICE_GPU)
        return gmm_error(GMM_ERR_ARG, "unknown device %d", (int)o->device);
    if ((int)o->precision < 0 || (int)o->precision > GMM_PRECISION_TF32)
        return gmm_error(GMM_ERR_ARG, "unknown precision %d", (int)o->precision);
    return GMM_OK;
}

/* ---- model selection -------------------------------------------------------------------- */

int64_t gmm_n_parameters(const gmm_model *model)
{
    if (!model) return 0;
    int64_t k = model->n_components, d = model->dim, cov_params = 0;
    switch (model->covariance_type) {
    case GMM_COV_FULL: cov_params = k * d * (d + 1) / 2; break;
    case GMM_COV_TIED: cov_params = d * (d + 1) / 2; break;
    case GMM_COV_DIAG: cov_params = k * d; break;
    case GMM_COV_SPHERICAL: cov_params = k; break;
    }
    int64_t mean_params = k * d;
    return cov_params + mean_params + k - 1;
}

/* Both take the mean log-likelihood, as scikit-learn's score() returns, and scale it back to the
 * total with n_samples in exactly its order of operations. */
double gmm_bic(const gmm_model *model, double mean_log_likelihood, int64_t n_samples)
{
    return -2.0 * mean_log_likelihood * (double)n_samples +
           (double)gmm_n_parameters(model) * log((double)n_samples);
}

double gmm_aic(const gmm_model *model, double mean_log_likelihood, int64_t n_samples)
{
    return -2.0 * mean_log_likelihood * (double)n_samples + 2.0 * (double)gmm_n_parameters(model);
}
