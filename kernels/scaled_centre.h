/* Scaled centring, the rows whose products A_k^T A_k are the weighted covariances of the M-step:
 *   out[k][i][j] = sqrt(w_ik) * (X[i][j] - means[k][j])
 * X n_samples x dim, means n_components x dim, out n_components blocks of n_samples x dim (block
 * k, row i at out + (k * n_samples + i) * dim). The weight of row i in component k is
 * weights[i * weight_stride + k]: the responsibilities (n_samples x K, stride K) for the M-step,
 * or one column (resp + k, stride K, n_components 1) for wcov. Weights must be >= 0 (sqrt).
 * ROW-MAJOR; the arithmetic is float64 whatever the storage types.
 *   scaled_centre_cpu   the readable specification (host pointers, float64);
 *   scaled_centre_row   one row of one component (the CPU gathers of kernels/compact.c and
 *                       kernels/wcov.c build on it);
 *   scaled_centre_cuda  one grid-stride kernel over the n_samples x dim elements, X read once for
 *                       all components; X and out may each be float64 or float32 (GMM_ELEM_*).
 * The GPU version takes device pointers and an optional cudaStream_t as void*; it returns once
 * the work is queued. */
#ifndef GMM_SCALED_CENTRE_H
#define GMM_SCALED_CENTRE_H

#include <stddef.h>

#include "kernels/convert.h" /* gmm_elem */
#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

void scaled_centre_row(const double *x, int dim, double weight, const double *mean, double *out);
gmm_status scaled_centre_cpu(const double *X, size_t n_samples, int dim, const double *weights,
                             size_t weight_stride, int n_components, const double *means,
                             double *out);
gmm_status scaled_centre_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                              const double *d_weights, size_t weight_stride, int n_components,
                              const double *d_means, void *d_out, gmm_elem out_elem,
                              void *stream);

#ifdef __cplusplus
}
#endif
#endif
