/* GPU version of the component masses and mixture weights (see mixture_weights.h), moved from
 * the CUDA backend's M-step (nk_kernel, weights_kernel) with its launch shapes. */
#include <float.h>

#include "kernels/mixture_weights.h"

#include "kernels/cuda_check.h"
#include "kernels/reduce.cuh"

#define NK_THREADS REDUCE_THREADS

/* nk[k] = sum_i R[i, k] + 10 eps, one block per k: a strided sum per thread, then the
 * fixed-order block_sum of kernels/reduce.cuh. */
static __global__ void nk_kernel(const double *__restrict__ R, int64_t n, int K, double *nk)
{
    __shared__ double sh[NK_THREADS];
    const int k = blockIdx.x;
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += R[i * K + k];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) nk[k] = s + 10 * DBL_EPSILON;
}

/* weights = nk / sum nk (summed in order, as the CPU); nk[K] = the sum. */
static __global__ void weights_kernel(double *nk, int K, double *weights)
{
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    double t = 0;
    for (int k = 0; k < K; k++) t += nk[k];
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
    nk_kernel<<<n_components, NK_THREADS, 0, s>>>(d_resp, (int64_t)n_samples, n_components, d_nk);
    GMM_LAUNCH_CHECK("nk_kernel");
    weights_kernel<<<1, 32, 0, s>>>(d_nk, n_components, d_weights);
    GMM_LAUNCH_CHECK("weights_kernel");
fail:
    return status;
}
