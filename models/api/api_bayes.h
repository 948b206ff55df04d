/* The public interface's variational-mixture parameters (scikit-learn's BayesianGaussianMixture
 * names; include/gmm/gmm.h): what gmm_params keeps of them, how a name sets one, and the
 * options a fit gets from them. */
#ifndef GMM_API_BAYES_H
#define GMM_API_BAYES_H

#include <stddef.h>

#include "models/options.h"

typedef struct {
    int enabled; /* "bayesian" */
    gmm_bayes_options options;
    double *mean_prior, *covariance_prior; /* owned copies (NULL: from the data) */
    size_t n_mean_prior, n_covariance_prior;
} gmm_api_bayes;

void gmm_api_bayes_free(gmm_api_bayes *b); /* the copies; b itself is the caller's */

/* Sets the parameter `name` when it is one of these (returns 1 and the status in *status);
 * returns 0 for another name. */
int gmm_api_bayes_set_int(gmm_api_bayes *b, const char *name, long long value,
                          gmm_status *status);
int gmm_api_bayes_set_double(gmm_api_bayes *b, const char *name, double value,
                             gmm_status *status);
int gmm_api_bayes_set_string(gmm_api_bayes *b, const char *name, const char *value,
                             gmm_status *status);
/* Keeps a copy of mean_prior (which = 0) or covariance_prior (1); NULL clears. */
gmm_status gmm_api_bayes_set_array(gmm_api_bayes *b, int which, const double *values, size_t n);

/* *out = storage filled with the options of a variational fit of dim features (pointing at b's
 * copies, so b must outlive the fit), the priors' sizes checked against dim and type
 * (GMM_ERR_ARG); *out = NULL when the fit is not variational. */
gmm_status gmm_api_bayes_options(const gmm_api_bayes *b, gmm_cov_type type, int dim,
                                 gmm_bayes_options *storage, const gmm_bayes_options **out);

#endif
