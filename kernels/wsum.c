/* CPU version of the weighted column sums (see wsum.h). */
#include "kernels/wsum.h"

gmm_status wsum_cpu(const double *X, size_t n_samples, int dim, const double *resp,
                    int n_components, const double *centres, const double *divisors, double add,
                    double *out)
{
    if (!X || !resp || !divisors || !out || dim <= 0 || n_components <= 0)
        return gmm_error(GMM_ERR_ARG, "wsum_cpu: bad arguments");
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n_components; k++) {
        double *row = out + (size_t)k * dim;
        const double *c = centres ? centres + (size_t)k * dim : NULL;
        for (int j = 0; j < dim; j++) row[j] = 0.0;
        for (size_t i = 0; i < n_samples; i++) {
            const double r = resp[i * n_components + k];
            const double *x = X + i * dim;
            for (int j = 0; j < dim; j++)
                row[j] += c ? r * ((x[j] - c[j]) * (x[j] - c[j])) : r * x[j];
        }
        for (int j = 0; j < dim; j++) {
            row[j] /= divisors[k];
            if (c) row[j] += add;
        }
    }
    return GMM_OK;
}
