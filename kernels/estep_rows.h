/* The E-step's row operation: for each row i and component k the squared distance s_ik of a
 * Gaussian's exponent, the log-probability lp_ik = log_const[k] - s_ik / 2, its log-sum-exp over
 * the components log p(x_i) = max_k lp_ik + log sum_k exp(lp_ik - max), and the log
 * responsibilities log_resp[i, k] = lp_ik - log p(x_i). Row i of component k reads
 * y = Y + i * ld_y + k * comp_stride (dim values) and, with c = centers + k * dim,
 *   ESTEP_ROWS_PROJECTED (full, tied):  s = sum_j (y_j - c_j)^2        Y = X U, centers = mu_k U
 *   ESTEP_ROWS_DIAG:                    s = sum_j ((y_j - c_j) p_kj)^2  Y = X, centers = mu,
 *                                                                       p = scales + k * dim
 *   ESTEP_ROWS_SPHERICAL:               s = scales[k]^2 sum_j (y_j - c_j)^2
 * (full: comp_stride = dim in the N x K dim product [X U_1 .. X U_K]; tied, diag, spherical: 0).
 * PROJECTED may also read the column-blocked product of a triangle-blocked GEMM (as the CPU
 * backend's cpu_estep.h and the CUDA E-step write it): with 0 < col_block < dim the columns j
 * are cut into blocks [j0, j0 + w), w = min(col_block, dim - j0), j0 a multiple of col_block,
 * and y_j sits at column M j0 + k w + (j - j0) of the row, M = n_components when comp_stride
 * is non-zero (then it must be dim) and M = 1, no k w term, when it is 0 (the tied layout is
 * the plain one). col_block 0 or >= dim, or any other mode: no blocks.
 * log_const[k] is log w_k + log det U_k - dim/2 log 2 pi (linalg/log_det.h). All float64
 * except the f32 CUDA entry's Y; every matrix ROW-MAJOR; log_resp is n_rows x n_components.
 *   estep_rows_cpu            OpenMP over rows, each row summed in index order: the
 *                             specification (same bits whatever the thread count);
 *   estep_rows_from_dist_cpu  the second half alone, in place: squared distances computed
 *                             some other way (the CPU backend's GEMM expansion for diag and
 *                             spherical) -> log_resp;
 *   estep_rows_cuda           a block of 8 warps per 4 rows, a warp per (row, component) pair
 *                             (lanes stride over j with two accumulators, 16-byte loads of Y
 *                             where it is aligned, then a butterfly sum), the log-probabilities
 *                             in shared memory, one warp a row for the log-sum-exp; at most
 *                             ESTEP_ROWS_MAX_COMPONENTS components (shared memory);
 *   estep_rows_f32_cuda       the same reading a float32 Y (converted per element to float64);
 *   estep_rows_from_dist_cuda the second half alone, a thread per row.
 * GPU versions take device pointers (d_*) and an optional cudaStream_t as void * (NULL: the
 * default stream); they return once the work is queued. */
#ifndef GMM_ESTEP_ROWS_H
#define GMM_ESTEP_ROWS_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ESTEP_ROWS_PROJECTED = 0,
    ESTEP_ROWS_DIAG = 1,
    ESTEP_ROWS_SPHERICAL = 2,
} estep_rows_mode;

#define ESTEP_ROWS_MAX_COMPONENTS 6000

/* A pair (i, k) whose log-probability lies more than this below another component's is of no
 * weight in float64: its exp(log-prob - max) is below e^-64 = 1.6e-28, so at most
 * ESTEP_ROWS_MAX_COMPONENTS of them add under 1e-24 to the row's sum (>= 1, half a unit in its
 * last place >= 1.1e-16): log p(x_i) is the full computation's to rounding; and its
 * responsibility, below 1.6e-28, is under the M-step's negligible weight
 * (COMPACT_NEGLIGIBLE_WEIGHT, 1e-20: no covariance product sees it) and moves N_k and the means
 * by less than 1.6e-28 a row. The backends' E-steps may leave its distance partial (a lower
 * bound), which the row operation then turns into a log responsibility below
 * -GMM_ESTEP_PRUNE_MARGIN that bounds the true one from above (models/backend/cpu/cpu_estep.h).
 * (Until 2026-11-27 the margin was 800, where exp underflows to 0: on augmented Fashion-MNIST
 * a tenth of all pairs lie 64 to 800 below their row's best, most of them formed in full.) */
#define GMM_ESTEP_PRUNE_MARGIN 64.0

/* scales may be NULL for ESTEP_ROWS_PROJECTED; log_prob_norm gets n_rows values. */
gmm_status estep_rows_cpu(estep_rows_mode mode, const double *Y, size_t ld_y, size_t comp_stride,
                          size_t col_block, const double *centers, const double *scales,
                          const double *log_const, size_t n_rows, int n_components, int dim,
                          double *log_resp, double *log_prob_norm);

/* dist_to_log_resp: n_rows x n_components squared distances s_ik in, log_resp out. */
gmm_status estep_rows_from_dist_cpu(const double *log_const, size_t n_rows, int n_components,
                                    double *dist_to_log_resp, double *log_prob_norm);

/* estep_rows_from_dist_cpu on the device: a thread per row. */
gmm_status estep_rows_from_dist_cuda(const double *d_log_const, size_t n_rows, int n_components,
                                     double *d_dist_to_log_resp, double *d_log_prob_norm,
                                     void *stream);
gmm_status estep_rows_cuda(estep_rows_mode mode, const double *d_Y, size_t ld_y,
                           size_t comp_stride, size_t col_block, const double *d_centers,
                           const double *d_scales, const double *d_log_const, size_t n_rows,
                           int n_components, int dim, double *d_log_resp, double *d_log_prob_norm,
                           void *stream);
gmm_status estep_rows_f32_cuda(estep_rows_mode mode, const float *d_Y, size_t ld_y,
                               size_t comp_stride, size_t col_block, const double *d_centers,
                               const double *d_scales, const double *d_log_const, size_t n_rows,
                               int n_components, int dim, double *d_log_resp,
                               double *d_log_prob_norm, void *stream);

#ifdef __cplusplus
}
#endif
#endif
