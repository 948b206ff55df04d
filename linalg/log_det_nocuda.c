/* Stand-in for log_det_cholesky_cuda when CUDA is not built (see log_det.h). */
#include "linalg/log_det.h"

gmm_status log_det_cholesky_cuda(log_det_layout layout, int n_components, int dim,
                                 const double *d_prec_chol, const double *d_weights,
                                 double *d_out, void *stream)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "log_det_cholesky_cuda: built without CUDA");
}
