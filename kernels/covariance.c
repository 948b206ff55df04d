/* CPU versions of the covariance of centred data (see covariance.h). */
#include "kernels/covariance.h"

#include "kernels/blas_cpu.h"

static double covariance_scale(size_t n_samples)
{
    return 1.0 / (double)(n_samples > 1 ? n_samples - 1 : 1);
}

gmm_status covariance_cpu(const double *X, size_t n_samples, int dim, double *cov)
{
    if (!X || !cov || dim <= 0 || n_samples == 0)
        return gmm_error(GMM_ERR_ARG, "covariance_cpu: bad arguments");
    const double scale = covariance_scale(n_samples);
    /* cov[a][b] = sum_i X[i][a] X[i][b] over the lower triangle (b <= a), then mirrored. Samples
     * are taken in chunks that stay in cache while every thread adds them to its output rows. */
    const size_t chunk = 256;
    for (int a = 0; a < dim; a++)
        for (int b = 0; b <= a; b++) cov[(size_t)a * dim + b] = 0.0;
    for (size_t i0 = 0; i0 < n_samples; i0 += chunk) {
        const size_t i1 = i0 + chunk < n_samples ? i0 + chunk : n_samples;
#pragma omp parallel for schedule(dynamic, 8)
        for (int a = 0; a < dim; a++) {
            double *row = cov + (size_t)a * dim;
            for (size_t i = i0; i < i1; i++) {
                const double *x = X + i * dim;
                const double xa = x[a];
                for (int b = 0; b <= a; b++) row[b] += xa * x[b];
            }
        }
    }
    for (int a = 0; a < dim; a++)
        for (int b = 0; b <= a; b++) cov[(size_t)a * dim + b] *= scale;
    la_symmetrize_from_lower(dim, cov, dim);
    return GMM_OK;
}

gmm_status covariance_blas(const double *X, size_t n_samples, int dim, double *cov)
{
    if (!X || !cov || dim <= 0 || n_samples == 0 || n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "covariance_blas: bad arguments");
    la_dsyrk_at_a(dim, (int)n_samples, covariance_scale(n_samples), X, dim, 0.0, cov, dim);
    la_symmetrize_from_lower(dim, cov, dim);
    return GMM_OK;
}
