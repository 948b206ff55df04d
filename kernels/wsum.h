/* Weighted column sums of the M-step, for the means in float32 and the diagonal/spherical
 * variances:
 *   out[k][j] = sum_i resp[i][k] * f(X[i][j]) / divisors[k]   (+ add when centres are given)
 * with f(x) = x when centres is NULL (the means: R^T X / N_k) and f(x) = (x - centres[k][j])^2
 * otherwise (the diagonal variances about the means, + reg_covar). X n_samples x dim, resp
 * n_samples x n_components, centres and out n_components x dim, divisors n_components (N_k).
 * float64 arithmetic, ROW-MAJOR.
 *   wsum_cpu   the readable specification (host pointers, float64 X), samples summed in order;
 *   wsum_cuda  a thread per column and 8 components, over row slabs (enough slabs for about
 *              16 blocks a multiprocessor, at most 256 and as many as the partial buffer holds:
 *              partial_n >= n_components * dim doubles), then one kernel sums the slabs in a
 *              fixed order and divides: deterministic. X float64 or float32.
 * The GPU version takes device pointers and an optional cudaStream_t as void*; it returns once
 * the work is queued. */
#ifndef GMM_WSUM_H
#define GMM_WSUM_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/scaled_centre.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status wsum_cpu(const double *X, size_t n_samples, int dim, const double *resp,
                    int n_components, const double *centres, const double *divisors, double add,
                    double *out);
gmm_status wsum_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                     const double *d_resp, int n_components, const double *d_centres,
                     const double *d_divisors, double add, double *d_partial, size_t partial_n,
                     double *d_out, void *stream);

#ifdef __cplusplus
}
#endif
#endif
