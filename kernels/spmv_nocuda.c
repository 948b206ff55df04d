/* Stand-in for the CUDA SpMV in a build without CUDA: it reports that no GPU is built in. */
#include "kernels/spmv.h"

gmm_status spmv_csr_cuda(int64_t n_rows, const int64_t *d_row_ptr, const int32_t *d_col,
                         const double *d_val, const double *d_x, double *d_y, void *stream)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "spmv_csr_cuda: this build has no CUDA support");
}
