/* The k-nearest-neighbour graph as scikit-learn's SpectralEmbedding(affinity="nearest_neighbors")
 * builds it: the connectivity C (C_ij = 1 when j is among the k nearest neighbours of i, i itself
 * counted, as kneighbors_graph(include_self=True)), made symmetric as A = (C + C^T) / 2, its
 * diagonal dropped (scipy's normalised Laplacian ignores it), with the degrees d_i = sum_j A_ij.
 * knn_graph_normalise turns A into S = D^-1/2 A D^-1/2, whose leading eigenvectors are the
 * smallest of the normalised Laplacian I - S. Host only: the graph has about n k entries, built
 * in a few milliseconds for 60000 points (the kNN search before it runs on either device). */
#ifndef GMM_KNN_GRAPH_H
#define GMM_KNN_GRAPH_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int64_t n, nnz;
    int64_t *row_ptr;  /* n + 1 */
    int32_t *col;      /* nnz, ascending within a row */
    double *val;       /* nnz: 1 (mutual neighbours) or 0.5; after normalising, / sqrt(d_i d_j) */
    double *degree;    /* n: d_i = sum_j A_ij (before normalising) */
    int n_components;  /* connected components of the graph (1 for a connected graph) */
} knn_graph;

/* From the n x k neighbour indices (row i: the k nearest of point i, in any order, values in
 * [0, n)). GMM_ERR_ARG for an index out of range or k < 2; GMM_ERR_NUMERIC naming the point when
 * a point has no neighbour but itself (degree 0). */
gmm_status knn_graph_build(const int32_t *nn_index, int64_t n, int k, knn_graph *graph);
/* val_ij /= sqrt(d_i d_j): A becomes S = D^-1/2 A D^-1/2 (degrees kept). */
void knn_graph_normalise(knn_graph *graph);
void knn_graph_free(knn_graph *graph); /* accepts a zeroed or freed graph */

#ifdef __cplusplus
}
#endif
#endif
