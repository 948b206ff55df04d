/* GPU version of the weighted column sums (see wsum.h), moved from the CUDA backend's M-step
 * with its launch shapes. */
#include "kernels/wsum.h"

#include "kernels/cuda_check.h"
#include "kernels/grid.cuh"

#define WSUM_THREADS 128
#define WSUM_KT 8 /* components per thread */

/* partial[s, k, j] = sum over the rows of slab s of R[i, k] * f(X[i, j]) with
 * f = x (MODE 0, the means) or (x - mu[k, j])^2 (MODE 1, the diagonal variances). */
template <int MODE, typename T>
static __global__ void __launch_bounds__(WSUM_THREADS)
wsum_kernel(const T *__restrict__ X, int64_t n, int d, const double *__restrict__ R, int K,
            const double *__restrict__ mu, int64_t rows_per_slab, double *__restrict__ partial)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    const int k0 = blockIdx.y * WSUM_KT;
    const int64_t i0 = blockIdx.z * rows_per_slab;
    const int64_t i1 = i0 + rows_per_slab < n ? i0 + rows_per_slab : n;
    if (j >= d) return;
    double acc[WSUM_KT], m[WSUM_KT];
#pragma unroll
    for (int t = 0; t < WSUM_KT; t++) {
        acc[t] = 0;
        m[t] = (MODE == 1 && k0 + t < K) ? mu[(int64_t)(k0 + t) * d + j] : 0;
    }
#pragma unroll 4
    for (int64_t i = i0; i < i1; i++) {
        const double x = (double)X[i * d + j];
        const double *r = R + i * K + k0;
#pragma unroll
        for (int t = 0; t < WSUM_KT; t++) {
            if (k0 + t < K) {
                double v = MODE == 0 ? x : (x - m[t]) * (x - m[t]);
                acc[t] += r[t] * v;
            }
        }
    }
#pragma unroll
    for (int t = 0; t < WSUM_KT; t++)
        if (k0 + t < K) partial[((int64_t)blockIdx.z * K + k0 + t) * d + j] = acc[t];
}

/* out[k, j] = sum_s partial[s, k, j] / div[k] (+ add when MODE 1). */
template <int MODE>
static __global__ void wsum_finish_kernel(const double *__restrict__ partial, int S, int K, int d,
                                          const double *__restrict__ div, double add, double *out)
{
    const int64_t n = (int64_t)K * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        double s = 0;
        for (int sl = 0; sl < S; sl++) s += partial[(int64_t)sl * n + e];
        double v = s / div[e / d];
        if (MODE == 1) v += add;
        out[e] = v;
    }
}

template <int MODE, typename T>
static gmm_status launch(const void *X, int64_t N, int d, const double *R, int K,
                         const double *mu, const double *div, double add, double *partial,
                         size_t partial_n, double *out, cudaStream_t s)
{
    gmm_status status = GMM_OK;
    dim3 grid((d + WSUM_THREADS - 1) / WSUM_THREADS, (K + WSUM_KT - 1) / WSUM_KT, 1);
    /* slabs for about 16 blocks a multiprocessor: each thread's loop waits on its loads of X,
     * so it is the number of warps that hides the latency (4 blocks a multiprocessor took
     * 0.71 ms at 60000 x 784, K = 10, in float32) */
    int device = 0, sms = 132;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
        cudaGetLastError();
        sms = 132;
    }
    int64_t S = (16 * (int64_t)sms + grid.x * grid.y - 1) / (grid.x * grid.y);
    int64_t per;
    if (S > 256) S = 256;
    if (S > N) S = N;
    while (S > 1 && (size_t)S * K * d > partial_n) S--;
    per = (N + S - 1) / S;
    S = (N + per - 1) / per;
    grid.z = (unsigned)S;
    wsum_kernel<MODE, T><<<grid, WSUM_THREADS, 0, s>>>((const T *)X, N, d, R, K, mu, per, partial);
    GMM_LAUNCH_CHECK("wsum_kernel");
    wsum_finish_kernel<MODE><<<kernel_grid_for((int64_t)K * d, 256), 256, 0, s>>>(
        partial, (int)S, K, d, div, add, out);
    GMM_LAUNCH_CHECK("wsum_finish_kernel");
fail:
    return status;
}

extern "C" gmm_status wsum_cuda(const void *d_X, gmm_elem x_elem, size_t n_samples, int dim,
                                const double *d_resp, int n_components, const double *d_centres,
                                const double *d_divisors, double add, double *d_partial,
                                size_t partial_n, double *d_out, void *stream)
{
    cudaStream_t s = (cudaStream_t)stream;
    const int64_t N = (int64_t)n_samples;
    if (!d_X || !d_resp || !d_divisors || !d_partial || !d_out || dim <= 0 || n_components <= 0 ||
        n_samples == 0 || partial_n < (size_t)n_components * dim)
        return gmm_error(GMM_ERR_ARG, "wsum_cuda: bad arguments");
    if (d_centres)
        return x_elem == GMM_ELEM_F64
                   ? launch<1, double>(d_X, N, dim, d_resp, n_components, d_centres, d_divisors,
                                       add, d_partial, partial_n, d_out, s)
                   : launch<1, float>(d_X, N, dim, d_resp, n_components, d_centres, d_divisors,
                                      add, d_partial, partial_n, d_out, s);
    return x_elem == GMM_ELEM_F64
               ? launch<0, double>(d_X, N, dim, d_resp, n_components, d_centres, d_divisors, add,
                                   d_partial, partial_n, d_out, s)
               : launch<0, float>(d_X, N, dim, d_resp, n_components, d_centres, d_divisors, add,
                                  d_partial, partial_n, d_out, s);
}
