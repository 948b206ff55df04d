/* CPU version of the variational covariance update (see bayes_covariance.h). */
#include "kernels/bayes_covariance.h"

#include <stddef.h>

#include "kernels/parallel.h"

gmm_status bayes_covariance_cpu(bayes_cov_layout layout, int n_components, int dim,
                                const double *prior, const double *coef, const double *diff,
                                double *cov)
{
    if (!prior || !coef || !diff || !cov || n_components <= 0 || dim <= 0 ||
        layout < BAYES_COV_FULL || layout > BAYES_COV_SPHERICAL)
        return gmm_error(GMM_ERR_ARG, "bayes_covariance_cpu: bad arguments");
    const int K = n_components, d = dim;
    const double *a = coef, *g = coef + K, *c = coef + 2 * K;
    const size_t dd = (size_t)d * d;
    switch (layout) {
    case BAYES_COV_FULL:
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)K * dd))
        for (int k = 0; k < K; k++)
            for (int i = 0; i < d; i++)
                for (int j = 0; j < d; j++) {
                    double *v = cov + k * dd + (size_t)i * d + j;
                    const double *dk = diff + (size_t)k * d;
                    *v = (prior[(size_t)i * d + j] + a[k] * *v + g[k] * (dk[i] * dk[j])) / c[k];
                }
        break;
    case BAYES_COV_TIED:
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)K * dd))
        for (int i = 0; i < d; i++)
            for (int j = 0; j < d; j++) {
                double outer = 0;
                for (int k = 0; k < K; k++)
                    outer += g[k] * (diff[(size_t)k * d + i] * diff[(size_t)k * d + j]);
                double *v = cov + (size_t)i * d + j;
                *v = (prior[(size_t)i * d + j] + a[0] * *v + outer) / c[0];
            }
        break;
    case BAYES_COV_DIAG:
        for (int k = 0; k < K; k++)
            for (int j = 0; j < d; j++) {
                double dkj = diff[(size_t)k * d + j], *v = cov + (size_t)k * d + j;
                *v = (prior[j] + a[k] * *v + g[k] * (dkj * dkj)) / c[k];
            }
        break;
    case BAYES_COV_SPHERICAL:
        for (int k = 0; k < K; k++) {
            double s = 0;
            for (int j = 0; j < d; j++) s += diff[(size_t)k * d + j] * diff[(size_t)k * d + j];
            cov[k] = (prior[0] + a[k] * cov[k] + g[k] * (s / d)) / c[k];
        }
        break;
    }
    return GMM_OK;
}
