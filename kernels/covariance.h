/* Covariance of data that is already centred: cov = X^T X / max(n_samples - 1, 1), X n_samples x
 * dim, cov dim x dim (both triangles written, exactly symmetric). float64, ROW-MAJOR, contiguous.
 *   covariance_cpu     OpenMP over output rows, lower triangle then mirrored (the specification);
 *   covariance_blas    OpenBLAS DSYRK;
 *   covariance_cuda    hand-written kernel: only the 64 x 64 tiles on or below the diagonal are
 *                      computed, on the float64 tensor cores (DMMA 8x8x4 through WMMA), with the
 *                      rows split across blocks and summed with atomicAdd; then one mirror pass;
 *   covariance_cublas  cuBLAS DSYRK, then the same mirror pass.
 * GPU versions take device pointers and an optional cudaStream_t as void* (NULL: default stream);
 * they return once the work is queued. */
#ifndef GMM_COVARIANCE_H
#define GMM_COVARIANCE_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status covariance_cpu(const double *X, size_t n_samples, int dim, double *cov);
gmm_status covariance_blas(const double *X, size_t n_samples, int dim, double *cov);
gmm_status covariance_cuda(const double *d_X, size_t n_samples, int dim, double *d_cov,
                           void *stream);
gmm_status covariance_cublas(const double *d_X, size_t n_samples, int dim, double *d_cov,
                             gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
