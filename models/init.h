/* Initial responsibilities for EM, as scikit-learn's _initialize_parameters: k-means labels
 * (k-means++ seeding then Lloyd iterations), k-means++ seeds alone, random, or random samples. */
#ifndef GMM_INIT_H
#define GMM_INIT_H

#include <stdint.h>

#include "models/gmm.h"
#include "models/rng.h"

/* Writes resp (n_samples x n_components, row-major). For kmeans every row is one-hot; for
 * k-means++ and random_from_data only the K chosen samples have a 1 (in their own column), as
 * scikit-learn does; for random each row is a random distribution. */
gmm_status gmm_init_resp(const double *X, int64_t n_samples, int dim, int n_components,
                         gmm_init_method method, int kmeans_max_iter, gmm_rng *rng, double *resp);

/* k-means++ seeding (scikit-learn's greedy variant with 2 + log K local trials): the indices of
 * n_components distinct-as-possible samples. */
gmm_status gmm_kmeans_plusplus(const double *X, int64_t n_samples, int dim, int n_components,
                               gmm_rng *rng, int64_t *indices);

/* Lloyd's k-means from the given centers (K x d, updated in place) until the labels stop
 * changing or the centers move less than scikit-learn's tol (1e-4 x mean feature variance).
 * Writes labels (n_samples) and returns the number of iterations in *n_iter (may be NULL). */
gmm_status gmm_kmeans_lloyd(const double *X, int64_t n_samples, int dim, int n_components,
                            int max_iter, double *centers, int *labels, int *n_iter);

#endif
