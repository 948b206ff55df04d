/* GPU version of the E-step's row operation (see estep_rows.h): a block of 8 warps takes 4
 * rows, one warp a (row, component) squared distance (over the column blocks in turn when the
 * product is blocked), one warp a row's log-sum-exp. */
#include <math.h>
#include <stdint.h>

#include "kernels/estep_rows.h"
#include "kernels/grid.cuh"
#include "kernels/reduce.cuh"

#define ESTEP_ROWS_THREADS 256
#define ESTEP_ROWS_PER_BLOCK 4 /* rows a block takes (1 when K x 4 doubles exceed shared memory) */

/* This lane's part of sum_j t_j^2 over d values of one row of one component (t_j by MODE, as
 * in the kernel's comment), lanes striding over j with two accumulators; the caller's butterfly
 * sum gives every lane the whole. */
template <int MODE, typename T>
static __device__ __forceinline__ double squared_sum(const T *__restrict__ yk,
                                                     const double *__restrict__ bk,
                                                     const double *__restrict__ pk, int d,
                                                     int lane)
{
    double s0 = 0, s1 = 0;
    int j = lane;
    for (; j + 32 < d; j += 64) {
        double t0 = (double)yk[j] - bk[j];
        double t1 = (double)yk[j + 32] - bk[j + 32];
        if (MODE == 1) {
            t0 *= pk[j];
            t1 *= pk[j + 32];
        }
        s0 += t0 * t0;
        s1 += t1 * t1;
    }
    if (j < d) {
        double t0 = (double)yk[j] - bk[j];
        if (MODE == 1) t0 *= pk[j];
        s0 += t0 * t0;
    }
    return s0 + s1;
}

/* The same for MODE 0 reading y 16 bytes at a time (float4 or double2: more bytes in flight a
 * load, 2.8 against 2.2 TB/s on the H100 for a float32 Y); needs d, the strides and Y aligned to
 * the vector. */
template <typename T> struct estep_vec;
template <> struct estep_vec<float> { typedef float4 type; };
template <> struct estep_vec<double> { typedef double2 type; };

template <typename T>
static __device__ __forceinline__ double squared_sum_vec(const T *__restrict__ yk,
                                                         const double *__restrict__ bk, int d,
                                                         int lane)
{
    typedef typename estep_vec<T>::type V;
    const int W = (int)(sizeof(V) / sizeof(T));
    const V *yv = (const V *)yk;
    double s0 = 0, s1 = 0;
    for (int v = lane; v < d / W; v += 32) {
        const V y = yv[v];
        const T *e = (const T *)&y;
        const double *b = bk + (int64_t)v * W;
#pragma unroll
        for (int w = 0; w < W; w += 2) {
            const double t0 = (double)e[w] - b[w], t1 = (double)e[w + 1] - b[w + 1];
            s0 += t0 * t0;
            s1 += t1 * t1;
        }
    }
    return s0 + s1;
}

/* A block takes rows_per_block rows; its warps share the (row, component) pairs, one warp a
 * pair, for each s = sum_j t_j^2 with
 *   MODE 0 (projected: full, tied): t_j = Y[i, k*koff + j] - b[k, j]       (Y = X U, b = mu U)
 *   MODE 1 (diag):                  t_j = (X[i, j] - mu[k, j]) * p[k, j]
 *   MODE 2 (spherical):             t_j = X[i, j] - mu[k, j], s *= p[k]^2
 * then log_prob = const_k - s/2 in shared memory, and one warp a row its log-sum-exp over k and
 * log_resp = log_prob - lse. */
