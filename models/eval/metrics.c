/* Clustering scores against reference labels, computed from one confusion matrix: Hungarian
 * matched accuracy, NMI and ARI with scikit-learn's definitions and special cases. */
#include "models/eval/metrics.h"

#include <float.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Hungarian algorithm with potentials (Kuhn-Munkres, the O(n^2 m) shortest augmenting path
 * form) for n <= m: every row is assigned a distinct column. a is n x m row-major. p[j] receives
 * the 1-based row of column j (0 = none). Work arrays are passed in so the caller owns failure. */
static void hungarian_rows_le_cols(const double *a, int n, int m, double *u, double *v,
                                   int *p, int *way, double *minv, bool *used)
{
    for (int i = 0; i <= n; i++) u[i] = 0;
    for (int j = 0; j <= m; j++) { v[j] = 0; p[j] = 0; way[j] = 0; }

    for (int i = 1; i <= n; i++) {
        p[0] = i;
        int j0 = 0;
        for (int j = 0; j <= m; j++) { minv[j] = INFINITY; used[j] = false; way[j] = 0; }
        do {
            used[j0] = true;
            int i0 = p[j0], j1 = 0;
            double delta = INFINITY;
            for (int j = 1; j <= m; j++) {
                if (used[j]) continue;
                double cur = a[(size_t)(i0 - 1) * m + (j - 1)] - u[i0] - v[j];
                if (cur < minv[j]) { minv[j] = cur; way[j] = j0; }
                if (minv[j] < delta) { delta = minv[j]; j1 = j; }
            }
            /* Only NaN or infinite costs leave no candidate; taking any free column, linked to
             * the current one, keeps every loop finite (the answer is then meaningless, but
             * nothing is read out of bounds and the augmenting path still leads back to 0). */
            if (j1 == 0) {
                for (int j = 1; j <= m && j1 == 0; j++)
                    if (!used[j]) j1 = j;
                delta = 0;
                way[j1] = j0;
            }
            for (int j = 0; j <= m; j++) {
                if (used[j]) { u[p[j]] += delta; v[j] -= delta; }
                else minv[j] -= delta;
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            int j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0);
    }
}

double hungarian_min_cost(const double *cost, int n_rows, int n_cols, int *row_to_col)
{
    if (n_rows <= 0 || n_cols <= 0 || !cost) {
        for (int r = 0; r < n_rows && row_to_col; r++) row_to_col[r] = -1;
        return 0.0;
    }
    /* The algorithm wants rows <= cols; a tall matrix is solved transposed, which is the same
     * as padding it to a square with constant dummy columns, without the memory of the pad. */
    bool transposed = n_rows > n_cols;
    int n = transposed ? n_cols : n_rows, m = transposed ? n_rows : n_cols;
    double total = NAN;
    double *at = NULL, *u = NULL, *v = NULL, *minv = NULL;
    int *p = NULL, *way = NULL;
    bool *used = NULL;

    if (transposed) {
        at = malloc((size_t)n * m * sizeof *at);
        if (!at) goto fail;
        for (int r = 0; r < n_rows; r++)
            for (int c = 0; c < n_cols; c++) at[(size_t)c * m + r] = cost[(size_t)r * n_cols + c];
    }
    u = malloc((size_t)(n + 1) * sizeof *u);
    v = malloc((size_t)(m + 1) * sizeof *v);
    minv = malloc((size_t)(m + 1) * sizeof *minv);
    p = malloc((size_t)(m + 1) * sizeof *p);
    way = malloc((size_t)(m + 1) * sizeof *way);
    used = malloc((size_t)(m + 1) * sizeof *used);
    if (!u || !v || !minv || !p || !way || !used) goto fail;

    hungarian_rows_le_cols(transposed ? at : cost, n, m, u, v, p, way, minv, used);

    if (row_to_col)
        for (int r = 0; r < n_rows; r++) row_to_col[r] = -1;
    total = 0.0;
    for (int j = 1; j <= m; j++) {
        if (p[j] == 0) continue;
        int r = transposed ? j - 1 : p[j] - 1, c = transposed ? p[j] - 1 : j - 1;
        if (row_to_col) row_to_col[r] = c;
        total += cost[(size_t)r * n_cols + c];
    }

fail:
    /* An allocation failure is reported as a NaN total with nothing assigned. */
    if (isnan(total) && row_to_col)
        for (int r = 0; r < n_rows; r++) row_to_col[r] = -1;
    free(at);
    free(u);
    free(v);
    free(minv);
    free(p);
    free(way);
    free(used);
    return total;
}

/* Entropy of a label distribution given its counts, as scikit-learn's entropy(): a single
 * non-empty label has entropy exactly 0. */
static double entropy_of_counts(const int64_t *counts, int n, int64_t total)
{
    int nonzero = 0;
    for (int i = 0; i < n; i++) nonzero += counts[i] > 0;
    if (nonzero <= 1) return 0.0;
    double log_total = log((double)total), h = 0.0;
    for (int i = 0; i < n; i++) {
        if (counts[i] <= 0) continue;
        double pi = (double)counts[i];
        h -= (pi / (double)total) * (log(pi) - log_total);
    }
    return h;
}

/* 2 (tp tn - fn fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn)) with exact integer products:
 * at N = 10^7 each pair count is near 10^14 and their products near 10^28, past int64, which
 * scikit-learn sidesteps with Python integers. */
static double ari_from_pairs(int64_t tn, int64_t fp, int64_t fn, int64_t tp)
{
    if (fn == 0 && fp == 0) return 1.0;
#if defined(__SIZEOF_INT128__)
    __int128 num = (__int128)tp * tn - (__int128)fn * fp;
    __int128 den = (__int128)(tp + fn) * (fn + tn) + (__int128)(tp + fp) * (fp + tn);
#else
    long double num = (long double)tp * tn - (long double)fn * fp;
    long double den = (long double)(tp + fn) * (fn + tn) + (long double)(tp + fp) * (fp + tn);
#endif
    if (den == 0) return 1.0;
    return 2.0 * (double)num / (double)den;
}

gmm_status cluster_metrics_compute(const int *clusters, int n_clusters, const uint8_t *classes,
                                   int n_classes, int64_t n_samples, cluster_metrics *out)
{
    if (!out) return gmm_error(GMM_ERR_ARG, "cluster_metrics_compute: out is NULL");
    memset(out, 0, sizeof *out);
    if (!clusters || !classes)
        return gmm_error(GMM_ERR_ARG, "cluster_metrics_compute: NULL labels");
    if (n_samples < 1)
        return gmm_error(GMM_ERR_ARG, "n_samples=%lld must be >= 1", (long long)n_samples);
    if (n_clusters < 1) return gmm_error(GMM_ERR_ARG, "n_clusters=%d must be >= 1", n_clusters);
    if (n_classes < 1 || n_classes > 256)
        return gmm_error(GMM_ERR_ARG, "n_classes=%d must be in [1, 256]", n_classes);

    gmm_status st = GMM_OK;
    int64_t *row_sum = NULL, *col_sum = NULL;
    double *cost = NULL;
    size_t n_cells = (size_t)n_clusters * (size_t)n_classes;
    out->n_clusters = n_clusters;
    out->n_classes = n_classes;
    out->confusion = calloc(n_cells, sizeof *out->confusion);
    out->cluster_to_class = malloc((size_t)n_clusters * sizeof *out->cluster_to_class);
    row_sum = calloc((size_t)n_clusters, sizeof *row_sum);
    col_sum = calloc((size_t)n_classes, sizeof *col_sum);
    cost = malloc(n_cells * sizeof *cost);
    if (!out->confusion || !out->cluster_to_class || !row_sum || !col_sum || !cost) {
        st = gmm_error(GMM_ERR_NOMEM, "cannot allocate a %d x %d confusion matrix", n_clusters,
                       n_classes);
        goto fail;
    }

    for (int64_t i = 0; i < n_samples; i++) {
        int c = clusters[i], y = classes[i];
        if (c < 0 || c >= n_clusters) {
            st = gmm_error(GMM_ERR_ARG, "cluster label %d of sample %lld is outside [0, %d)", c,
                           (long long)i, n_clusters);
            goto fail;
        }
        if (y >= n_classes) {
            st = gmm_error(GMM_ERR_ARG, "class label %d of sample %lld is outside [0, %d)", y,
                           (long long)i, n_classes);
            goto fail;
        }
        out->confusion[(size_t)c * n_classes + y]++;
    }

    /* Accuracy: the one-to-one matching of clusters to classes that agrees on most samples. */
    for (size_t i = 0; i < n_cells; i++) cost[i] = -(double)out->confusion[i];
    double matched = -hungarian_min_cost(cost, n_clusters, n_classes, out->cluster_to_class);
    if (isnan(matched)) {
        st = gmm_error(GMM_ERR_NOMEM, "cannot allocate the Hungarian algorithm's work space");
        goto fail;
    }
    out->accuracy = matched / (double)n_samples;

    int64_t sum_squares = 0;
    for (int c = 0; c < n_clusters; c++)
        for (int y = 0; y < n_classes; y++) {
            int64_t nij = out->confusion[(size_t)c * n_classes + y];
            row_sum[c] += nij;
            col_sum[y] += nij;
            sum_squares += nij * nij;
        }

    /* NMI, following scikit-learn's normalized_mutual_info_score term by term: one label on
     * both sides is a perfect (if trivial) match; MI terms below machine epsilon are zero. */
    int used_rows = 0, used_cols = 0;
    for (int c = 0; c < n_clusters; c++) used_rows += row_sum[c] > 0;
    for (int y = 0; y < n_classes; y++) used_cols += col_sum[y] > 0;
    if (used_rows == 1 && used_cols == 1) {
        out->nmi = 1.0;
    } else {
        double mi = 0.0;
        if (used_rows > 1 && used_cols > 1) {
            double n = (double)n_samples, log_n = log(n);
            for (int c = 0; c < n_clusters; c++)
                for (int y = 0; y < n_classes; y++) {
                    int64_t nij = out->confusion[(size_t)c * n_classes + y];
                    if (nij == 0) continue;
                    double p = (double)nij / n;
                    double outer = (double)row_sum[c] * (double)col_sum[y];
                    double term = p * (log((double)nij) - log_n) + p * (-log(outer) + log_n + log_n);
                    if (fabs(term) < DBL_EPSILON) term = 0.0;
                    mi += term;
                }
            if (mi < 0) mi = 0;
        }
        if (mi == 0.0) {
            out->nmi = 0.0;
        } else {
            double h_clusters = entropy_of_counts(row_sum, n_clusters, n_samples);
            double h_classes = entropy_of_counts(col_sum, n_classes, n_samples);
            double normalizer = 0.5 * (h_clusters + h_classes);
            if (normalizer < DBL_EPSILON) normalizer = DBL_EPSILON;
            out->nmi = mi / normalizer;
        }
    }

    /* ARI from scikit-learn's pair confusion matrix (ordered pairs). Rows here are clusters,
     * columns classes: pairs together in a cluster but not a class are false positives. */
    int64_t sum_rows_sq = 0, sum_cols_sq = 0;
    for (int c = 0; c < n_clusters; c++) sum_rows_sq += row_sum[c] * row_sum[c];
    for (int y = 0; y < n_classes; y++) sum_cols_sq += col_sum[y] * col_sum[y];
    int64_t tp = sum_squares - n_samples;
    int64_t fp = sum_rows_sq - sum_squares;
    int64_t fn = sum_cols_sq - sum_squares;
    int64_t tn = n_samples * n_samples - fp - fn - sum_squares;
    out->ari = ari_from_pairs(tn, fp, fn, tp);

fail:
    free(row_sum);
    free(col_sum);
    free(cost);
    if (st != GMM_OK) cluster_metrics_free(out);
    return st;
}

void cluster_metrics_free(cluster_metrics *m)
{
    if (!m) return;
    free(m->confusion);
    free(m->cluster_to_class);
    m->confusion = NULL;
    m->cluster_to_class = NULL;
}
