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

#ifdef __cplusplus
}
#endif
#endif
