/* OpenBLAS/LAPACKE wrappers for row-major float64 (and float32 GEMM) matrices (see blas_cpu.h). */
#include "kernels/blas_cpu.h"

#include <cblas.h>
#include <lapacke.h>
#include <string.h>

void la_dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double *A,
              int lda, const double *B, int ldb, double beta, double *C, int ldc)
{
    if (m <= 0 || n <= 0) return;
    cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void la_sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float *A,
              int lda, const float *B, int ldb, float beta, float *C, int ldc)
{
    if (m <= 0 || n <= 0) return;
    cblas_sgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans,
                trans_b ? CblasTrans : CblasNoTrans, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void la_dsyrk_at_a(int n, int k, double alpha, const double *A, int lda, double beta, double *C,
                   int ldc)
{
    if (n <= 0) return;
    cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, n, k, alpha, A, lda, beta, C, ldc);
}

void la_symmetrize_from_lower(int n, double *C, int ldc)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) C[(size_t)i * ldc + j] = C[(size_t)j * ldc + i];
}

int la_dpotrf_lower(int n, double *A, int lda)
{
    lapack_int info = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, A, lda);
    if (info != 0) return info > 0 ? (int)info : n;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) A[(size_t)i * lda + j] = 0.0;
    return 0;
}

void la_dtrsm_lower_left(int n, int nrhs, const double *L, int ldl, double *B, int ldb)
{
    if (n <= 0 || nrhs <= 0) return;
    cblas_dtrsm(CblasRowMajor, CblasLeft, CblasLower, CblasNoTrans, CblasNonUnit, n, nrhs, 1.0, L,
                ldl, B, ldb);
}

