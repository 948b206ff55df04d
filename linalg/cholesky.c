/* CPU versions of the Cholesky factorisation (see cholesky.h). */
#include "linalg/cholesky.h"

#include <math.h>
#include <stddef.h>

#include "kernels/blas_cpu.h"

/* Cholesky-Crout on one row-major matrix: column j of L from the columns before it. Returns 0 or
 * the 1-based order of the failing leading minor. */
static int cholesky_one(double *A, int n)
{
    for (int j = 0; j < n; j++) {
        double *rj = A + (size_t)j * n;
        double d = rj[j];
        for (int k = 0; k < j; k++) d -= rj[k] * rj[k];
        if (!(d > 0.0)) return j + 1; /* also catches NaN */
        const double ljj = sqrt(d);
        rj[j] = ljj;
#pragma omp parallel for schedule(static) if (n - j > 256)
        for (int i = j + 1; i < n; i++) {
            double *ri = A + (size_t)i * n;
            double s = ri[j];
            for (int k = 0; k < j; k++) s -= ri[k] * rj[k];
            ri[j] = s / ljj;
        }
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) A[(size_t)i * n + j] = 0.0;
    return 0;
}

static gmm_status cholesky_host(double *A, int dim, int batch, int *failed_order, int use_lapack,
                                const char *name)
{
    if (!A || dim <= 0 || batch <= 0) return gmm_error(GMM_ERR_ARG, "%s: bad arguments", name);
    int first_failed = -1, first_order = 0;
    /* A batch runs one matrix per thread; a single matrix parallelises inside. */
#pragma omp parallel for schedule(dynamic, 1) if (batch > 1 && !use_lapack)
    for (int b = 0; b < batch; b++) {
        double *m = A + (size_t)b * dim * dim;
        int order = use_lapack ? la_dpotrf_lower(dim, m, dim) : cholesky_one(m, dim);
        if (failed_order) failed_order[b] = order;
        if (order) {
#pragma omp critical(gmm_cholesky_report)
            if (first_failed < 0 || b < first_failed) {
                first_failed = b;
                first_order = order;
            }
        }
    }
    if (first_failed < 0) return GMM_OK;
    return gmm_error(GMM_ERR_CHOLESKY,
                     "%s: matrix %d of %d: the leading minor of order %d is not positive definite",
                     name, first_failed, batch, first_order);
}

gmm_status cholesky_cpu(double *A, int dim, int batch, int *failed_order)
{
    return cholesky_host(A, dim, batch, failed_order, 0, "cholesky_cpu");
}

gmm_status cholesky_blas(double *A, int dim, int batch, int *failed_order)
{
    return cholesky_host(A, dim, batch, failed_order, 1, "cholesky_blas");
}
