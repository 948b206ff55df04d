/* Local entropy of a 2-D array of small integer levels (values 0..15, uint8, row-major
 * n_rows x n_cols): for each cell, the Shannon entropy in nats of the values in the 5 x 5 window
 * centred on it, cropped at the borders (a corner cell sees a 3 x 3 window):
 *   H = sum_v (c_v / n) (log n - log c_v) = (n log n - sum_v c_v log c_v) / n,
 * c_v the count of value v among the n cells. The terms c log c come from a table for c = 0..25
 * in fixed point (round(c log c 2^24), uint32), so the sum over the 16 values is exact integer
 * arithmetic; the one rounding after it is (float)(table[n] - sum) * (1 / (n 2^24)). The error is
 * below 1e-6 nats, a window of one value gives exactly 0, and the CPU twin and the CUDA kernel
 * agree to the bit. Output float32, n_rows x n_cols. */
#ifndef GMM_ENTROPY_H
#define GMM_ENTROPY_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ENTROPY_LEVELS 16
#define ENTROPY_WINDOW 5

/* The tables both versions use: clogc[c] = round(c log c 2^24), inv_scale[n] = 1 / (n 2^24). */
void entropy_tables(uint32_t clogc[ENTROPY_WINDOW * ENTROPY_WINDOW + 1],
                    float inv_scale[ENTROPY_WINDOW * ENTROPY_WINDOW + 1]);

/* Returns GMM_ERR_ARG when a value is above 15. */
gmm_status entropy_cpu(const uint8_t *levels, size_t n_rows, size_t n_cols, float *entropy);

/* Device pointers; stream 0, returns when done. Values above 15 are not checked (they are
 * counted as 15). */
gmm_status entropy_cuda(const uint8_t *d_levels, size_t n_rows, size_t n_cols, float *d_entropy);

/* Host-pointer convenience around entropy_cuda (checks the values like entropy_cpu). */
gmm_status entropy_cuda_host(const uint8_t *levels, size_t n_rows, size_t n_cols,
                             float *entropy);

#ifdef __cplusplus
}
#endif
#endif
