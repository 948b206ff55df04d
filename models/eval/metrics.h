/* Clustering metrics against reference labels: accuracy under the best one-to-one matching of
 * clusters to classes (Hungarian algorithm), normalised mutual information (arithmetic mean, as
 * scikit-learn's default), adjusted Rand index, and the confusion matrix. */
#ifndef GMM_METRICS_H
#define GMM_METRICS_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int n_clusters;      /* rows of the confusion matrix */
    int n_classes;       /* columns */
    int64_t *confusion;  /* n_clusters x n_classes counts, row-major */
    int *cluster_to_class; /* best one-to-one matching, -1 for an unmatched cluster */
    double accuracy;
    double nmi;
    double ari;
} cluster_metrics;

/* clusters[i] in [0, n_clusters), classes[i] in [0, n_classes). */
gmm_status cluster_metrics_compute(const int *clusters, int n_clusters, const uint8_t *classes,
                                   int n_classes, int64_t n_samples, cluster_metrics *out);
void cluster_metrics_free(cluster_metrics *m);

/* Minimum-cost assignment on an n_rows x n_cols cost matrix (row-major, n_rows <= n_cols or
 * not: rectangular allowed). row_to_col[r] receives the column of row r, -1 if unassigned.
 * Returns the total cost. */
double hungarian_min_cost(const double *cost, int n_rows, int n_cols, int *row_to_col);

#ifdef __cplusplus
}
#endif
#endif
