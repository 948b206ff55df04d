/* CPU twins of the k-means steps (see kmeans.h): plain loops, the specification of the CUDA
 * versions. Sums over the samples run in index order (never an OpenMP float reduction, whose
 * order varies), so the same input gives the same bits with any thread count. */
#include "kernels/kmeans.h"

#include <math.h>

#include "kernels/parallel.h"

#define BAD_ARGS(name) gmm_error(GMM_ERR_ARG, "%s: bad arguments", name)

/* columns per task of kmeans_sums_cpu: two cache lines of a row */
#define SUMS_COLUMN_BLOCK 16

size_t kmeans_label_sums_work(int64_t n_samples, int n_components, int dim)
{
    if (n_samples < 1 || n_components < 1 || n_components > KMEANS_LABEL_SUMS_MAX_K || dim < 1)
        return 0;
    return (size_t)kmeans_label_sums_slabs(n_samples) * (size_t)n_components * (size_t)dim;
}

gmm_status kmeans_to_double_cpu(const float *x, size_t n, double *y)
{
    if ((!x || !y) && n) return BAD_ARGS("kmeans_to_double_cpu");
    for (size_t i = 0; i < n; i++) y[i] = (double)x[i];
    return GMM_OK;
}

gmm_status kmeans_column_sums_cpu(const double *X, int64_t n_samples, int dim, double *sums)
{
    if (!X || !sums || n_samples < 1 || dim < 1) return BAD_ARGS("kmeans_column_sums_cpu");
    for (int64_t i = 0; i < n_samples; i++)
        for (int j = 0; j < dim; j++) sums[j] += X[i * dim + j];
    return GMM_OK;
}

gmm_status kmeans_row_norms_cpu(const double *X, int64_t n_samples, int dim, const double *mean,
                                double *x_norm, double *deviation)
{
    if (!X || !mean || !x_norm || !deviation || n_samples < 1 || dim < 1)
        return BAD_ARGS("kmeans_row_norms_cpu");
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(4.0 * n_samples * dim))
    for (int64_t i = 0; i < n_samples; i++) {
        double s = 0, n2 = 0;
        for (int j = 0; j < dim; j++) {
            double v = X[i * dim + j];
            s += (v - mean[j]) * (v - mean[j]);
            n2 += v * v;
        }
        deviation[i] = s;
        x_norm[i] = n2;
    }
    return GMM_OK;
}

gmm_status kmeans_sq_norms_cpu(const double *A, int n_rows, int dim, double *norm)
{
    if (!A || !norm || n_rows < 1 || dim < 1) return BAD_ARGS("kmeans_sq_norms_cpu");
    for (int r = 0; r < n_rows; r++) {
        double s = 0;
        for (int j = 0; j < dim; j++) s += A[(size_t)r * dim + j] * A[(size_t)r * dim + j];
        norm[r] = s;
    }
    return GMM_OK;
}

gmm_status kmeans_assign_cpu(const double *dots, const double *x_norm, const double *c_norm,
                             int64_t n_samples, int n_components, int *labels, double *min_dist,
                             double *onehot, int64_t *n_changed)
{
    const int K = n_components;
    if (!dots || !x_norm || !c_norm || !labels || !min_dist || n_samples < 1 || K < 1)
        return BAD_ARGS("kmeans_assign_cpu");
    int64_t changed = 0;
#pragma omp parallel for schedule(static) reduction(+ : changed) \
    if (GMM_PARALLEL_WORTH(3.0 * n_samples * K))
    for (int64_t i = 0; i < n_samples; i++) {
        int best = 0;
        double bd = INFINITY;
        for (int k = 0; k < K; k++) {
            double dd = x_norm[i] - 2 * dots[i * K + k] + c_norm[k];
            if (dd < bd) {
                bd = dd;
                best = k;
            }
        }
        if (labels[i] != best) changed++;
        labels[i] = best;
        min_dist[i] = bd < 0 ? 0 : bd;
        if (onehot)
            for (int k = 0; k < K; k++) onehot[i * K + k] = k == best ? 1.0 : 0.0;
    }
    if (n_changed) *n_changed = changed;
    return GMM_OK;
}

gmm_status kmeans_sums_cpu(const double *X, int64_t n_samples, int dim, const int *labels,
                           int n_components, double *sums, int *counts)
{
    const int K = n_components;
    if (!X || !labels || !sums || !counts || n_samples < 1 || dim < 1 || K < 1)
        return BAD_ARGS("kmeans_sums_cpu");
    for (int64_t i = 0; i < n_samples; i++)
        if (labels[i] < 0 || labels[i] >= K) return BAD_ARGS("kmeans_sums_cpu (label range)");
    for (int k = 0; k < K; k++) counts[k] = 0;
    for (int64_t i = 0; i < n_samples; i++) counts[labels[i]]++;
    /* Each thread owns a block of columns of every center, so each sum still adds the rows in
     * index order while X streams through once. */
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)n_samples * dim))
    for (int j0 = 0; j0 < dim; j0 += SUMS_COLUMN_BLOCK) {
        const int j1 = j0 + SUMS_COLUMN_BLOCK < dim ? j0 + SUMS_COLUMN_BLOCK : dim;
        for (int k = 0; k < K; k++)
            for (int j = j0; j < j1; j++) sums[(size_t)k * dim + j] = 0;
        for (int64_t i = 0; i < n_samples; i++) {
            const double *x = X + i * dim;
            double *s = sums + (size_t)labels[i] * dim;
            for (int j = j0; j < j1; j++) s[j] += x[j];
        }
    }
    return GMM_OK;
}

