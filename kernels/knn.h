/* Brute-force k nearest neighbours, float32: for each query row, the k reference rows closest in
 * Euclidean distance, as indices and distances, nearest first. Three versions with one contract:
 *   knn_cpu      OpenMP, the readable specification (host pointers);
 *   knn_cpu_blas the GEMM form on the CPU (OpenBLAS SGEMM on tiles) to choose a few candidates
 *                per query, whose distances are then computed as knn_cpu computes them: the same
 *                result as knn_cpu, bit for bit (kernels/knn_blas.c; host pointers);
 *   knn_cublas   the GEMM form ||q||^2 + ||r||^2 - 2 q.r with cuBLAS SGEMM (no TF32), negatives
 *                from float32 cancellation clamped to 0.
 * The GPU version computes distances for a block of queries against all references at a time
 * (the block sized to fit free device memory, never the whole n_queries x n_refs matrix when it
 * does not fit), then keeps the best k per query with a register-resident selection (no sort).
 * The hand-written direct-difference kernel (knn_cuda_v1), which lost to the GEMM form, is an
 * experiment in bench/experiments/knn.cu; it runs through knn_blocks below.
 *
 * All matrices are row-major: queries n_queries x dim, refs n_refs x dim, nn_index and nn_dist
 * n_queries x k. Distances are Euclidean (the square root), ascending; equal distances are
 * ordered by the smaller reference index. Requires 1 <= k <= n_refs; the GPU versions also need
 * k <= KNN_CUDA_MAX_K and n_refs < 2^31. */
#ifndef GMM_KNN_H
#define GMM_KNN_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define KNN_CUDA_MAX_K 128

gmm_status knn_cpu(const float *queries, size_t n_queries, const float *refs, size_t n_refs,
                   size_t dim, size_t k, int32_t *nn_index, float *nn_dist);

/* The squared distance of two rows of dim floats as both CPU versions compute it (float32
 * differences, an OpenMP simd sum): one function, so that they agree bit for bit. */
float knn_sq_dist(const float *x, const float *y, size_t dim);

/* The GEMM form on the CPU, for many queries (the self-kNN of the 19690 MNIST digits, 784 dims,
 * k = 15: 2-5 s on 2 shared cores where knn_cpu took 52-86 s). Returns what knn_cpu returns
 * (same indices, same distances, same order); queries == refs with n_queries == n_refs
 * (self-kNN) computes each pair's product once. Memory: one SGEMM tile of 2048 x 2048 floats
 * (KNN_BLAS_DEFAULTS) and k + 16 candidates per query of a tile (of every query in a self-kNN). */
gmm_status knn_cpu_blas(const float *queries, size_t n_queries, const float *refs, size_t n_refs,
                        size_t dim, size_t k, int32_t *nn_index, float *nn_dist);

/* knn_cpu_blas's tuning, for the tests and gmm-bench: tile sizes (rows of queries and of
 * references per SGEMM; a self-kNN uses square tiles of ref_tile), the candidates kept per query
 * beyond k, and, on return, how many queries knn_cpu answered (those whose candidates could not
 * be shown to hold the k nearest: more than margin references within the float32 error bound of
 * the k-th; or every query, when the data's squared norms are not finite). */
typedef struct {
    size_t query_tile, ref_tile, margin;
    size_t n_direct; /* out */
    /* asked before every tile's SGEMM when not NULL: nonzero ends the search with
     * GMM_INTERRUPTED (the results unset), so that a caller's stop request is heard within one
     * tile rather than after the whole search */
    int (*should_stop)(void *user);
    void *stop_user;
} knn_blas_params;
#define KNN_BLAS_DEFAULTS {.query_tile = 2048, .ref_tile = 2048, .margin = 16, .n_direct = 0}

gmm_status knn_cpu_blas_params(const float *queries, size_t n_queries, const float *refs,
                               size_t n_refs, size_t dim, size_t k, int32_t *nn_index,
                               float *nn_dist, knn_blas_params *params);

/* Device pointers; runs on the current device (SGEMM on gpu's stream, the rest on the legacy
 * default stream), returns after the work finished. gpu must not be NULL. */
gmm_status knn_cublas(const float *d_queries, size_t n_queries, const float *d_refs,
                      size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index,
                      float *d_nn_dist, gmm_gpu *gpu);

/* The block driver of knn_cublas with a caller's distance kernel in place of SGEMM (for the
 * experiments, bench/experiments/knn.cu): for each block of queries, fill must write the SQUARED
 * distances of the block's nq queries (d_q_block, rows of dim floats) to all n_refs references
 * into d_block (nq x n_refs, row stride ld, a multiple of 32) on the legacy default stream; the
 * selection then keeps the best k. Same contract and limits as knn_cublas; name (or "knn_blocks"
 * when NULL) heads the error messages. */
typedef gmm_status (*knn_fill_fn)(const float *d_q_block, int nq, const float *d_refs,
                                  int n_refs, int dim, float *d_block, size_t ld);
gmm_status knn_blocks(const float *d_queries, size_t n_queries, const float *d_refs,
                      size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist,
                      knn_fill_fn fill, const char *name);

/* Host-pointer convenience: copies in, runs knn_cublas on gpu or, when gpu is NULL, on a
 * resources object of its own for this call (TF32 off), copies out. queries may equal refs
 * (self-kNN: each point is then its own first neighbour). */
gmm_status knn_cuda_host(const float *queries, size_t n_queries, const float *refs,
                         size_t n_refs, size_t dim, size_t k, gmm_gpu *gpu, int32_t *nn_index,
                         float *nn_dist);

#ifdef __cplusplus
}
#endif
#endif