template <int MODE, typename T, bool VEC>
static __global__ void __launch_bounds__(ESTEP_ROWS_THREADS)
estep_rows_kernel(const T *__restrict__ Y, int64_t ldy, int64_t koff, int block,
                  const double *__restrict__ b, const double *__restrict__ p,
                  const double *__restrict__ cst, int K, int d, int64_t n, int rows_per_block,
                  double *__restrict__ log_resp, double *__restrict__ lpn)
{
    extern __shared__ double lp[]; /* rows_per_block x K */
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const int64_t i0 = (int64_t)blockIdx.x * rows_per_block;
    const bool blocked = block < d; /* column blocks of width block (estep_rows.h) */
    for (int pair = warp; pair < rows_per_block * K; pair += nwarps) {
        const int r = pair / K, k = pair % K;
        const int64_t i = i0 + r;
        if (i >= n) continue;
        const T *row = Y + i * ldy;
        const double *bk = b + (int64_t)k * d;
        double s = 0;
        for (int j0 = 0; j0 < d; j0 += block) {
            const int w = d - j0 < block ? d - j0 : block;
            const T *yk = row + (!blocked ? (int64_t)k * koff
                                 : koff   ? (int64_t)j0 * K + (int64_t)k * w
                                          : (int64_t)j0);
            s += VEC ? squared_sum_vec<T>(yk, bk + j0, w, lane)
                     : squared_sum<MODE, T>(yk, bk + j0, MODE == 1 ? p + (int64_t)k * d : NULL,
                                            w, lane);
        }
        s = warp_sum(s);
        if (MODE == 2) s *= p[k] * p[k];
        if (lane == 0) lp[r * K + k] = cst[k] - 0.5 * s;
    }
    __syncthreads();
    if (warp < rows_per_block && i0 + warp < n) {
        const int64_t i = i0 + warp;
        const double *l = lp + warp * K;
        double mx = -INFINITY;
        for (int k = lane; k < K; k += 32) mx = fmax(mx, l[k]);
        mx = warp_max(mx);
        double s = 0;
        for (int k = lane; k < K; k += 32) s += exp(l[k] - mx);
        s = warp_sum(s);
        double norm = mx + log(s);
        for (int k = lane; k < K; k += 32) log_resp[i * K + k] = l[k] - norm;
        if (lane == 0) lpn[i] = norm;
    }
}

template <typename T>
static gmm_status launch(estep_rows_mode mode, const T *Y, size_t ld_y, size_t comp_stride,
                         size_t col_block, const double *centers, const double *scales,
                         const double *log_const, size_t n_rows, int K, int d, double *log_resp,
                         double *lpn, void *stream, const char *name)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    const int rows = (size_t)K * ESTEP_ROWS_PER_BLOCK * sizeof(double) <= 48 * 1024
                         ? ESTEP_ROWS_PER_BLOCK
                         : 1;
    const size_t shmem = sizeof(double) * (size_t)K * rows;
    const int W = (int)(16 / sizeof(T));
    const bool blocked = mode == ESTEP_ROWS_PROJECTED && col_block > 0 && col_block < (size_t)d;
    const int block = blocked ? (int)col_block : d;
    const bool vec = mode == ESTEP_ROWS_PROJECTED && d % W == 0 && ld_y % W == 0 &&
                     comp_stride % W == 0 && block % W == 0 && (uintptr_t)Y % 16 == 0;
    if (!Y || !centers || !log_const || !log_resp || !lpn || K <= 0 || d <= 0 ||
        (mode != ESTEP_ROWS_PROJECTED && !scales) || n_rows > 0x7fffffffu)
        return gmm_error(GMM_ERR_ARG, "%s: bad arguments", name);
    if (blocked && comp_stride != 0 && comp_stride != (size_t)d)
        return gmm_error(GMM_ERR_ARG, "%s: column blocks need a stride of 0 or dim", name);
    if (K > ESTEP_ROWS_MAX_COMPONENTS)
        return gmm_error(GMM_ERR_UNSUPPORTED, "%s: at most %d components (%d)", name,
                         ESTEP_ROWS_MAX_COMPONENTS, K);
    if (n_rows == 0) return GMM_OK;
    {
        const unsigned grid = (unsigned)((n_rows + (size_t)rows - 1) / (size_t)rows);
        const int64_t n = (int64_t)n_rows, ld = (int64_t)ld_y, ko = (int64_t)comp_stride;
        switch (mode) {
        case ESTEP_ROWS_PROJECTED:
            if (vec)
                estep_rows_kernel<0, T, true><<<grid, ESTEP_ROWS_THREADS, shmem, s>>>(
                    Y, ld, ko, block, centers, NULL, log_const, K, d, n, rows, log_resp, lpn);
            else
                estep_rows_kernel<0, T, false><<<grid, ESTEP_ROWS_THREADS, shmem, s>>>(
                    Y, ld, ko, block, centers, NULL, log_const, K, d, n, rows, log_resp, lpn);
            GMM_LAUNCH_CHECK("estep_rows_kernel<full/tied>");
            break;
        case ESTEP_ROWS_DIAG:
            estep_rows_kernel<1, T, false><<<grid, ESTEP_ROWS_THREADS, shmem, s>>>(
                Y, ld, ko, block, centers, scales, log_const, K, d, n, rows, log_resp, lpn);
            GMM_LAUNCH_CHECK("estep_rows_kernel<diag>");
            break;
        case ESTEP_ROWS_SPHERICAL:
            estep_rows_kernel<2, T, false><<<grid, ESTEP_ROWS_THREADS, shmem, s>>>(
                Y, ld, ko, block, centers, scales, log_const, K, d, n, rows, log_resp, lpn);
            GMM_LAUNCH_CHECK("estep_rows_kernel<spherical>");
            break;
        default: return gmm_error(GMM_ERR_ARG, "%s: unknown mode %d", name, (int)mode);
        }
    }
