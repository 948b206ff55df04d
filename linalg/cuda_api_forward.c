/* The linear-algebra layer's CUDA entry points in the CPU core: stand-ins that forward each call
 * through the table the CUDA backend library exports (linalg/cuda_api.h), or return
 * GMM_ERR_NO_DEVICE saying which library is missing (kernels/cuda_loader.h). */
#include "linalg/cuda_api.h"

GMM_CUDA_API_GETTER(linalg_api, gmm_linalg_cuda_api, GMM_LINALG_CUDA_API_SYMBOL)
#define FORWARD(name, ...) GMM_CUDA_FORWARD(linalg_api, name, __VA_ARGS__)

gmm_status cholesky_cusolver(double *d_A, int dim, int batch, int *failed_order, gmm_gpu *gpu)
{
    FORWARD(cholesky_cusolver, d_A, dim, batch, failed_order, gpu);
}

gmm_status chol_inverse_cuda(const double *d_S, int dim, int batch, double *d_U, double *d_work,
                             int *d_info, gmm_gpu *gpu)
{
    FORWARD(chol_inverse_cuda, d_S, dim, batch, d_U, d_work, d_info, gpu);
}

gmm_status trsm_cublas(const double *d_L, int dim, double *d_B, size_t n_rhs, gmm_gpu *gpu)
{
    FORWARD(trsm_cublas, d_L, dim, d_B, n_rhs, gpu);
}

gmm_status eigen_sym_cusolver(const double *d_A, int dim, double *d_eigenvalues,
                              double *d_eigenvectors, gmm_gpu *gpu)
{
    FORWARD(eigen_sym_cusolver, d_A, dim, d_eigenvalues, d_eigenvectors, gpu);
}

gmm_status lanczos_largest_cuda(const csr_matrix *A, int k, const lanczos_options *options,
                                gmm_gpu *gpu, double *eigenvalues, double *eigenvectors,
                                lanczos_report *report)
{
    FORWARD(lanczos_largest_cuda, A, k, options, gpu, eigenvalues, eigenvectors, report);
}

gmm_status log_det_cholesky_cuda(log_det_layout layout, int n_components, int dim,
                                 const double *d_prec_chol, const double *d_weights,
                                 double *d_out, void *stream)
{
    FORWARD(log_det_cholesky_cuda, layout, n_components, dim, d_prec_chol, d_weights, d_out,
            stream);
}
