/* The kernel experiments (llm.c's dev/cuda is the model): hand-written CUDA versions of operations
 * whose library form is the vendor library, kept because they were measured, not because anything
 * uses them. Each lost to cuBLAS/cuSOLVER on the H100 (kernels/BENCH_NOTES.md) and no fit,
 * diagnostic or picture calls it, so they live here, out of the library, and gmm-bench and the
 * GPU test suites still build and run them. Beside them, the CUDA backend's former tuning modes
 * that lost inside the EM iteration (factorisations, covariance products, K GEMMs in the
 * E-step), with the production path as their version 0. See bench/experiments/README.md.
 *
 * One file per operation (bench/experiments/<op>.cu) holds its numbered versions:
 *   version 0   the library path the versions are compared against (the reference: what the
 *               library itself calls, e.g. cholesky_cusolver of linalg/cholesky.h);
 *   version 1.. the hand-written kernels, <op>_cuda_v<N>, kept exactly as they were measured.
 * The CPU twin of each operation (cholesky_cpu, trsm_cpu, knn_cpu, matvec_f64_cpu) stays in the
 * library beside the library path; it is the specification every version is checked against.
 * <op>_version(v, ...) runs version v (GMM_ERR_ARG for an unknown one), <op>_version_name(v)
 * names it, <OP>_N_VERSIONS counts them, so a harness loops over every version.
 *
 * Every function takes DEVICE pointers and has the contract of the library header named beside
 * it; the gpu argument is the resources object for version 0 (the hand-written versions run on
 * its stream, the legacy default stream when gpu is NULL). They live in the CUDA backend library;
 * without it (cuda_api_forward.c) each returns GMM_ERR_NO_DEVICE. */
#ifndef GMM_BENCH_EXPERIMENTS_H
#define GMM_BENCH_EXPERIMENTS_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Cholesky (contract: linalg/cholesky.h), bench/experiments/cholesky.cu ---------------- */

/* Version 1: blocked right-looking kernels: per 64-column panel one launch factors the diagonal
 * block in shared memory, one solves the panel, one updates the trailing lower triangle (3
 * launches per 64 columns, the whole batch in each launch). Synchronises the stream. */
gmm_status cholesky_cuda_v1(double *d_A, int dim, int batch, int *failed_order, void *stream);

#define CHOLESKY_N_VERSIONS 2
gmm_status cholesky_version(int version, double *d_A, int dim, int batch, int *failed_order,
                            gmm_gpu *gpu);
static inline const char *cholesky_version_name(int version)
{
    return version == 0 ? "cholesky_cusolver" : version == 1 ? "cholesky_cuda_v1" : "?";
}

/* ---- lower triangular solve (contract: linalg/trsm.h), bench/experiments/trsm.cu ---------- */

/* Version 1: the 64 x 64 diagonal blocks of L are inverted first (one launch), then each block of
 * threads owns 64 right-hand sides and walks down the block rows:
 * X_i = inv(L_ii) (B_i - sum_{j<i} L_ij X_j), register-blocked tiles. Returns once queued. */
gmm_status trsm_cuda_v1(const double *d_L, int dim, double *d_B, size_t n_rhs, void *stream);

#define TRSM_N_VERSIONS 2
gmm_status trsm_version(int version, const double *d_L, int dim, double *d_B, size_t n_rhs,
                        gmm_gpu *gpu);
static inline const char *trsm_version_name(int version)
{
    return version == 0 ? "trsm_cublas" : version == 1 ? "trsm_cuda_v1" : "?";
}

/* ---- brute-force kNN (contract: kernels/knn.h), bench/experiments/knn.cu ------------------ */

/* Version 1: direct differences sum (q - r)^2 over shared-memory tiles (128 x 128 per block,
 * 8 x 8 per thread) fill each block of squared distances; the library's k-selection
 * (knn_blocks) keeps the best k. Runs on the legacy default stream, returns after the work. */
gmm_status knn_cuda_v1(const float *d_queries, size_t n_queries, const float *d_refs,
                       size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index,
                       float *d_nn_dist);

