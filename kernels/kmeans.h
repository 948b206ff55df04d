/* The data-parallel steps of k-means (Lloyd's iterations and k-means++ seeding), each as a CPU
 * twin (`_cpu`, OpenMP, the readable specification, host pointers) and a CUDA version (`_cuda`,
 * device pointers d_*, queued on `stream`, a cudaStream_t passed as void * (NULL: the legacy
 * default stream); they return once the work is queued unless they say otherwise). The loops
 * that call them are written once, in models/backend/cpu/kmeans.c.
 *
 * Every matrix is ROW-MAJOR and contiguous: X n_samples x dim, centers n_components x dim, dots
 * n_samples x n_components. Sums run in float64. The CUDA sums run in a different (fixed) order
 * than the CPU's, so results agree to rounding (relative error ~1e-15), not to the bit, except
 * where a function says so. Requires n_samples >= 1, dim >= 1, n_components >= 1. */
#ifndef GMM_KMEANS_KERNELS_H
#define GMM_KMEANS_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/convert.h" /* gmm_elem */
#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the data ------------------------------------------------------------------------------ */

/* y[i] = (double)x[i]: float data in float64 for the k-means distances (exact). */
gmm_status kmeans_to_double_cpu(const float *x, size_t n, double *y);
gmm_status kmeans_to_double_cuda(const float *d_x, size_t n, double *d_y, void *stream);

/* sums[j] += sum_i X[i, j]: added to what sums holds, so that chunks of the data (and ranks)
 * accumulate; the column means that set Lloyd's tolerance are the total over n. The CPU sums
 * each column in index order; CUDA sums 64 row slabs, then the slabs in order. The CUDA version
 * allocates (and frees) a small partial buffer, so it synchronises. */
gmm_status kmeans_column_sums_cpu(const double *X, int64_t n_samples, int dim, double *sums);
gmm_status kmeans_column_sums_cuda(const double *d_X, int64_t n_samples, int dim, double *d_sums,
                                   void *stream);

/* x_norm[i] = ||x_i||^2 and deviation[i] = ||x_i - mean||^2 (the numerator of the variance that
 * sets Lloyd's tolerance). CUDA: one warp per row. */
gmm_status kmeans_row_norms_cpu(const double *X, int64_t n_samples, int dim, const double *mean,
                                double *x_norm, double *deviation);
gmm_status kmeans_row_norms_cuda(const double *d_X, int64_t n_samples, int dim,
                                 const double *d_mean, double *d_x_norm, double *d_deviation,
                                 void *stream);

/* norm[r] = ||A_r||^2 for n_rows rows (the centers), each summed in column order (one thread
 * per row on the GPU). */
gmm_status kmeans_sq_norms_cpu(const double *A, int n_rows, int dim, double *norm);
gmm_status kmeans_sq_norms_cuda(const double *d_A, int n_rows, int dim, double *d_norm,
                                void *stream);

/* ---- Lloyd's iteration ------------------------------------------------------------------- */

/* The assignment step from dots = X C^T (one GEMM) and the norms: labels[i] = the first k with
 * the smallest x_norm[i] - 2 dots[i, k] + c_norm[k]; min_dist[i] = that distance clamped at 0;
 * when onehot is not NULL, its row i is the one-hot vector of labels[i]. labels holds the
 * previous labels on entry (-1: none); *n_changed (may be NULL) receives how many changed.
 * The CUDA version counts with integer atomics (exact, order-free) into *d_n_changed (device,
 * set to the count; may be NULL). */
gmm_status kmeans_assign_cpu(const double *dots, const double *x_norm, const double *c_norm,
                             int64_t n_samples, int n_components, int *labels, double *min_dist,
                             double *onehot, int64_t *n_changed);
gmm_status kmeans_assign_cuda(const double *d_dots, const double *d_x_norm,
                              const double *d_c_norm, int64_t n_samples, int n_components,
                              int *d_labels, double *d_min_dist, double *d_onehot,
                              unsigned long long *d_n_changed, void *stream);

/* The update step's statistics: sums[k] = the sum of the rows x_i with labels[i] = k (K x dim),
 * counts[k] = how many. The CPU adds the rows in index order (the same result with any thread
 * count). The CUDA version takes the one-hot matrix of the labels too (as kmeans_assign_cuda
 * writes it) and forms the sums as the means product onehot^T X, one GEMM on gpu's stream;
 * the counts are exact. */
gmm_status kmeans_sums_cpu(const double *X, int64_t n_samples, int dim, const int *labels,
                           int n_components, double *sums, int *counts);
gmm_status kmeans_sums_cuda(gmm_gpu *gpu, const double *d_X, int64_t n_samples, int dim,
                            const int *d_labels, const double *d_onehot, int n_components,
                            double *d_sums, int *d_counts);

/* The two steps above straight from the data, without a GEMM (so a k-means makes no cuBLAS
 * call, and cuBLAS's first call can be made beside it). Assign: the same as dots = X C^T then
 * kmeans_assign (its CPU twin), one warp per row, the K dots summed by the warp in a different
 * order than a GEMM's (distances agree to rounding; a tie within rounding may pick the other
 * center). Sums: as kmeans_sums_cpu, the rows summed by label in row slabs (a thread per
 * column, a block's K x columns sums in shared memory), then the slabs in order (a fixed order:
 * the same bits every run); the counts exact. d_work holds kmeans_label_sums_work(n_samples,
 * n_components, dim) doubles; that is 0 when K is too large for the shared sums (more than
 * 192): then use kmeans_sums_cuda. */
