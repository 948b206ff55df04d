/* k-means written once: Lloyd's iterations and greedy k-means++ seeding as host loops over a
 * small table of device steps (kernels/kmeans.h does the data-parallel work). The CPU steps live
 * in models/backend/cpu/kmeans.c (gmm_kmeans_lloyd, gmm_kmeans_plusplus), the GPU ones in
 * models/backend/cuda/cuda_kmeans.cu (the CUDA backend's kmeans_lloyd and kmeans_plusplus). */
#ifndef GMM_KMEANS_H
#define GMM_KMEANS_H

#include <stdint.h>

#include "models/dist/comm.h"
#include "models/data_view.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "kernels/rng.h"

/* The steps of Lloyd's iterations on one device, over this rank's rows and the per-sample
 * state (labels, ||x_i||^2, each sample's distance to its center) that ctx keeps there. Every
 * step is local; gmm_kmeans_run sums what they return over the ranks of comm. Centers, sums and
 * counts cross as host arrays (K x dim, K). */
typedef struct gmm_kmeans_steps {
    void *ctx;
    /* sums (dim) += the column sums of this rank's rows, each column in row order. */
    gmm_status (*column_sums)(void *ctx, double *sums);
    /* Sets every label to -1 (none), keeps ||x_i||^2 and writes sum_i ||x_i - mean||^2 over
     * this rank's rows (the tolerance is 1e-4 x the total / (n_total dim)). */
    gmm_status (*prepare)(void *ctx, const double *mean, double *total_deviation);
    /* The assignment: labels := nearest center (first on ties), each sample's squared distance
     * kept; *n_changed (NULL: not wanted) receives how many labels changed here. */
    gmm_status (*assign)(void *ctx, const double *centers, int64_t *n_changed);
    /* The update's statistics for the current labels: sums (K x dim) and counts (K). */
    gmm_status (*update)(void *ctx, double *sums, int *counts);
    /* The largest kept distance here and its row (the first on ties). */
    gmm_status (*farthest)(void *ctx, double *value, int64_t *index);
    /* Row `index` of this rank into row (dim, float64); its kept distance set to 0, so that the
     * next empty cluster takes another sample. */
    gmm_status (*take)(void *ctx, int64_t index, double *row);
} gmm_kmeans_steps;

/* Lloyd's k-means from the seeds in centers (n_components x dim, host, updated in place; the
 * same on every rank), as scikit-learn's: iterate assign; stop when no label changed (after the
 * first pass); update (an empty cluster moves to the farthest sample of all ranks); stop after a
 * final assignment when the total squared center shift is <= tol = 1e-4 x the mean over
 * features of the variance; at most max_iter (>= 1) passes. n_total: the rows of all ranks.
 * The labels stay in the steps' context. *n_iter (may be NULL). */
gmm_status gmm_kmeans_run(const gmm_kmeans_steps *steps, gmm_comm *comm, int64_t n_total,
                          int dim, int n_components, int max_iter, double *centers, int *n_iter);

/* The steps of k-means++ on one device over this rank's rows. The context keeps each sample's
 * squared distance to its closest seed ("closest") and the candidates' distances of the last
 * trials. */
typedef struct gmm_kpp_steps {
    void *ctx;
    /* closest[i] := ||x_i - row||^2; *potential = sum_i closest[i] (in row order). */
    gmm_status (*first)(void *ctx, const double *row, double *potential);
    /* For n_draws draws in [0, this rank's potential): picks[t] = the first row whose cumsum of
     * closest exceeds draws[t] (the last row when none does). */
    gmm_status (*pick)(void *ctx, const double *draws, int n_draws, int64_t *picks);
    /* The distances to n_rows candidates (rows, n_rows x dim) min'd with closest, kept, and
     * their potentials here (sums in row order). */
    gmm_status (*trials)(void *ctx, const double *rows, int n_rows, double *potentials);
    /* closest := the distances of trial `best`. */
    gmm_status (*keep)(void *ctx, int best);
    /* Row `index` of this rank into row (dim, float64). */
    gmm_status (*row)(void *ctx, int64_t index, double *row);
} gmm_kpp_steps;

/* How many candidates greedy k-means++ tries per seed: 2 + log K (scikit-learn's), at most
 * KMEANS_PP_MAX_TRIALS. */
int gmm_kpp_trials(int n_components);

/* Greedy k-means++ (scikit-learn's) over the rows of every rank: the first seed uniform over
 * the n_total rows, then per seed gmm_kpp_trials(K) draws proportional to D^2 over all ranks
 * (a draw falls to the rank whose share of the potential holds it) and the candidate with the
 * smallest total potential (the first on ties). This rank's rows are [first_row, first_row +
 * n_rows). Writes the n_components global indices and the seeds (centers, K x dim) on every
 * rank. The rng calls are the same whatever the steps and the ranks. */
gmm_status gmm_kpp_run(const gmm_kpp_steps *steps, gmm_comm *comm, int64_t first_row,
                       int64_t n_rows, int64_t n_total, int dim, int n_components, gmm_rng *rng,
                       int64_t *indices, double *centers);

/* The CPU steps over a data view (this rank's rows; converted to float64 chunk by chunk unless
 * they are float64). */
gmm_status gmm_kmeans_plusplus_view(const gmm_data_view *data, gmm_comm *comm, int n_components,
                                    gmm_rng *rng, int64_t *indices, double *centers);
gmm_status gmm_kmeans_lloyd_view(const gmm_data_view *data, gmm_comm *comm, int n_components,
                                 int max_iter, double *centers, int *labels, int *n_iter);

/* The CPU versions on host data (X n_samples x dim, row-major float64). */

/* k-means++ seeding: the indices of n_components distinct-as-possible samples. */
gmm_status gmm_kmeans_plusplus(const double *X, int64_t n_samples, int dim, int n_components,
                               gmm_rng *rng, int64_t *indices);

/* Lloyd's k-means (gmm_kmeans_run) from the given centers (K x d, updated in place); writes the
 * labels (n_samples) and the number of iterations in *n_iter (may be NULL). */
gmm_status gmm_kmeans_lloyd(const double *X, int64_t n_samples, int dim, int n_components,
                            int max_iter, double *centers, int *labels, int *n_iter);

#ifdef __cplusplus
}
#endif
#endif
