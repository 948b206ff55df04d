/* CPU version of the scaled centring (see scaled_centre.h). */
#include "kernels/scaled_centre.h"

#include <math.h>

void scaled_centre_row(const double *x, int dim, double weight, const double *mean, double *out)
{
    const double s = sqrt(weight);
    for (int j = 0; j < dim; j++) out[j] = s * (x[j] - mean[j]);
}

gmm_status scaled_centre_cpu(const double *X, size_t n_samples, int dim, const double *weights,
                             size_t weight_stride, int n_components, const double *means,
                             double *out)
{
    if (!X || !weights || !means || !out || dim <= 0 || n_components <= 0 ||
        weight_stride < (size_t)1)
        return gmm_error(GMM_ERR_ARG, "scaled_centre_cpu: bad arguments");
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n_components; k++)
        for (size_t i = 0; i < n_samples; i++)
            scaled_centre_row(X + i * dim, dim, weights[i * weight_stride + k],
                              means + (size_t)k * dim,
                              out + ((size_t)k * n_samples + i) * dim);
    return GMM_OK;
}
