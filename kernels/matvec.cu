/* GPU versions of the matrix-vector product (see matvec.h): the float32 kernel (the template of
 * kernels/matvec_kernel.cuh at float) and the cuBLAS GEMV paths. The same kernel at double lost to
 * DGEMV and moved to bench/experiments/matvec.cu. */
#include "kernels/matvec.h"

#include "kernels/matvec_kernel.cuh"

extern "C" gmm_status matvec_f32_cuda(const float *d_A, size_t n_rows, size_t n_cols,
                                      const float *d_x, float *d_y, void *stream)
{
    return matvec_detail::matvec_launch<float>(d_A, n_rows, n_cols, d_x, d_y, dense_stream(stream),
                                              "matvec_f32_cuda");
}

extern "C" gmm_status matvec_f32_cublas(const float *d_A, size_t n_rows, size_t n_cols,
                                        const float *d_x, float *d_y, gmm_gpu *gpu)
{
    if (!gpu || !d_A || !d_x || !d_y || n_rows > 0x7fffffff || n_cols > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matvec_f32_cublas: bad arguments");
    if (n_rows == 0) return GMM_OK;
    return gmm_gpu_sgemv(gpu, (int)n_rows, (int)n_cols, d_A, (int)(n_cols ? n_cols : 1), d_x, d_y);
}

extern "C" gmm_status matvec_f64_cublas(const double *d_A, size_t n_rows, size_t n_cols,
                                        const double *d_x, double *d_y, gmm_gpu *gpu)
{
    if (!gpu || !d_A || !d_x || !d_y || n_rows > 0x7fffffff || n_cols > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "matvec_f64_cublas: bad arguments");
    if (n_rows == 0) return GMM_OK;
    return gmm_gpu_dgemv(gpu, (int)n_rows, (int)n_cols, d_A, (int)(n_cols ? n_cols : 1), d_x, d_y);
}
