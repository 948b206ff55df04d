/* The CUDA version of the CSR sparse matrix-vector product (kernels/spmv.h). */
#include "kernels/cuda_check.h"
#include "kernels/spmv.h"

static __global__ void spmv_csr_kernel(int64_t n_rows, const int64_t *__restrict__ row_ptr,
                                       const int32_t *__restrict__ col,
                                       const double *__restrict__ val,
                                       const double *__restrict__ x, double *__restrict__ y)
{
    const int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i >= n_rows) return;
    double s = 0;
    for (int64_t p = row_ptr[i]; p < row_ptr[i + 1]; p++) s += val[p] * __ldg(x + col[p]);
    y[i] = s;
}

extern "C" gmm_status spmv_csr_cuda(int64_t n_rows, const int64_t *d_row_ptr,
                                    const int32_t *d_col, const double *d_val, const double *d_x,
                                    double *d_y, void *stream)
{
    gmm_status status = GMM_OK;
    if (n_rows < 0 || (n_rows > 0 && (!d_row_ptr || !d_col || !d_val || !d_x || !d_y)))
        return gmm_error(GMM_ERR_ARG, "spmv_csr_cuda: bad arguments");
    if (n_rows == 0) return GMM_OK;
    spmv_csr_kernel<<<(unsigned)((n_rows + 255) / 256), 256, 0, (cudaStream_t)stream>>>(
        n_rows, d_row_ptr, d_col, d_val, d_x, d_y);
    GMM_LAUNCH_CHECK("spmv_csr_kernel");
fail:
    return status;
}
