/* The CUDA backend's part of a variational fit (see backend_cuda.cuh and models/bayes.h): the
 * posterior's K- and d-sized arithmetic runs on the host from N_k and the means (K + K d values
 * down, K d + 4K up per M-step), the covariance update on the device (kernels/bayes_covariance.h,
 * no covariance crosses), and the entropy of the responsibilities by a device reduction. */
#include "kernels/bayes_covariance.h"
#include "kernels/reduce.h"
#include "linalg/log_det.h"
#include "models/backend/cuda/backend_cuda.cuh"
#include "models/bayes.h"
#include "models/precisions.h"

gmm_status cuda_bayes_alloc(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    if (!c->bayes_prior) return GMM_OK;
    const size_t K = (size_t)c->n_components, d = (size_t)c->dim;
    const size_t n_prior = gmm_bayes_prior_cov_size(c->type, c->dim);
    if ((status = gmm_bayes_new_from_prior(&c->bayes, c->bayes_prior, c->type, c->n_components,
                                           c->dim)) != GMM_OK)
        return status;
    if (!(c->h_bayes = (double *)malloc(sizeof(double) * (2 * K * d + 7 * K))))
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the variational parameters");
    GMM_CUDA_CHECK(cudaMalloc((void **)&c->d_cov_prior, sizeof(double) * n_prior));
    GMM_CUDA_CHECK(cudaMalloc((void **)&c->d_bayes_diff, sizeof(double) * K * d));
    GMM_CUDA_CHECK(cudaMalloc((void **)&c->d_bayes_coef, sizeof(double) * 3 * K));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_cov_prior, c->bayes->covariance_prior, sizeof(double) * n_prior,
                              cudaMemcpyHostToDevice));
fail:
    return status;
}

void cuda_bayes_free(gmm_backend_ctx *c)
{
    gmm_bayes_free(c->bayes);
    free(c->h_bayes);
    cudaFree(c->d_cov_prior); /* teardown: a NULL is a no-op */
    cudaFree(c->d_bayes_diff);
    cudaFree(c->d_bayes_coef);
    c->bayes = NULL;
    c->h_bayes = c->d_cov_prior = c->d_bayes_diff = c->d_bayes_coef = NULL;
}

gmm_status cuda_bayes_posterior(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    double *means = c->h_bayes, *diff = means + (size_t)K * d, *coef = diff + (size_t)K * d;
    double *weights = coef + 3 * K;
    GMM_CUDA_CHECK(cudaMemcpy(c->h_nk, c->d_nk, sizeof(double) * K, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(means, c->d_means, sizeof(double) * K * d, cudaMemcpyDeviceToHost));
    gmm_bayes_m_step(c->bayes, c->type, K, d, c->h_nk, means, diff, coef, weights);
    GMM_CUDA_CHECK(cudaMemcpy(c->d_means, means, sizeof(double) * K * d, cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_bayes_diff, diff, sizeof(double) * K * d,
                              cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_bayes_coef, coef, sizeof(double) * 3 * K,
                              cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_weights, weights, sizeof(double) * K, cudaMemcpyHostToDevice));
    status = bayes_covariance_cuda((bayes_cov_layout)c->type, K, d, c->d_cov_prior,
                                   c->d_bayes_coef, c->d_bayes_diff, c->d_cov, NULL);
fail:
    return status;
}

gmm_status cuda_bayes_constants(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    double *log_det = c->h_bayes + 2 * (size_t)K * d + 4 * K, *constants = log_det + K;
    if ((status = log_det_cholesky_cuda(gmm_log_det_layout(c->type), K, d, c->d_prec, NULL,
                                        c->d_const, NULL)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(log_det, c->d_const, sizeof(double) * K, cudaMemcpyDeviceToHost));
    gmm_bayes_estep_constants(c->bayes, K, d, log_det, constants);
    GMM_CUDA_CHECK(cudaMemcpy(c->d_const, constants, sizeof(double) * K, cudaMemcpyHostToDevice));
fail:
    return status;
}

double cuda_bayes_lower_bound(const gmm_backend_ctx *c)
{
    const int K = c->n_components, d = c->dim;
    const double *log_det = c->h_bayes + 2 * (size_t)K * d + 4 * K;
    return c->entropy - gmm_bayes_bound_terms(c->bayes, c->type, K, d, log_det);
}

gmm_status cuda_bayes_entropy(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    status = reduce_resp_entropy_cuda(c->d_log_resp, (size_t)c->n_samples * c->n_components,
                                      c->d_partial, c->d_scalar, gmm_gpu_stream(c->gpu));
    if (status != GMM_OK) goto fail;
    if ((status = cuda_comm_sum(c, c->d_scalar, 1)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(&c->entropy, c->d_scalar, sizeof(double), cudaMemcpyDeviceToHost));
fail:
    return status;
}
