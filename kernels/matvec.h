/* Matrix-vector product y = A x, A n_rows x n_cols ROW-MAJOR contiguous, in float32 (_f32) and
 * float64 (_f64). Sums accumulate in the element type, as cuBLAS does.
 *   matvec_*_cpu     OpenMP over rows, the readable specification;
 *   matvec_*_blas    OpenBLAS GEMV;
 *   matvec_f32_cuda  hand-written kernel: one warp per row, 16-byte loads, shuffle reduction;
 *   matvec_*_cublas  cuBLAS GEMV.
 * GPU versions take device pointers (and an optional cudaStream_t as void*, or the resources
 * object whose stream they run on); they return once the work is queued. The same kernel at
 * float64 (matvec_f64_cuda_v1) lost to DGEMV and is an experiment in bench/experiments/matvec.cu. */
#ifndef GMM_MATVEC_H
#define GMM_MATVEC_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status matvec_f32_cpu(const float *A, size_t n_rows, size_t n_cols, const float *x, float *y);
gmm_status matvec_f32_blas(const float *A, size_t n_rows, size_t n_cols, const float *x, float *y);
gmm_status matvec_f32_cuda(const float *d_A, size_t n_rows, size_t n_cols, const float *d_x,
                           float *d_y, void *stream);
gmm_status matvec_f32_cublas(const float *d_A, size_t n_rows, size_t n_cols, const float *d_x,
                             float *d_y, gmm_gpu *gpu);

gmm_status matvec_f64_cpu(const double *A, size_t n_rows, size_t n_cols, const double *x,
                          double *y);
gmm_status matvec_f64_blas(const double *A, size_t n_rows, size_t n_cols, const double *x,
                           double *y);
gmm_status matvec_f64_cublas(const double *d_A, size_t n_rows, size_t n_cols, const double *d_x,
                             double *d_y, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
