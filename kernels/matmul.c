/* CPU versions of the means product C = A^T B (see matmul.h). */
#include "kernels/matmul.h"

#include <stdlib.h>

#include "kernels/blas_cpu.h"

gmm_status matmul_cpu(const double *resp, const double *X, size_t n_samples, int n_components,
                      int dim, double *out)
{
    if (!resp || !X || !out || n_components <= 0 || dim <= 0)
        return gmm_error(GMM_ERR_ARG, "matmul_cpu: bad arguments");
    /* Each thread owns whole output rows (one component), so no sums are shared between threads;
     * walking the samples in the outer loop keeps the rows of X streaming. */
#pragma omp parallel for schedule(static)
    for (int k = 0; k < n_components; k++) {
        double *row = out + (size_t)k * dim;
        for (int j = 0; j < dim; j++) row[j] = 0.0;
        for (size_t i = 0; i < n_samples; i++) {
            double r = resp[i * n_components + k];
            const double *x = X + i * dim;
            for (int j = 0; j < dim; j++) row[j] += r * x[j];
        }
    }
    return GMM_OK;
}

gmm_status matmul_blas(const double *resp, const double *X, size_t n_samples, int n_components,
                       int dim, double *out)
{
    if (!resp || !X || !out || n_components <= 0 || dim <= 0 || n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matmul_blas: bad arguments");
    la_dgemm(true, false, n_components, dim, (int)n_samples, 1.0, resp, n_components, X, dim, 0.0,
             out, dim);
    return GMM_OK;
}
