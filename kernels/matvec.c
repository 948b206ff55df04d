/* CPU versions of the matrix-vector product (see matvec.h). */
#include "kernels/matvec.h"

#include <cblas.h>

gmm_status matvec_f32_cpu(const float *A, size_t n_rows, size_t n_cols, const float *x, float *y)
{
    if (!A || !x || !y) return gmm_error(GMM_ERR_ARG, "matvec_f32_cpu: NULL argument");
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n_rows; i++) {
        const float *a = A + i * n_cols;
        float s = 0.0f;
        for (size_t j = 0; j < n_cols; j++) s += a[j] * x[j];
        y[i] = s;
    }
    return GMM_OK;
}

gmm_status matvec_f64_cpu(const double *A, size_t n_rows, size_t n_cols, const double *x,
                          double *y)
{
    if (!A || !x || !y) return gmm_error(GMM_ERR_ARG, "matvec_f64_cpu: NULL argument");
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n_rows; i++) {
        const double *a = A + i * n_cols;
        double s = 0.0;
        for (size_t j = 0; j < n_cols; j++) s += a[j] * x[j];
        y[i] = s;
    }
    return GMM_OK;
}

/* GEMV has no counterpart in blas_cpu.h; CBLAS's row-major flag does the layout switch. */
gmm_status matvec_f32_blas(const float *A, size_t n_rows, size_t n_cols, const float *x, float *y)
{
    if (!A || !x || !y || n_rows > 0x7fffffff || n_cols > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matvec_f32_blas: bad arguments");
    if (n_rows == 0) return GMM_OK;
    cblas_sgemv(CblasRowMajor, CblasNoTrans, (int)n_rows, (int)n_cols, 1.0f, A,
                (int)(n_cols ? n_cols : 1), x, 1, 0.0f, y, 1);
    return GMM_OK;
}

gmm_status matvec_f64_blas(const double *A, size_t n_rows, size_t n_cols, const double *x,
                           double *y)
{
    if (!A || !x || !y || n_rows > 0x7fffffff || n_cols > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matvec_f64_blas: bad arguments");
    if (n_rows == 0) return GMM_OK;
    cblas_dgemv(CblasRowMajor, CblasNoTrans, (int)n_rows, (int)n_cols, 1.0, A,
                (int)(n_cols ? n_cols : 1), x, 1, 0.0, y, 1);
    return GMM_OK;
}
