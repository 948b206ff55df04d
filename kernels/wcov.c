/* CPU versions of the weighted covariance (see wcov.h). */
#include "kernels/wcov.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "kernels/blas_cpu.h"
#include "kernels/compact.h"

static double weight_sum(const double *w, size_t n, size_t stride)
{
    double s = 0.0;
    for (size_t i = 0; i < n; i++) s += w[i * stride];
    return s;
}

gmm_status wcov_cpu(const double *X, size_t n_samples, int dim, const double *weights,
                    size_t weight_stride, const double *mean, double *cov)
{
    if (!X || !weights || !mean || !cov || dim <= 0 || n_samples == 0 || weight_stride == 0)
        return gmm_error(GMM_ERR_ARG, "wcov_cpu: bad arguments");
    const double scale = 1.0 / (weight_sum(weights, n_samples, weight_stride) + 10 * DBL_EPSILON);
    /* cov[a][b] = sum_i w_i (x_i[a] - mean[a]) (x_i[b] - mean[b]), lower triangle, then mirrored.
     * Samples go in chunks that stay in cache; each chunk is centred once into `centred`. */
    enum { CHUNK = 128 };
    double *centred = malloc(sizeof(double) * CHUNK * (size_t)dim);
    if (!centred) return gmm_error(GMM_ERR_NOMEM, "wcov_cpu: chunk buffer");
    for (int a = 0; a < dim; a++)
        for (int b = 0; b <= a; b++) cov[(size_t)a * dim + b] = 0.0;
    for (size_t i0 = 0; i0 < n_samples; i0 += CHUNK) {
        const size_t rows = n_samples - i0 < CHUNK ? n_samples - i0 : CHUNK;
        for (size_t r = 0; r < rows; r++)
            for (int j = 0; j < dim; j++) centred[r * dim + j] = X[(i0 + r) * dim + j] - mean[j];
#pragma omp parallel for schedule(dynamic, 8)
        for (int a = 0; a < dim; a++) {
            double *row = cov + (size_t)a * dim;
            for (size_t r = 0; r < rows; r++) {
                const double *x = centred + r * dim;
                const double wa = weights[(i0 + r) * weight_stride] * x[a];
                for (int b = 0; b <= a; b++) row[b] += wa * x[b];
            }
        }
    }
    free(centred);
    for (int a = 0; a < dim; a++)
        for (int b = 0; b <= a; b++) cov[(size_t)a * dim + b] *= scale;
    la_symmetrize_from_lower(dim, cov, dim);
    return GMM_OK;
}

#define WCOV_CHUNK_BYTES (32u << 20)

gmm_status wcov_blas(const double *X, size_t n_samples, int dim, const double *weights,
                     size_t weight_stride, const double *mean, double *cov)
{
    if (!X || !weights || !mean || !cov || dim <= 0 || n_samples == 0 || weight_stride == 0 ||
        n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "wcov_blas: bad arguments");
    for (size_t i = 0; i < n_samples; i++)
        if (weights[i * weight_stride] < 0)
            return gmm_error(GMM_ERR_ARG, "wcov_blas: negative weight (sqrt scaling needs w >= 0)");
    size_t chunk = WCOV_CHUNK_BYTES / (sizeof(double) * (size_t)dim);
    if (chunk < 16) chunk = 16;
    if (chunk > n_samples) chunk = n_samples;
    /* the chunk's kept sqrt(w)-scaled centred rows (kernels/compact.h, one component): bounded
     * memory whatever N is */
    double *scaled = malloc(sizeof(double) * chunk * (size_t)dim);
    if (!scaled) return gmm_error(GMM_ERR_NOMEM, "wcov_blas: %zu x %d temporary", chunk, dim);
    double scale = 1.0 / (weight_sum(weights, n_samples, weight_stride) + 10 * DBL_EPSILON);
    int first = 1, bounds[2];
    for (size_t r0 = 0; r0 < n_samples; r0 += chunk) {
        const size_t rows = n_samples - r0 < chunk ? n_samples - r0 : chunk;
        gmm_status st = compact_rows_cpu(X + r0 * dim, rows, dim, weights + r0 * weight_stride,
                                         weight_stride, 1, mean, scaled, bounds);
        if (st != GMM_OK) {
            free(scaled);
            return st;
        }
        if (bounds[1] == 0) continue;
        la_dsyrk_at_a(dim, bounds[1], scale, scaled, dim, first ? 0.0 : 1.0, cov, dim);
        first = 0;
    }
    if (first) la_dsyrk_at_a(dim, 0, scale, scaled, dim, 0.0, cov, dim); /* nothing kept: 0 */
    la_symmetrize_from_lower(dim, cov, dim);
    free(scaled);
    return GMM_OK;
}

gmm_status wcov_packed_cpu(const double *A, size_t n_rows, int dim, int accumulate, double *out)
{
    if (!A || !out || dim <= 0) return gmm_error(GMM_ERR_ARG, "wcov_packed_cpu: bad arguments");
#pragma omp parallel for schedule(dynamic, 8)
    for (int a = 0; a < dim; a++) {
        double *row = out + (size_t)a * dim;
        if (!accumulate)
            for (int b = 0; b <= a; b++) row[b] = 0.0;
        for (size_t i = 0; i < n_rows; i++) {
            const double *x = A + i * dim;
            for (int b = 0; b <= a; b++) row[b] += x[a] * x[b];
        }
    }
    return GMM_OK;
}
