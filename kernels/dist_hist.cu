/* CUDA per-query distance histograms (see dist_hist.h). One kernel in two modes over the same
 * tiling, so that both passes compute bit-identical distances: a block owns QB queries (kept in
 * shared memory) and a chunk of references, which it streams through a shared-memory tile of
 * 1024 references x 8 dimensions; each of the 512 threads computes QB x 2 distances per tile by
 * direct differences. Pass 1 reduces per-query min/max (atomics on the float bits: distances
 * are >= 0, so their bit patterns order like the values); pass 2 bins into QB shared-memory
 * histograms and adds the non-zero bins to the global ones at the end. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/dist_hist.h"

namespace {

constexpr int THREADS = 512, REFS_PER_THREAD = 2, TILE_REFS = THREADS * REFS_PER_THREAD;
constexpr int TILE_DIMS = 8, TILE_LD = TILE_REFS + 4; /* +4: the transposed stores hit 32 banks */
constexpr int MINMAX_QB = 16;
constexpr size_t QUERY_BLOCK_HOST = 16384; /* queries per round in the host wrapper */

template <int QB, bool HIST>
__global__ void __launch_bounds__(THREADS)
dist_pass_kernel(const float *__restrict__ queries, int n_q, const float *__restrict__ refs,
                 unsigned n_refs, int dim, unsigned chunk, int n_bins,
                 unsigned *__restrict__ min_bits, unsigned *__restrict__ max_bits,
                 uint32_t *__restrict__ hist)
{
    extern __shared__ float smem[];
    const int dim_pad = (dim + TILE_DIMS - 1) / TILE_DIMS * TILE_DIMS;
    float *rs = smem;                         /* [TILE_DIMS][TILE_LD] */
    float *qs = rs + TILE_DIMS * TILE_LD;     /* [dim_pad][QB] */
    uint32_t *sh_hist = reinterpret_cast<uint32_t *>(qs + (size_t)dim_pad * QB); /* [QB][n_bins] */
    __shared__ float q_lo[QB], q_scale[QB];

    const int tid = threadIdx.x;
    const int q0 = blockIdx.x * QB;
    const unsigned r_begin = blockIdx.y * chunk;
    const unsigned r_end = r_begin + chunk < n_refs ? r_begin + chunk : n_refs;

    for (int i = tid; i < dim_pad * QB; i += THREADS) {
        int d = i / QB, q = i % QB;
        qs[i] = (q0 + q < n_q && d < dim) ? queries[(size_t)(q0 + q) * dim + d] : 0.0f;
    }
    if (HIST) {
        for (int i = tid; i < QB * n_bins; i += THREADS) sh_hist[i] = 0;
        if (tid < QB) {
            float lo = 0.0f, range = 0.0f;
            if (q0 + tid < n_q) {
                lo = __uint_as_float(min_bits[q0 + tid]);
                range = __uint_as_float(max_bits[q0 + tid]) - lo;
            }
            q_lo[tid] = lo;
            q_scale[tid] = range; /* kept as the range: the bin uses the same division as the CPU */
        }
    }
    float lo_acc[QB], hi_acc[QB];
#pragma unroll
    for (int q = 0; q < QB; q++) {
        lo_acc[q] = INFINITY;
        hi_acc[q] = 0.0f;
    }
    __syncthreads();

    for (unsigned t0 = r_begin; t0 < r_end; t0 += TILE_REFS) {
        float acc[QB][REFS_PER_THREAD];
#pragma unroll
        for (int q = 0; q < QB; q++)
#pragma unroll
            for (int j = 0; j < REFS_PER_THREAD; j++) acc[q][j] = 0.0f;
        for (int d0 = 0; d0 < dim; d0 += TILE_DIMS) {
#pragma unroll
            for (int i = tid; i < TILE_REFS * TILE_DIMS; i += THREADS) {
                int row = i / TILE_DIMS, col = i % TILE_DIMS;
                unsigned r = t0 + row;
                int d = d0 + col;
                rs[col * TILE_LD + row] = (r < r_end && d < dim) ? __ldg(refs + (size_t)r * dim + d) : 0.0f;
            }
            __syncthreads();
#pragma unroll
            for (int kk = 0; kk < TILE_DIMS; kk++) {
                float qv[QB], rv[REFS_PER_THREAD];
#pragma unroll
                for (int q = 0; q < QB; q++) qv[q] = qs[(d0 + kk) * QB + q];
#pragma unroll
                for (int j = 0; j < REFS_PER_THREAD; j++) rv[j] = rs[kk * TILE_LD + tid + THREADS * j];
#pragma unroll
                for (int q = 0; q < QB; q++)
#pragma unroll
                    for (int j = 0; j < REFS_PER_THREAD; j++) {
                        float diff = qv[q] - rv[j];
                        acc[q][j] = __fmaf_rn(diff, diff, acc[q][j]);
                    }
            }
            __syncthreads();
        }
#pragma unroll
        for (int j = 0; j < REFS_PER_THREAD; j++) {
            if (t0 + tid + THREADS * j >= r_end) continue;
#pragma unroll
            for (int q = 0; q < QB; q++) {
                float d = __fsqrt_rn(acc[q][j]);
                if (HIST) {
                    int bin = 0;
                    float range = q_scale[q];
                    if (range > 0.0f) {
                        float b = floorf(__fdiv_rn(__fmul_rn(__fsub_rn(d, q_lo[q]), (float)n_bins), range));
                        bin = b >= (float)n_bins ? n_bins - 1 : (b > 0.0f ? (int)b : 0);
                    }
                    atomicAdd(&sh_hist[q * n_bins + bin], 1u);
                } else {
                    lo_acc[q] = fminf(lo_acc[q], d);
                    hi_acc[q] = fmaxf(hi_acc[q], d);
                }
            }
        }
    }

    if (HIST) {
        __syncthreads();
        for (int i = tid; i < QB * n_bins; i += THREADS) {
            int q = i / n_bins;
            uint32_t c = sh_hist[i];
            if (c && q0 + q < n_q) atomicAdd(&hist[(size_t)(q0 + q) * n_bins + i % n_bins], c);
        }
    } else {
#pragma unroll
        for (int q = 0; q < QB; q++) {
            float lo = lo_acc[q], hi = hi_acc[q];
            for (int off = 16; off > 0; off /= 2) {
                lo = fminf(lo, __shfl_xor_sync(0xffffffffu, lo, off));
                hi = fmaxf(hi, __shfl_xor_sync(0xffffffffu, hi, off));
            }
            if (tid % 32 == 0 && q0 + q < n_q && lo <= hi) {
                atomicMin(&min_bits[q0 + q], __float_as_uint(lo));
                atomicMax(&max_bits[q0 + q], __float_as_uint(hi));
            }
        }
    }
}

