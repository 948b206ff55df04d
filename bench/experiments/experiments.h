/* The kernel experiments (llm.c's dev/cuda is the model): hand-written CUDA versions of operations
 * whose library form is the vendor library, kept because they were measured, not because anything
 * uses them. Each lost to cuBLAS/cuSOLVER on the H100 (kernels/BENCH_NOTES.md) and no fit,
 * diagnostic or picture calls it, so they live here, out of the library, and gmm-bench and the
 * GPU test suites still build and run them. See bench/experiments/README.md.
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

#ifdef __cplusplus
}
#endif
#endif
