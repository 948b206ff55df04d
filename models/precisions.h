/* Precision Cholesky factors from covariances, for every covariance type (scikit-learn's
 * _compute_precision_cholesky), and the log-determinant term of the E-step. */
#ifndef GMM_PRECISIONS_H
#define GMM_PRECISIONS_H

#include "linalg/log_det.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* prec_chol (gmm_cov_size doubles) from cov. A matrix that is not positive definite (or a
 * variance <= 0) is GMM_ERR_CHOLESKY naming the component; reg_covar is quoted in the advice. */
gmm_status gmm_precisions_from_covariances(gmm_cov_type type, int n_components, int dim,
                                           const double *cov, double *prec_chol,
                                           double reg_covar);

/* The layout of a covariance type's precision factors for linalg/log_det.h. */
log_det_layout gmm_log_det_layout(gmm_cov_type type);

/* log det of each component's precision Cholesky factor (K values): sum log diag U_k for
 * full/tied, sum log prec for diag, dim * log prec for spherical (log_det_cholesky_cpu). */
void gmm_log_det_cholesky(gmm_cov_type type, int n_components, int dim, const double *prec_chol,
                          double *log_det);

#ifdef __cplusplus
}
#endif
#endif
