/* Diagnostics of a fitted mixture: histograms, the chi-square check of the squared Mahalanobis
 * distances, separation from per-query distance histograms, typical samples and outliers. */
#include "models/eval/diagnostics.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/dist_hist.h"
#include "models/precisions.h"

gmm_status gmm_histogram(const double *values, int64_t n, double lo, double hi, int n_bins,
                         int64_t *counts, int64_t *n_counted)
{
    if (!(hi > lo) || n_bins < 1 || n < 0 || !counts)
        return gmm_error(GMM_ERR_ARG, "histogram: need hi > lo, n_bins >= 1 (got [%g, %g], %d)",
                         lo, hi, n_bins);
    memset(counts, 0, sizeof(int64_t) * n_bins);
    int64_t counted = 0;
    double scale = n_bins / (hi - lo);
    for (int64_t i = 0; i < n; i++) {
        double v = values[i];
        if (isnan(v)) continue;
        double pos = (v - lo) * scale;
        int b = pos < 0 ? 0 : pos >= n_bins ? n_bins - 1 : (int)pos;
        counts[b]++;
        counted++;
    }
    if (n_counted) *n_counted = counted;
    return GMM_OK;
}

double gmm_chi2_pdf(double x, int dof)
{
    if (x < 0) return 0;
    double a = 0.5 * dof;
    if (x == 0) return dof == 2 ? 0.5 : dof < 2 ? INFINITY : 0;
    return exp((a - 1) * log(x) - 0.5 * x - a * log(2.0) - lgamma(a));
}

/* Regularised lower incomplete gamma P(a, x) (Numerical Recipes' gser / gcf). */
static double gamma_p(double a, double x)
{
    if (x <= 0) return 0;
    double gln = lgamma(a);
    if (x < a + 1) {
        double ap = a, sum = 1.0 / a, del = sum;
        for (int n = 0; n < 10000; n++) {
            ap += 1;
            del *= x / ap;
            sum += del;
            if (fabs(del) < fabs(sum) * 1e-15) break;
        }
        return sum * exp(-x + a * log(x) - gln);
    }
    double b = x + 1 - a, c = 1.0 / DBL_MIN, d = 1.0 / b, h = d;
    for (int i = 1; i < 10000; i++) {
        double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (fabs(d) < DBL_MIN) d = DBL_MIN;
        c = b + an / c;
        if (fabs(c) < DBL_MIN) c = DBL_MIN;
        d = 1.0 / d;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-15) break;
    }
    return 1.0 - exp(-x + a * log(x) - gln) * h;
}

double gmm_chi2_cdf(double x, int dof) { return gamma_p(0.5 * dof, 0.5 * x); }

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

