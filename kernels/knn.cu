/* CUDA version of the brute-force kNN (see knn.h). A block of queries at a time: a distance
 * block (queries x all references, row stride ld) is filled by cuBLAS SGEMM (-2 q.r, the norms
 * added during selection) or, through knn_blocks, by a caller's kernel (the direct-difference
 * tiles of bench/experiments/knn.cu, which lost to SGEMM); then one warp per query keeps the
 * best k: each lane holds a sorted list of KT >= k candidates in registers (KT a compile-time
 * size so the list never spills to local memory), and the 32 lists are merged by k rounds of a
 * warp-wide argmin. */
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/knn.h"

namespace {

constexpr size_t BLOCK_BUDGET_BYTES = (size_t)1 << 30; /* at most 1 GiB of distances at once */

/* Squared row norms, one warp per row. */
__global__ void row_sq_norm_kernel(const float *__restrict__ x, int n_rows, int dim,
                                   float *__restrict__ norms)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n_rows) return;
    const float *p = x + (size_t)row * dim;
    float acc = 0.0f;
    for (int c = lane; c < dim; c += 32) acc = fmaf(p[c], p[c], acc);
    for (int off = 16; off > 0; off /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, off);
    if (lane == 0) norms[row] = acc;
}

__device__ __forceinline__ bool pair_less(float da, int ia, float db, int ib)
{
    return da < db || (da == db && (unsigned)ia < (unsigned)ib);
}

/* One warp per query row of the distance block. With q_norm/r_norm (GEMM form) the stored value
 * is -2 q.r and the squared distance is max(|q|^2 + |r|^2 - 2 q.r, 0); otherwise it is the
 * squared distance itself. Writes sqrt of the best k, ascending, ties by smaller index. */
template <int KT>
__global__ void select_k_kernel(const float *__restrict__ dist, size_t ld, int n_q, int n_refs,
                                int k, const float *__restrict__ q_norm,
                                const float *__restrict__ r_norm, int32_t *__restrict__ out_index,
                                float *__restrict__ out_dist)
{
    const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
    if (row >= n_q) return;
    float best_d[KT];
    int best_i[KT];
#pragma unroll
    for (int t = 0; t < KT; t++) {
        best_d[t] = INFINITY;
        best_i[t] = -1; /* as unsigned, larger than every real index */
    }
    const float *p = dist + (size_t)row * ld;
    const float qn = q_norm ? q_norm[row] : 0.0f;
    /* Each lane's M-th best (M = ceil(KT / 32), compile-time) bounds the warp's KT-th best: the
     * 32 lanes hold at least 32 M >= KT >= k values at or below the largest of them, so a value
     * above it can never reach the output. Shared every step, it keeps most lanes from inserting. */
    constexpr int M = (KT + 31) / 32;
    float bound = INFINITY;
    /* two 16-byte loads in flight per lane before their values are used */
    /* the loop runs the same number of times in every lane (the bound's shuffles need all 32) */
    for (int base = 0; base < n_refs; base += 256) {
        const int j0 = base + lane * 4;
        const float4 v4a = j0 < n_refs ? *reinterpret_cast<const float4 *>(p + j0)
                                       : make_float4(0.f, 0.f, 0.f, 0.f);
        const float4 v4b = j0 + 128 < n_refs ? *reinterpret_cast<const float4 *>(p + j0 + 128)
                                             : make_float4(0.f, 0.f, 0.f, 0.f);
        const float v[8] = {v4a.x, v4a.y, v4a.z, v4a.w, v4b.x, v4b.y, v4b.z, v4b.w};
#pragma unroll
        for (int e = 0; e < 8; e++) {
            const int j = j0 + (e / 4) * 128 + e % 4;
            if (j >= n_refs) continue;
            float d = v[e];
            if (q_norm) d = fmaxf(qn + __ldg(r_norm + j) + d, 0.0f);
            if (d < best_d[KT - 1] && d <= bound) {
                /* the new index is the lane's largest so far, so it goes after equal values;
                 * the entries it pushes along compare by (value, index) to keep their order */
                float cd = d;
                int ci = j;
#pragma unroll
                for (int t = 0; t < KT; t++) {
                    if (pair_less(cd, ci, best_d[t], best_i[t])) {
                        float td = best_d[t];
                        int ti = best_i[t];
                        best_d[t] = cd;
                        best_i[t] = ci;
                        cd = td;
                        ci = ti;
                    }
                }
            }
        }
        bound = best_d[M - 1];
#pragma unroll
        for (int off = 16; off > 0; off /= 2) bound = fmaxf(bound, __shfl_xor_sync(0xffffffffu, bound, off));
    }
    for (int out = 0; out < k; out++) {
        float md = best_d[0];
        int mi = best_i[0];
#pragma unroll
        for (int off = 16; off > 0; off /= 2) {
            float od = __shfl_xor_sync(0xffffffffu, md, off);
            int oi = __shfl_xor_sync(0xffffffffu, mi, off);
            if (pair_less(od, oi, md, mi)) {
                md = od;
                mi = oi;
            }
        }
        if (best_i[0] == mi && best_d[0] == md) { /* the (unique) owner pops its head */
#pragma unroll
            for (int t = 0; t < KT - 1; t++) {
                best_d[t] = best_d[t + 1];
                best_i[t] = best_i[t + 1];
            }
            best_d[KT - 1] = INFINITY;
            best_i[KT - 1] = -1;
        }
        if (lane == 0) {
            out_index[(size_t)row * k + out] = mi;
            out_dist[(size_t)row * k + out] = sqrtf(md);
        }
    }
}

