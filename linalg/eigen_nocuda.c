/* Stand-in for the GPU symmetric eigensolver when CUDA is not built. */
#include "linalg/eigen.h"

gmm_status eigen_sym_cusolver(const double *d_A, int dim, double *d_eigenvalues,
                              double *d_eigenvectors, gmm_gpu *gpu)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "eigen_sym_cusolver: built without CUDA");
}
