/* Stand-ins for the M-step operations' GPU entry points when CUDA is not built (scaled_centre.h,
 * compact.h, wsum.h, mixture_weights.h, wcov.h's wcov_packed_cuda). */
#include "kernels/compact.h"
#include "kernels/mixture_weights.h"
#include "kernels/scaled_centre.h"
#include "kernels/wcov.h"
#include "kernels/wsum.h"

#define NO_DEVICE(name) gmm_error(GMM_ERR_NO_DEVICE, "%s: built without CUDA", name)

gmm_status scaled_centre_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                              const double *d_weights, size_t weight_stride, int n_components,
                              const double *d_means, void *d_out, gmm_elem out_elem,
                              void *stream)
{
    return NO_DEVICE("scaled_centre_cuda");
}
gmm_status compact_rows_workspace_bytes(size_t max_rows, int n_components, size_t *bytes)
{
    return NO_DEVICE("compact_rows_workspace_bytes");
}
gmm_status compact_rows_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                             const double *d_weights, size_t weight_stride, int n_components,
                             const double *d_means, void *d_packed, gmm_elem packed_elem,
                             void *d_workspace, size_t workspace_bytes, int *bounds,
                             void *stream)
{
    return NO_DEVICE("compact_rows_cuda");
}
gmm_status wsum_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                     const double *d_resp, int n_components, const double *d_centres,
                     const double *d_divisors, double add, double *d_partial, size_t partial_n,
                     double *d_out, void *stream)
{
    return NO_DEVICE("wsum_cuda");
}
gmm_status mixture_weights_cuda(const double *d_resp, size_t n_samples, int n_components,
                                double *d_nk, double *d_weights, void *stream)
{
    return NO_DEVICE("mixture_weights_cuda");
}
gmm_status wcov_packed_cuda(const double *d_A, size_t n_rows, int dim, int accumulate,
                            double *d_out, void *stream)
{
    return NO_DEVICE("wcov_packed_cuda");
}
