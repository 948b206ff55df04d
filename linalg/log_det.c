/* CPU version of the precision factors' log-determinants and the E-step constant (see
 * log_det.h). */
#include "linalg/log_det.h"

#include <math.h>
#include <stddef.h>

gmm_status log_det_cholesky_cpu(log_det_layout layout, int n_components, int dim,
                                const double *prec_chol, const double *weights, double *out)
{
    if (!prec_chol || !out || n_components <= 0 || dim <= 0 || layout < LOG_DET_FULL ||
        layout > LOG_DET_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "log_det_cholesky_cpu: bad arguments");
    const size_t dd = (size_t)dim * dim;
    for (int k = 0; k < n_components; k++) {
        double s = 0;
        switch (layout) {
        case LOG_DET_FULL:
            for (int j = 0; j < dim; j++) s += log(prec_chol[k * dd + (size_t)j * dim + j]);
            break;
        case LOG_DET_TIED:
            for (int j = 0; j < dim; j++) s += log(prec_chol[(size_t)j * dim + j]);
            break;
        case LOG_DET_DIAG:
            for (int j = 0; j < dim; j++) s += log(prec_chol[(size_t)k * dim + j]);
            break;
        case LOG_DET_SPHERICAL: s = dim * log(prec_chol[k]); break;
        }
        out[k] = weights ? -0.5 * (dim * log(2.0 * M_PI)) + s + log(weights[k]) : s;
    }
    return GMM_OK;
}
