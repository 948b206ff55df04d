/* The means product of the M-step: C = A^T B with A (n_samples x n_components, the
 * responsibilities) and B (n_samples x dim, the data), so C is n_components x dim (R^T X, before
 * the division by N_k). float64, every matrix ROW-MAJOR and contiguous.
 *   matmul_cpu     OpenMP over the output, the readable specification (host pointers);
 *   matmul_blas    OpenBLAS DGEMM (host pointers);
 *   matmul_cuda    hand-written kernel: a block spans whole rows of B (a thread per column
 *                  pair) and streams a slab of rows once, the responsibilities of each chunk of
 *                  rows staged in shared memory, 2 x KT accumulators per thread (KT the component
 *                  count rounded up to 2, 4, 8, 12 or 16); slabs are summed with atomicAdd
 *                  (float64 sums whose order varies, so the last bits may differ between runs);
 *   matmul_cublas  cuBLAS DGEMM.
 * GPU versions take device pointers (d_*) and an optional cudaStream_t passed as void* (NULL: the
 * default stream); they return once the work is queued. */
#ifndef GMM_MATMUL_H
#define GMM_MATMUL_H

#include <stddef.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status matmul_cpu(const double *resp, const double *X, size_t n_samples, int n_components,
                      int dim, double *out);
gmm_status matmul_blas(const double *resp, const double *X, size_t n_samples, int n_components,
                       int dim, double *out);
gmm_status matmul_cuda(const double *d_resp, const double *d_X, size_t n_samples,
                       int n_components, int dim, double *d_out, void *stream);
gmm_status matmul_cublas(const double *d_resp, const double *d_X, size_t n_samples,
                         int n_components, int dim, double *d_out, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
