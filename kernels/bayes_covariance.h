/* The covariance update of a variational (Bayesian) Gaussian mixture, scikit-learn's
 * BayesianGaussianMixture._estimate_wishart_*: from the plain M-step's covariances S (with
 * reg_covar), the differences diff_k = xbar_k - m_0 of the components' means from the prior mean
 * and the prior Psi_0, in place:
 *   BAYES_COV_FULL       C_k = (Psi_0 + a_k S_k + g_k diff_k diff_k^T) / c_k     (K d x d)
 *   BAYES_COV_TIED       C   = (Psi_0 + a_0 S + sum_k g_k diff_k diff_k^T) / c_0 (one d x d)
 *   BAYES_COV_DIAG       C_kj = (Psi_0j + a_k S_kj + g_k diff_kj^2) / c_k        (K x d)
 *   BAYES_COV_SPHERICAL  C_k = (Psi_0 + a_k S_k + g_k mean_j diff_kj^2) / c_k    (K values)
 * coef holds 3K values: a (K), g (K), c (K) (models/bayes.h computes them: a_k = N_k, g_k =
 * N_k beta_0 / beta_k, c_k = nu_k; tied a_0 = sum N_k / K, g_k = beta_0 N_k / (K beta_k)).
 * Psi_0 has d x d (full, tied), d (diag) or 1 (spherical) values; every matrix ROW-MAJOR,
 * float64.
 *   bayes_covariance_cpu   loops in index order: the specification;
 *   bayes_covariance_cuda  a thread per output value (device pointers d_*, an optional
 *                          cudaStream_t as void *; returns once queued).
 * The two agree to rounding (the same operations in the same order per value). */
#ifndef GMM_BAYES_COVARIANCE_H
#define GMM_BAYES_COVARIANCE_H

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    BAYES_COV_FULL = 0,
    BAYES_COV_TIED = 1,
    BAYES_COV_DIAG = 2,
    BAYES_COV_SPHERICAL = 3,
} bayes_cov_layout;

gmm_status bayes_covariance_cpu(bayes_cov_layout layout, int n_components, int dim,
                                const double *prior, const double *coef, const double *diff,
                                double *cov);
gmm_status bayes_covariance_cuda(bayes_cov_layout layout, int n_components, int dim,
                                 const double *d_prior, const double *d_coef,
                                 const double *d_diff, double *d_cov, void *stream);

#ifdef __cplusplus
}
#endif
#endif
