/* Sparse matrix-vector product y = A x with A in compressed sparse row form (CSR: row i holds
 * the entries val[row_ptr[i] .. row_ptr[i+1]) in the columns col[...]), float64: the product the
 * Lanczos eigensolver (linalg/lanczos.h) applies to the normalised kNN graph.
 *   spmv_csr_cpu   OpenMP over rows, the readable specification;
 *   spmv_csr_cuda  one thread per row (the kNN graph has about 15 entries a row, so a row is
 *                  too short for a warp), summing in the same order as the CPU, so the two differ
 *                  only by fused multiply-add rounding.
 * The CUDA version takes device pointers and a cudaStream_t as void * (NULL: the legacy default
 * stream) and returns once the work is queued. */
#ifndef GMM_SPMV_H
#define GMM_SPMV_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A square CSR matrix: n rows, row i's entries val[row_ptr[i] .. row_ptr[i + 1]) in the columns
 * col[...] (host or device pointers, as the function taking it says). */
typedef struct {
    int64_t n;
    const int64_t *row_ptr;
    const int32_t *col;
    const double *val;
} csr_matrix;

gmm_status spmv_csr_cpu(int64_t n_rows, const int64_t *row_ptr, const int32_t *col,
                        const double *val, const double *x, double *y);
gmm_status spmv_csr_cuda(int64_t n_rows, const int64_t *d_row_ptr, const int32_t *d_col,
                         const double *d_val, const double *d_x, double *d_y, void *stream);

#ifdef __cplusplus
}
#endif
#endif