template <int KT>
cudaError_t launch_select(const float *dist, size_t ld, int n_q, int n_refs, int k,
                          const float *q_norm, const float *r_norm, int32_t *out_index,
                          float *out_dist)
{
    const int warps = 4;
    select_k_kernel<KT><<<(n_q + warps - 1) / warps, warps * 32>>>(dist, ld, n_q, n_refs, k, q_norm,
                                                                 r_norm, out_index, out_dist);
    return cudaGetLastError();
}

cudaError_t select_k(const float *dist, size_t ld, int n_q, int n_refs, int k,
                     const float *q_norm, const float *r_norm, int32_t *out_index,
                     float *out_dist)
{
    if (k <= 8) return launch_select<8>(dist, ld, n_q, n_refs, k, q_norm, r_norm, out_index, out_dist);
    if (k <= 16) return launch_select<16>(dist, ld, n_q, n_refs, k, q_norm, r_norm, out_index, out_dist);
    if (k <= 24) return launch_select<24>(dist, ld, n_q, n_refs, k, q_norm, r_norm, out_index, out_dist);
    if (k <= 32) return launch_select<32>(dist, ld, n_q, n_refs, k, q_norm, r_norm, out_index, out_dist);
    if (k <= 64) return launch_select<64>(dist, ld, n_q, n_refs, k, q_norm, r_norm, out_index, out_dist);
    return launch_select<128>(dist, ld, n_q, n_refs, k, q_norm, r_norm, out_index, out_dist);
}

/* The block driver: SGEMM on gpu when fill is NULL, else fill (see knn_blocks). */
gmm_status knn_run(const float *d_queries, size_t n_queries, const float *d_refs, size_t n_refs,
                   size_t dim, size_t k, int32_t *d_nn_index, float *d_nn_dist, gmm_gpu *gpu,
                   knn_fill_fn fill, const char *name)
{
    gmm_status status = GMM_OK;
    float *d_block = nullptr, *d_qnorm = nullptr, *d_rnorm = nullptr;
    const bool use_cublas = fill == nullptr;
    if (!d_queries || !d_refs || !d_nn_index || !d_nn_dist || dim == 0 || k == 0 ||
        k > n_refs || k > KNN_CUDA_MAX_K || n_refs > INT32_MAX / 2 || dim > INT32_MAX ||
        n_queries > INT32_MAX)
        return gmm_error(GMM_ERR_ARG,
                         "%s: need 1 <= k (%zu) <= min(n_refs (%zu), %d), dim > 0, sizes < 2^30",
                         name, k, n_refs, KNN_CUDA_MAX_K);
    if (n_queries == 0) return GMM_OK;
    {
        const size_t ld = (n_refs + 31) / 32 * 32, row_bytes = ld * sizeof(float);
        size_t free_b = 0, total_b = 0;
        GMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        size_t budget = free_b / 2 < BLOCK_BUDGET_BYTES ? free_b / 2 : BLOCK_BUDGET_BYTES;
        size_t block_q = budget / row_bytes;
        if (block_q < 1) block_q = 1;
        if (block_q > n_queries) block_q = n_queries;
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_block, block_q * row_bytes));
        if (use_cublas) {
            GMM_CUDA_CHECK(cudaMalloc((void **)&d_qnorm, n_queries * sizeof(float)));
            GMM_CUDA_CHECK(cudaMalloc((void **)&d_rnorm, n_refs * sizeof(float)));
            row_sq_norm_kernel<<<(unsigned)((n_queries + 7) / 8), 256>>>(d_queries, (int)n_queries,
                                                                         (int)dim, d_qnorm);
            GMM_LAUNCH_CHECK("row_sq_norm_kernel");
            row_sq_norm_kernel<<<(unsigned)((n_refs + 7) / 8), 256>>>(d_refs, (int)n_refs, (int)dim,
                                                                      d_rnorm);
            GMM_LAUNCH_CHECK("row_sq_norm_kernel");
        }
        for (size_t q0 = 0; q0 < n_queries; q0 += block_q) {
            const int nq = (int)(n_queries - q0 < block_q ? n_queries - q0 : block_q);
            const float *qs = d_queries + q0 * dim;
            if (use_cublas) {
                /* D (nq x n_refs, stride ld) = -2 Q R^T; the caller's resources object decides
                 * the math mode (the knn callers leave TF32 off) */
                status = gmm_gpu_sgemm(gpu, false, true, nq, (int)n_refs, (int)dim, -2.0f, qs,
                                       (int)dim, d_refs, (int)dim, 0.0f, d_block, (int)ld);
                if (status != GMM_OK) goto fail;
            } else {
                status = fill(qs, nq, d_refs, (int)n_refs, (int)dim, d_block, ld);
                if (status != GMM_OK) goto fail;
            }
            GMM_CUDA_CHECK(select_k(d_block, ld, nq, (int)n_refs, (int)k,
                                    use_cublas ? d_qnorm + q0 : nullptr, use_cublas ? d_rnorm : nullptr,
                                    d_nn_index + q0 * k, d_nn_dist + q0 * k));
            GMM_LAUNCH_CHECK("select_k_kernel");
        }
        GMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
