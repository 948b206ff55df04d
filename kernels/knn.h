/* Brute-force k nearest neighbours, float32: for each query row, the k reference rows closest in
 * Euclidean distance, as indices and distances, nearest first. Three versions with one contract:
 *   knn_cpu     OpenMP, the readable specification (host pointers);
 *   knn_cuda    hand-written kernel: direct differences sum (q - r)^2 over shared-memory tiles;
 *   knn_cublas  the GEMM form ||q||^2 + ||r||^2 - 2 q.r with cuBLAS SGEMM (no TF32), negatives
 *               from float32 cancellation clamped to 0.
 * Both GPU versions compute distances for a block of queries against all references at a time
 * (the block sized to fit free device memory, never the whole n_queries x n_refs matrix when it
 * does not fit), then keep the best k per query with a register-resident selection (no sort).
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

/* Device pointers; runs on the current device and stream 0, returns after the work finished. */
gmm_status knn_cuda(const float *d_queries, size_t n_queries, const float *d_refs, size_t n_refs,
                    size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist);
gmm_status knn_cublas(const float *d_queries, size_t n_queries, const float *d_refs,
                      size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index,
                      float *d_nn_dist, gmm_gpu *gpu);

/* Host-pointer convenience: copies in, runs knn_cublas (on gpu's handle) or, when gpu is NULL,
 * knn_cuda, copies out. queries may equal refs (self-kNN: each point is then its own first
 * neighbour). */
gmm_status knn_cuda_host(const float *queries, size_t n_queries, const float *refs,
                         size_t n_refs, size_t dim, size_t k, gmm_gpu *gpu, int32_t *nn_index,
                         float *nn_dist);

#ifdef __cplusplus
}
#endif
#endif