fail:
    return status;
}

extern "C" gmm_status estep_rows_cuda(estep_rows_mode mode, const double *d_Y, size_t ld_y,
                                      size_t comp_stride, size_t col_block,
                                      const double *d_centers, const double *d_scales,
                                      const double *d_log_const,
                                      size_t n_rows, int n_components, int dim,
                                      double *d_log_resp, double *d_log_prob_norm, void *stream)
{
    return launch<double>(mode, d_Y, ld_y, comp_stride, col_block, d_centers, d_scales,
                          d_log_const, n_rows, n_components, dim, d_log_resp, d_log_prob_norm,
                          stream, "estep_rows_cuda");
}

extern "C" gmm_status estep_rows_f32_cuda(estep_rows_mode mode, const float *d_Y, size_t ld_y,
                                          size_t comp_stride, size_t col_block,
                                          const double *d_centers, const double *d_scales,
                                          const double *d_log_const, size_t n_rows,
                                          int n_components, int dim,
                                          double *d_log_resp, double *d_log_prob_norm,
                                          void *stream)
{
    return launch<float>(mode, d_Y, ld_y, comp_stride, col_block, d_centers, d_scales,
                         d_log_const, n_rows, n_components, dim, d_log_resp, d_log_prob_norm,
                         stream, "estep_rows_f32_cuda");
}

/* a thread per row: lp = log_const - dist / 2 in place, its log-sum-exp, the log
 * responsibilities */
static __global__ void from_dist_kernel(const double *__restrict__ cst, int64_t n, int K,
                                        double *rows, double *lpn)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        double *row = rows + i * K, mx = -INFINITY;
        for (int k = 0; k < K; k++) {
            row[k] = cst[k] - 0.5 * row[k];
            mx = fmax(mx, row[k]);
        }
        double s = 0;
        for (int k = 0; k < K; k++) s += exp(row[k] - mx);
        const double norm = mx + log(s);
        for (int k = 0; k < K; k++) row[k] -= norm;
        lpn[i] = norm;
    }
}

extern "C" gmm_status estep_rows_from_dist_cuda(const double *d_log_const, size_t n_rows,
                                                int n_components, double *d_dist_to_log_resp,
                                                double *d_log_prob_norm, void *stream)
{
    gmm_status status = GMM_OK;
    if (!d_log_const || !d_dist_to_log_resp || !d_log_prob_norm || n_components <= 0)
        return gmm_error(GMM_ERR_ARG, "estep_rows_from_dist_cuda: bad arguments");
    if (n_rows == 0) return GMM_OK;
    from_dist_kernel<<<kernel_grid_for((int64_t)n_rows, 256), 256, 0, (cudaStream_t)stream>>>(
        d_log_const, (int64_t)n_rows, n_components, d_dist_to_log_resp, d_log_prob_norm);
    GMM_CUDA_CHECK(cudaGetLastError());
fail:
    return status;
}
