/* --diagnostics DIR: tables on stdout and in text files, plots as PNGs. */
#include "app/diagnostics_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/file_write.h"
#include "data/plot.h"
#include "data/png_write.h"
#include "models/eval/diagnostics.h"
#include "models/features/pca.h"

#define MAHA_BINS 40
#define SEP_QUERIES 20
#define SEP_BINS 64
#define LL_BINS 60
#define N_OUTLIERS 36

gmm_status diag_scores_adopt(const gmm_model *model, gmm_fit_scores *fit, diag_scores *s)
{
    memset(s, 0, sizeof *s);
    s->n_samples = fit->n_samples;
    s->log_likelihood = fit->log_likelihood;
    s->proba = fit->proba;
    s->labels = fit->labels;
    memset(fit, 0, sizeof *fit);
    gmm_status st = GMM_ERR_NOMEM;
    if (!(s->distance_sq = malloc(sizeof(double) * s->n_samples)) ||
        (st = gmm_mahalanobis_assigned(model, s->log_likelihood, s->proba, s->labels,
                                       s->n_samples, s->distance_sq)) != GMM_OK) {
        if (st == GMM_ERR_NOMEM) st = gmm_error(GMM_ERR_NOMEM, "out of memory for distances");
        diag_scores_free(s);
        return st;
    }
    return GMM_OK;
}

void diag_scores_free(diag_scores *s)
{
    free(s->log_likelihood);
    free(s->proba);
    free(s->labels);
    free(s->distance_sq);
    memset(s, 0, sizeof *s);
}

void diag_progress(void *user, int init_index, int iteration, double lower_bound, double change,
                   double seconds)
{
    diag_trace *t = user;
    if (t->n == t->capacity) {
        int cap = t->capacity ? 2 * t->capacity : 128;
        int *a = realloc(t->init_index, sizeof(int) * cap);
        if (a) t->init_index = a;
        int *b = realloc(t->iteration, sizeof(int) * cap);
        if (b) t->iteration = b;
        double *c = realloc(t->lower_bound, sizeof(double) * cap);
        if (c) t->lower_bound = c;
        if (a && b && c) t->capacity = cap;
    }
    if (t->n < t->capacity) {
        t->init_index[t->n] = init_index;
        t->iteration[t->n] = iteration;
        t->lower_bound[t->n] = lower_bound;
        t->n++;
    }
    if (t->cli) cli_progress(t->cli, init_index, iteration, lower_bound, change, seconds);
}

void diag_trace_free(diag_trace *t)
{
    free(t->init_index);
    free(t->iteration);
    free(t->lower_bound);
    t->init_index = t->iteration = NULL;
    t->lower_bound = NULL;
    t->n = t->capacity = 0;
}

