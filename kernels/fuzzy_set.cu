/* The CUDA version of UMAP's rho, sigma and memberships (kernels/fuzzy_set.h): one thread per
 * row running the row the CPU twin runs (kernels/fuzzy_set_row.h), in float64, so the two
 * versions differ only where the device's exp differs from the host's by an ulp. */
#include <math.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/fuzzy_set.h"
#include "kernels/fuzzy_set_row.h"

namespace {

constexpr int THREADS = 128;

__global__ void __launch_bounds__(THREADS)
fuzzy_memberships_kernel(const int32_t *__restrict__ nn_index, const float *__restrict__ nn_dist,
                         int64_t n, int k, double local_connectivity, int bipartite,
                         double target, double mean_all, double *__restrict__ rho_out,
                         double *__restrict__ sigma_out, double *__restrict__ memberships)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    fuzzy_set_row(i, nn_index + i * k, nn_dist + i * k, k, local_connectivity, bipartite, target,
                  mean_all, rho_out + i, sigma_out + i, memberships + i * k);
}

} // namespace

extern "C" gmm_status fuzzy_memberships_cuda(const int32_t *nn_index, const float *nn_dist,
                                             int64_t n, int k, double local_connectivity,
                                             int bipartite, double *rho, double *sigma,
                                             double *memberships)
{
    gmm_status status = GMM_OK;
    int32_t *d_index = nullptr;
    float *d_dist = nullptr;
    double *d_rho = nullptr, *d_sigma = nullptr, *d_w = nullptr;
    double mean_all;
    status = fuzzy_memberships_check(nn_index, nn_dist, n, k, local_connectivity, rho, sigma,
                                     memberships, &mean_all);
    if (status != GMM_OK) return status;
    if ((n + THREADS - 1) / THREADS > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "fuzzy set: %lld points are too many for one launch",
                         (long long)n);
    {
        const size_t nk = (size_t)n * (size_t)k;
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_index, nk * sizeof(int32_t)));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_dist, nk * sizeof(float)));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_rho, (size_t)n * sizeof(double)));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_sigma, (size_t)n * sizeof(double)));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_w, nk * sizeof(double)));
        GMM_CUDA_CHECK(cudaMemcpy(d_index, nn_index, nk * sizeof(int32_t),
                                  cudaMemcpyHostToDevice));
        GMM_CUDA_CHECK(cudaMemcpy(d_dist, nn_dist, nk * sizeof(float), cudaMemcpyHostToDevice));
        fuzzy_memberships_kernel<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS>>>(
            d_index, d_dist, n, k, local_connectivity, bipartite != 0, log2((double)k), mean_all,
            d_rho, d_sigma, d_w);
        GMM_LAUNCH_CHECK("fuzzy_memberships_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(rho, d_rho, (size_t)n * sizeof(double), cudaMemcpyDeviceToHost));
        GMM_CUDA_CHECK(cudaMemcpy(sigma, d_sigma, (size_t)n * sizeof(double),
                                  cudaMemcpyDeviceToHost));
        GMM_CUDA_CHECK(cudaMemcpy(memberships, d_w, nk * sizeof(double), cudaMemcpyDeviceToHost));
    }
fail:
    cudaFree(d_index);
    cudaFree(d_dist);
    cudaFree(d_rho);
    cudaFree(d_sigma);
    cudaFree(d_w);
    return status;
}
