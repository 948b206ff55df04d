/* Density-peaks initialisation from the kNN graph (--init knn): local density from the k nearest
 * neighbours, seeds that are dense and far from any denser point, hard nearest-seed labels. */
#ifndef GMM_INIT_KNN_H
#define GMM_INIT_KNN_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"
#include "kernels/rng.h"

#define GMM_KNN_DEFAULT_NEIGHBORS 10
#define GMM_KNN_DEFAULT_SAMPLE 60000

/* Writes one-hot resp (n_samples x n_components, row-major) from density peaks:
 *  1. a sample of sample_size points (all of them when n_samples <= sample_size; otherwise drawn
 *     without replacement with rng), converted to float32;
 *  2. the n_neighbors nearest neighbours of every sampled point among the sample (the kNN kernel:
 *     the cuBLAS path of knn_cuda_host on gpu, or knn_cpu when gpu is NULL);
 *  3. density_i = 1 / (mean distance to those neighbours); delta_i = distance to the nearest
 *     point of higher density (ties broken by index), the largest distance for the densest point;
 *  4. the n_components sampled points with the largest density_i * delta_i are the seeds;
 *  5. every one of the n_samples points is labelled with its nearest seed (Euclidean, float64).
 * seeds (n_components indices into X) may be NULL. n_neighbors must be in 1..127 and below the
 * sample size. */
gmm_status gmm_init_knn(const double *X, int64_t n_samples, int dim, int n_components,
                        int n_neighbors, int64_t sample_size, gmm_rng *rng, gmm_gpu *gpu,
                        double *resp, int64_t *seeds);

#endif
