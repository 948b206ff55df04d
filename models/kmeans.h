/* k-means written once: Lloyd's iterations and greedy k-means++ seeding as host loops over a
 * small table of device steps (kernels/kmeans.h does the data-parallel work). The CPU steps live
 * in models/kmeans.c (gmm_kmeans_lloyd, gmm_kmeans_plusplus), the GPU ones in
 * models/cuda_kmeans.cu (the CUDA backend's kmeans_lloyd and kmeans_plusplus). */
#ifndef GMM_KMEANS_H
#define GMM_KMEANS_H

#include <stdint.h>

#include "models/gmm.h"

#ifdef __cplusplus
extern "C" {
#endif

#include "models/rng.h"

/* The steps of Lloyd's iterations on one device, over the data and per-sample state (labels,
 * ||x_i||^2, each sample's distance to its center) that ctx keeps there. Centers, sums and
 * counts cross as host arrays (K x dim, K). */
typedef struct gmm_kmeans_steps {
    void *ctx;
    /* Sets every label to -1 (none), keeps ||x_i||^2 and writes the total squared deviation
     * sum_i ||x_i - mean||^2 (the tolerance is 1e-4 x that / (n_samples dim)). */
    gmm_status (*prepare)(void *ctx, double *total_deviation);
    /* The assignment: labels := nearest center (first on ties), each sample's squared distance
     * kept; *n_changed (NULL: not wanted) receives how many labels changed. */
    gmm_status (*assign)(void *ctx, const double *centers, int64_t *n_changed);
    /* The update's statistics for the current labels: sums (K x dim) and counts (K). */
    gmm_status (*update)(void *ctx, double *sums, int *counts);
    /* For an empty cluster: copies the sample with the largest kept distance (the first on ties)
     * into row (dim) and sets its kept distance to 0, so the next empty cluster takes another. */
    gmm_status (*farthest)(void *ctx, double *row);
} gmm_kmeans_steps;

/* Lloyd's k-means from the seeds in centers (n_components x dim, host, updated in place), as
 * scikit-learn's: iterate assign; stop when no label changed (after the first pass); update
 * (an empty cluster moves to the farthest sample); stop after a final assignment when the total
 * squared center shift is <= tol = 1e-4 x the mean over features of the variance; at most
 * max_iter (>= 1) passes. The labels stay in the steps' context. *n_iter (may be NULL). */
gmm_status gmm_kmeans_run(const gmm_kmeans_steps *steps, int64_t n_samples, int dim,
                          int n_components, int max_iter, double *centers, int *n_iter);

/* The steps of k-means++ on one device. The context keeps each sample's squared distance to
 * its closest seed ("closest") and the candidates' distances of the last trials. */
typedef struct gmm_kpp_steps {
    void *ctx;
    /* closest[i] := ||x_i - x_first||^2; *potential = sum_i closest[i]. */
    gmm_status (*first)(void *ctx, int64_t first, double *potential);
    /* For n_trials draws (host, each uniform x potential): the candidates (the first index whose
     * cumsum of closest exceeds the draw, clipped to n_samples - 1), their distances min'd with
     * closest, and the potentials (sums) of those. */
    gmm_status (*trials)(void *ctx, const double *draws, int n_trials, int64_t *candidates,
                         double *potentials);
    /* closest := the distances of trial `best`. */
    gmm_status (*keep)(void *ctx, int best);
} gmm_kpp_steps;

/* How many candidates greedy k-means++ tries per seed: 2 + log K (scikit-learn's), at most
 * KMEANS_PP_MAX_TRIALS. */
int gmm_kpp_trials(int n_components);

/* Greedy k-means++ (scikit-learn's): the first seed uniform, then per seed gmm_kpp_trials(K)
 * draws and the candidate with the smallest potential (the first on ties). Writes the
 * n_components indices. The rng calls are the same whatever the steps. */
gmm_status gmm_kpp_run(const gmm_kpp_steps *steps, int64_t n_samples, int n_components,
                       gmm_rng *rng, int64_t *indices);

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
