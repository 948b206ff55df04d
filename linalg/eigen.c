/* CPU version of the symmetric eigensolver (see eigen.h): LAPACKE dsyevd, then the order made
 * descending and the signs fixed. */
#include "linalg/eigen.h"

#include <lapacke.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Reverses the ascending eigenpairs into descending order and makes the largest-magnitude
 * entry of every eigenvector positive. */
static void order_descending(int dim, double *values, double *vectors)
{
    for (int i = 0, j = dim - 1; i < j; i++, j--) {
        double t = values[i];
        values[i] = values[j];
        values[j] = t;
        double *a = vectors + (size_t)i * dim, *b = vectors + (size_t)j * dim;
        for (int c = 0; c < dim; c++) {
            t = a[c];
            a[c] = b[c];
            b[c] = t;
        }
    }
    for (int i = 0; i < dim; i++) {
        double *v = vectors + (size_t)i * dim;
        int at = 0;
        for (int c = 1; c < dim; c++)
            if (fabs(v[c]) > fabs(v[at])) at = c;
        if (v[at] < 0)
            for (int c = 0; c < dim; c++) v[c] = -v[c];
    }
}

gmm_status eigen_sym_lapack(const double *A, int dim, double *eigenvalues, double *eigenvectors)
{
    if (!A || !eigenvalues || !eigenvectors || dim <= 0)
        return gmm_error(GMM_ERR_ARG, "eigen_sym_lapack: bad arguments");
    for (size_t i = 0; i < (size_t)dim * dim; i++)
        if (!isfinite(A[i]))
            return gmm_error(GMM_ERR_NUMERIC, "eigen_sym_lapack: the matrix has a non-finite "
                             "entry at (%zu, %zu)", i / (size_t)dim, i % (size_t)dim);
    memcpy(eigenvectors, A, sizeof(double) * (size_t)dim * dim);
    /* column-major on the symmetric matrix: see eigen.h */
    lapack_int info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, 'V', 'U', dim, eigenvectors, dim,
                                     eigenvalues);
    if (info < 0) return gmm_error(GMM_ERR_ARG, "LAPACKE_dsyevd: argument %d invalid", (int)-info);
    if (info > 0)
        return gmm_error(GMM_ERR_NUMERIC, "LAPACKE_dsyevd did not converge (%d off-diagonal "
                         "elements left)", (int)info);
    order_descending(dim, eigenvalues, eigenvectors);
    return GMM_OK;
}
