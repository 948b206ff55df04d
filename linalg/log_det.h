/* Log-determinants of precision Cholesky factors U_k (Sigma_k^-1 = U_k U_k^T, U_k upper
 * triangular, as scikit-learn's precisions_cholesky_), and with them the constant of the
 * E-step's log-probabilities: log N(x | mu_k, Sigma_k) + log w_k = const_k - ||(x - mu_k) U_k||^2 / 2
 * with const_k = log w_k + log det U_k - dim/2 log(2 pi) (kernels/estep_rows.h subtracts the
 * distances). The factors are stored by layout, float64, ROW-MAJOR:
 *   LOG_DET_FULL       n_components dim x dim matrices back to back: sum_j log U_k[j, j];
 *   LOG_DET_TIED       one dim x dim matrix shared by every component;
 *   LOG_DET_DIAG       n_components x dim diagonals: sum_j log p_kj;
 *   LOG_DET_SPHERICAL  n_components values: dim * log p_k.
 * The logs are summed in index order in both versions.
 *   log_det_cholesky_cpu   one loop per component: the specification;
 *   log_det_cholesky_cuda  a thread per component (blocks of 128).
 * out gets n_components values: log det U_k when weights is NULL, else const_k. The GPU version
 * takes device pointers (d_*) and an optional cudaStream_t as void * (NULL: the default
 * stream); it returns once the work is queued. */
#ifndef GMM_LOG_DET_H
#define GMM_LOG_DET_H

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    LOG_DET_FULL = 0,
    LOG_DET_TIED = 1,
    LOG_DET_DIAG = 2,
    LOG_DET_SPHERICAL = 3,
} log_det_layout;

gmm_status log_det_cholesky_cpu(log_det_layout layout, int n_components, int dim,
                                const double *prec_chol, const double *weights, double *out);
gmm_status log_det_cholesky_cuda(log_det_layout layout, int n_components, int dim,
                                 const double *d_prec_chol, const double *d_weights,
                                 double *d_out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
