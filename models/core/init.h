/* Initial responsibilities for EM, as scikit-learn's _initialize_parameters: k-means labels
 * (k-means++ seeding then Lloyd iterations), k-means++ seeds alone, random, random samples, or
 * the density peaks of the kNN graph. */
#ifndef GMM_INIT_H
#define GMM_INIT_H

#include <stdint.h>

#include "models/options.h"
#include "models/backend/cpu/kmeans.h" /* gmm_kmeans_plusplus, gmm_kmeans_lloyd */

/* Writes resp (n_samples x options->n_components, row-major) for options->init. For kmeans and
 * knn every row is one-hot; for k-means++ and random_from_data only the K chosen samples have a 1
 * (in their own column), as scikit-learn does; for random each row is a random distribution.
 * kmeans uses options->kmeans_max_iter, knn options->knn_neighbors and knn_sample_size (0 means
 * the default, GMM_KNN_DEFAULT_NEIGHBORS and GMM_KNN_DEFAULT_SAMPLE) and runs its kNN search on
 * options->gpu (on the CPU when it is NULL). */
gmm_status gmm_init_resp(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                         gmm_rng *rng, double *resp);

/* The kNN neighbours and sample size that init=knn uses: the options', or the defaults for 0. */
int gmm_knn_neighbors(const gmm_options *options);
int64_t gmm_knn_sample_size(const gmm_options *options);

/* A starting model (options->init_model) fits the data and the options: GMM_ERR_ARG naming what
 * differs (arrays, dim, K, covariance type). */
gmm_status gmm_check_init_model(const gmm_model *start, const gmm_options *options, int dim);

#endif
