/* The variational (Bayesian) Gaussian mixture's host-side arithmetic, scikit-learn's
 * BayesianGaussianMixture (sklearn/mixture/_bayesian_mixture.py) operation for operation: the
 * posterior of the weights, means and precisions from the plain M-step's N_k and means, the
 * terms the E-step adds to the Gaussian log-densities, the expected weights and the parameter
 * part of the lower bound. The backends run the large parts (the statistics, the covariance
 * update of kernels/bayes_covariance.h, the factorisation, the entropy of the responsibilities);
 * these are the K- and d-sized rest. The model's gmm_bayes (models/model.h) holds the state. */
#ifndef GMM_BAYES_H
#define GMM_BAYES_H

#include <stdbool.h>

#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The digamma function psi(x) = d/dx log Gamma(x), x > 0 (recurrence up to 10, then the
 * asymptotic series: about 1e-15 relative). */
double gmm_digamma(double x);

/* The variational M-step from the plain one's statistics: nk (K, N_k with scikit-learn's
 * 10 eps), means (K x d: in, the weighted means xbar_k; out, the posterior means). Sets b's
 * weight concentrations, mean precisions beta_k, degrees of freedom nu_k and log_weight_terms,
 * writes diff = xbar_k - m_0 (K x d) and the 3K coefficients of bayes_covariance_* (a, g, c),
 * and the expected weights (K, scikit-learn's weights_). */
void gmm_bayes_m_step(gmm_bayes *b, gmm_cov_type type, int n_components, int dim,
                      const double *nk, double *means, double *diff, double *coef,
                      double *weights);

/* The E-step's constant of component k under the posterior: log det U_k + log_weight_terms_k -
 * d/2 log(2 pi), for log_det_u (K values: sum_j log U_k[j, j], tied: the same K times). */
void gmm_bayes_estep_constants(const gmm_bayes *b, int n_components, int dim,
                               const double *log_det_u, double *constants);

/* The lower bound of scikit-learn's _compute_lower_bound without its entropy term: the bound is
 * entropy - this, entropy = -sum r log r of the E-step before the M-step that made b. */
double gmm_bayes_bound_terms(const gmm_bayes *b, gmm_cov_type type, int n_components, int dim,
                             const double *log_det_u);

/* A new gmm_bayes for K components with prior's priors (its posterior part is not read). */
gmm_status gmm_bayes_new_from_prior(gmm_bayes **out, const gmm_bayes *prior, gmm_cov_type type,
                                    int n_components, int dim);
/* The backends' get_params / set_params of the variational state: into model->bayes (allocated
 * when NULL), and from it (GMM_ERR_ARG when the model has none). */
gmm_status gmm_bayes_to_model(const gmm_bayes *b, gmm_model *model);
gmm_status gmm_bayes_from_model(gmm_bayes *b, const gmm_model *model);

/* The components whose expected weight is above threshold (the summary's "keep weight"). */
int gmm_bayes_components_kept(const gmm_model *model, double threshold);
/* The threshold gmm-train's summary and JSON count by: 1% of the data. */
#define GMM_BAYES_KEPT_WEIGHT 0.01

/* Checks the priors (GMM_ERR_ARG naming the one that is wrong): concentration and mean
 * precision > 0, degrees of freedom > dim - 1, finite mean prior, and a given covariance prior
 * (covariance_given) symmetric positive definite (full, tied) or positive (diag, spherical), as
 * scikit-learn checks them. */
gmm_status gmm_bayes_check_prior(const gmm_bayes *b, gmm_cov_type type, int dim,
                                 bool covariance_given);

#ifdef __cplusplus
}
#endif
#endif