gmm_status kmeans_assign_rows_cuda(const double *d_X, int64_t n_samples, int dim,
                                   const double *d_centers, const double *d_x_norm,
                                   const double *d_c_norm, int n_components, int *d_labels,
                                   double *d_min_dist, double *d_onehot,
                                   unsigned long long *d_n_changed, void *stream);
size_t kmeans_label_sums_work(int64_t n_samples, int n_components, int dim);
/* (the row slabs of kmeans_label_sums_cuda: one per 256 rows, at most 64) */
#define KMEANS_LABEL_SUMS_MAX_K 192
static inline int kmeans_label_sums_slabs(int64_t n_samples)
{
    int64_t s = (n_samples + 255) / 256;
    return s < 1 ? 1 : s > 64 ? 64 : (int)s;
}
gmm_status kmeans_label_sums_cuda(const double *d_X, int64_t n_samples, int dim,
                                  const int *d_labels, int n_components, double *d_sums,
                                  int *d_counts, double *d_work, void *stream);

/* *index = the first index of the largest x[i] (the sample farthest from its center, for an
 * empty cluster). x must hold no NaN. CUDA: one block, *d_index on the device. */
gmm_status kmeans_argmax_cpu(const double *x, int64_t n, int64_t *index);
gmm_status kmeans_argmax_cuda(const double *d_x, int64_t n, int64_t *d_index, void *stream);

/* ---- k-means++ ----------------------------------------------------------------------------- */

/* The most candidates one k-means++ step draws (2 + log K is far below it). */
#define KMEANS_PP_MAX_TRIALS 64

/* out[t * n_samples + i] = ||x_i - x_{candidates[t]}||^2 for t < n_candidates, min'd with
 * closest[i] when closest is not NULL. The CUDA versions (one warp per (row, candidate)) take the
 * candidates on the device and float64 or float32 data, always summing in float64. */
gmm_status kmeans_pp_distances_cpu(const double *X, int64_t n_samples, int dim,
                                   const int64_t *candidates, int n_candidates,
                                   const double *closest, double *out);
/* The same to n_rows given rows (host, n_rows x dim) instead of rows of X, written at
 * out[t * out_stride + i] (out_stride >= n_samples): the distances of a chunk of the data to
 * seeds that another chunk or rank holds. */
gmm_status kmeans_pp_distances_rows_cpu(const double *X, int64_t n_samples, int dim,
                                        const double *rows, int n_rows, const double *closest,
                                        double *out, int64_t out_stride);
gmm_status kmeans_pp_distances_cuda(const double *d_X, int64_t n_samples, int dim,
                                    const int64_t *d_candidates, int n_candidates,
                                    const double *d_closest, double *d_out, void *stream);
gmm_status kmeans_pp_distances_f32_cuda(const float *d_X, int64_t n_samples, int dim,
                                        const int64_t *d_candidates, int n_candidates,
                                        const double *d_closest, double *d_out, void *stream);
/* The distances to n_rows float64 rows on the device (d_rows, n_rows x dim) for float64 or
 * float32 data (x_elem), as kmeans_pp_distances_rows_cpu. */
gmm_status kmeans_pp_distances_rows_cuda(const void *d_X, gmm_elem x_elem, int64_t n_samples,
                                         int dim, const double *d_rows, int n_rows,
                                         const double *d_closest, double *d_out, void *stream);

/* The potentials pot[t] = sum_i x[t * n + i] of n_rows rows of n values. The CPU sums in index
 * order; CUDA in a fixed order (block partials, then one block per row) in the caller's
 * workspace d_work of kmeans_pp_potentials_work(n, n_rows) doubles. */
size_t kmeans_pp_potentials_work(int64_t n, int n_rows);
gmm_status kmeans_pp_potentials_cpu(const double *x, int64_t n, int n_rows, double *pot);
gmm_status kmeans_pp_potentials_cuda(const double *d_x, int64_t n, int n_rows, double *d_pot,
                                     double *d_work, void *stream);

/* Sampling proportional to the weights (numpy's searchsorted on their cumsum):
 * picks[t] = the first i with weights[0] + ... + weights[i] > draws[t], n - 1 when there is none,
 * for n_draws <= KMEANS_PP_MAX_TRIALS draws. The CPU keeps the running sum in `cumsum`
 * (n doubles of scratch); CUDA forms it from sequential 256-row chunk sums and their sequential
 * scan in d_work (kmeans_pp_pick_work(n) doubles), so a draw within rounding of a boundary may
 * pick the neighbour. */
size_t kmeans_pp_pick_work(int64_t n);
gmm_status kmeans_pp_pick_cpu(const double *weights, int64_t n, const double *draws, int n_draws,
                              int64_t *picks, double *cumsum);
gmm_status kmeans_pp_pick_cuda(const double *d_weights, int64_t n, const double *d_draws,
                               int n_draws, int64_t *d_picks, double *d_work, void *stream);

#ifdef __cplusplus
}
#endif
#endif