int diagnostics_make_dir(const char *dir)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_error("cannot create directory '%s': %s", dir, strerror(errno));
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cli_error("'%s' is not a directory", dir);
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The squared Mahalanobis histograms against chi-square(d), per component. */
static gmm_status write_mahalanobis(const char *dir, const gmm_model *model,
                                    const diag_scores *s)
{
    int K = model->n_components, d = model->dim;
    int64_t n = s->n_samples;
    gmm_status st = GMM_OK;
    char path[4096];
    double *vals = malloc(sizeof(double) * (n > 0 ? n : 1));
    int64_t counts[MAHA_BINS];
    double heights[MAHA_BINS], cx[MAHA_BINS], expect[MAHA_BINS];
    snprintf(path, sizeof path, "%s/mahalanobis.txt", dir);
    FILE *f = vals ? file_write_open(path, &st) : NULL; /* in place when complete */
    if (!f) {
        if (!vals) st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    fprintf(f, "# squared Mahalanobis distance of each sample to its component, against the\n"
               "# chi-square distribution with d = %d degrees of freedom (mean d, sd sqrt(2d)).\n"
               "# KS = sup |F_n - F_chi2|; the check passes when KS < 1.63/sqrt(n) + 0.02.\n", d);
    printf("diagnostics: squared Mahalanobis distance vs chi-square(%d) (mean %d, sd %.1f)\n", d,
           d, sqrt(2.0 * d));
    printf("  %4s %8s %12s %12s %12s %8s %8s %s\n", "k", "n", "mean", "median", "p99", "KS",
           "limit", "check");
    for (int k = 0; k < K; k++) {
        int64_t m = 0;
        for (int64_t i = 0; i < n; i++)
            if (s->labels[i] == k) vals[m++] = s->distance_sq[i];
        fprintf(f, "\ncomponent %d: %lld samples\n", k, (long long)m);
        if (m == 0) {
            printf("  %4d %8d %12s\n", k, 0, "-");
            continue;
        }
        qsort(vals, (size_t)m, sizeof(double), cmp_double);
        double ks, mean = 0;
        for (int64_t i = 0; i < m; i++) mean += vals[i] / m;
        if ((st = gmm_chi2_ks(vals, m, d, &ks)) != GMM_OK) goto fail;
        double limit = gmm_chi2_ks_threshold(m), p99 = vals[(int64_t)(0.99 * (m - 1))];
        const char *verdict = ks < limit ? "pass" : "FAIL";
        printf("  %4d %8lld %12.1f %12.1f %12.1f %8.3f %8.3f %s\n", k, (long long)m, mean,
               vals[m / 2], p99, ks, limit, verdict);
        fprintf(f, "mean %.3f median %.3f p99 %.3f KS %.4f limit %.4f %s\n", mean, vals[m / 2],
                p99, ks, limit, verdict);
        double hi = d + 5 * sqrt(2.0 * d);
        if (p99 > hi) hi = p99;
        if ((st = gmm_histogram(vals, m, 0, hi, MAHA_BINS, counts, NULL)) != GMM_OK) goto fail;
        fprintf(f, "%12s %12s %10s %12s\n", "bin_lo", "bin_hi", "count", "chi2_expect");
        double w = hi / MAHA_BINS;
        for (int b = 0; b < MAHA_BINS; b++) {
            double lo_b = b * w, hi_b = (b + 1) * w;
            double upper = b == MAHA_BINS - 1 ? 1.0 : gmm_chi2_cdf(hi_b, d);
            expect[b] = m * (upper - gmm_chi2_cdf(lo_b, d));
            heights[b] = (double)counts[b];
            cx[b] = lo_b + 0.5 * w;
            fprintf(f, "%12.3f %12.3f %10lld %12.2f\n", lo_b, hi_b, (long long)counts[b],
                    expect[b]);
        }
        char title[96], file[64], xl[96];
        snprintf(title, sizeof title, "component %d: %lld samples, KS %.3f (%s)", k,
                 (long long)m, ks, ks < limit ? "pass" : "fail");
        snprintf(xl, sizeof xl, "squared Mahalanobis distance (last bar: all from %.0f up)", hi - w);
        snprintf(file, sizeof file, "mahalanobis_k%d.png", k);
        snprintf(path, sizeof path, "%s/%s", dir, file);
        char chi_label[48];
        snprintf(chi_label, sizeof chi_label, "chi-square(%d) expected", d);
        plot_series chi = {cx, expect, MAHA_BINS, chi_label};
        st = plot_histogram(path, title, xl, "samples per bin", 0, hi, heights, MAHA_BINS,
                            "samples", &chi, 1);
        if (st != GMM_OK) goto fail;
    }
fail:
    if (f && st == GMM_OK) st = file_write_close(f); /* a full disk: an error, the old file kept */
    else file_write_abort(f);
    free(vals);
    return st;
}

static gmm_status write_separation(const char *dir, const gmm_model *model, const double *X,
                                   int64_t n, const diag_scores *s, gmm_gpu *gpu)
{
    int K = model->n_components, d = model->dim;
    gmm_status st = GMM_OK;
    char path[4096];
    float *Xf = malloc(sizeof(float) * (size_t)n * d);
    gmm_separation *sep = malloc(sizeof(gmm_separation) * K);
    double *hist = malloc(sizeof(double) * (size_t)K * SEP_BINS);
    double *xs = malloc(sizeof(double) * SEP_BINS);
    plot_series *series = malloc(sizeof(plot_series) * K);
    char (*labels)[24] = malloc(sizeof(*labels) * K);
    FILE *f = NULL;
    if (!Xf || !sep || !hist || !xs || !series || !labels) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t i = 0; i < (size_t)n * d; i++) Xf[i] = (float)X[i];
    st = gmm_separation_summary(Xf, n, d, s->labels, model->weights, K, SEP_QUERIES, SEP_BINS,
                                gpu, sep, hist);
    if (st != GMM_OK) goto fail;
    snprintf(path, sizeof path, "%s/separation.txt", dir);
    if (!(f = file_write_open(path, &st))) goto fail; /* in place when complete */
    const char *head = "# per-query distance histograms (up to %d queries per component, against "
                       "all %lld samples)\n# ratio = distance to the nearest w_k/2 of all points "
                       "/ distance to the nearest 1 - w_k/2: near 0 separated, near 1 not\n";
    fprintf(f, head, SEP_QUERIES, (long long)n);
    printf("diagnostics: separation from per-query distance histograms (%d queries per component)\n",
           SEP_QUERIES);
    printf("  %4s %8s %10s %10s %10s %8s\n", "k", "queries", "min", "median", "max", "ratio");
    fprintf(f, "%4s %8s %10s %10s %10s %8s\n", "k", "queries", "min", "median", "max", "ratio");
    for (int k = 0; k < K; k++) {
        const gmm_separation *p = &sep[k];
        printf("  %4d %8d %10.3f %10.3f %10.3f %8.3f\n", k, p->n_queries, p->mean_min,
               p->mean_median, p->mean_max, p->near_far_ratio);
        fprintf(f, "%4d %8d %10.3f %10.3f %10.3f %8.3f\n", k, p->n_queries, p->mean_min,
                p->mean_median, p->mean_max, p->near_far_ratio);
        snprintf(labels[k], sizeof labels[k], "k=%d", k);
        series[k] = (plot_series){xs, hist + (size_t)k * SEP_BINS, SEP_BINS, labels[k]};
    }
    for (int b = 0; b < SEP_BINS; b++) xs[b] = (b + 0.5) / SEP_BINS;
    snprintf(path, sizeof path, "%s/separation.png", dir);
    st = plot_lines(path, "distances from each component to all samples",
                    "distance, scaled per query from its min (0) to its max (1)",
                    "fraction of all samples", series, K);
fail:
    if (f && st == GMM_OK) st = file_write_close(f); /* a full disk: an error, the old file kept */
    else file_write_abort(f);
    free(Xf);
    free(sep);
    free(hist);
    free(xs);
    free(series);
    free(labels);
    return st;
}

