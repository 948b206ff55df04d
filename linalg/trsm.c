/* CPU versions of the lower triangular solve L X = B (see trsm.h). */
#include "linalg/trsm.h"

#include "kernels/blas_cpu.h"

gmm_status trsm_cpu(const double *L, int dim, double *B, size_t n_rhs)
{
    if (!L || !B || dim <= 0) return gmm_error(GMM_ERR_ARG, "trsm_cpu: bad arguments");
    /* Forward substitution by rows: X[i][:] = (B[i][:] - sum_{k<i} L[i][k] X[k][:]) / L[i][i].
     * Each thread owns a block of columns (right-hand sides), so rows stream contiguously. */
    const size_t block = 256;
    const size_t n_blocks = (n_rhs + block - 1) / block;
#pragma omp parallel for schedule(static)
    for (size_t cb = 0; cb < n_blocks; cb++) {
        size_t c0 = cb * block, c1 = c0 + block < n_rhs ? c0 + block : n_rhs;
        for (int i = 0; i < dim; i++) {
            double *bi = B + (size_t)i * n_rhs;
            const double *li = L + (size_t)i * dim;
            for (int k = 0; k < i; k++) {
                const double lik = li[k];
                const double *bk = B + (size_t)k * n_rhs;
                for (size_t c = c0; c < c1; c++) bi[c] -= lik * bk[c];
            }
            const double inv = 1.0 / li[i];
            for (size_t c = c0; c < c1; c++) bi[c] *= inv;
        }
    }
    return GMM_OK;
}

gmm_status trsm_blas(const double *L, int dim, double *B, size_t n_rhs)
{
    if (!L || !B || dim <= 0 || n_rhs > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "trsm_blas: bad arguments");
    la_dtrsm_lower_left(dim, (int)n_rhs, L, dim, B, (int)n_rhs);
    return GMM_OK;
}