#define KNN_N_VERSIONS 2
/* Version 0 is knn_cublas (gpu must not be NULL for it). */
gmm_status knn_version(int version, const float *d_queries, size_t n_queries,
                       const float *d_refs, size_t n_refs, size_t dim, size_t k,
                       int32_t *d_nn_index, float *d_nn_dist, gmm_gpu *gpu);
static inline const char *knn_version_name(int version)
{
    return version == 0 ? "knn_cublas" : version == 1 ? "knn_cuda_v1" : "?";
}

/* ---- float64 matrix-vector product (contract: kernels/matvec.h), bench/experiments/matvec.cu */

/* Version 1: the float32 library kernel's template at double: one warp per row, 16-byte loads
 * (double2), shuffle reduction. Returns once queued. */
gmm_status matvec_f64_cuda_v1(const double *d_A, size_t n_rows, size_t n_cols, const double *d_x,
                              double *d_y, void *stream);

#define MATVEC_F64_N_VERSIONS 2
gmm_status matvec_f64_version(int version, const double *d_A, size_t n_rows, size_t n_cols,
                              const double *d_x, double *d_y, gmm_gpu *gpu);
static inline const char *matvec_f64_version_name(int version)
{
    return version == 0 ? "matvec_f64_cublas" : version == 1 ? "matvec_f64_cuda_v1" : "?";
}

/* ---- the M-step's precision factors (contract: linalg/chol_inverse.h),
 *      bench/experiments/factorisation.cu ---------------------------------------------------- */

/* What the versions need beside the arrays, made once as the backend made it once per fit: the
 * device covariances d_cov and the precision factors d_prec they write (n_mats dim x dim each,
 * ROW-MAJOR, back to back), a copy for the Cholesky factors (and chol_inverse_cuda's scratch),
 * the infos, the potrf pointer arrays, the lanes, version 6's graph. */
typedef struct factorisation_plan factorisation_plan;
gmm_status factorisation_plan_create(factorisation_plan **out, const double *d_cov,
                                     double *d_prec, int dim, int n_mats, gmm_gpu *gpu);
void factorisation_plan_free(factorisation_plan *plan); /* accepts NULL */

/* Version v: d_prec = U_m = R_m^{-1} (d_cov_m = R_m^T R_m, U upper, strict lower triangle zero),
 * then the infos read back once (a host synchronisation, as the M-step had): GMM_ERR_CHOLESKY
 * naming the first matrix that is not positive definite, failed_order (host, n_mats ints, may
 * be NULL) receiving each matrix's failing order (or trtri's zero pivot) or 0.
 *   0 chol_inverse_cuda (the production kernel; the backend replays it from a CUDA graph)
 *   1 cusolverDnDpotrfBatched, then a TRSM against the identity per component on the lanes
 *   2 cusolverDnDpotrf one matrix after another, then the TRSMs on the lanes
 *   3 cusolverDnDpotrfBatched, then cusolverDnXtrtri per component on the lanes
 *   4 per component on its lane: potrf, then trtri
 *   5 per component on its lane: potrf, then the TRSM
 *   6 version 5's calls captured once into a CUDA graph and replayed (version 5 directly under
 *     sync debugging or once a capture failed) */
#define FACTORISATION_N_VERSIONS 7
gmm_status factorisation_version(int version, factorisation_plan *plan, int *failed_order);
static inline const char *factorisation_version_name(int version)
{
    static const char *const names[FACTORISATION_N_VERSIONS] = {
        "chol_inverse",      "potrf_batched_trsm", "potrf_loop_trsm", "potrf_batched_trtri",
        "lanes_potrf_trtri", "lanes_potrf_trsm",   "lanes_graph_trsm"};
    return version >= 0 && version < FACTORISATION_N_VERSIONS ? names[version] : "?";
}

/* ---- the M-step's covariance products (contract: kernels/wcov.h's wcov_packed_cpu),
 *      bench/experiments/cov_product.cu ------------------------------------------------------ */