__global__ void init_minmax_kernel(unsigned *min_bits, unsigned *max_bits, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        min_bits[i] = 0x7f800000u; /* +inf */
        max_bits[i] = 0u;
    }
}

size_t smem_bytes(int qb, int dim, int n_bins, bool hist)
{
    size_t dim_pad = (size_t)(dim + TILE_DIMS - 1) / TILE_DIMS * TILE_DIMS;
    return sizeof(float) * ((size_t)TILE_DIMS * TILE_LD + dim_pad * qb) +
           (hist ? sizeof(uint32_t) * (size_t)qb * n_bins : 0);
}

/* Chunks of the references so that the grid has about 4 blocks per SM. */
unsigned ref_chunk(unsigned n_refs, unsigned query_groups, int n_sm)
{
    unsigned want_chunks = (unsigned)(4 * n_sm) / (query_groups ? query_groups : 1);
    if (want_chunks < 1) want_chunks = 1;
    unsigned chunk = (n_refs + want_chunks - 1) / want_chunks;
    chunk = (chunk + TILE_REFS - 1) / TILE_REFS * TILE_REFS;
    return chunk;
}

template <int QB, bool HIST>
gmm_status launch_pass(const float *d_q, int n_q, const float *d_refs, unsigned n_refs, int dim,
                       int n_bins, unsigned *min_bits, unsigned *max_bits, uint32_t *d_hist,
                       int n_sm)
{
    gmm_status status = GMM_OK;
    size_t smem = smem_bytes(QB, dim, n_bins, HIST);
    unsigned groups = (unsigned)((n_q + QB - 1) / QB);
    unsigned chunk = ref_chunk(n_refs, groups, n_sm);
    dim3 grid(groups, (n_refs + chunk - 1) / chunk);
    GMM_CUDA_CHECK(cudaFuncSetAttribute(dist_pass_kernel<QB, HIST>,
                                        cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    dist_pass_kernel<QB, HIST><<<grid, THREADS, smem>>>(d_q, n_q, d_refs, n_refs, dim, chunk, n_bins,
                                                        min_bits, max_bits, d_hist);
    GMM_LAUNCH_CHECK(HIST ? "dist_pass_kernel<hist>" : "dist_pass_kernel<minmax>");
fail:
    return status;
}

} // namespace

extern "C" gmm_status dist_hist_cuda(const float *d_queries, size_t n_queries, const float *d_refs,
                                     size_t n_refs, size_t dim, size_t n_bins, uint32_t *d_hist,
                                     float *d_dist_min, float *d_dist_max)
{
    gmm_status status = GMM_OK;
    unsigned *d_min = nullptr, *d_max = nullptr;
    int dev = 0, n_sm = 0, smem_optin = 0, qb = 0;
    if (!d_queries || !d_refs || !d_hist || dim == 0 || dim > (1 << 20) || n_bins == 0 ||
        n_bins > INT32_MAX || n_refs == 0 || n_refs > UINT32_MAX - TILE_REFS || n_queries > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "dist_hist_cuda: need n_refs, dim, n_bins > 0 (n_refs < 2^32)");
    if (n_queries == 0) return GMM_OK;
    GMM_CUDA_CHECK(cudaGetDevice(&dev));
    GMM_CUDA_CHECK(cudaDeviceGetAttribute(&n_sm, cudaDevAttrMultiProcessorCount, dev));
    GMM_CUDA_CHECK(cudaDeviceGetAttribute(&smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
    smem_optin -= 64; /* the static q_lo/q_scale arrays */
    for (int cand = 8; cand >= 1 && !qb; cand /= 2)
        if (smem_bytes(cand, (int)dim, (int)n_bins, true) <= (size_t)smem_optin) qb = cand;
    if (!qb || smem_bytes(MINMAX_QB, (int)dim, 0, false) > (size_t)smem_optin)
        return gmm_error(GMM_ERR_UNSUPPORTED,
                         "dist_hist_cuda: %zu bins of one query (dim %zu) do not fit in %d bytes of shared memory",
                         n_bins, dim, smem_optin);

    /* min/max as float bits in the caller's arrays when given, else in scratch */
    if (d_dist_min) d_min = reinterpret_cast<unsigned *>(d_dist_min);
    else GMM_CUDA_CHECK(cudaMalloc((void **)&d_min, n_queries * sizeof(unsigned)));
    if (d_dist_max) d_max = reinterpret_cast<unsigned *>(d_dist_max);
    else GMM_CUDA_CHECK(cudaMalloc((void **)&d_max, n_queries * sizeof(unsigned)));
    init_minmax_kernel<<<(unsigned)((n_queries + 255) / 256), 256>>>(d_min, d_max, (int)n_queries);
    GMM_LAUNCH_CHECK("init_minmax_kernel");
    GMM_CUDA_CHECK(cudaMemset(d_hist, 0, n_queries * n_bins * sizeof(uint32_t)));
    status = launch_pass<MINMAX_QB, false>(d_queries, (int)n_queries, d_refs, (unsigned)n_refs,
                                           (int)dim, (int)n_bins, d_min, d_max, nullptr, n_sm);
    if (status != GMM_OK) goto fail;
    switch (qb) {
    case 8: status = launch_pass<8, true>(d_queries, (int)n_queries, d_refs, (unsigned)n_refs, (int)dim, (int)n_bins, d_min, d_max, d_hist, n_sm); break;
    case 4: status = launch_pass<4, true>(d_queries, (int)n_queries, d_refs, (unsigned)n_refs, (int)dim, (int)n_bins, d_min, d_max, d_hist, n_sm); break;
    case 2: status = launch_pass<2, true>(d_queries, (int)n_queries, d_refs, (unsigned)n_refs, (int)dim, (int)n_bins, d_min, d_max, d_hist, n_sm); break;
    default: status = launch_pass<1, true>(d_queries, (int)n_queries, d_refs, (unsigned)n_refs, (int)dim, (int)n_bins, d_min, d_max, d_hist, n_sm); break;
    }
    if (status != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaDeviceSynchronize());
fail:
    if (!d_dist_min) cudaFree(d_min);
    if (!d_dist_max) cudaFree(d_max);
    return status;
}

extern "C" gmm_status dist_hist_cuda_host(const float *queries, size_t n_queries, const float *refs,
                                          size_t n_refs, size_t dim, size_t n_bins, uint32_t *hist,
                                          float *dist_min, float *dist_max)
{
    gmm_status status = GMM_OK;
    float *d_refs = nullptr, *d_q = nullptr, *d_min = nullptr, *d_max = nullptr;
    uint32_t *d_hist = nullptr;
    size_t block = n_queries < QUERY_BLOCK_HOST ? n_queries : QUERY_BLOCK_HOST;
    if (!queries || !refs || !hist) return gmm_error(GMM_ERR_ARG, "dist_hist_cuda_host: NULL array");
    if (n_queries == 0) return GMM_OK;
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_refs, n_refs * dim * sizeof(float)));
    GMM_CUDA_CHECK(cudaMemcpy(d_refs, refs, n_refs * dim * sizeof(float), cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_q, block * dim * sizeof(float)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_hist, block * n_bins * sizeof(uint32_t)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_min, block * sizeof(float)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_max, block * sizeof(float)));
    for (size_t q0 = 0; q0 < n_queries; q0 += block) {
        size_t nq = n_queries - q0 < block ? n_queries - q0 : block;
        GMM_CUDA_CHECK(cudaMemcpy(d_q, queries + q0 * dim, nq * dim * sizeof(float), cudaMemcpyHostToDevice));
        GMM_CUDA_CHECK(cudaMemset(d_hist, 0xFF, nq * n_bins * sizeof(uint32_t))); /* poison */
        status = dist_hist_cuda(d_q, nq, d_refs, n_refs, dim, n_bins, d_hist, d_min, d_max);
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaMemcpy(hist + q0 * n_bins, d_hist, nq * n_bins * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (dist_min) GMM_CUDA_CHECK(cudaMemcpy(dist_min + q0, d_min, nq * sizeof(float), cudaMemcpyDeviceToHost));
        if (dist_max) GMM_CUDA_CHECK(cudaMemcpy(dist_max + q0, d_max, nq * sizeof(float), cudaMemcpyDeviceToHost));
    }
fail:
    cudaFree(d_refs);
    cudaFree(d_q);
    cudaFree(d_hist);
    cudaFree(d_min);
    cudaFree(d_max);
    return status;
}
