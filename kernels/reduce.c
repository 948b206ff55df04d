/* CPU versions of the fixed-order reductions (see reduce.h). */
#include "kernels/reduce.h"

#include <math.h>

gmm_status reduce_sum_cpu(const double *x, size_t n, double scale, double *out)
{
    if ((!x && n > 0) || !out) return gmm_error(GMM_ERR_ARG, "reduce_sum_cpu: bad arguments");
    /* index order, not an OpenMP reduction (whose order varies between runs and thread counts) */
    double s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    *out = s * scale;
    return GMM_OK;
}

gmm_status reduce_cols_cpu(const double *x, size_t n_rows, int n_cols, double *out)
{
    if ((!x && n_rows > 0) || !out || n_cols <= 0)
        return gmm_error(GMM_ERR_ARG, "reduce_cols_cpu: bad arguments");
    for (int j = 0; j < n_cols; j++) out[j] = 0;
    /* row by row, so that x streams; each column is still summed in row order */
    for (size_t i = 0; i < n_rows; i++)
        for (int j = 0; j < n_cols; j++) out[j] += x[i * n_cols + j];
    return GMM_OK;
}

gmm_status reduce_resp_entropy_cpu(const double *log_resp, size_t n, double *out)
{
    if ((!log_resp && n > 0) || !out)
        return gmm_error(GMM_ERR_ARG, "reduce_resp_entropy_cpu: bad arguments");
    double s = 0;
    for (size_t i = 0; i < n; i++) {
        double r = exp(log_resp[i]);
        if (r > 0) s += r * log_resp[i];
    }
    *out = -s;
    return GMM_OK;
}
