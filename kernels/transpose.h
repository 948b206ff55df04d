/* Matrix transpose, float32, row-major: out (n_cols x n_rows) = in (n_rows x n_cols)^T.
 * The CUDA kernel goes through 32 x 32 shared-memory tiles padded by one column (no bank
 * conflicts) so that both the reads and the writes are coalesced. in and out must not overlap. */
#ifndef GMM_TRANSPOSE_H
#define GMM_TRANSPOSE_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status transpose_cpu(const float *in, size_t n_rows, size_t n_cols, float *out);
/* Device pointers; stream 0, returns when done. */
gmm_status transpose_cuda(const float *d_in, size_t n_rows, size_t n_cols, float *d_out);
/* Host-pointer convenience around transpose_cuda. */
gmm_status transpose_cuda_host(const float *in, size_t n_rows, size_t n_cols, float *out);

#ifdef __cplusplus
}
#endif
#endif