static gmm_status write_loglik(const char *dir, const gmm_model *model, const double *X,
                               const double *pixels_in, const diag_scores *s)
{
    int64_t n = s->n_samples;
    int d = model->dim;
    gmm_status st = GMM_OK;
    char path[4096];
    double *sorted = malloc(sizeof(double) * n);
    int64_t counts[LL_BINS], idx[N_OUTLIERS];
    double heights[LL_BINS];
    double *tiles = malloc(sizeof(double) * (size_t)N_OUTLIERS * d), *pixel_tiles = NULL;
    char (*text)[32] = malloc(sizeof(*text) * N_OUTLIERS);
    const char *captions[N_OUTLIERS];
    if (!sorted || !tiles || !text) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    memcpy(sorted, s->log_likelihood, sizeof(double) * n);
    qsort(sorted, (size_t)n, sizeof(double), cmp_double);
    double lo = sorted[(int64_t)(0.01 * (n - 1))], hi = sorted[n - 1];
    if (!(hi > lo)) hi = lo + 1;
    if ((st = gmm_histogram(s->log_likelihood, n, lo, hi, LL_BINS, counts, NULL)) != GMM_OK)
        goto fail;
    for (int b = 0; b < LL_BINS; b++) heights[b] = (double)counts[b];
    snprintf(path, sizeof path, "%s/loglik_hist.png", dir);
    char xl[96];
    snprintf(xl, sizeof xl, "log p(x) (first bar: all below %.0f, the lowest 1%%)", lo);
    st = plot_histogram(path, "per-sample log-likelihood", xl, "samples per bin", lo, hi,
                        heights, LL_BINS, NULL, NULL, 0);
    if (st != GMM_OK) goto fail;
    int n_out = n < N_OUTLIERS ? (int)n : N_OUTLIERS;
    if ((st = gmm_lowest_indices(s->log_likelihood, n, n_out, idx)) != GMM_OK) goto fail;
    printf("diagnostics: the %d lowest log-likelihoods:", n_out);
    for (int t = 0; t < n_out; t++) {
        memcpy(tiles + (size_t)t * d, X + (size_t)idx[t] * d, sizeof(double) * d);
        snprintf(text[t], sizeof text[t], "%lld: %.0f", (long long)idx[t],
                 s->log_likelihood[idx[t]]);
        captions[t] = text[t];
        if (t < 8) printf(" #%lld (%.1f)", (long long)idx[t], s->log_likelihood[idx[t]]);
    }
    printf("%s\n", n_out > 8 ? " ..." : "");
    const double *pixels = tiles; /* the outliers in pixel space: the images themselves, or a
                                     projection's mapped back */
    const int pixels_dim = gmm_model_input_dim(model);
    if (pixels_in && n_out > 0) {
        if (!(pixel_tiles = malloc(sizeof(double) * (size_t)n_out * pixels_dim))) {
            st = gmm_error(GMM_ERR_NOMEM, "out of memory");
            goto fail;
        }
        for (int t = 0; t < n_out; t++)
            memcpy(pixel_tiles + (size_t)t * pixels_dim, pixels_in + (size_t)idx[t] * pixels_dim,
                   sizeof(double) * pixels_dim);
        pixels = pixel_tiles;
    } else if (gmm_space_pca(model->space) && n_out > 0) {
        if (!(pixel_tiles = malloc(sizeof(double) * (size_t)n_out * pixels_dim))) {
            st = gmm_error(GMM_ERR_NOMEM, "out of memory");
            goto fail;
        }
        if ((st = gmm_projection_inverse(gmm_space_pca(model->space), tiles, n_out, pixel_tiles)) != GMM_OK)
            goto fail;
        pixels = pixel_tiles;
    }
    if (model->image_rows * model->image_cols == pixels_dim && n_out > 0 &&
        (pixels_dim == d || pixels_in || gmm_space_pca(model->space))) {
        snprintf(path, sizeof path, "%s/outliers.png", dir);
        st = png_write_tile_grid(path, pixels, n_out, model->image_rows, model->image_cols, 2,
                                 captions);
    }
fail:
    free(pixel_tiles);
    free(sorted);
    free(tiles);
    free(text);
    return st;
}

