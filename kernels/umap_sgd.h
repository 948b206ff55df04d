/* UMAP's layout optimisation (umap-learn's optimize_layout_euclidean is the specification): SGD
 * over the edges of the fuzzy graph with negative sampling, on the curve 1 / (1 + a d^(2b)).
 *   - an edge of weight w is sampled every max_w / w epochs (umap-learn's make_epochs_per_sample;
 *     first at epoch max_w / w >= 1, so epoch 0 samples nothing and n_epochs 1 moves nothing, as
 *     in umap-learn), and each time it is, about negative_sample_rate random points (umap-learn's
 *     count, int((epoch - next_negative) / (max_w / w / rate))) push its head away;
 *   - attraction -2ab d^(2(b-1)) / (1 + a d^(2b)) (y_i - y_j), repulsion 2 gamma b /
 *     ((0.001 + d^2)(1 + a d^(2b))) (y_i - y_k), each coordinate's step clipped to [-4, 4];
 *   - learning rate alpha (1 - epoch / n_epochs) at epoch 0, 1, ... (umap-learn updates it after
 *     each epoch from the epoch just done, so its epochs 0 and 1 both use initial_alpha).
 * Deterministic by construction, on any number of threads and on the GPU: each epoch reads the
 * other points' coordinates from a copy taken at the start of the epoch, only the head of an edge
 * moves (its row in order), and the negative samples come from a counter-based hash of (seed,
 * epoch, edge, sample), so no result depends on scheduling. In the layout the graph must be
 * symmetric (the fuzzy union is): each undirected edge is met from both ends, and umap-learn's
 * move_other moves both ends at each of its two samples, so here the head's attraction step is
 * doubled (twice the clipped gradient) to give each end the attraction umap-learn gives it; the
 * repulsion is umap-learn's (the head alone).
 *   umap_sgd_cpu   OpenMP over the heads, the readable specification;
 *   umap_sgd_cuda  one thread per head running the CPU's code for a head (umap_sgd_epoch.h) in
 *                  float32 with no contraction into fused multiply-adds, so it differs only
 *                  where CUDA's powf rounds otherwise than the C library's, which the chaotic
 *                  SGD then amplifies: CPU and GPU layouts agree in their structure, not to the
 *                  digit (the suite asks 1e-4 over the first sampling epochs).
 * The a/b curve is fitted to the target membership of min_dist and spread by umap_find_ab
 * (umap-learn's find_ab_params: least squares on 300 points of [0, 3 spread]). */
#ifndef GMM_UMAP_SGD_H
#define GMM_UMAP_SGD_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct umap_sgd_options {
    double a, b;              /* the curve (umap_find_ab) */
    double gamma;             /* repulsion strength (0: 1) */
    double initial_alpha;     /* learning rate at epoch 0 (0: 1; umap-learn's transform: 0.25) */
    int negative_sample_rate; /* negative samples per edge sample (0: 5) */
    int n_epochs;             /* >= 1 */
    uint64_t seed;
} umap_sgd_options;

/* The edges: n_heads rows in CSR form (row_ptr n_heads + 1, col and weight nnz); a row's columns
 * index the tails. Weights <= 0 are never sampled. */
typedef struct umap_edges {
    int64_t n_heads, n_tails;
    const int64_t *row_ptr;
    const int32_t *col;
    const double *weight;
} umap_edges;

/* Optimises head_embedding (n_heads x dim float32, row-major, in and out) for n_epochs.
 * tail_embedding NULL: the layout of a graph over its own points (tails are the heads, n_tails
 * == n_heads, and the tails' coordinates move with them epoch by epoch); otherwise the fixed
 * n_tails x dim coordinates the new heads are placed against (umap-learn's transform, its
 * move_other False), negative samples drawn from those tails.
 * GMM_ERR_ARG for dim < 1, n_epochs < 1, a column outside [0, n_tails), a weight that is not
 * finite, row_ptr not starting at 0 or decreasing, n_tails != n_heads in the layout, n_tails
 * above INT32_MAX, a or b not positive, gamma, initial_alpha or the rate negative, or NULL
 * pointers; GMM_ERR_NOMEM. No edge of positive weight: GMM_OK with nothing moved. */
gmm_status umap_sgd_cpu(const umap_edges *edges, float *head_embedding,
                        const float *tail_embedding, int dim, const umap_sgd_options *options);
/* The same on the GPU of the current device; host pointers in and out (copied for the call). */
gmm_status umap_sgd_cuda(const umap_edges *edges, float *head_embedding,
                         const float *tail_embedding, int dim, const umap_sgd_options *options);

/* a and b such that 1 / (1 + a x^(2b)) fits 1 for x < min_dist and exp(-(x - min_dist) / spread)
 * beyond, in least squares on 300 points evenly spaced over [0, 3 spread] (umap-learn's
 * find_ab_params; its published values: min_dist 0.1 -> a 1.577, b 0.895). GMM_ERR_ARG for
 * spread <= 0, min_dist < 0 or min_dist > spread; GMM_ERR_NUMERIC if the fit does not converge. */
gmm_status umap_find_ab(double spread, double min_dist, double *a, double *b);

#ifdef __cplusplus
}
#endif
#endif
