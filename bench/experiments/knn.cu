/* kNN experiments (contract: kernels/knn.h; versions: bench/experiments/experiments.h).
 *   version 0  knn_cublas, the library path: SGEMM fills each block of distances (-2 q.r, the
 *              norms added during selection), the reference and what the kNN initialisation uses;
 *   version 1  knn_cuda_v1, the hand-written distance tiles, moved here unchanged from
 *              kernels/knn.cu: 0.49x the cuBLAS path at m = n = 32768, d = 256, k = 20 (H100,
 *              kernels/BENCH_NOTES.md).
 * Both share the library's block driver and warp k-selection (knn_blocks): only the kernel that
 * fills a block of distances differs. Version 1 writes squared distances directly, sum (q - r)^2,
 * so it has no cancellation (its results match the CPU twin to float32 rounding). */
#include "bench/experiments/experiments.h"

#include <cuda_runtime.h>

#include "kernels/cuda_check.h"
#include "kernels/knn.h"

namespace {

constexpr int TILE_Q = 128, TILE_R = 128, TILE_D = 8, THREADS_DIST = 256;

/* Squared distances of queries [0, n_q) (already offset) against all refs: one 128 x 128 tile per
 * block, 8 x 8 per thread at stride 16 so that shared-memory reads are broadcasts or consecutive. */
__global__ void __launch_bounds__(THREADS_DIST, 2)
sq_dist_tile_kernel(const float *__restrict__ queries, int n_q, const float *__restrict__ refs,
                    int n_refs, int dim, float *__restrict__ dist, size_t ld)
{
    __shared__ float qs[TILE_D][TILE_Q];
    __shared__ float rs[TILE_D][TILE_R];
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    const int q0 = blockIdx.y * TILE_Q, r0 = blockIdx.x * TILE_R;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; i++)
#pragma unroll
        for (int j = 0; j < 8; j++) acc[i][j] = 0.0f;

    /* each thread loads 4 consecutive dims of one query row and one ref row per step */
    const int load_row = tid / 2, load_col = (tid % 2) * 4;
    const int gq = q0 + load_row, gr = r0 + load_row;
    const float *qrow = queries + (size_t)(gq < n_q ? gq : 0) * dim;
    const float *rrow = refs + (size_t)(gr < n_refs ? gr : 0) * dim;
    for (int d0 = 0; d0 < dim; d0 += TILE_D) {
#pragma unroll
        for (int c = 0; c < 4; c++) {
            int d = d0 + load_col + c;
            /* padding is 0 on both sides, so it adds 0 to every distance */
            qs[load_col + c][load_row] = (gq < n_q && d < dim) ? __ldg(qrow + d) : 0.0f;
            rs[load_col + c][load_row] = (gr < n_refs && d < dim) ? __ldg(rrow + d) : 0.0f;
        }
        __syncthreads();
#pragma unroll
        for (int kk = 0; kk < TILE_D; kk++) {
            float a[8], b[8];
#pragma unroll
            for (int i = 0; i < 8; i++) a[i] = qs[kk][ty + 16 * i];
#pragma unroll
            for (int j = 0; j < 8; j++) b[j] = rs[kk][tx + 16 * j];
#pragma unroll
            for (int i = 0; i < 8; i++)
#pragma unroll
                for (int j = 0; j < 8; j++) {
                    float diff = a[i] - b[j];
                    acc[i][j] = fmaf(diff, diff, acc[i][j]);
                }
        }
        __syncthreads();
    }
#pragma unroll
    for (int i = 0; i < 8; i++) {
        int q = q0 + ty + 16 * i;
        if (q >= n_q) continue;
#pragma unroll
        for (int j = 0; j < 8; j++) {
            int r = r0 + tx + 16 * j;
            if (r < n_refs) dist[(size_t)q * ld + r] = acc[i][j];
        }
    }
}

/* The block filler knn_blocks calls: squared distances of the nq queries at d_q_block against all
 * references, on the legacy default stream (as the library's block driver runs). */
gmm_status fill_direct_tiles(const float *d_q_block, int nq, const float *d_refs, int n_refs,
                             int dim, float *d_block, size_t ld)
{
    gmm_status status = GMM_OK;
    dim3 grid((unsigned)((n_refs + TILE_R - 1) / TILE_R), (unsigned)((nq + TILE_Q - 1) / TILE_Q));
    sq_dist_tile_kernel<<<grid, THREADS_DIST>>>(d_q_block, nq, d_refs, n_refs, dim, d_block, ld);
    GMM_LAUNCH_CHECK("sq_dist_tile_kernel");
fail:
    return status;
}

} // namespace

extern "C" gmm_status knn_cuda_v1(const float *d_queries, size_t n_queries, const float *d_refs,
                                  size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index,
                                  float *d_nn_dist)
{
    return knn_blocks(d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist,
                      fill_direct_tiles, "knn_cuda_v1");
}

extern "C" gmm_status knn_version(int version, const float *d_queries, size_t n_queries,
                                  const float *d_refs, size_t n_refs, size_t dim, size_t k,
                                  int32_t *d_nn_index, float *d_nn_dist, gmm_gpu *gpu)
{
    switch (version) {
    case 0:
        return knn_cublas(d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist, gpu);
    case 1:
        return knn_cuda_v1(d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist);
    default: return gmm_error(GMM_ERR_ARG, "knn_version: no version %d", version);
    }
}