/* Version 3 on one block: out (dim x dim, lower triangle; the strict upper one may be written)
 * = A^T A, or += A^T A when accumulate is non-zero, A n_rows x dim; the tensor-core kernel of
 * wcov_cuda (dense_syrk.cuh). Returns once queued on stream. */
gmm_status cov_product_tiled_cuda(const double *d_A, size_t n_rows, int dim, int accumulate,
                                  double *d_out, void *stream);

/* Version v on n_blocks packed blocks: block k is rows [bounds[k], bounds[k + 1]) of d_A (rows
 * of dim values; bounds on the host), its product (as cov_product_tiled_cuda's) at
 * d_out + k dim^2, on lane k % min(n_blocks, 12) of gpu as the M-step runs them. Returns once
 * queued (work on the legacy stream waits for the lanes).
 *   0 cov_product.cuh: the block triangle of three DGEMMs for dim >= 128, one DGEMM below
 *   1 one full DGEMM   2 cuBLAS DSYRK   3 cov_product_tiled_cuda */
#define COV_PRODUCT_N_VERSIONS 4
gmm_status cov_product_version(int version, const double *d_A, int dim, const int *bounds,
                               int n_blocks, int accumulate, double *d_out, gmm_gpu *gpu);
static inline const char *cov_product_version_name(int version)
{
    static const char *const names[COV_PRODUCT_N_VERSIONS] = {"cov_lower_gemms", "cov_full_gemm",
                                                              "cov_syrk", "cov_tiled"};
    return version >= 0 && version < COV_PRODUCT_N_VERSIONS ? names[version] : "?";
}

/* ---- the E-step's product, bench/experiments/estep_product.cu ---------------------------- */

/* Version v: d_Y (n_rows x n_components dim) = d_X (n_rows x dim) d_U (dim x n_components dim,
 * [U_1 .. U_K]), float64, row-major, on gpu's stream. 0: one DGEMM; 1: one DGEMM a component. */
#define ESTEP_PRODUCT_N_VERSIONS 2
gmm_status estep_product_version(int version, const double *d_X, size_t n_rows, int dim,
                                 int n_components, const double *d_U, double *d_Y, gmm_gpu *gpu);
static inline const char *estep_product_version_name(int version)
{
    return version == 0 ? "estep_one_gemm" : version == 1 ? "estep_kgemm" : "?";
}

/* ---- the E-step's distances, bench/experiments/estep_distances.cu ------------------------ */

/* Version v: d_dist[i, k] = ||x_i U_k - b_k||^2 (n_rows x n_components) from d_X (n_rows x dim),
 * d_U (n_components upper triangular dim x dim) and d_b (n_components x dim), float64,
 * row-major, on gpu's stream, with d_work of at least estep_distances_work_bytes.
 * 0: the CUDA backend's column-blocked DGEMMs into the product, then a row kernel;
 * 1: one DMMA kernel with the squares in its epilogue (compute capability 9.0 and an even dim,
 *    else GMM_ERR_UNSUPPORTED). */
#define ESTEP_DISTANCES_N_VERSIONS 2
#define ESTEP_DISTANCES_TILE_COLS 112
static inline size_t estep_distances_work_bytes(int version, size_t n_rows, int dim,
                                                int n_components)
{
    const size_t K = (size_t)n_components, d = (size_t)dim;
    if (version == 0) return sizeof(double) * (K * d * d + n_rows * K * d);
    return sizeof(double) * n_rows * K *
           ((d + ESTEP_DISTANCES_TILE_COLS - 1) / ESTEP_DISTANCES_TILE_COLS);
}
gmm_status estep_distances_version(int version, const double *d_X, size_t n_rows, int dim,
                                   int n_components, const double *d_U, const double *d_b,
                                   double *d_dist, void *d_work, size_t work_bytes, gmm_gpu *gpu);
static inline const char *estep_distances_version_name(int version)
{
    return version == 0 ? "estep_blocked_gemms" : version == 1 ? "estep_fused_dmma" : "?";
}

#ifdef __cplusplus
}
#endif
#endif
