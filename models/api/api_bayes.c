/* The public interface's variational-mixture parameters and the accessors of a fitted one's
 * posterior (see api_bayes.h and include/gmm/gmm.h). */
#include "models/api/api_bayes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "include/gmm/gmm.h"
#include "models/api/api_mixture.h"

void gmm_api_bayes_free(gmm_api_bayes *b)
{
    free(b->mean_prior);
    free(b->covariance_prior);
    b->mean_prior = b->covariance_prior = NULL;
}

int gmm_api_bayes_set_int(gmm_api_bayes *b, const char *name, long long value,
                          gmm_status *status)
{
    if (strcmp(name, "bayesian") != 0) return 0;
    if (value != 0 && value != 1)
        *status = gmm_error(GMM_ERR_ARG, "bayesian=%lld must be 0 or 1", value);
    else
        b->enabled = (int)value, *status = GMM_OK;
    return 1;
}

int gmm_api_bayes_set_double(gmm_api_bayes *b, const char *name, double value,
                             gmm_status *status)
{
    double *slot = !strcmp(name, "weight_concentration_prior") ? &b->options.weight_concentration_prior
                   : !strcmp(name, "mean_precision_prior")     ? &b->options.mean_precision_prior
                   : !strcmp(name, "degrees_of_freedom_prior") ? &b->options.degrees_of_freedom_prior
                                                                : NULL;
    if (!slot) return 0;
    /* > 0 (the degrees of freedom are checked against the data's dimension at fit time) */
    if (!(value > 0) || !isfinite(value))
        *status = gmm_error(GMM_ERR_ARG, "%s=%g must be a finite number > 0", name, value);
    else
        *slot = value, *status = GMM_OK;
    return 1;
}

int gmm_api_bayes_set_string(gmm_api_bayes *b, const char *name, const char *value,
                             gmm_status *status)
{
    if (strcmp(name, "weight_concentration_prior_type") != 0) return 0;
    if (gmm_weight_prior_parse(value, &b->options.weight_prior_type) != 0)
        *status = gmm_error(GMM_ERR_ARG, "weight_concentration_prior_type '%s' is not one of "
                            "dirichlet_process, dirichlet_distribution", value);
    else
        *status = GMM_OK;
    return 1;
}

gmm_status gmm_api_bayes_set_array(gmm_api_bayes *b, int which, const double *values, size_t n)
{
    double **slot = which ? &b->covariance_prior : &b->mean_prior;
    size_t *slot_n = which ? &b->n_covariance_prior : &b->n_mean_prior;
    const char *name = which ? "covariance_prior" : "mean_prior";
    free(*slot);
    *slot = NULL;
    *slot_n = 0;
    if (!values) return GMM_OK;
    if (n == 0) return gmm_error(GMM_ERR_ARG, "%s is empty", name);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(values[i]))
            return gmm_error(GMM_ERR_ARG, "%s[%zu] is %g: it must be finite", name, i, values[i]);
    if (!(*slot = malloc(sizeof(double) * n)))
        return gmm_error(GMM_ERR_NOMEM, "out of memory for %s", name);
    memcpy(*slot, values, sizeof(double) * n);
    *slot_n = n;
    return GMM_OK;
}

gmm_status gmm_api_bayes_options(const gmm_api_bayes *b, gmm_cov_type type, int dim,
                                 gmm_bayes_options *storage, const gmm_bayes_options **out)
{
    *out = NULL;
    if (!b->enabled) {
        if (b->mean_prior || b->covariance_prior)
            return gmm_error(GMM_ERR_ARG, "mean_prior and covariance_prior belong to a "
                             "variational fit: set bayesian to 1");
        return GMM_OK;
    }
    if (b->mean_prior && b->n_mean_prior != (size_t)dim)
        return gmm_error(GMM_ERR_ARG, "mean_prior has %zu values but the data has %d features",
                         b->n_mean_prior, dim);
    size_t want = gmm_bayes_prior_cov_size(type, dim);
    if (b->covariance_prior && b->n_covariance_prior != want)
        return gmm_error(GMM_ERR_ARG, "covariance_prior has %zu values but %s covariance of %d "
                         "features needs %zu", b->n_covariance_prior, gmm_cov_type_name(type),
                         dim, want);
    if (b->options.degrees_of_freedom_prior > 0 && !(b->options.degrees_of_freedom_prior > dim - 1.0))
        return gmm_error(GMM_ERR_ARG, "The parameter 'degrees_of_freedom_prior' should be "
                         "greater than %d, but got %.3f.", dim - 1,
                         b->options.degrees_of_freedom_prior);
    *storage = b->options; /* pointing at b's copies */
    storage->mean_prior = b->mean_prior;
    storage->covariance_prior = b->covariance_prior;
    *out = storage;
    return GMM_OK;
}

/* ---- a fitted variational mixture's posterior ------------------------------------------- */

static const gmm_bayes *bayes_of(const gmm_mixture *m) { return m ? m->model.bayes : NULL; }

int gmm_mixture_is_bayesian(const gmm_mixture *m) { return bayes_of(m) != NULL; }

const char *gmm_mixture_weight_concentration_prior_type(const gmm_mixture *m)
{
    return bayes_of(m) ? gmm_weight_prior_name(m->model.bayes->weight_prior_type) : NULL;
}

double gmm_mixture_prior(const gmm_mixture *m, const char *name)
{
    const gmm_bayes *b = bayes_of(m);
    if (!b || !name) return NAN;
    if (!strcmp(name, "weight_concentration_prior")) return b->weight_concentration_prior;
    if (!strcmp(name, "mean_precision_prior")) return b->mean_precision_prior;
    if (!strcmp(name, "degrees_of_freedom_prior")) return b->degrees_of_freedom_prior;
    return NAN;
}

const double *gmm_mixture_mean_prior(const gmm_mixture *m)
{
    return bayes_of(m) ? m->model.bayes->mean_prior : NULL;
}
const double *gmm_mixture_covariance_prior(const gmm_mixture *m)
{
    return bayes_of(m) ? m->model.bayes->covariance_prior : NULL;
}
const double *gmm_mixture_weight_concentration(const gmm_mixture *m)
{
    return bayes_of(m) ? m->model.bayes->weight_concentration : NULL;
}
const double *gmm_mixture_mean_precision(const gmm_mixture *m)
{
    return bayes_of(m) ? m->model.bayes->mean_precision : NULL;
}
const double *gmm_mixture_degrees_of_freedom(const gmm_mixture *m)
{
    return bayes_of(m) ? m->model.bayes->degrees_of_freedom : NULL;
}
