/* The model's bookkeeping: enum names, allocation and copying of gmm_model (its feature space
 * through models/features/feature_space.h), and the parameter count behind BIC and AIC. */
#include "models/model.h"

#include "data/file_open.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- names ------------------------------------------------------------------------------ */

static const char *const cov_type_names[] = {"full", "tied", "diag", "spherical"};
static const char *const weight_prior_names[] = {"dirichlet_process", "dirichlet_distribution"};
static const char *const init_names[] = {"kmeans", "k-means++", "random", "random_from_data",
                                          "knn", "spectral", "merge"};

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

int gmm_weight_prior_parse(const char *name, gmm_weight_prior_type *out)
{
    int i = parse_name(name, weight_prior_names, N_NAMES(weight_prior_names));
    if (i < 0 && name) { /* the command line's spelling */
        if (strcmp(name, "dirichlet-process") == 0) i = GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS;
        else if (strcmp(name, "dirichlet-distribution") == 0)
            i = GMM_WEIGHT_PRIOR_DIRICHLET_DISTRIBUTION;
    }
    if (i < 0) return -1;
    if (out) *out = (gmm_weight_prior_type)i;
    return 0;
}

const char *gmm_weight_prior_name(gmm_weight_prior_type type)
{
    if ((int)type < 0 || (int)type >= N_NAMES(weight_prior_names)) return "unknown";
    return weight_prior_names[type];
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
    gmm_feature_space_free(model->space);
    model->space = NULL;
    free(model->matched_label);
    model->matched_label = NULL;
    gmm_bayes_free(model->bayes);
    model->bayes = NULL;
}

/* ---- the variational part --------------------------------------------------------------- */

size_t gmm_bayes_prior_cov_size(gmm_cov_type type, int dim)
{
    return gmm_cov_size(type, 1, dim);
}

gmm_status gmm_bayes_alloc(gmm_bayes **out, gmm_cov_type type, int n_components, int dim)
{
    *out = NULL;
    gmm_bayes *b = calloc(1, sizeof *b);
    if (!b) return gmm_error(GMM_ERR_NOMEM, "out of memory for the variational parameters");
    size_t K = (size_t)n_components;
    b->mean_prior = calloc((size_t)dim, sizeof(double));
    b->covariance_prior = calloc(gmm_bayes_prior_cov_size(type, dim), sizeof(double));
    b->weight_concentration = calloc(2 * K, sizeof(double));
    b->mean_precision = calloc(K, sizeof(double));
    b->degrees_of_freedom = calloc(K, sizeof(double));
    b->log_weight_terms = calloc(K, sizeof(double));
    if (!b->mean_prior || !b->covariance_prior || !b->weight_concentration ||
        !b->mean_precision || !b->degrees_of_freedom || !b->log_weight_terms) {
        gmm_bayes_free(b);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the variational parameters");
    }
    *out = b;
    return GMM_OK;
}

void gmm_bayes_free(gmm_bayes *b)
{
    if (!b) return;
    free(b->mean_prior);
    free(b->covariance_prior);
    free(b->weight_concentration);
    free(b->mean_precision);
    free(b->degrees_of_freedom);
    free(b->log_weight_terms);
    free(b);
}

void gmm_bayes_copy_prior(gmm_bayes *dst, const gmm_bayes *src, gmm_cov_type type, int dim)
{
    dst->weight_prior_type = src->weight_prior_type;
    dst->weight_concentration_prior = src->weight_concentration_prior;
    dst->mean_precision_prior = src->mean_precision_prior;
    dst->degrees_of_freedom_prior = src->degrees_of_freedom_prior;
    memcpy(dst->mean_prior, src->mean_prior, sizeof(double) * (size_t)dim);
    memcpy(dst->covariance_prior, src->covariance_prior,
           sizeof(double) * gmm_bayes_prior_cov_size(type, dim));
}

void gmm_bayes_copy_into(gmm_bayes *dst, const gmm_bayes *src, gmm_cov_type type,
                         int n_components, int dim)
{
    if (dst == src) return;
    size_t K = (size_t)n_components;
    gmm_bayes_copy_prior(dst, src, type, dim);
    memcpy(dst->weight_concentration, src->weight_concentration, sizeof(double) * 2 * K);
    memcpy(dst->mean_precision, src->mean_precision, sizeof(double) * K);
    memcpy(dst->degrees_of_freedom, src->degrees_of_freedom, sizeof(double) * K);
    memcpy(dst->log_weight_terms, src->log_weight_terms, sizeof(double) * K);
}

int gmm_model_input_dim(const gmm_model *model)
{
    return model->space ? gmm_feature_space_input_dim(model->space) : model->dim;
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
    tmp.space = NULL;
    tmp.matched_label = NULL;
    tmp.bayes = NULL;
    if (src->bayes) {
        if ((st = gmm_bayes_alloc(&tmp.bayes, src->covariance_type, src->n_components,
                                  src->dim)) != GMM_OK) {
            gmm_model_free(&tmp);
            return st;
        }
        gmm_bayes_copy_into(tmp.bayes, src->bayes, src->covariance_type, src->n_components,
                            src->dim);
    }
    if ((st = gmm_feature_space_copy(src->space, &tmp.space)) != GMM_OK) {
        gmm_model_free(&tmp);
        return st;
    }
    if (src->matched_label) {
        if (!(tmp.matched_label = malloc(sizeof(int) * (size_t)src->n_components))) {
            gmm_model_free(&tmp);
            return gmm_error(GMM_ERR_NOMEM, "out of memory to copy the model");
        }
        memcpy(tmp.matched_label, src->matched_label, sizeof(int) * (size_t)src->n_components);
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
