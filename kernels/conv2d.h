/* 2-D convolution of a row-major n_rows x n_cols array with a small square filter
 * (filter_size = 3 or 5, row-major filter_size x filter_size), valid region only: the output is
 * (n_rows - filter_size + 1) x (n_cols - filter_size + 1), row-major. Correlation orientation
 * (the filter is not flipped), as in CNN libraries:
 *   out[i][j] = sum_{a,b} in[i + a][j + b] * filter[a][b].
 * int32 arithmetic wraps modulo 2^32 (computed unsigned, no undefined overflow); float32 sums in
 * the order a, then b, so the CPU and GPU versions differ only by fused multiply-add rounding.
 * The CUDA kernels keep the filter in constant memory and the input tile in shared memory.
 * Requires n_rows, n_cols >= filter_size. */
#ifndef GMM_CONV2D_H
#define GMM_CONV2D_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status conv2d_i32_cpu(const int32_t *in, size_t n_rows, size_t n_cols,
                          const int32_t *filter, int filter_size, int32_t *out);
gmm_status conv2d_f32_cpu(const float *in, size_t n_rows, size_t n_cols, const float *filter,
                          int filter_size, float *out);

/* Device pointers for in/out; the filter is a host pointer (it goes to constant memory).
 * Stream 0, returns when done. */
gmm_status conv2d_i32_cuda(const int32_t *d_in, size_t n_rows, size_t n_cols,
                           const int32_t *filter, int filter_size, int32_t *d_out);
gmm_status conv2d_f32_cuda(const float *d_in, size_t n_rows, size_t n_cols, const float *filter,
                           int filter_size, float *d_out);

/* Host-pointer convenience around the two above (copies in, runs, copies out). */
gmm_status conv2d_i32_cuda_host(const int32_t *in, size_t n_rows, size_t n_cols,
                                const int32_t *filter, int filter_size, int32_t *out);
gmm_status conv2d_f32_cuda_host(const float *in, size_t n_rows, size_t n_cols,
                                const float *filter, int filter_size, float *out);

#ifdef __cplusplus
}
#endif
#endif
