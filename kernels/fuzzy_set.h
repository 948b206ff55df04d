/* UMAP's fuzzy simplicial set of a kNN graph (McInnes, Healy & Melville 2018; umap-learn's
 * smooth_knn_dist, compute_membership_strengths and fuzzy_simplicial_set are the specification):
 *   1. per point i, rho_i = the distance to its nearest neighbour at a positive distance (with
 *      local_connectivity 1; 0 gives rho 0, as umap-learn's transform uses), and sigma_i by binary
 *      search (64 steps at most, tolerance 1e-5) so that
 *          sum_{j >= 1} exp(-max(0, d_ij - rho_i) / sigma_i) = log2(k)
 *      (column 0, the point itself in a self-kNN, left out of the sum as umap-learn does), sigma
 *      kept at least 1e-3 x the mean distance of the row (of all rows when rho_i is 0);
 *   2. the memberships w_ij = exp(-max(0, d_ij - rho_i) / sigma_i) (1 when sigma is 0), 0 for a
 *      point's own entry unless the graph is bipartite (new points against training points);
 *   3. the fuzzy union of the directed graph with its transpose, W = A + A^T - A o A^T (set_op_mix
 *      ratio 1), as a symmetric CSR matrix with the zero entries dropped.
 * Steps 1-2 are per row: fuzzy_memberships_cpu (OpenMP, the readable specification) and
 * fuzzy_memberships_cuda (one thread per row, the same arithmetic in the same order in float64,
 * so the two agree to rounding). Step 3 is a sparse transpose done on the host
 * (fuzzy_union_cpu), about 0.1 s for 60000 x 15 entries on one core. */
#ifndef GMM_FUZZY_SET_H
#define GMM_FUZZY_SET_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows of the kNN graph: nn_index and nn_dist are n x k row-major (each row nearest first, as
 * kernels/knn.h returns them; index -1 marks a missing neighbour and is skipped). Outputs: rho
 * and sigma (n each) and the memberships (n x k, row-major, the same positions as nn_index).
 * bipartite 0: the graph is a self-kNN and an entry with nn_index[i*k+j] == i gets 0; bipartite
 * 1: the indices name points of another set (any value >= 0) and no entry is a point's own.
 * A missing neighbour (-1) takes no part anywhere (not in rho, the sum, nor either mean; its
 * distance is never read) and gets membership 0. The rows are taken in the order given (rho is
 * read from the positive distances in that order, as umap-learn reads them).
 * GMM_ERR_ARG for k < 2, n < 1, local_connectivity < 0 or NaN, a NULL pointer, an index below -1,
 * or a listed neighbour's distance that is negative, NaN or infinite. */
gmm_status fuzzy_memberships_cpu(const int32_t *nn_index, const float *nn_dist, int64_t n, int k,
                                 double local_connectivity, int bipartite, double *rho,
                                 double *sigma, double *memberships);
/* The same on the GPU of the current device; host pointers in and out (copied for the call).
 * The arguments are checked and the mean of all distances taken on the host first
 * (fuzzy_memberships_check), so both versions floor sigma with the same number. */
gmm_status fuzzy_memberships_cuda(const int32_t *nn_index, const float *nn_dist, int64_t n, int k,
                                  double local_connectivity, int bipartite, double *rho,
                                  double *sigma, double *memberships);

/* The checks of fuzzy_memberships_cpu/_cuda above, and *mean_dist = the mean of the distances of
 * all listed neighbours (index != -1), summed in row order in float64 (0 when there are none):
 * the floor of sigma_i, times 1e-3, where rho_i is 0. Shared by the two versions. */
gmm_status fuzzy_memberships_check(const int32_t *nn_index, const float *nn_dist, int64_t n,
                                   int k, double local_connectivity, const double *rho,
                                   const double *sigma, const double *memberships,
                                   double *mean_dist);

/* A symmetric sparse graph (CSR, host): row i holds val[row_ptr[i] .. row_ptr[i + 1]) in the
 * columns col[...], ascending, no zero entries. */
typedef struct {
    int64_t n, nnz;
    int64_t *row_ptr; /* n + 1 */
    int32_t *col;     /* nnz */
    double *val;      /* nnz, in (0, 1] */
} fuzzy_graph;

/* W = A + A^T - A o A^T of the directed graph A_ij = memberships[i*k+c] at j = nn_index[i*k+c]
 * (entries that are 0 or whose index is -1 skipped; a duplicate (i, j) keeps the larger value,
 * where umap-learn's COO-to-CSR conversion would add the two). Each entry is computed as
 * (a + b) - a * b, the same bits from either end, so W equals W^T exactly. graph is zeroed first
 * and on failure. GMM_ERR_ARG for n < 1, k < 1, a NULL pointer, an index outside [0, n) other
 * than -1, or a listed membership outside [0, 1] (NaN included); GMM_ERR_NOMEM. */
gmm_status fuzzy_union_cpu(const int32_t *nn_index, const double *memberships, int64_t n, int k,
                           fuzzy_graph *graph);
void fuzzy_graph_free(fuzzy_graph *graph); /* accepts a zeroed or freed graph */

#ifdef __cplusplus
}
#endif
#endif
