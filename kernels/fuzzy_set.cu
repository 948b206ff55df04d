/* The CUDA version of UMAP's rho, sigma and memberships (kernels/fuzzy_set.h): one thread per
 * row, the CPU twin's smooth_row and membership loop (kernels/fuzzy_set.c) step by step in
 * float64. The one product that feeds a sum (rho's interpolation) is rounded by itself
 * (__dmul_rn, no fused multiply-add), so the two versions differ only where the device's exp
 * differs from the host's by an ulp. */
#include <math.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/fuzzy_set.h"

namespace {

constexpr double TOLERANCE = 1e-5; /* as fuzzy_set.c */
constexpr double MIN_SCALE = 1e-3;
constexpr int N_ITER = 64;
constexpr int THREADS = 128;

__device__ double nth_positive(const int32_t *idx, const float *dist, int k, int p)
{
    for (int j = 0; j < k; j++)
        if (idx[j] != -1 && dist[j] > 0 && p-- == 0) return dist[j];
    return 0;
}

__global__ void __launch_bounds__(THREADS)
fuzzy_memberships_kernel(const int32_t *__restrict__ nn_index, const float *__restrict__ nn_dist,
                         int64_t n, int k, double local_connectivity, int bipartite,
                         double target, double mean_all, double *__restrict__ rho_out,
                         double *__restrict__ sigma_out, double *__restrict__ memberships)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int32_t *idx = nn_index + i * k;
    const float *dist = nn_dist + i * k;
    double *w = memberships + i * k;

    int n_positive = 0, n_listed = 0;
    double row_sum = 0, max_positive = 0;
    for (int j = 0; j < k; j++) {
        if (idx[j] == -1) continue;
        const double d = dist[j];
        n_listed++;
        row_sum += d;
        if (d > 0) {
            n_positive++;
            if (d > max_positive) max_positive = d;
        }
    }
    double rho = 0;
    if (n_positive >= local_connectivity) {
        const int index = (int)floor(local_connectivity);
        const double interpolation = local_connectivity - index;
        if (index > 0) {
            const double below = nth_positive(idx, dist, k, index - 1);
            rho = below;
            if (interpolation > TOLERANCE)
                rho = __dadd_rn(rho, __dmul_rn(interpolation,
                                               nth_positive(idx, dist, k, index) - below));
        } else {
            rho = __dmul_rn(interpolation, nth_positive(idx, dist, k, 0));
        }
    } else if (n_positive > 0) {
        rho = max_positive;
    }

    double lo = 0, hi = INFINITY, mid = 1;
    for (int it = 0; it < N_ITER; it++) {
        double psum = 0;
        for (int j = 1; j < k; j++) {
            if (idx[j] == -1) continue;
            const double d = dist[j] - rho;
            psum += d > 0 ? exp(-(d / mid)) : 1.0;
        }
        if (fabs(psum - target) < TOLERANCE) break;
        if (psum > target) {
            hi = mid;
            mid = (lo + hi) / 2.0;
        } else {
            lo = mid;
            mid = hi == INFINITY ? mid * 2 : (lo + hi) / 2.0;
        }
    }
    double sigma = mid;
    if (rho > 0) {
        const double floor_row = __dmul_rn(MIN_SCALE, row_sum / n_listed);
        if (sigma < floor_row) sigma = floor_row;
    } else if (sigma < __dmul_rn(MIN_SCALE, mean_all)) {
        sigma = __dmul_rn(MIN_SCALE, mean_all);
    }
    rho_out[i] = rho;
    sigma_out[i] = sigma;

    for (int j = 0; j < k; j++) {
        if (idx[j] == -1 || (!bipartite && idx[j] == i)) {
            w[j] = 0;
            continue;
        }
        const double d = dist[j] - rho;
        w[j] = d <= 0 || sigma == 0 ? 1.0 : exp(-(d / sigma));
    }
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
