/* Triangular solve with a lower factor for many right-hand sides: L X = B, L dim x dim lower
 * triangular (non-unit diagonal; the strict upper triangle is not read), B dim x n_rhs, X
 * overwrites B. float64, ROW-MAJOR, contiguous (so the right-hand sides are B's columns).
 *   trsm_cpu     OpenMP over blocks of right-hand sides, forward substitution (the specification);
 *   trsm_blas    OpenBLAS DTRSM;
 *   trsm_cuda    blocked kernel: the 64 x 64 diagonal blocks of L are inverted first (one
 *                launch), then each block of threads owns 64 right-hand sides and walks down the
 *                block rows: X_i = inv(L_ii) (B_i - sum_{j<i} L_ij X_j), register-blocked tiles;
 *   trsm_cublas  cuBLAS DTRSM.
 * GPU versions take device pointers and an optional cudaStream_t as void*; they return once the
 * work is queued. */
#ifndef GMM_TRSM_H
#define GMM_TRSM_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status trsm_cpu(const double *L, int dim, double *B, size_t n_rhs);
gmm_status trsm_blas(const double *L, int dim, double *B, size_t n_rhs);
gmm_status trsm_cuda(const double *d_L, int dim, double *d_B, size_t n_rhs, void *stream);
gmm_status trsm_cublas(const double *d_L, int dim, double *d_B, size_t n_rhs, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
