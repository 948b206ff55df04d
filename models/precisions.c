/* Precision Cholesky factors and their log-determinants (see precisions.h). */
#include "models/precisions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/blas_cpu.h"

static gmm_status cholesky_failure(int component, int minor, double reg_covar)
{
    return gmm_error(GMM_ERR_CHOLESKY,
                     "component %d: covariance is not positive definite (leading minor %d); "
                     "the component has ill-defined empirical covariance (collapsed or singleton "
                     "samples): increase --reg-covar (now %g), use fewer components, or scale the "
                     "data",
                     component, minor, reg_covar);
}

gmm_status gmm_precisions_from_covariances(gmm_cov_type type, int n_components, int dim,
                                           const double *cov, double *prec_chol,
                                           double reg_covar)
{
    gmm_status status = GMM_OK;
    double *lower = NULL;
    size_t dd = (size_t)dim * dim;
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) {
        int n_mats = type == GMM_COV_FULL ? n_components : 1;
        lower = malloc(sizeof(double) * dd);
        if (!lower) return gmm_error(GMM_ERR_NOMEM, "out of memory for a %d x %d Cholesky", dim, dim);
        for (int k = 0; k < n_mats; k++) {
            memcpy(lower, cov + k * dd, sizeof(double) * dd);
            int minor = la_dpotrf_lower(dim, lower, dim);
            if (minor != 0) {
                status = cholesky_failure(type == GMM_COV_FULL ? k : -1, minor, reg_covar);
                if (type == GMM_COV_TIED)
                    status = gmm_error(GMM_ERR_CHOLESKY,
                                       "tied covariance is not positive definite (leading minor "
                                       "%d): increase --reg-covar (now %g)",
                                       minor, reg_covar);
                goto fail;
            }
            la_precision_cholesky_from_lower(dim, lower, prec_chol + k * dd);
        }
    } else {
        size_t n = type == GMM_COV_DIAG ? (size_t)n_components * dim : (size_t)n_components;
        for (size_t i = 0; i < n; i++) {
            if (!(cov[i] > 0.0)) {
                int k = type == GMM_COV_DIAG ? (int)(i / dim) : (int)i;
                return gmm_error(GMM_ERR_CHOLESKY,
                                 "component %d: variance %g is not positive; increase --reg-covar "
                                 "(now %g)",
                                 k, cov[i], reg_covar);
            }
            prec_chol[i] = 1.0 / sqrt(cov[i]);
        }
    }
fail:
    free(lower);
    return status;
}

void gmm_log_det_cholesky(gmm_cov_type type, int n_components, int dim, const double *prec_chol,
                          double *log_det)
{
    size_t dd = (size_t)dim * dim;
    for (int k = 0; k < n_components; k++) {
        double s = 0;
        switch (type) {
        case GMM_COV_FULL:
            for (int j = 0; j < dim; j++) s += log(prec_chol[k * dd + (size_t)j * dim + j]);
            break;
        case GMM_COV_TIED:
            for (int j = 0; j < dim; j++) s += log(prec_chol[(size_t)j * dim + j]);
            break;
        case GMM_COV_DIAG:
            for (int j = 0; j < dim; j++) s += log(prec_chol[(size_t)k * dim + j]);
            break;
        case GMM_COV_SPHERICAL: s = dim * log(prec_chol[k]); break;
        }
        log_det[k] = s;
    }
}

gmm_status gmm_model_compute_precisions(gmm_model *model)
{
    return gmm_precisions_from_covariances(model->covariance_type, model->n_components,
                                           model->dim, model->covariances,
                                           model->precisions_cholesky, model->reg_covar);
}
