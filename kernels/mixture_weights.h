/* The M-step's component masses and mixture weights from the responsibilities (n_samples x
 * n_components, ROW-MAJOR), as scikit-learn:
 *   nk[k] = sum_i resp[i][k] + 10 * DBL_EPSILON,  nk[K] = sum_k nk[k] (in k order),
 *   weights[k] = nk[k] / nk[K]
 * nk holds n_components + 1 values. float64.
 *   mixture_weights_cpu   the readable specification: samples summed in index order (the CPU
 *                         backend's fit is the same to the bit with any thread count);
 *   mixture_weights_cuda  one block per component (a fixed-order tree sum: deterministic), then
 *                         one thread for the total and the weights.
 * The GPU version takes device pointers and an optional cudaStream_t as void*; it returns once
 * the work is queued. */
#ifndef GMM_MIXTURE_WEIGHTS_H
#define GMM_MIXTURE_WEIGHTS_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status mixture_weights_cpu(const double *resp, size_t n_samples, int n_components,
                               double *nk, double *weights);
gmm_status mixture_weights_cuda(const double *d_resp, size_t n_samples, int n_components,
                                double *d_nk, double *d_weights, void *stream);

#ifdef __cplusplus
}
#endif
#endif
