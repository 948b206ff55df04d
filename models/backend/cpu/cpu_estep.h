/* The CPU backend's E-step product for full and tied covariance, cut along the triangle of the
 * precision factors: U_k is upper triangular, so the columns [j0, j1) of x U_k depend only on
 * x[0 .. j1). The columns are cut into blocks of width CPU_ESTEP_BLOCK; block J is one GEMM
 * X[:, 0:j1] * [U_1[0:j1, J] .. U_M[0:j1, J]] (M = K for full, 1 for tied), so the product costs
 * (B + 1) / (2 B) of the whole one for B blocks (0.57 at d = 784) and no FLOP is spent on the
 * zeros below the diagonal. Float64 (DGEMM) or float32 (SGEMM: data converted once, factors
 * per iteration); the squared distances sum_j (y_j - c_kj)^2 are always formed and summed in
 * float64, in index order j = 0 .. d-1 (as estep_rows_cpu). Matrices ROW-MAJOR. */
#ifndef GMM_CPU_ESTEP_H
#define GMM_CPU_ESTEP_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/estep_rows.h"
#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CPU_ESTEP_BLOCK
#define CPU_ESTEP_BLOCK 112
#endif

/* Number of values of the packed factors of n_mats d x d upper-triangular factors (and, for
 * the work buffer, the product row width is n_mats * dim). */
size_t cpu_estep_packed_size(int n_mats, int dim);

/* U (n_mats x dim x dim, upper triangular) -> packed, in float64 or float32 (the float32 copy
 * is the factor rounded once; centers_f32_exact below uses the same rounded values). */
void cpu_estep_pack_f64(const double *U, int n_mats, int dim, double *packed);
void cpu_estep_pack_f32(const double *U, int n_mats, int dim, float *packed);

/* centers (n_components x dim, float64) = mu_k U_m (m = k for full, 0 for tied), the product in
 * float64 of the means with the factors as packed: rounded to float32 when f32 is non-zero, so
 * that y - c = (x - mu) U_f32 up to the GEMM's rounding alone. */
void cpu_estep_centers(const double *means, const double *U, int n_mats, int n_components,
                       int dim, int f32, double *centers);

/* Rows [0, rows) of X (float64 or float32, rows x dim) -> dist (rows x n_components, float64
 * squared distances of the whitened rows to the centers); work holds rows x (n_mats * dim)
 * values of the GEMM's precision. */
void cpu_estep_dist_f64(const double *X, int64_t rows, int dim, int n_mats, int n_components,
                        const double *packed, const double *centers, double *work, double *dist);
void cpu_estep_dist_f32(const float *X, int64_t rows, int dim, int n_mats, int n_components,
                        const float *packed, const double *centers, float *work, double *dist);

/* The full-covariance float64 distances with the pairs of no weight left partial. A pair (i, k)
 * whose log-probability log_const[k] - dist / 2 is below that of row i's candidate component
 * by more than GMM_ESTEP_PRUNE_MARGIN (kernels/estep_rows.h) has a responsibility below 1.6e-28
 * and adds nothing to log p(x_i) in float64 (estep_rows.h says why); since the squares of the
 * first columns of (x - mu_k) U_k are part of its distance (they are the distance of the first
 * coordinates' marginal), the pair can be known to be such a pair before its last columns are
 * formed. So: block 0 of every pair (one GEMM); each row's candidate (the largest of previous,
 * the last E-step's log responsibilities, when given, else of the block-0 bounds) in full,
 * component by component on its gathered rows; then, component by component, the other rows
 * block by block while their bound stays within the margin. dist gets every kept pair's full
 * distance (its squares summed in index order, as cpu_estep_dist_f64) and for the others a
 * lower bound whose log-probability lies more than the margin below the candidate's: the row
 * operation then gives the same log p(x_i) and responsibilities to rounding and, for the
 * dropped pairs, log responsibilities below -margin that bound the true ones from above.
 * previous may be dist itself (it is read first); work as cpu_estep_dist_f64's
 * (n_components >= 2, at least three blocks: dim > 2 CPU_ESTEP_BLOCK). Returns GMM_ERR_NOMEM when its row lists cannot be had. */
gmm_status cpu_estep_dist_pruned_f64(const double *X, int64_t rows, int dim, int n_components,
                                     const double *packed, const double *centers,
                                     const double *log_const, const double *previous,
                                     double *work, double *dist);

#ifdef __cplusplus
}
#endif
#endif