gmm_status gmm_chi2_ks(const double *values, int64_t n, int dof, double *distance)
{
    if (n < 1 || dof < 1) return gmm_error(GMM_ERR_ARG, "chi-square check: need n >= 1, dof >= 1");
    double *sorted = malloc(sizeof(double) * n);
    if (!sorted) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    memcpy(sorted, values, sizeof(double) * n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    double d = 0;
    for (int64_t i = 0; i < n; i++) {
        double f = gmm_chi2_cdf(sorted[i], dof);
        double above = (double)(i + 1) / n - f, below = f - (double)i / n;
        if (above > d) d = above;
        if (below > d) d = below;
    }
    free(sorted);
    *distance = d;
    return GMM_OK;
}

double gmm_chi2_ks_threshold(int64_t n) { return 1.63 / sqrt((double)(n > 0 ? n : 1)) + 0.02; }

gmm_status gmm_mahalanobis_assigned(const gmm_model *model, const double *log_likelihood,
                                    const double *proba, const int *labels, int64_t n_samples,
                                    double *distance_sq)
{
    int K = model->n_components, d = model->dim;
    double *log_det = malloc(sizeof(double) * K);
    if (!log_det) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    gmm_log_det_cholesky(model->covariance_type, K, d, model->precisions_cholesky, log_det);
    const double log_2pi = log(2 * M_PI);
    gmm_status status = GMM_OK;
    for (int64_t i = 0; i < n_samples; i++) {
        int k = labels[i];
        if (k < 0 || k >= K) {
            status = gmm_error(GMM_ERR_ARG, "label %d of sample %lld out of range", k, (long long)i);
            break;
        }
        double log_comp = log(proba[i * K + k]) + log_likelihood[i] - log(model->weights[k]);
        double m2 = -2 * (log_comp - log_det[k]) - d * log_2pi;
        distance_sq[i] = m2 < 0 ? 0 : m2;
    }
    free(log_det);
    return status;
}

/* NaN sorts first: a sample whose likelihood is not even a number is the worst outlier. */
static double nan_low(double v) { return isnan(v) ? -INFINITY : v; }

gmm_status gmm_lowest_indices(const double *values, int64_t n, int count, int64_t *indices)
{
    if (count < 0 || count > n) return gmm_error(GMM_ERR_ARG, "lowest: count %d > n", count);
    /* insertion into a sorted list of count: fine for the few dozen pictures asked for */
    int have = 0;
    for (int64_t i = 0; i < n && count > 0; i++) {
        double v = nan_low(values[i]);
        if (have == count && !(v < nan_low(values[indices[have - 1]]))) continue;
        int pos = have < count ? have++ : count - 1;
        while (pos > 0 && nan_low(values[indices[pos - 1]]) > v) {
            indices[pos] = indices[pos - 1];
            pos--;
        }
        indices[pos] = i;
    }
    return GMM_OK;
}

gmm_status gmm_typical_indices(const double *score, const int *labels, int64_t n_samples,
                               int n_components, int n_each, int64_t *most, int64_t *least)
{
    int K = n_components;
    int *have_most = calloc(K, sizeof(int)), *have_least = calloc(K, sizeof(int));
    if (!have_most || !have_least) {
        free(have_most);
        free(have_least);
        return gmm_error(GMM_ERR_NOMEM, "out of memory");
    }
    for (int64_t i = 0; i < (int64_t)K * n_each; i++) most[i] = least[i] = -1;
    for (int64_t i = 0; i < n_samples; i++) {
        int k = labels[i];
        if (k < 0 || k >= K || isnan(score[i])) continue;
        double v = score[i];
        /* most: ascending list of the smallest */
        int64_t *lst = most + (size_t)k * n_each;
        int *h = &have_most[k];
        if (*h < n_each || v < score[lst[*h - 1]]) {
            int pos = *h < n_each ? (*h)++ : n_each - 1;
            while (pos > 0 && score[lst[pos - 1]] > v) {
                lst[pos] = lst[pos - 1];
                pos--;
            }
            lst[pos] = i;
        }
        /* least: descending list of the largest */
        lst = least + (size_t)k * n_each;
        h = &have_least[k];
        if (*h < n_each || v > score[lst[*h - 1]]) {
            int pos = *h < n_each ? (*h)++ : n_each - 1;
            while (pos > 0 && score[lst[pos - 1]] < v) {
                lst[pos] = lst[pos - 1];
                pos--;
            }
            lst[pos] = i;
        }
    }
    free(have_most);
    free(have_least);
    return GMM_OK;
}

gmm_status gmm_separation_summary(const float *X, int64_t n_samples, int dim, const int *labels,
                                  const double *weights, int n_components,
                                  int queries_per_component, int n_bins, gmm_gpu *gpu,
                                  gmm_separation *out, double *mean_hist)
{
    gmm_status status = GMM_OK;
    int K = n_components, q = queries_per_component;
    int64_t *query_index = malloc(sizeof(int64_t) * (size_t)K * q);
    int *query_label = malloc(sizeof(int) * (size_t)K * q);
    float *queries = malloc(sizeof(float) * (size_t)K * q * dim);
    uint32_t *hist = malloc(sizeof(uint32_t) * (size_t)K * q * n_bins);
    float *dmin = malloc(sizeof(float) * (size_t)K * q), *dmax = malloc(sizeof(float) * (size_t)K * q);
    int *taken = calloc(K, sizeof(int));
    if (!query_index || !query_label || !queries || !hist || !dmin || !dmax || !taken) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in the separation summary");
        goto fail;
    }
    if (q < 1 || n_bins < 2) {
        status = gmm_error(GMM_ERR_ARG, "separation: need >= 1 query and >= 2 bins");
        goto fail;
    }
    /* the first q samples of each component, spread over the data by a fixed stride */
    int nq = 0;
    int64_t stride = n_samples / ((int64_t)K * q) > 1 ? n_samples / ((int64_t)K * q) : 1;
    for (int64_t pass = 0; pass < stride && nq < K * q; pass++)
        for (int64_t i = pass; i < n_samples && nq < K * q; i += stride) {
            int k = labels[i];
            if (k < 0 || k >= K || taken[k] >= q) continue;
            taken[k]++;
            query_index[nq] = i;
            query_label[nq] = k;
            memcpy(queries + (size_t)nq * dim, X + (size_t)i * dim, sizeof(float) * dim);
            nq++;
        }
    if (nq > 0) {
        if (gpu)
            status = dist_hist_cuda_host(queries, nq, X, n_samples, dim, n_bins, hist, dmin, dmax);
        else
            status = dist_hist_cpu(queries, nq, X, n_samples, dim, n_bins, hist, dmin, dmax);
        if (status != GMM_OK) goto fail;
    }
    memset(out, 0, sizeof(gmm_separation) * K);
    if (mean_hist) memset(mean_hist, 0, sizeof(double) * (size_t)K * n_bins);
    for (int a = 0; a < nq; a++) {
        int k = query_label[a];
        const uint32_t *h = hist + (size_t)a * n_bins;
        double width = (dmax[a] - dmin[a]) / n_bins;
        /* distances below which a fraction of all points lies, from the cumulative counts:
         * the median, and the near and far quantiles w_k / 2 and 1 - w_k / 2 */
        double target[3] = {0.5 * n_samples, 0.5 * weights[k] * n_samples,
                            (1 - 0.5 * weights[k]) * n_samples};
        double at[3] = {dmax[a], dmax[a], dmax[a]};
        int found[3] = {0, 0, 0};
        double cum = 0;
        for (int b = 0; b < n_bins; b++) {
            double next = cum + h[b];
            for (int t = 0; t < 3; t++)
                if (!found[t] && next >= target[t]) {
                    at[t] = dmin[a] + width * (b + (h[b] ? (target[t] - cum) / h[b] : 0));
                    found[t] = 1;
                }
            cum = next;
            if (mean_hist) mean_hist[(size_t)k * n_bins + b] += (double)h[b] / n_samples;
        }
        double median = at[0];
        out[k].n_queries++;
        out[k].mean_min += dmin[a];
        out[k].mean_median += median;
        out[k].mean_max += dmax[a];
        out[k].near_far_ratio += at[2] > 0 ? at[1] / at[2] : 1;
    }
    for (int k = 0; k < K; k++) {
        int c = out[k].n_queries;
        if (!c) continue;
        out[k].mean_min /= c;
        out[k].mean_median /= c;
        out[k].mean_max /= c;
        out[k].near_far_ratio /= c;
        if (mean_hist)
            for (int b = 0; b < n_bins; b++) mean_hist[(size_t)k * n_bins + b] /= c;
    }
fail:
    free(query_index);
    free(query_label);
    free(queries);
    free(hist);
    free(dmin);
    free(dmax);
    free(taken);
    return status;
}
