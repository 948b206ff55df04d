/* OpenBLAS/LAPACKE wrappers for row-major float64 (and float32 GEMM) matrices (see blas_cpu.h). */
#include "kernels/blas_cpu.h"

#include <cblas.h>
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* OpenBLAS's (pthreads build); absent from other BLAS libraries, hence weak */
extern int blas_thread_shutdown_(void) __attribute__((weak));

void la_blas_threads_release(void)
{
    if (blas_thread_shutdown_) blas_thread_shutdown_();
}

/* OpenBLAS's; other BLAS libraries have no pool of their own buffers (then one is assumed) */
extern int openblas_get_num_threads(void) __attribute__((weak));

int la_blas_reserve_buffers(size_t *needed)
{
    int threads = openblas_get_num_threads ? openblas_get_num_threads() : 1;
    if (threads < 1) threads = 1;
    /* each buffer with a little room for OpenBLAS's page alignment and guard */
    const size_t bytes = (size_t)threads * (LA_BLAS_BUFFER_BYTES + ((size_t)1 << 20));
    *needed = bytes;
    void *probe = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (probe == MAP_FAILED) return -1;
    munmap(probe, bytes);
    /* 256^3 is above OpenBLAS's threading threshold (64^3): every thread runs a part and maps
     * its buffer now (about 30 MFLOP, milliseconds) */
    enum { N = 256 };
    double *abc = calloc((size_t)3 * N * N, sizeof *abc);
    if (!abc) return -1;
    la_dgemm(false, false, N, N, N, 1.0, abc, N, abc + N * N, N, 0.0, abc + 2 * N * N, N);
    free(abc);
    return 0;
}

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


int la_dstevx_largest(int m, const double *diag, const double *offdiag, int k, double *w,
                      double *Z)
{
    if (m < 1 || k < 1 || k > m) return -1;
    double *d = malloc(sizeof *d * (size_t)m), *e = malloc(sizeof *e * (size_t)m);
    double *wa = malloc(sizeof *wa * (size_t)m), *za = malloc(sizeof *za * (size_t)m * k);
    lapack_int *ifail = malloc(sizeof *ifail * (size_t)m);
    lapack_int found = 0, info = -1;
    if (d && e && wa && za && ifail) {
        memcpy(d, diag, sizeof *d * (size_t)m);
        if (m > 1) memcpy(e, offdiag, sizeof *e * (size_t)(m - 1));
        e[m - 1] = 0;
        /* ascending: eigenvalues m - k + 1 .. m; abstol 0 lets LAPACK choose its tightest */
        info = LAPACKE_dstevx(LAPACK_ROW_MAJOR, 'V', 'I', m, d, e, 0.0, 0.0, m - k + 1, m, 0.0,
                              &found, wa, za, k, ifail);
        if (info == 0 && found != k) info = -2;
        if (info == 0)
            for (int i = 0; i < k; i++) { /* reverse to descending */
                w[i] = wa[k - 1 - i];
                for (int r = 0; r < m; r++) Z[(size_t)r * k + i] = za[(size_t)r * k + (k - 1 - i)];
            }
    }
    free(d);
    free(e);
    free(wa);
    free(za);
    free(ifail);
    return (int)info;
}
