/* Numbers for judging a fitted mixture: squared Mahalanobis distances against the chi-square
 * distribution a true Gaussian gives, histograms, per-component separation from the per-query
 * distance histograms, and the most/least typical samples and the outliers. */
#ifndef GMM_DIAGNOSTICS_H
#define GMM_DIAGNOSTICS_H

#include <stdint.h>

#include "models/options.h"

/* Counts of values in n_bins equal bins over [lo, hi): values below lo go into bin 0, values at
 * or above hi into the last bin, so the counts sum to the number of non-NaN values, which is
 * returned in *n_counted (may be NULL). Requires hi > lo and n_bins >= 1. */
gmm_status gmm_histogram(const double *values, int64_t n, double lo, double hi, int n_bins,
                         int64_t *counts, int64_t *n_counted);

/* Chi-square with dof degrees of freedom: density and cumulative distribution at x >= 0 (the
 * regularised lower incomplete gamma P(dof/2, x/2), series or continued fraction). */
double gmm_chi2_pdf(double x, int dof);
double gmm_chi2_cdf(double x, int dof);

/* The Kolmogorov-Smirnov distance sup |F_n(x) - F(x)| between the empirical distribution of the
 * n values and chi-square(dof). The check passes when it is below gmm_chi2_ks_threshold(n). */
gmm_status gmm_chi2_ks(const double *values, int64_t n, int dof, double *distance);
/* 1.63 / sqrt(n), the 1% critical value of the KS distance for n values, plus 0.02 for the
 * parameters being estimated from the same data. */
double gmm_chi2_ks_threshold(int64_t n);

/* Squared Mahalanobis distance (x - mu_k)^T Sigma_k^-1 (x - mu_k) of each sample to its component
 * labels[i], from what gmm_score_samples returns: log N(x | k) = log proba[i][k] + log p(x_i)
 * - log w_k = -0.5 (d log 2 pi + m^2) + log det U_k. Exact up to rounding for the component of
 * largest responsibility (the one predict gives). */
gmm_status gmm_mahalanobis_assigned(const gmm_model *model, const double *log_likelihood,
                                    const double *proba, const int *labels, int64_t n_samples,
                                    double *distance_sq);

/* The count indices with the smallest values, smallest first (count <= n). */
gmm_status gmm_lowest_indices(const double *values, int64_t n, int count, int64_t *indices);

/* For each component, the n_each samples assigned to it with the smallest score (most typical)
 * and the largest (least typical), K x n_each each, smallest/largest first; -1 where a component
 * has fewer samples. */
gmm_status gmm_typical_indices(const double *score, const int *labels, int64_t n_samples,
                               int n_components, int n_each, int64_t *most, int64_t *least);

/* Per-component summary of the per-query distance histograms (kernels/dist_hist.h): up to
 * queries_per_component samples of each component are queries against all n_samples points. */
typedef struct {
    int n_queries;          /* queries drawn from this component */
    double mean_min;        /* mean over its queries of the nearest distance (0: itself) */
    double mean_median;     /* mean over its queries of the median distance */
    double mean_max;        /* mean over its queries of the largest distance */
    double near_far_ratio;  /* mean of (distance within which a fraction w_k / 2 of all points
                             * lie) / (distance within which 1 - w_k / 2 lie): near 0 well
                             * separated, near 1 no structure (or one component) */
} gmm_separation;

/* X as float32 (n_samples x dim); labels from predict; weights the components' shares (K).
 * mean_hist (K x n_bins, may be NULL) receives each component's mean histogram in normalised
 * coordinates (t = (dist - min) / (max - min)), as fractions summing to 1. Runs the histograms'
 * GPU kernel when gpu (the run's resources object) is not NULL, the CPU twin otherwise. */
gmm_status gmm_separation_summary(const float *X, int64_t n_samples, int dim, const int *labels,
                                  const double *weights, int n_components,
                                  int queries_per_component, int n_bins, gmm_gpu *gpu,
                                  gmm_separation *out, double *mean_hist);

#endif
