/* Internal to the Cholesky GPU code: the two pieces that the library's cuSOLVER path
 * (linalg/cholesky.cu) shares with the hand-written experiment (bench/experiments/cholesky.cu). */
#ifndef GMM_CHOLESKY_INTERNAL_CUH
#define GMM_CHOLESKY_INTERNAL_CUH

#include "kernels/cuda_check.h"

/* One launch over the pairs (i > j) of each of `batch` dim x dim matrices; mode 0: zero the
 * strict upper triangle; mode 1: copy the lower triangle onto the upper one; mode 2: move the
 * upper triangle to the lower one and zero it (cuSOLVER's column-major lower factor to our
 * row-major lower factor). */
gmm_status cholesky_triangle_pass(double *d_A, int dim, int batch, int mode, cudaStream_t s);

/* Copies the per-matrix potrf info (h_info, host) to failed_order (when not NULL) and returns
 * GMM_ERR_CHOLESKY naming the first failed matrix, or GMM_OK. */
gmm_status cholesky_report_info(const int *h_info, int batch, int *failed_order,
                                const char *name);

#endif
