/* Fixed-order float64 reductions: the sum of a vector, optionally scaled (the mean
 * log-likelihood of the E-step, k-means' inertia), and the column sums of an n_rows x n_cols
 * ROW-MAJOR matrix (N_k = sum_i r_ik of the M-step).
 *   reduce_sum_cpu    sums in index order, one thread: the same input gives the same bits
 *                     whatever the thread count (the CPU backend's lower bound depends on it);
 *   reduce_cols_cpu   sums each column in row order, one thread, for the same reason;
 *   reduce_sum_cuda   two stages: at most REDUCE_SUM_MAX_PARTIALS blocks of 256 threads, each
 *                     thread a grid-strided sum, the block's sum a fixed tree (block_sum in
 *                     kernels/reduce.cuh), then one block sums the partials the same way and
 *                     scales; the order depends only on n, so a run repeats to the bit;
 *   reduce_cols_cuda  one block of 256 threads per column, row-strided sums, a fixed tree.
 *   reduce_resp_entropy_cpu / _cuda  -sum r log r over log responsibilities (the entropy of a
 *                     variational fit's lower bound), the terms with r = 0 counted as 0; the
 *                     same orders as reduce_sum_cpu / reduce_sum_cuda.
 * The GPU sums run in another order than the CPU's, so the two agree to rounding, not to the bit.
 * GPU versions take device pointers (d_*) and an optional cudaStream_t as void * (NULL: the
 * default stream); they return once the work is queued. */
#ifndef GMM_REDUCE_H
#define GMM_REDUCE_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most partial sums reduce_sum_cuda writes to its d_partial scratch (doubles). */
#define REDUCE_SUM_MAX_PARTIALS 256

/* *out = scale * sum_{i < n} x[i]; n = 0 gives 0. */
gmm_status reduce_sum_cpu(const double *x, size_t n, double scale, double *out);
/* *d_out (one device double) = scale * sum_{i < n} d_x[i]; d_partial: device scratch of
 * REDUCE_SUM_MAX_PARTIALS doubles. */
gmm_status reduce_sum_cuda(const double *d_x, size_t n, double scale, double *d_partial,
                           double *d_out, void *stream);

/* *out = -sum_{i < n} exp(lr[i]) lr[i] (lr: log responsibilities; exp(lr) = 0 gives 0);
 * reduce_resp_entropy_cuda takes d_partial as reduce_sum_cuda. */
gmm_status reduce_resp_entropy_cpu(const double *log_resp, size_t n, double *out);
gmm_status reduce_resp_entropy_cuda(const double *d_log_resp, size_t n, double *d_partial,
                                    double *d_out, void *stream);

/* out[j] = sum_{i < n_rows} x[i * n_cols + j] for j < n_cols. */
gmm_status reduce_cols_cpu(const double *x, size_t n_rows, int n_cols, double *out);
gmm_status reduce_cols_cuda(const double *d_x, size_t n_rows, int n_cols, double *d_out,
                            void *stream);

#ifdef __cplusplus
}
#endif
#endif
