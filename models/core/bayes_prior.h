/* The priors of a variational fit, completed from the data where the options leave them to
 * scikit-learn's defaults (BayesianGaussianMixture._check_parameters): the concentration 1/K,
 * the mean precision 1, the degrees of freedom dim, the data's mean, and its covariance with
 * ddof 1 (np.cov; diag: np.var(ddof=1), spherical: the mean of those), over every rank's rows. */
#ifndef GMM_BAYES_PRIOR_H
#define GMM_BAYES_PRIOR_H

#include "models/data_view.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *prior: a new gmm_bayes (free with gmm_bayes_free) holding the priors of options->bayes for
 * the data; GMM_ERR_ARG naming a prior that is out of range (models/bayes.h's checks), or for
 * fewer than 2 samples when the covariance prior comes from the data. */
gmm_status gmm_bayes_prior_for_data(const gmm_options *options, const gmm_data_view *data,
                                    gmm_bayes **prior);

#ifdef __cplusplus
}
#endif
#endif
