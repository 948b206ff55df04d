/* Stand-ins for the linalg GPU entry points (the vendor-library paths) when CUDA is not built. */
#include "linalg/chol_inverse.h"
#include "linalg/cholesky.h"
#include "linalg/lanczos.h"
#include "linalg/trsm.h"

#define NO_DEVICE(name) gmm_error(GMM_ERR_NO_DEVICE, "%s: built without CUDA", name)

gmm_status cholesky_cusolver(double *d_A, int dim, int batch, int *failed_order, gmm_gpu *gpu)
{
    return NO_DEVICE("cholesky_cusolver");
}
gmm_status trsm_cublas(const double *d_L, int dim, double *d_B, size_t n_rhs, gmm_gpu *gpu)
{
    return NO_DEVICE("trsm_cublas");
}
gmm_status lanczos_largest_cuda(const csr_matrix *A, int k, const lanczos_options *options,
                                gmm_gpu *gpu, double *eigenvalues, double *eigenvectors,
                                lanczos_report *report)
{
    return NO_DEVICE("lanczos_largest_cuda");
}
gmm_status chol_inverse_cuda(const double *d_S, int dim, int batch, double *d_U, double *d_work,
                             int *d_info, gmm_gpu *gpu)
{
    return NO_DEVICE("chol_inverse_cuda");
}
