/* The M-step's per-component covariance product out (d x d, lower triangle valid) (+)= A^T A for
 * A rows x d (the sqrt(r_k)-scaled centred rows of one component) on one cuBLAS handle, as the
 * CUDA backend forms it: for d >= 128 the lower 2 x 2 block triangle as three GEMMs (3/4 of a full
 * GEMM's work at the GEMM rate: cuBLAS's SYRK ran at about a third of the DGEMM rate on this
 * d x d output, 60000-deep shape), one GEMM below. The covariance reads the lower triangle only.
 * Shared by cuda_mstep.cu and bench/experiments/cov_product.cu, whose version 0 it is: the
 * products that lost to it (a full GEMM, SYRK, the tensor-core kernel) are timed against it
 * there. */
#ifndef GMM_COV_PRODUCT_CUH
#define GMM_COV_PRODUCT_CUH

#include "kernels/gpu.h"

static inline gmm_status cov_gemm_at_b(gmm_gpu *h, int m, int n, int k, const double *A,
                                       const double *B, int ld, double beta, double *C, int ldc)
{
    return gmm_gpu_dgemm(h, true, false, m, n, k, 1.0, A, ld, B, ld, beta, C, ldc);
}

static inline gmm_status cov_gemm_at_b(gmm_gpu *h, int m, int n, int k, const float *A,
                                       const float *B, int ld, float beta, float *C, int ldc)
{
    return gmm_gpu_sgemm(h, true, false, m, n, k, 1.0f, A, ld, B, ld, beta, C, ldc);
}

/* The smallest d that takes the block triangle (below it one GEMM is as fast). */
#define COV_PRODUCT_LOWER_MIN_DIM 128

/* out (d x d, lower triangle valid) = A^T A (beta 0) or += A^T A (beta 1), A rows x d
 * (row-major, leading dimension d), on h's stream. */
template <typename TA>
static inline gmm_status cov_product(gmm_gpu *h, const TA *A, int rows, int d, TA beta, TA *out)
{
    gmm_status status = GMM_OK;
    if (d < COV_PRODUCT_LOWER_MIN_DIM) return cov_gemm_at_b(h, d, d, rows, A, A, d, beta, out, d);
    const int h0 = (d + 1) / 2, sz[2] = {h0, d - h0};
    for (int bi = 0; bi < 2; bi++)
        for (int bj = 0; bj <= bi; bj++) {
            status = cov_gemm_at_b(h, sz[bi], sz[bj], rows, A + bi * h0, A + bj * h0, d, beta,
                                   out + (size_t)bi * h0 * d + bj * h0, d);
            if (status != GMM_OK) return status;
        }
    return status;
}

#endif
