/* GPU version of the lower triangular solve L X = B (see trsm.h): cuBLAS DTRSM through the GPU
 * resources object. The hand-written blocked kernel that lost to it moved to
 * bench/experiments/trsm.cu. */
#include "linalg/trsm.h"

extern "C" gmm_status trsm_cublas(const double *d_L, int dim, double *d_B, size_t n_rhs,
                                  gmm_gpu *gpu)
{
    if (!gpu || !d_L || !d_B || dim <= 0 || n_rhs > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "trsm_cublas: bad arguments");
    if (n_rhs == 0) return GMM_OK;
    return gmm_gpu_lower_solve(gpu, dim, (int)n_rhs, d_L, dim, d_B, (int)n_rhs);
}
