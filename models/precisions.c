/* Precision Cholesky factors and their log-determinants (see precisions.h). */
#include "models/precisions.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "linalg/cholesky.h"
#include "linalg/trsm.h"

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
    int *failed = NULL;
    size_t dd = (size_t)dim * dim;
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) {
        /* the kernel layer's batched Cholesky, then L X = I by its triangular solve: U = X^T */
        int n_mats = type == GMM_COV_FULL ? n_components : 1;
        lower = malloc(sizeof(double) * dd * n_mats);
        failed = calloc(n_mats, sizeof(int));
        if (!lower || !failed) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory for %d Cholesky factors of %d x %d",
                               n_mats, dim, dim);
            goto fail;
        }
        memcpy(lower, cov, sizeof(double) * dd * n_mats);
        status = cholesky_blas(lower, dim, n_mats, failed);
        if (status == GMM_ERR_CHOLESKY) {
            int k = 0;
            while (k < n_mats - 1 && failed[k] == 0) k++;
            status = type == GMM_COV_FULL
                         ? cholesky_failure(k, failed[k], reg_covar)
                         : gmm_error(GMM_ERR_CHOLESKY,
                                     "tied covariance is not positive definite (leading minor "
                                     "%d): increase --reg-covar (now %g)",
                                     failed[k], reg_covar);
            goto fail;
        }
        if (status != GMM_OK) goto fail;
        for (int k = 0; k < n_mats; k++) {
            double *U = prec_chol + k * dd;
            memset(U, 0, sizeof(double) * dd);
            for (int j = 0; j < dim; j++) U[(size_t)j * dim + j] = 1.0;
            if ((status = trsm_blas(lower + k * dd, dim, U, (size_t)dim)) != GMM_OK) goto fail;
            for (int a = 0; a < dim; a++)
                for (int b = a + 1; b < dim; b++) {
                    double t = U[(size_t)a * dim + b];
                    U[(size_t)a * dim + b] = U[(size_t)b * dim + a];
                    U[(size_t)b * dim + a] = t;
                }
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
    free(failed);
    return status;
}

log_det_layout gmm_log_det_layout(gmm_cov_type type)
{
    switch (type) {
    case GMM_COV_FULL: return LOG_DET_FULL;
    case GMM_COV_TIED: return LOG_DET_TIED;
    case GMM_COV_DIAG: return LOG_DET_DIAG;
    case GMM_COV_SPHERICAL: break;
    }
    return LOG_DET_SPHERICAL;
}

void gmm_log_det_cholesky(gmm_cov_type type, int n_components, int dim, const double *prec_chol,
                          double *log_det)
{
    /* the arguments are the caller's own sizes; a bad one leaves log_det unwritten */
    (void)log_det_cholesky_cpu(gmm_log_det_layout(type), n_components, dim, prec_chol, NULL,
                               log_det);
}

gmm_status gmm_model_compute_precisions(gmm_model *model)
{
    return gmm_precisions_from_covariances(model->covariance_type, model->n_components,
                                           model->dim, model->covariances,
                                           model->precisions_cholesky, model->reg_covar);
}
