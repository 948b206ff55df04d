/* Row compaction for the covariance products of the M-step: of each component k, only the rows
 * with weight w_ik > COMPACT_NEGLIGIBLE_WEIGHT matter (in 784 dimensions the responsibilities
 * are nearly hard: ~N/K rows per component), so their scaled centred rows
 *   sqrt(w_ik) * (X[i] - means[k])            (kernels/scaled_centre.h)
 * are gathered into packed per-component blocks and the products run over those rows only.
 *
 * Packed order: component 0's kept rows in row order, then component 1's, ...; block k is
 * packed rows [bounds[k], bounds[k + 1]) (dim values each), bounds[0] = 0 and bounds[K] the total
 * kept. packed must hold n_samples * n_components rows at most. The weight of row i in component
 * k is weights[i * weight_stride + k] (>= 0). float64 arithmetic, ROW-MAJOR.
 *   compact_rows_cpu   the readable specification (host pointers, float64);
 *   compact_rows_cuda  flags w_ik > 1e-20 component-major (flags[k * n_samples + i]), one CUB
 *                      exclusive scan gives every kept (k, i) its packed row, the K + 1 bounds
 *                      come back to the host (bounds, a host array: the call waits for them on
 *                      the stream), and one kernel gathers the scaled centred rows. X and packed
 *                      may each be float64 or float32. The device workspace (flags, scan, bounds,
 *                      the scan's temporary) is the caller's: compact_rows_workspace_bytes says
 *                      how large it must be for up to max_rows rows. */
#ifndef GMM_COMPACT_H
#define GMM_COMPACT_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/scaled_centre.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows whose weight is at most this are left out: what is left out weighs less than
 * n_samples * 1e-20 in total, below float64 rounding of the covariance, and keeps sqrt(w)
 * products out of the subnormal range, where arithmetic crawls. */
#define COMPACT_NEGLIGIBLE_WEIGHT 1e-20

gmm_status compact_rows_cpu(const double *X, size_t n_samples, int dim, const double *weights,
                            size_t weight_stride, int n_components, const double *means,
                            double *packed, int *bounds);
/* Device bytes of the workspace for up to max_rows rows (max_rows * n_components + 1 must stay
 * below 2^31: the scan counts in int). */
gmm_status compact_rows_workspace_bytes(size_t max_rows, int n_components, size_t *bytes);
gmm_status compact_rows_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                             const double *d_weights, size_t weight_stride, int n_components,
                             const double *d_means, void *d_packed, gmm_elem packed_elem,
                             void *d_workspace, size_t workspace_bytes, int *bounds,
                             void *stream);

#ifdef __cplusplus
}
#endif
#endif
