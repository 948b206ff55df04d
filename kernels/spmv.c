/* The CPU twin of the CSR sparse matrix-vector product (kernels/spmv.h). */
#include "kernels/spmv.h"

gmm_status spmv_csr_cpu(int64_t n_rows, const int64_t *row_ptr, const int32_t *col,
                        const double *val, const double *x, double *y)
{
    if (n_rows < 0 || (n_rows > 0 && (!row_ptr || !col || !val || !x || !y)))
        return gmm_error(GMM_ERR_ARG, "spmv_csr_cpu: bad arguments");
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_rows; i++) {
        double s = 0;
        for (int64_t p = row_ptr[i]; p < row_ptr[i + 1]; p++) s += val[p] * x[col[p]];
        y[i] = s;
    }
    return GMM_OK;
}