static gmm_status write_trace(const char *dir, const diag_trace *t)
{
    char path[4096];
    int n_inits = 0;
    for (int i = 0; i < t->n; i++)
        if (t->init_index[i] + 1 > n_inits) n_inits = t->init_index[i] + 1;
    if (n_inits == 0) return GMM_OK;
    gmm_status st = GMM_OK;
    double *x = malloc(sizeof(double) * t->n), *y = malloc(sizeof(double) * t->n);
    plot_series *series = malloc(sizeof(plot_series) * n_inits);
    char (*labels)[24] = malloc(sizeof(*labels) * n_inits);
    if (!x || !y || !series || !labels) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    int used = 0;
    for (int r = 0; r < n_inits; r++) {
        int start = used;
        for (int i = 0; i < t->n; i++)
            if (t->init_index[i] == r) {
                x[used] = t->iteration[i];
                y[used] = t->lower_bound[i];
                used++;
            }
        snprintf(labels[r], sizeof labels[r], "init %d", r + 1);
        series[r] = (plot_series){x + start, y + start, used - start, n_inits > 1 ? labels[r] : NULL};
    }
    snprintf(path, sizeof path, "%s/loglik_iterations.png", dir);
    st = plot_lines(path, "EM lower bound per iteration", "iteration",
                    "mean log-likelihood lower bound", series, n_inits);
fail:
    free(x);
    free(y);
    free(series);
    free(labels);
    return st;
}

int diagnostics_report_write(const char *dir, const gmm_model *model, const double *X,
                             const double *pixels, int64_t n_samples, const diag_scores *scores,
                             const diag_trace *trace, gmm_gpu *gpu)
{
    int rc = diagnostics_make_dir(dir);
    if (rc) return rc;
    gmm_status st;
    if ((st = write_mahalanobis(dir, model, scores)) != GMM_OK) return cli_fail(st);
    if ((st = write_separation(dir, model, X, n_samples, scores, gpu)) != GMM_OK) return cli_fail(st);
    if ((st = write_loglik(dir, model, X, pixels, scores)) != GMM_OK) return cli_fail(st);
    if (trace && (st = write_trace(dir, trace)) != GMM_OK) return cli_fail(st);
    printf("diagnostics written to %s/\n", dir);
    return 0;
}
