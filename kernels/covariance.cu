/* GPU versions of the covariance of centred data (see covariance.h and dense_syrk.cuh). */
#include "kernels/covariance.h"

#include "kernels/dense_syrk.cuh"

static double covariance_scale(size_t n) { return 1.0 / (double)(n > 1 ? n - 1 : 1); }

extern "C" gmm_status covariance_cuda(const double *d_X, size_t n_samples, int dim, double *d_cov,
                                      void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(stream);
    if (!d_X || !d_cov || dim <= 0 || n_samples == 0)
        return gmm_error(GMM_ERR_ARG, "covariance_cuda: bad arguments");
    if ((status = dense_syrk::syrk_lower_accumulate<false, false>(d_X, n_samples, dim, nullptr, 0,
                                                                   nullptr, d_cov, s)) != GMM_OK)
        return status;
    return dense_mirror_scale(d_cov, dim, covariance_scale(n_samples), nullptr, s);
}

extern "C" gmm_status covariance_cublas(const double *d_X, size_t n_samples, int dim,
                                        double *d_cov, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    if (!gpu || !d_X || !d_cov || dim <= 0 || n_samples == 0 || n_samples > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "covariance_cublas: bad arguments");
    if ((status = gmm_gpu_dsyrk_at_a(gpu, dim, (int)n_samples, 1.0, d_X, dim, 0.0, d_cov, dim)) !=
        GMM_OK)
        return status;
    return dense_mirror_scale(d_cov, dim, covariance_scale(n_samples), nullptr,
                              dense_stream(gmm_gpu_stream(gpu)));
}
