/* GPU versions of the weighted covariance (see wcov.h and dense_syrk.cuh). */
#include "kernels/wcov.h"

#include "kernels/dense_syrk.cuh"
#include "kernels/scaled_centre.h"

extern "C" gmm_status wcov_cuda(const double *d_X, size_t n_samples, int dim,
                                const double *d_weights, size_t weight_stride,
                                const double *d_mean, double *d_cov, void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(stream);
    double *d_inv_sum = nullptr;
    if (!d_X || !d_weights || !d_mean || !d_cov || dim <= 0 || n_samples == 0 ||
        weight_stride == 0)
        return gmm_error(GMM_ERR_ARG, "wcov_cuda: bad arguments");
    GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_inv_sum, sizeof(double), s));
    if ((status = dense_inverse_weight_sum(d_weights, n_samples, weight_stride, d_inv_sum, s)) !=
        GMM_OK)
        goto fail;
    if ((status = dense_syrk::syrk_lower_accumulate<true, true>(
             d_X, n_samples, dim, d_weights, weight_stride, d_mean, d_cov, s)) != GMM_OK)
        goto fail;
    status = dense_mirror_scale(d_cov, dim, 1.0, d_inv_sum, s);
fail:
    if (d_inv_sum) cudaFreeAsync(d_inv_sum, s);
    return status;
}

extern "C" gmm_status wcov_cublas(const double *d_X, size_t n_samples, int dim,
                                  const double *d_weights, size_t weight_stride,
                                  const double *d_mean, double *d_cov, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(gmm_gpu_stream(gpu));
    double *d_scaled = nullptr, *d_inv_sum = nullptr;
    if (!gpu || !d_X || !d_weights || !d_mean || !d_cov || dim <= 0 || n_samples == 0 ||
        weight_stride == 0 || n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "wcov_cublas: bad arguments");
    GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_scaled, sizeof(double) * n_samples * dim, s));
    GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_inv_sum, sizeof(double), s));
    if ((status = dense_inverse_weight_sum(d_weights, n_samples, weight_stride, d_inv_sum, s)) !=
        GMM_OK)
        goto fail;
    if ((status = scaled_centre_cuda(d_X, GMM_ELEM_F64, n_samples, dim, d_weights, weight_stride,
                                     1, d_mean, d_scaled, GMM_ELEM_F64, s)) != GMM_OK)
        goto fail;
    if ((status = gmm_gpu_dsyrk_at_a(gpu, dim, (int)n_samples, 1.0, d_scaled, dim, 0.0, d_cov,
                                     dim)) != GMM_OK)
        goto fail;
    status = dense_mirror_scale(d_cov, dim, 1.0, d_inv_sum, s);
fail:
    if (d_scaled) cudaFreeAsync(d_scaled, s);
    if (d_inv_sum) cudaFreeAsync(d_inv_sum, s);
    return status;
}
