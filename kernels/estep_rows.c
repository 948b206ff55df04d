/* CPU version of the E-step's row operation (see estep_rows.h). */
#include "kernels/estep_rows.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "kernels/parallel.h"

/* row (n_components log-probabilities) -> log responsibilities in place; returns log p(x). */
static double normalize_row(double *row, int n_components)
{
    double mx = -INFINITY;
    for (int k = 0; k < n_components; k++)
        if (row[k] > mx) mx = row[k];
    double s = 0;
    for (int k = 0; k < n_components; k++) s += exp(row[k] - mx);
    double norm = mx + log(s);
    for (int k = 0; k < n_components; k++) row[k] -= norm;
    return norm;
}

gmm_status estep_rows_cpu(estep_rows_mode mode, const double *Y, size_t ld_y, size_t comp_stride,
                          size_t col_block, const double *centers, const double *scales,
                          const double *log_const, size_t n_rows, int n_components, int dim,
                          double *log_resp, double *log_prob_norm)
{
    if (!Y || !centers || !log_const || !log_resp || !log_prob_norm || n_components <= 0 ||
        dim <= 0 || (mode != ESTEP_ROWS_PROJECTED && !scales) ||
        (mode != ESTEP_ROWS_PROJECTED && mode != ESTEP_ROWS_DIAG && mode != ESTEP_ROWS_SPHERICAL))
        return gmm_error(GMM_ERR_ARG, "estep_rows_cpu: bad arguments");
    const int K = n_components, d = dim;
    /* column blocks [j0, j0 + w) of width B (one block of width d: the plain layout) */
    const bool blocked = mode == ESTEP_ROWS_PROJECTED && col_block > 0 && col_block < (size_t)d;
    const int B = blocked ? (int)col_block : d;
    if (blocked && comp_stride != 0 && comp_stride != (size_t)d)
        return gmm_error(GMM_ERR_ARG, "estep_rows_cpu: column blocks need a stride of 0 or dim");
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)n_rows * K * (3 * d + 30)))
    for (int64_t i = 0; i < (int64_t)n_rows; i++) {
        double *row = log_resp + (size_t)i * K;
        for (int k = 0; k < K; k++) {
            const double *c = centers + (size_t)k * d;
            double s = 0;
            for (int j0 = 0; j0 < d; j0 += B) {
                const int w = d - j0 < B ? d - j0 : B;
                const double *y = Y + (size_t)i * ld_y +
                                  (!blocked   ? (size_t)k * comp_stride
                                   : comp_stride ? (size_t)j0 * K + (size_t)k * w
                                                 : (size_t)j0);
                for (int j = j0; j < j0 + w; j++) {
                    double t = y[j - j0] - c[j];
                    if (mode == ESTEP_ROWS_DIAG) t *= scales[(size_t)k * d + j];
                    s += t * t;
                }
            }
            if (mode == ESTEP_ROWS_SPHERICAL) s *= scales[k] * scales[k];
            row[k] = log_const[k] - 0.5 * s;
        }
        log_prob_norm[i] = normalize_row(row, K);
    }
    return GMM_OK;
}

gmm_status estep_rows_from_dist_cpu(const double *log_const, size_t n_rows, int n_components,
                                    double *dist_to_log_resp, double *log_prob_norm)
{
    if (!log_const || !dist_to_log_resp || !log_prob_norm || n_components <= 0)
        return gmm_error(GMM_ERR_ARG, "estep_rows_from_dist_cpu: bad arguments");
    const int K = n_components;
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)n_rows * K * 30))
    for (int64_t i = 0; i < (int64_t)n_rows; i++) {
        double *row = dist_to_log_resp + (size_t)i * K;
        for (int k = 0; k < K; k++) row[k] = log_const[k] - 0.5 * row[k];
        log_prob_norm[i] = normalize_row(row, K);
    }
    return GMM_OK;
}