fail:
    cudaFree(d_block);
    cudaFree(d_qnorm);
    cudaFree(d_rnorm);
    return status;
}

} // namespace

extern "C" gmm_status knn_blocks(const float *d_queries, size_t n_queries, const float *d_refs,
                                 size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index,
                                 float *d_nn_dist, knn_fill_fn fill, const char *name)
{
    if (!fill) return gmm_error(GMM_ERR_ARG, "knn_blocks: no distance kernel");
    return knn_run(d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist, nullptr,
                   fill, name ? name : "knn_blocks");
}

extern "C" gmm_status knn_cublas(const float *d_queries, size_t n_queries, const float *d_refs,
                                 size_t n_refs, size_t dim, size_t k, int32_t *d_nn_index,
                                 float *d_nn_dist, gmm_gpu *gpu)
{
    if (!gpu) return gmm_error(GMM_ERR_ARG, "knn_cublas: no GPU resources object");
    return knn_run(d_queries, n_queries, d_refs, n_refs, dim, k, d_nn_index, d_nn_dist, gpu,
                   nullptr, "knn_cublas");
}

extern "C" gmm_status knn_cuda_host(const float *queries, size_t n_queries, const float *refs,
                                    size_t n_refs, size_t dim, size_t k, gmm_gpu *gpu,
                                    int32_t *nn_index, float *nn_dist)
{
    gmm_status status = GMM_OK;
    float *d_q = nullptr, *d_r = nullptr, *d_dist = nullptr;
    int32_t *d_idx = nullptr;
    gmm_gpu *own_gpu = nullptr;
    if (!queries || !refs || !nn_index || !nn_dist)
        return gmm_error(GMM_ERR_ARG, "knn_cuda_host: NULL array");
    if (n_queries == 0) return GMM_OK;
    if (!gpu) { /* a resources object of its own for this call (TF32 off) */
        if ((status = gmm_gpu_create(&own_gpu)) != GMM_OK) return status;
        gpu = own_gpu;
    }
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_q, n_queries * dim * sizeof(float)));
    GMM_CUDA_CHECK(cudaMemcpy(d_q, queries, n_queries * dim * sizeof(float), cudaMemcpyHostToDevice));
    if (refs == queries) {
        d_r = d_q;
    } else {
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_r, n_refs * dim * sizeof(float)));
        GMM_CUDA_CHECK(cudaMemcpy(d_r, refs, n_refs * dim * sizeof(float), cudaMemcpyHostToDevice));
    }
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_idx, n_queries * k * sizeof(int32_t)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_dist, n_queries * k * sizeof(float)));
    /* poison (index -1, distance NaN) so that unwritten outputs show */
    GMM_CUDA_CHECK(cudaMemset(d_idx, 0xFF, n_queries * k * sizeof(int32_t)));
    GMM_CUDA_CHECK(cudaMemset(d_dist, 0xFF, n_queries * k * sizeof(float)));
    status = knn_cublas(d_q, n_queries, d_r, n_refs, dim, k, d_idx, d_dist, gpu);
    if (status != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(nn_index, d_idx, n_queries * k * sizeof(int32_t), cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(nn_dist, d_dist, n_queries * k * sizeof(float), cudaMemcpyDeviceToHost));
fail:
    if (d_r != d_q) cudaFree(d_r);
    cudaFree(d_q);
    cudaFree(d_idx);
    cudaFree(d_dist);
    gmm_gpu_destroy(own_gpu);
    return status;
}
