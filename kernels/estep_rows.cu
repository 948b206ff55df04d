/* GPU version of the E-step's row operation (see estep_rows.h): one block per row, the
 * component's squared distance by one warp, the log-sum-exp by one warp. */
#include <math.h>

#include "kernels/estep_rows.h"
#include "kernels/reduce.cuh"

#define ESTEP_ROWS_THREADS 128

/* One block per row i: for each component k (one warp each), s = sum_j t_j^2 with
 *   MODE 0 (projected: full, tied): t_j = Y[i, k*koff + j] - b[k, j]       (Y = X U, b = mu U)
 *   MODE 1 (diag):                  t_j = (X[i, j] - mu[k, j]) * p[k, j]
 *   MODE 2 (spherical):             t_j = X[i, j] - mu[k, j], s *= p[k]^2
 * then log_prob = const_k - s/2, its log-sum-exp over k, and log_resp = log_prob - lse. */
template <int MODE, typename T>
static __global__ void __launch_bounds__(ESTEP_ROWS_THREADS)
estep_rows_kernel(const T *__restrict__ Y, int64_t ldy, int64_t koff,
                  const double *__restrict__ b, const double *__restrict__ p,
                  const double *__restrict__ cst, int K, int d, double *__restrict__ log_resp,
                  double *__restrict__ lpn)
{
    extern __shared__ double lp[];
    const int64_t i = blockIdx.x;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    const T *y = Y + i * ldy;
    for (int k = warp; k < K; k += nwarps) {
        const T *yk = y + (int64_t)k * koff;
        const double *bk = b + (int64_t)k * d;
        double s0 = 0, s1 = 0;
        int j = lane;
        for (; j + 32 < d; j += 64) {
            double t0 = (double)yk[j] - bk[j];
            double t1 = (double)yk[j + 32] - bk[j + 32];
            if (MODE == 1) {
                t0 *= p[(int64_t)k * d + j];
                t1 *= p[(int64_t)k * d + j + 32];
            }
            s0 += t0 * t0;
            s1 += t1 * t1;
        }
        if (j < d) {
            double t0 = (double)yk[j] - bk[j];
            if (MODE == 1) t0 *= p[(int64_t)k * d + j];
            s0 += t0 * t0;
        }
        double s = warp_sum(s0 + s1);
        if (MODE == 2) s *= p[k] * p[k];
        if (lane == 0) lp[k] = cst[k] - 0.5 * s;
    }
    __syncthreads();
    if (warp == 0) {
        double mx = -INFINITY;
        for (int k = lane; k < K; k += 32) mx = fmax(mx, lp[k]);
        mx = warp_max(mx);
        double s = 0;
        for (int k = lane; k < K; k += 32) s += exp(lp[k] - mx);
        s = warp_sum(s);
        double norm = mx + log(s);
        for (int k = lane; k < K; k += 32) log_resp[i * K + k] = lp[k] - norm;
        if (lane == 0) lpn[i] = norm;
    }
}

template <typename T>
static gmm_status launch(estep_rows_mode mode, const T *Y, size_t ld_y, size_t comp_stride,
                         const double *centers, const double *scales, const double *log_const,
                         size_t n_rows, int K, int d, double *log_resp, double *lpn,
                         void *stream, const char *name)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    const size_t shmem = sizeof(double) * K;
    if (!Y || !centers || !log_const || !log_resp || !lpn || K <= 0 || d <= 0 ||
        (mode != ESTEP_ROWS_PROJECTED && !scales) || n_rows > 0x7fffffffu)
        return gmm_error(GMM_ERR_ARG, "%s: bad arguments", name);
    if (K > ESTEP_ROWS_MAX_COMPONENTS)
        return gmm_error(GMM_ERR_UNSUPPORTED, "%s: at most %d components (%d)", name,
                         ESTEP_ROWS_MAX_COMPONENTS, K);
    if (n_rows == 0) return GMM_OK;
    switch (mode) {
    case ESTEP_ROWS_PROJECTED:
        estep_rows_kernel<0, T><<<(unsigned)n_rows, ESTEP_ROWS_THREADS, shmem, s>>>(
            Y, (int64_t)ld_y, (int64_t)comp_stride, centers, NULL, log_const, K, d, log_resp, lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<full/tied>");
        break;
    case ESTEP_ROWS_DIAG:
        estep_rows_kernel<1, T><<<(unsigned)n_rows, ESTEP_ROWS_THREADS, shmem, s>>>(
            Y, (int64_t)ld_y, (int64_t)comp_stride, centers, scales, log_const, K, d, log_resp,
            lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<diag>");
        break;
    case ESTEP_ROWS_SPHERICAL:
        estep_rows_kernel<2, T><<<(unsigned)n_rows, ESTEP_ROWS_THREADS, shmem, s>>>(
            Y, (int64_t)ld_y, (int64_t)comp_stride, centers, scales, log_const, K, d, log_resp,
            lpn);
        GMM_LAUNCH_CHECK("estep_rows_kernel<spherical>");
        break;
    default: return gmm_error(GMM_ERR_ARG, "%s: unknown mode %d", name, (int)mode);
    }
fail:
    return status;
}

extern "C" gmm_status estep_rows_cuda(estep_rows_mode mode, const double *d_Y, size_t ld_y,
                                      size_t comp_stride, const double *d_centers,
                                      const double *d_scales, const double *d_log_const,
                                      size_t n_rows, int n_components, int dim,
                                      double *d_log_resp, double *d_log_prob_norm, void *stream)
{
    return launch<double>(mode, d_Y, ld_y, comp_stride, d_centers, d_scales, d_log_const, n_rows,
                          n_components, dim, d_log_resp, d_log_prob_norm, stream,
                          "estep_rows_cuda");
}

extern "C" gmm_status estep_rows_f32_cuda(estep_rows_mode mode, const float *d_Y, size_t ld_y,
                                          size_t comp_stride, const double *d_centers,
                                          const double *d_scales, const double *d_log_const,
                                          size_t n_rows, int n_components, int dim,
                                          double *d_log_resp, double *d_log_prob_norm,
                                          void *stream)
{
    return launch<float>(mode, d_Y, ld_y, comp_stride, d_centers, d_scales, d_log_const, n_rows,
                         n_components, dim, d_log_resp, d_log_prob_norm, stream,
                         "estep_rows_f32_cuda");
}
