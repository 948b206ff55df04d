/* Stand-ins for the E-step's row operation and the reductions on the GPU when CUDA is not built
 * (see estep_rows.h and reduce.h). */
#include "kernels/estep_rows.h"
#include "kernels/reduce.h"

#define NO_DEVICE(name) gmm_error(GMM_ERR_NO_DEVICE, "%s: built without CUDA", name)

gmm_status estep_rows_cuda(estep_rows_mode mode, const double *d_Y, size_t ld_y,
                           size_t comp_stride, size_t col_block, const double *d_centers,
                           const double *d_scales, const double *d_log_const, size_t n_rows,
                           int n_components, int dim, double *d_log_resp, double *d_log_prob_norm,
                           void *stream)
{
    return NO_DEVICE("estep_rows_cuda");
}
gmm_status estep_rows_f32_cuda(estep_rows_mode mode, const float *d_Y, size_t ld_y,
                               size_t comp_stride, size_t col_block, const double *d_centers,
                               const double *d_scales, const double *d_log_const, size_t n_rows,
                               int n_components, int dim, double *d_log_resp,
                               double *d_log_prob_norm, void *stream)
{
    return NO_DEVICE("estep_rows_f32_cuda");
}
gmm_status reduce_sum_cuda(const double *d_x, size_t n, double scale, double *d_partial,
                           double *d_out, void *stream)
{
    return NO_DEVICE("reduce_sum_cuda");
}
gmm_status reduce_cols_cuda(const double *d_x, size_t n_rows, int n_cols, double *d_out,
                            void *stream)
{
    return NO_DEVICE("reduce_cols_cuda");
}
