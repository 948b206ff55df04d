/* GPU version of the component masses and mixture weights (see mixture_weights.h), composed from
 * the column sums of kernels/reduce.h and one finishing kernel. */
#include <float.h>

#include "kernels/mixture_weights.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.h"

/* nk += 10 eps; weights = nk / sum nk (summed in order, as the CPU); nk[K] = the sum. */
static __global__ void weights_kernel(double *nk, int K, double *weights)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double t = 0;
    for (int k = 0; k < K; k++) {
        nk[k] += 10 * DBL_EPSILON;
        t += nk[k];
    }
    for (int k = 0; k < K; k++) weights[k] = nk[k] / t;
    nk[K] = t;
}

extern "C" gmm_status mixture_weights_cuda(const double *d_resp, size_t n_samples,
                                           int n_components, double *d_nk, double *d_weights,
                                           void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    if (!d_resp || !d_nk || !d_weights || n_components <= 0)
        return gmm_error(GMM_ERR_ARG, "mixture_weights_cuda: bad arguments");
    /* N_k: the column sums of kernels/reduce.h (one fixed-order block per component) */
    if ((status = reduce_cols_cuda(d_resp, n_samples, n_components, d_nk, stream)) != GMM_OK)
        return status;
    weights_kernel<<<1, 32, 0, s>>>(d_nk, n_components, d_weights);
    GMM_LAUNCH_CHECK("weights_kernel");
fail:
    return status;
}
