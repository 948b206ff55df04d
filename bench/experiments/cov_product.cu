/* Covariance-product experiments: the M-step's per-component products A_k^T A_k of the packed
 * sqrt(r_k)-scaled centred rows (contract: kernels/wcov.h's wcov_packed_cpu, the CPU twin;
 * versions: bench/experiments/experiments.h), all K on the cuBLAS lanes as the backend runs
 * them (block k on lane k % min(K, 12)).
 *   version 0  cov_product (models/backend/cuda/cov_product.cuh), what the backend runs: the
 *              lower 2 x 2 block triangle as three DGEMMs for d >= 128, one DGEMM below;
 *   version 1  one full DGEMM per component (GMM_CUDA_COV=gemm before);
 *   version 2  cuBLAS DSYRK (GMM_CUDA_COV=syrk before);
 *   version 3  cov_product_tiled_cuda, the tensor-core SYRK of wcov_cuda without centring and
 *              weighting (kernels/dense_syrk.cuh), moved here from kernels/wcov.cu where it was
 *              wcov_packed_cuda (GMM_CUDA_COV=tiled before); its slabs are summed with atomicAdd,
 *              so the last bits may differ between runs.
 * Measured in the EM iteration (H100, Fashion-MNIST 60000 x 784, K = 10, fp64): M-step 7.19 ms
 * with version 0 against 7.53 (1), 7.20 (2) and 7.73 ms (3) (bench/experiments/README.md). */
#include "bench/experiments/experiments.h"

#include "kernels/cuda_check.h"
#include "kernels/dense_syrk.cuh"
#include "models/backend/cuda/cov_product.cuh"

#define LANES_MOST 12 /* the backend's concurrent cuBLAS lanes */

extern "C" gmm_status cov_product_tiled_cuda(const double *d_A, size_t n_rows, int dim,
                                             int accumulate, double *d_out, void *stream)
{
    if (!d_A || !d_out || dim <= 0)
        return gmm_error(GMM_ERR_ARG, "cov_product_tiled_cuda: bad arguments");
    return dense_syrk::syrk_lower_accumulate<false, false>(d_A, n_rows, dim, nullptr, 0, nullptr,
                                                           d_out, dense_stream(stream),
                                                           accumulate == 0);
}

extern "C" gmm_status cov_product_version(int version, const double *d_A, int dim,
                                          const int *bounds, int n_blocks, int accumulate,
                                          double *d_out, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    const size_t dd = (size_t)dim * dim;
    const int n_lanes = n_blocks < LANES_MOST ? n_blocks : LANES_MOST;
    const double beta = accumulate ? 1.0 : 0.0;
    if (version < 0 || version >= COV_PRODUCT_N_VERSIONS)
        return gmm_error(GMM_ERR_ARG, "cov_product_version: no version %d", version);
    if (!d_A || !bounds || !d_out || !gpu || dim <= 0 || n_blocks <= 0)
        return gmm_error(GMM_ERR_ARG, "cov_product_version: bad arguments");
    for (int k = 0; k < n_blocks; k++) {
        gmm_gpu *lane = gmm_gpu_lane(gpu, k % n_lanes);
        const double *Ak = d_A + (size_t)bounds[k] * dim;
        const int rows = bounds[k + 1] - bounds[k];
        double *out = d_out + k * dd;
        if (!lane) return GMM_ERR_CUDA;
        if (rows == 0) {
            /* nothing kept: the product is 0 (accumulating: nothing to add), as the M-step */
            if (!accumulate) GMM_CUDA_CHECK(cudaMemset(out, 0, sizeof(double) * dd));
            continue;
        }
        switch (version) {
        case 0: status = cov_product<double>(lane, Ak, rows, dim, beta, out); break;
        case 1: status = cov_gemm_at_b(lane, dim, dim, rows, Ak, Ak, dim, beta, out, dim); break;
        case 2: status = gmm_gpu_dsyrk_at_a(lane, dim, rows, 1.0, Ak, dim, beta, out, dim); break;
        case 3:
            status = cov_product_tiled_cuda(Ak, (size_t)rows, dim, accumulate, out,
                                            gmm_gpu_stream(lane));
            break;
        }
        if (status != GMM_OK) return status;
    }
fail:
    return status;
}
