/* Lower triangular solve experiments (contract: linalg/trsm.h; versions:
 * bench/experiments/experiments.h).
 *   version 0  trsm_cublas, the library path (cuBLAS DTRSM): the reference;
 *   version 1  trsm_cuda_v1, moved here unchanged from linalg/trsm.cu: 0.80x cuBLAS on 784 x 784
 *              with 60000 right-hand sides (H100, kernels/BENCH_NOTES.md).
 *
 * Version 1, blocked: first the 64 x 64 diagonal blocks of L are inverted (one block of 64
 * threads each, a column of the inverse per thread). Then each block of 256 threads owns 64
 * right-hand sides (columns of B) and walks down the block rows, so no block waits for another:
 *   T_i = B_i - sum_{j<i} L_ij X_j      (register-blocked tile product over the solved rows)
 *   X_i = inv(L_ii) T_i                 (a second tile product, T_i staged in B_i itself)
 * The solved rows are read back through ordinary loads: this block wrote them. */
#include "bench/experiments/experiments.h"

#include "bench/experiments/tile64.cuh"
#include "kernels/dense_lib.cuh"
#include "linalg/trsm.h"

namespace {

constexpr int NB = 64;

/* inv[bi] = inverse of the diagonal block bi of L (zero-padded to 64 x 64, identity past dim). */
__global__ void __launch_bounds__(NB) trsm_invert_diag_kernel(const double *L, int dim, double *inv)
{
    __shared__ double S[NB][NB + 1];
    __shared__ double inv_diag[NB];
    const int r0 = blockIdx.x * NB, nb = min(NB, dim - r0), c = threadIdx.x;
    for (int r = 0; r < NB; r++) {
        double v = 0.0;
        if (r < nb && c < nb && c <= r) v = L[(size_t)(r0 + r) * dim + r0 + c];
        else if (r == c) v = 1.0;
        S[r][c] = v;
    }
    __syncthreads();
    inv_diag[c] = 1.0 / S[c][c];
    __syncthreads();
    /* Column c of inv(S): z_r = (delta_rc - sum_{c<=m<r} S[r][m] z_m) / S[r][r]. */
    double z[NB];
    double *out = inv + (size_t)blockIdx.x * NB * NB;
#pragma unroll
    for (int r = 0; r < NB; r++) {
        double s = r == c ? 1.0 : 0.0;
#pragma unroll
        for (int m = 0; m < r; m++) s = fma(-S[r][m], z[m], s);
        z[r] = r < c ? 0.0 : s * inv_diag[r];
        out[r * NB + c] = z[r];
    }
}

__global__ void __launch_bounds__(tile64::THREADS, 2) trsm_solve_kernel(const double *L, int dim,
                                                                     const double *inv, double *B,
                                                                     size_t n_rhs)
{
    __shared__ tile64::Smem sm;
    const size_t c0 = (size_t)blockIdx.x * tile64::T;
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
    for (int r0 = 0; r0 < dim; r0 += NB) {
        double acc[4][4];
        tile64::zero(acc);
        auto la = [&](int r, int k) -> double {
            return r0 + r < dim ? L[(size_t)(r0 + r) * dim + k] : 0.0;
        };
        auto lx = [&](int k, int c) -> double {
            return c0 + c < n_rhs ? B[(size_t)k * n_rhs + c0 + c] : 0.0;
        };
        tile64::gemm<false>(acc, 0, r0, la, lx, sm);
        /* T_i = B_i - acc, written over B_i (this block owns these columns). */
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int q = 0; q < 4; q++) {
                int r = r0 + ty + 16 * i;
                size_t c = c0 + tx + 16 * q;
                if (r < dim && c < n_rhs) B[(size_t)r * n_rhs + c] -= acc[i][q];
            }
        __syncthreads();
        tile64::zero(acc);
        const double *inv_i = inv + (size_t)(r0 / NB) * NB * NB;
        auto li = [&](int r, int k) -> double { return inv_i[r * NB + k]; };
        auto lt = [&](int k, int c) -> double {
            return (r0 + k < dim && c0 + c < n_rhs) ? B[(size_t)(r0 + k) * n_rhs + c0 + c] : 0.0;
        };
        tile64::gemm<false>(acc, 0, min(NB, dim - r0), li, lt, sm);
        /* gemm ends with a barrier: every thread has read T_i before it is overwritten. */
#pragma unroll
        for (int i = 0; i < 4; i++)
#pragma unroll
            for (int q = 0; q < 4; q++) {
                int r = r0 + ty + 16 * i;
                size_t c = c0 + tx + 16 * q;
                if (r < dim && c < n_rhs) B[(size_t)r * n_rhs + c] = acc[i][q];
            }
        __syncthreads();
    }
}

} // namespace

extern "C" gmm_status trsm_cuda_v1(const double *d_L, int dim, double *d_B, size_t n_rhs,
                                   void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(stream);
    double *d_inv = nullptr;
    const int blocks = (dim + NB - 1) / NB;
    if (!d_L || !d_B || dim <= 0) return gmm_error(GMM_ERR_ARG, "trsm_cuda_v1: bad arguments");
    if (n_rhs == 0) return GMM_OK;
    if ((n_rhs + tile64::T - 1) / tile64::T > 0x7fffffffu)
        return gmm_error(GMM_ERR_ARG, "trsm_cuda_v1: too many right-hand sides");
    GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_inv, sizeof(double) * blocks * NB * NB, s));
    trsm_invert_diag_kernel<<<blocks, NB, 0, s>>>(d_L, dim, d_inv);
    GMM_LAUNCH_CHECK("trsm_invert_diag_kernel");
    trsm_solve_kernel<<<(unsigned)((n_rhs + tile64::T - 1) / tile64::T), tile64::THREADS, 0, s>>>(
        d_L, dim, d_inv, d_B, n_rhs);
    GMM_LAUNCH_CHECK("trsm_solve_kernel");
fail:
    if (d_inv) cudaFreeAsync(d_inv, s);
    return status;
}

extern "C" gmm_status trsm_version(int version, const double *d_L, int dim, double *d_B,
                                   size_t n_rhs, gmm_gpu *gpu)
{
    switch (version) {
    case 0: return trsm_cublas(d_L, dim, d_B, n_rhs, gpu);
    case 1: return trsm_cuda_v1(d_L, dim, d_B, n_rhs, gmm_gpu_stream(gpu));
    default: return gmm_error(GMM_ERR_ARG, "trsm_version: no version %d", version);
    }
}
