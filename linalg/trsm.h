/* Triangular solve with a lower factor for many right-hand sides: L X = B, L dim x dim lower
 * triangular (non-unit diagonal; the strict upper triangle is not read), B dim x n_rhs, X
 * overwrites B. float64, ROW-MAJOR, contiguous (so the right-hand sides are B's columns).
 *   trsm_cpu     OpenMP over blocks of right-hand sides, forward substitution (the specification);
 *   trsm_blas    OpenBLAS DTRSM;
 *   trsm_cublas  cuBLAS DTRSM on gpu's stream; takes device pointers, returns once queued.
 * The hand-written blocked kernel (trsm_cuda_v1), which lost to cuBLAS and which nothing in the
 * fit uses, is an experiment in bench/experiments/trsm.cu. */
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
gmm_status trsm_cublas(const double *d_L, int dim, double *d_B, size_t n_rhs, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