gmm_status kmeans_argmax_cpu(const double *x, int64_t n, int64_t *index)
{
    if (!x || !index || n < 1) return BAD_ARGS("kmeans_argmax_cpu");
    int64_t best = 0;
    for (int64_t i = 1; i < n; i++)
        if (x[i] > x[best]) best = i;
    *index = best;
    return GMM_OK;
}

/* out[t * out_stride + i] = ||x_i - c_t||^2 (min'd with closest[i]) for the n_centers rows
 * that centers[t] points to */
static void pp_distances(const double *X, int64_t n_samples, int dim, const double *const *centers,
                         int n_centers, const double *closest, double *out, int64_t out_stride)
{
    for (int t = 0; t < n_centers; t++) {
        const double *c = centers[t];
        double *o = out + (size_t)t * out_stride;
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(3.0 * n_samples * dim))
        for (int64_t i = 0; i < n_samples; i++) {
            const double *x = X + i * dim;
            double s = 0;
            for (int j = 0; j < dim; j++) s += (x[j] - c[j]) * (x[j] - c[j]);
            o[i] = closest ? (s < closest[i] ? s : closest[i]) : s;
        }
    }
}

gmm_status kmeans_pp_distances_cpu(const double *X, int64_t n_samples, int dim,
                                   const int64_t *candidates, int n_candidates,
                                   const double *closest, double *out)
{
    if (!X || !candidates || !out || n_samples < 1 || dim < 1 || n_candidates < 1 ||
        n_candidates > KMEANS_PP_MAX_TRIALS)
        return BAD_ARGS("kmeans_pp_distances_cpu");
    const double *centers[KMEANS_PP_MAX_TRIALS];
    for (int t = 0; t < n_candidates; t++) {
        if (candidates[t] < 0 || candidates[t] >= n_samples)
            return BAD_ARGS("kmeans_pp_distances_cpu (candidate range)");
        centers[t] = X + candidates[t] * dim;
    }
    pp_distances(X, n_samples, dim, centers, n_candidates, closest, out, n_samples);
    return GMM_OK;
}

gmm_status kmeans_pp_distances_rows_cpu(const double *X, int64_t n_samples, int dim,
                                        const double *rows, int n_rows, const double *closest,
                                        double *out, int64_t out_stride)
{
    if (!X || !rows || !out || n_samples < 1 || dim < 1 || n_rows < 1 ||
        n_rows > KMEANS_PP_MAX_TRIALS || out_stride < n_samples)
        return BAD_ARGS("kmeans_pp_distances_rows_cpu");
    const double *centers[KMEANS_PP_MAX_TRIALS];
    for (int t = 0; t < n_rows; t++) centers[t] = rows + (size_t)t * dim;
    pp_distances(X, n_samples, dim, centers, n_rows, closest, out, out_stride);
    return GMM_OK;
}

size_t kmeans_pp_potentials_work(int64_t n, int n_rows)
{
    /* the CUDA version's block partials: at most 256 blocks per row (see kmeans.cu) */
    int64_t blocks = (n + 255) / 256;
    if (blocks > 256) blocks = 256;
    if (blocks < 1) blocks = 1;
    return (size_t)blocks * (size_t)(n_rows > 0 ? n_rows : 0);
}

gmm_status kmeans_pp_potentials_cpu(const double *x, int64_t n, int n_rows, double *pot)
{
    if (!x || !pot || n < 1 || n_rows < 1) return BAD_ARGS("kmeans_pp_potentials_cpu");
    for (int t = 0; t < n_rows; t++) {
        double p = 0;
        for (int64_t i = 0; i < n; i++) p += x[(size_t)t * n + i];
        pot[t] = p;
    }
    return GMM_OK;
}

size_t kmeans_pp_pick_work(int64_t n)
{
    /* the CUDA version's chunk sums and their prefixes, 256 rows a chunk (see kmeans.cu) */
    return 2 * (size_t)((n + 255) / 256);
}

gmm_status kmeans_pp_pick_cpu(const double *weights, int64_t n, const double *draws, int n_draws,
                              int64_t *picks, double *cumsum)
{
    if (!weights || !draws || !picks || !cumsum || n < 1 || n_draws < 1 ||
        n_draws > KMEANS_PP_MAX_TRIALS)
        return BAD_ARGS("kmeans_pp_pick_cpu");
    double run = 0;
    for (int64_t i = 0; i < n; i++) cumsum[i] = (run += weights[i]);
    for (int t = 0; t < n_draws; t++) {
        /* binary search over [0, n - 1]: the last index is the clip */
        int64_t lo = 0, hi = n - 1;
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cumsum[mid] > draws[t]) hi = mid; else lo = mid + 1;
        }
        picks[t] = lo;
    }
    return GMM_OK;
}
