/* The spectral embedding of the kNN graph (Laplacian eigenmaps, as scikit-learn's
 * SpectralEmbedding(affinity="nearest_neighbors") and spectral_embedding): the k nearest
 * neighbours of every point (kernels/knn.h, the GEMM path on the GPU), the symmetric
 * connectivity graph A = (C + C^T) / 2 (kernels/knn_graph.h), the leading eigenvectors of
 * S = D^-1/2 A D^-1/2 (the smallest of the normalised Laplacian I - S) by Lanczos
 * (linalg/lanczos.h), scaled by D^-1/2, each with the sign that makes its largest entry positive,
 * the first (constant) one dropped. A point outside the graph is embedded by the Nyström
 * extension: u(x) = (1 / theta) x the mean of the coordinates of its k nearest training points,
 * which for a training point with its own graph weights gives back its coordinates exactly
 * (u = D^-1 A u / theta is the eigenvector equation). */
#ifndef GMM_SPECTRAL_H
#define GMM_SPECTRAL_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"
#include "models/features/spectral_space.h"
#include "linalg/lanczos.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n_neighbors;   /* k of the graph, itself counted (0: 10, scikit-learn's default) */
    int n_dims;        /* embedding dimensions (0: 10) */
    uint64_t seed;     /* the Lanczos start vector */
    int max_steps;     /* Lanczos steps at most (0: the default of linalg/lanczos.h) */
    double tol;        /* Lanczos residual bound (0: 1e-10) */
} gmm_spectral_options;

typedef struct {
    int64_t n;
    int n_dims, n_neighbors;
    double *embedding;     /* n x n_dims, row-major */
    double *eigenvalues;   /* n_dims: the eigenvalues of S of the kept vectors (< 1) */
    double *degrees;       /* n: the graph's degrees */
    int graph_components;  /* connected components of the kNN graph (1: connected) */
    lanczos_report lanczos;
    double seconds_knn, seconds_graph, seconds_eigen;
} gmm_spectral;

/* Embeds the n points of X (n x dim float32, host) on the GPU of gpu (NULL: the CPU).
 * GMM_ERR_ARG when n_dims + 1 >= n or n_neighbors is outside [2, min(n, 128)]. */
gmm_status gmm_spectral_embed(const float *X, int64_t n, int dim, const gmm_spectral_options *options,
                              gmm_gpu *gpu, gmm_spectral *out);

/* The Nyström extension of m new points Y (m x dim float32) given the training points X the
 * embedding was made from: out (m x n_dims) = (1 / theta_c) mean of the coordinates of each
 * point's n_neighbors nearest training points. */
gmm_status gmm_spectral_extend(const gmm_spectral *embedding, const float *X, int dim,
                               const float *Y, int64_t m, gmm_gpu *gpu, double *out);

void gmm_spectral_free(gmm_spectral *embedding); /* accepts a zeroed or freed one */

/* The model's spectral space from an embedding of the images (n x input_dim bytes, as read). */
gmm_status gmm_spectral_space_from(const gmm_spectral *embedding, const uint8_t *images,
                                   int input_dim, gmm_spectral_space **out);


#ifdef __cplusplus
}
#endif
#endif
