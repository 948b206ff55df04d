/* The merged initialisation (init=merge): a mixture of twice the components fitted first, its
 * components then joined along the data's k-nearest-neighbour graph until K remain, and the
 * joined responsibilities start EM. A Gaussian mixture's likelihood splits a long cluster in
 * two and lets a small one share a component with its neighbour; the graph sees which of the
 * finer components belong together. A fit that calls a fit, so it lives in fit/ and reaches
 * the EM loop through options.fitted_init (models/fit/spectral_init.h plugs it in). */
#ifndef GMM_MERGE_INIT_H
#define GMM_MERGE_INIT_H

#include <stdint.h>

#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The finer mixture has GMM_MERGE_FACTOR x K components (fewer when there are fewer samples);
 * the graph joins GMM_MERGE_QUERIES samples chosen at random (all when there are fewer) to
 * their knn_neighbors (0: 10; itself counted) nearest among all samples. */
#define GMM_MERGE_FACTOR 2
#define GMM_MERGE_QUERIES 10000
/* A group of fewer than this share of n_samples / K samples is a fragment: it is joined first
 * (the smallest first) to the group it shares most edges with, else to the one whose means lie
 * nearest; only then are whole groups joined. */
#define GMM_MERGE_SMALL_SHARE 0.25

/* The joining rule, on its own (tests): n_fine components with sizes[] samples each, edges[]
 * the n_fine x n_fine symmetric counts of graph edges between components (the diagonal
 * ignored), means[] n_fine x dim. Until n_groups remain, it joins
 *   - while a group holds fewer than small_share x n_total / n_groups samples: the smallest such
 *     group (the lowest index among equals) with the group it shares most edges with; without
 *     an edge, the group with the nearest pair of means;
 *   - then the pair of groups with the most edges between them per sample of the smaller one
 *     (ties: the first pair in index order); when no two groups share an edge, the pair with
 *     the nearest means.
 * group_of[c] receives component c's group, 0..n_groups-1, numbered by their smallest
 * component. */
gmm_status gmm_merge_components(int n_fine, int n_groups, const int64_t *sizes,
                                const double *edges, const double *means, int dim,
                                double small_share, int *group_of);

/* init=merge (gmm_init_resp): the responsibilities (n_samples x K) of a mixture of
 * GMM_MERGE_FACTOR x K components (init kmeans; the best lower bound of the options' n_init runs
 * and their seed, covariance type, reg_covar, tol, max_iter and device) whose components
 * gmm_merge_components joined into options->n_components groups, each group's responsibilities
 * summed. The choice among starts is the finer mixture's: the EM loop runs once from this start
 * (a likelihood comparison between joined starts would prefer the splits that joining undoes). */
gmm_status gmm_init_merge(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                          double *resp);

#ifdef __cplusplus
}
#endif
#endif
