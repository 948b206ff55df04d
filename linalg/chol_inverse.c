/* CPU twin of the precision Cholesky factor (see chol_inverse.h): the readable specification. */
#include "linalg/chol_inverse.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* R (upper, row-major) with S = R^T R, from the upper triangle of S, row by row:
 * R[i][j] = (S[i][j] - sum_{k<i} R[k][i] R[k][j]) / R[i][i]. Returns 0 or the failing order. */
static int cholesky_upper(const double *S, int n, double *R)
{
    memset(R, 0, sizeof(double) * (size_t)n * n);
    for (int i = 0; i < n; i++) {
        double d = S[(size_t)i * n + i];
        for (int k = 0; k < i; k++) d -= R[(size_t)k * n + i] * R[(size_t)k * n + i];
        if (!(d > 0.0)) return i + 1; /* also catches NaN */
        const double rii = sqrt(d);
        R[(size_t)i * n + i] = rii;
        for (int j = i + 1; j < n; j++) {
            double s = S[(size_t)i * n + j];
            for (int k = 0; k < i; k++) s -= R[(size_t)k * n + i] * R[(size_t)k * n + j];
            R[(size_t)i * n + j] = s / rii;
        }
    }
    return 0;
}

/* U = R^{-1} (upper): column j solves R u = e_j from the bottom up. */
static void invert_upper(const double *R, int n, double *U)
{
    memset(U, 0, sizeof(double) * (size_t)n * n);
    for (int j = 0; j < n; j++)
        for (int i = j; i >= 0; i--) {
            double s = i == j ? 1.0 : 0.0;
            for (int k = i + 1; k <= j; k++) s -= R[(size_t)i * n + k] * U[(size_t)k * n + j];
            U[(size_t)i * n + j] = s / R[(size_t)i * n + i];
        }
}

gmm_status chol_inverse_cpu(const double *S, int dim, int batch, double *U, int *failed_order)
{
    if (!S || !U || dim <= 0 || batch <= 0)
        return gmm_error(GMM_ERR_ARG, "chol_inverse_cpu: bad arguments");
    const size_t dd = (size_t)dim * dim;
    int first_failed = -1, first_order = 0;
#pragma omp parallel for schedule(dynamic, 1) if (batch > 1)
    for (int b = 0; b < batch; b++) {
        double *R = malloc(sizeof(double) * dd);
        int order = -1; /* -1: no scratch */
        if (R) {
            order = cholesky_upper(S + dd * b, dim, R);
            if (order == 0) invert_upper(R, dim, U + dd * b);
            free(R);
        }
        if (failed_order) failed_order[b] = order > 0 ? order : 0;
        if (order != 0) {
#pragma omp critical(gmm_chol_inverse_report)
            if (first_failed < 0 || b < first_failed) {
                first_failed = b;
                first_order = order;
            }
        }
    }
    if (first_failed < 0) return GMM_OK;
    if (first_order < 0)
        return gmm_error(GMM_ERR_NOMEM, "chol_inverse_cpu: %d x %d scratch matrix", dim, dim);
    return gmm_error(GMM_ERR_CHOLESKY,
                     "chol_inverse_cpu: matrix %d of %d: the leading minor of order %d is not "
                     "positive definite",
                     first_failed, batch, first_order);
}
