/* GPU version of the scaled centring (see scaled_centre.h): the M-step's former
 * scaled_centre_kernel and wcov's former sqrt_weight_rows_kernel, one kernel. */
#include "kernels/scaled_centre.h"

#include "kernels/cuda_check.h"
#include "kernels/grid.cuh"

/* A[k][i, j] = sqrt(w[i * stride + k]) * (X[i, j] - mu[k, j]) for every k: K blocks of rows x d,
 * X read once. */
template <typename TX, typename TA>
static __global__ void scaled_centre_kernel(const TX *__restrict__ X, int64_t rows, int d,
                                            const double *__restrict__ w, size_t w_stride, int K,
                                            const double *__restrict__ mu, TA *__restrict__ A)
{
    const int64_t n = rows * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t i = e / d;
        const int j = (int)(e - i * d);
        const double x = (double)X[e];
        for (int k = 0; k < K; k++)
            A[(int64_t)k * n + e] = (TA)(sqrt(w[i * w_stride + k]) * (x - mu[(int64_t)k * d + j]));
    }
}

template <typename TX, typename TA>
static gmm_status launch(const void *X, size_t n, int d, const double *w, size_t stride, int K,
                         const double *mu, void *A, cudaStream_t s)
{
    gmm_status status = GMM_OK;
    scaled_centre_kernel<TX, TA><<<kernel_grid_for((int64_t)n * d, 256), 256, 0, s>>>(
        (const TX *)X, (int64_t)n, d, w, stride, K, mu, (TA *)A);
    GMM_LAUNCH_CHECK("scaled_centre_kernel");
fail:
    return status;
}

extern "C" gmm_status scaled_centre_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples,
                                         int dim, const double *d_weights, size_t weight_stride,
                                         int n_components, const double *d_means, void *d_out,
                                         gmm_elem out_elem, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    if (!d_X || !d_weights || !d_means || !d_out || dim <= 0 || n_components <= 0 ||
        weight_stride < 1)
        return gmm_error(GMM_ERR_ARG, "scaled_centre_cuda: bad arguments");
    if (n_samples == 0) return GMM_OK;
    if (x_elem == GMM_ELEM_F64)
        return out_elem == GMM_ELEM_F64
                   ? launch<double, double>(d_X, n_samples, dim, d_weights, weight_stride,
                                            n_components, d_means, d_out, s)
                   : launch<double, float>(d_X, n_samples, dim, d_weights, weight_stride,
                                           n_components, d_means, d_out, s);
    return out_elem == GMM_ELEM_F64
               ? launch<float, double>(d_X, n_samples, dim, d_weights, weight_stride,
                                       n_components, d_means, d_out, s)
               : launch<float, float>(d_X, n_samples, dim, d_weights, weight_stride, n_components,
                                      d_means, d_out, s);
}
