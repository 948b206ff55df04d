/* The symmetric eigensolver: all eigenvalues and eigenvectors of a symmetric float64 matrix
 * A (dim x dim, ROW-MAJOR, both triangles read as one symmetric matrix), as PCA needs them.
 * Outputs: eigenvalues[dim] in DESCENDING order and eigenvectors (dim x dim, ROW-MAJOR) with
 * row i the unit eigenvector of eigenvalue i (so the rows are orthonormal: V V^T = I and
 * A = V^T diag(eigenvalues) V). A is not modified. The sign of each eigenvector is the
 * library's (fixed here so that its largest-magnitude entry is positive: the same axes on
 * the CPU and the GPU).
 *   eigen_sym_lapack    LAPACKE dsyevd (divide and conquer);
 *   eigen_sym_cusolver  cuSOLVER syevd (through kernels/gpu.h) on gpu's stream; takes device
 *                       pointers and synchronises (the convergence report needs the result).
 * A symmetric matrix is its own transpose, so the row-major A is the column-major A, and the
 * column-major eigenvector columns that both libraries return are our row-major rows. */
#ifndef GMM_EIGEN_H
#define GMM_EIGEN_H

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status eigen_sym_lapack(const double *A, int dim, double *eigenvalues, double *eigenvectors);
gmm_status eigen_sym_cusolver(const double *d_A, int dim, double *d_eigenvalues,
                              double *d_eigenvectors, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
