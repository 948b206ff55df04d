/* The fit options: scikit-learn's defaults, the given initial parameters put in a run's start,
 * and the checks of a set of options against the data's shape (models/options.h). */
#include "models/options.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char *const precision_names[] = {"fp64", "fp32", "tf32"};
#define N_PRECISIONS ((int)(sizeof(precision_names) / sizeof(precision_names[0])))

int gmm_precision_parse(const char *name, gmm_precision *out)
{
    for (int i = 0; name && i < N_PRECISIONS; i++)
        if (strcmp(name, precision_names[i]) == 0) {
            if (out) *out = (gmm_precision)i;
            return 0;
        }
    return -1;
}

const char *gmm_precision_name(gmm_precision precision)
{
    if ((int)precision < 0 || (int)precision >= N_PRECISIONS) return "unknown";
    return precision_names[precision];
}

/* ---- the stop request inside an initialisation --------------------------------------- */

/* one per thread: the fits of a multi-GPU run each run on a thread of their own */
static _Thread_local gmm_should_stop_fn scope_should_stop;
static _Thread_local void *scope_user;

gmm_stop_scope gmm_stop_scope_begin(const gmm_options *options)
{
    const gmm_stop_scope enclosing = {scope_should_stop, scope_user};
    scope_should_stop = options ? options->should_stop : NULL;
    scope_user = options ? options->user : NULL;
    return enclosing;
}

void gmm_stop_scope_end(gmm_stop_scope enclosing)
{
    scope_should_stop = enclosing.should_stop;
    scope_user = enclosing.user;
}

int gmm_stop_requested(void)
{
    return scope_should_stop && scope_should_stop(scope_user);
}

int gmm_stop_poll(void *unused)
{
    (void)unused;
    return gmm_stop_requested();
}

/* ---- the model -------------------------------------------------------------------------- */

void gmm_given_params_apply(const gmm_given_params *given, gmm_model *m)
{
    size_t K = m->n_components, cov_n = gmm_cov_size(m->covariance_type, m->n_components, m->dim);
    if (given->weights) memcpy(m->weights, given->weights, sizeof(double) * K);
    if (given->means) memcpy(m->means, given->means, sizeof(double) * K * m->dim);
    if (given->precisions_cholesky)
        memcpy(m->precisions_cholesky, given->precisions_cholesky, sizeof(double) * cov_n);
}

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
    if (!(o->tol >= 0 && o->tol <= GMM_TOL_MAX))
        return gmm_error(GMM_ERR_ARG, "tol=%g must be between 0 and %g (what a model file holds)",
                         o->tol, GMM_TOL_MAX);
    if (!(o->reg_covar >= 0 && o->reg_covar <= GMM_REG_COVAR_MAX))
        return gmm_error(GMM_ERR_ARG, "reg_covar=%g must be between 0 and %g (added to every "
                         "variance, it must leave the covariances below the 1e100 a model file "
                         "holds)", o->reg_covar, GMM_REG_COVAR_MAX);
    if (o->max_iter < 1) return gmm_error(GMM_ERR_ARG, "max_iter=%d must be >= 1", o->max_iter);
    if (o->n_init < 1) return gmm_error(GMM_ERR_ARG, "n_init=%d must be >= 1", o->n_init);
    if (o->kmeans_max_iter < 1)
        return gmm_error(GMM_ERR_ARG, "kmeans_max_iter=%d must be >= 1", o->kmeans_max_iter);
    if (o->kmeans_full_passes < 0)
        return gmm_error(GMM_ERR_ARG, "kmeans_full_passes=%d must be >= 1 (0 for the default)",
                         o->kmeans_full_passes);
    if (o->kmeans_sample_size > 0 && o->kmeans_sample_size < o->n_components)
        return gmm_error(GMM_ERR_ARG, "kmeans_sample_size=%lld must be >= n_components=%d (0 "
                         "for the default, < 0 for every row)", (long long)o->kmeans_sample_size,
                         o->n_components);
    if ((int)o->covariance_type < 0 || (int)o->covariance_type > GMM_COV_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "unknown covariance_type %d", (int)o->covariance_type);
    /* 0 stands for the default (10 neighbours, 60000 points) */
    if (o->knn_neighbors < 0 || o->knn_neighbors > 127)
        return gmm_error(GMM_ERR_ARG, "knn_neighbors=%d must be in 1..127 (0 for the default)",
                         o->knn_neighbors);
    if (o->knn_sample_size < 0 || o->knn_sample_size == 1)
        return gmm_error(GMM_ERR_ARG, "knn_sample_size=%lld must be >= 2 (0 for the default)",
                         (long long)o->knn_sample_size);
    if ((int)o->init < 0 || (int)o->init > GMM_INIT_MERGE)
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
