/* E-step product experiments: Y = X [U_1 .. U_K], the projections of every row onto every
 * component's precision factor (N x d by d x K d, float64, row-major; versions:
 * bench/experiments/experiments.h).
 *   version 0  one DGEMM over all the components: the call the CUDA backend's E-step makes for
 *              one column block (its product for d < 224 or tuning.estep_blocks = 1; for larger
 *              d it skips the zero blocks of the triangular factors, gmm-bench em's "fp64 E"
 *              rows);
 *   version 1  K DGEMMs X U_k, one per component, into the same layout (GMM_CUDA_ESTEP=kgemm
 *              before), moved here from models/backend/cuda/cuda_estep.cu.
 * Measured in the EM iteration (H100, Fashion-MNIST 60000 x 784, K = 10, fp64): E-step 14.5 ms
 * with K GEMMs against 13.3 ms with one (and 8.9 ms for the default 7 column blocks). */
#include "bench/experiments/experiments.h"

extern "C" gmm_status estep_product_version(int version, const double *d_X, size_t n_rows,
                                            int dim, int n_components, const double *d_U,
                                            double *d_Y, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    const int W = n_components * dim;
    if (!d_X || !d_U || !d_Y || !gpu || dim <= 0 || n_components <= 0 || n_rows > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "estep_product_version: bad arguments");
    switch (version) {
    case 0:
        return gmm_gpu_dgemm(gpu, false, false, (int)n_rows, W, dim, 1.0, d_X, dim, d_U, W, 0.0,
                             d_Y, W);
    case 1:
        for (int k = 0; k < n_components && status == GMM_OK; k++)
            status = gmm_gpu_dgemm(gpu, false, false, (int)n_rows, dim, dim, 1.0, d_X, dim,
                                   d_U + (size_t)k * dim, W, 0.0, d_Y + (size_t)k * dim, W);
        return status;
    default: return gmm_error(GMM_ERR_ARG, "estep_product_version: no version %d", version);
    }
}
