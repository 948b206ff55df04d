/* Cholesky experiments (contract: linalg/cholesky.h; versions: bench/experiments/experiments.h).
 *   version 0  cholesky_cusolver, the library path (cuSOLVER potrf / potrfBatched): the reference;
 *   version 1  cholesky_cuda_v1, moved here unchanged from linalg/cholesky.cu: 0.58x cuSOLVER at
 *              4096 x 4096, 0.94x on 10 x 784 x 784 (H100, kernels/BENCH_NOTES.md).
 *
 * Version 1, blocked right-looking, 64 columns per step, three launches per step for the whole
 * batch:
 *   diag:   one block per matrix factors the 64 x 64 diagonal block in shared memory (unblocked,
 *           column by column) and records the first failing pivot in info[b];
 *   panel:  one thread per row below the block solves x L11^T = a by forward substitution, L11
 *           in shared memory and the row in registers;
 *   update: the trailing lower triangle, 64 x 64 tiles on or below the diagonal, A22 -= L21 L21^T.
 * Every kernel returns at once for a matrix whose info is set, so a failure stops its matrix
 * only. A last launch (the library's triangle pass) zeroes the strict upper triangles. */
#include "bench/experiments/experiments.h"

#include "bench/experiments/tile64.cuh"
#include "kernels/dense_lib.cuh"
#include "linalg/cholesky.h"
#include "linalg/cholesky_internal.cuh"

namespace {

constexpr int NB = 64;

__global__ void __launch_bounds__(256) chol_diag_kernel(double *A, int dim, int j, int *info)
{
    __shared__ double S[NB][NB + 1];
    __shared__ int failed;
    const int b = blockIdx.x;
    if (info[b]) return;
    double *M = A + (size_t)b * dim * dim;
    const int nb = min(NB, dim - j), t = threadIdx.x;
    for (int e = t; e < nb * nb; e += blockDim.x) {
        int r = e / nb, c = e % nb;
        if (c <= r) S[r][c] = M[(size_t)(j + r) * dim + j + c];
    }
    if (t == 0) failed = 0;
    __syncthreads();
    for (int c = 0; c < nb; c++) {
        if (t == 0) {
            double piv = S[c][c];
            if (!(piv > 0.0)) failed = c + 1; /* NaN fails too */
            else S[c][c] = sqrt(piv);
        }
        __syncthreads();
        if (failed) {
            if (t == 0) info[b] = j + failed;
            return;
        }
        const double inv = 1.0 / S[c][c];
        for (int r = c + 1 + t; r < nb; r += blockDim.x) S[r][c] *= inv;
        __syncthreads();
        const int m = nb - c - 1;
        for (int e = t; e < m * m; e += blockDim.x) {
            int r = c + 1 + e / m, k = c + 1 + e % m;
            if (k <= r) S[r][k] -= S[r][c] * S[k][c];
        }
        __syncthreads();
    }
    for (int e = t; e < nb * nb; e += blockDim.x) {
        int r = e / nb, c = e % nb;
        if (c <= r) M[(size_t)(j + r) * dim + j + c] = S[r][c];
    }
}

/* Rows j + NB .. dim - 1 of the panel: L21[r][:] = A21[r][:] L11^{-T}. */
__global__ void __launch_bounds__(128) chol_panel_kernel(double *A, int dim, int j, const int *info)
{
    __shared__ double L[NB][NB + 1];
    __shared__ double inv_diag[NB];
    const int b = blockIdx.z;
    if (info[b]) return;
    double *M = A + (size_t)b * dim * dim;
    const int nb = min(NB, dim - j), t = threadIdx.x;
    /* Columns past nb (the last, narrower panel) act as identity with zero right-hand sides. */
    for (int e = t; e < NB * NB; e += blockDim.x) {
        int r = e / NB, c = e % NB;
        double v = 0.0;
        if (r < nb && c <= r) v = M[(size_t)(j + r) * dim + j + c];
        else if (r == c) v = 1.0;
        L[r][c] = v;
    }
    __syncthreads();
    if (t < NB) inv_diag[t] = 1.0 / L[t][t];
    __syncthreads();
    const int row = j + nb + blockIdx.x * blockDim.x + t;
    if (row >= dim) return;
    double *a = M + (size_t)row * dim + j;
    double x[NB];
#pragma unroll
    for (int c = 0; c < NB; c++) x[c] = c < nb ? a[c] : 0.0;
#pragma unroll
    for (int c = 0; c < NB; c++) {
        double s = x[c];
#pragma unroll
        for (int m = 0; m < c; m++) s = fma(-x[m], L[c][m], s);
        x[c] = s * inv_diag[c];
    }
#pragma unroll
    for (int c = 0; c < NB; c++)
        if (c < nb) a[c] = x[c];
}

/* Trailing update of rows/columns from `from` on: lower 64 x 64 tiles of A22 -= L21 L21^T, with
 * L21 the columns [j, j + NB) of those rows. */
__global__ void __launch_bounds__(tile64::THREADS) chol_update_kernel(double *A, int dim, int from,
                                                                      int j, const int *info)
{
    __shared__ tile64::Smem sm;
    const int b = blockIdx.z;
    if (info[b]) return;
    double *M = A + (size_t)b * dim * dim;
    const int p = blockIdx.x;
    int ti, tj;
    dense_tile_pair(p, &ti, &tj);
    const int r0 = from + ti * tile64::T, c0 = from + tj * tile64::T;
    double acc[4][4];
    tile64::zero(acc);
    auto la = [&](int r, int k) -> double {
        return r0 + r < dim ? M[(size_t)(r0 + r) * dim + j + k] : 0.0;
    };
    auto lb = [&](int k, int c) -> double {
        return c0 + c < dim ? M[(size_t)(c0 + c) * dim + j + k] : 0.0;
    };
    tile64::gemm<true>(acc, 0, min(NB, dim - j), la, lb, sm);
    const int tx = threadIdx.x & 15, ty = threadIdx.x >> 4;
#pragma unroll
    for (int i = 0; i < 4; i++)
#pragma unroll
        for (int q = 0; q < 4; q++) {
            int r = r0 + ty + 16 * i, c = c0 + tx + 16 * q;
            if (r < dim && c <= r) M[(size_t)r * dim + c] -= acc[i][q];
        }
}

} // namespace

extern "C" gmm_status cholesky_cuda_v1(double *d_A, int dim, int batch, int *failed_order,
                                       void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = dense_stream(stream);
    int *d_info = nullptr, *h_info = nullptr;
    if (!d_A || dim <= 0 || batch <= 0 || batch > 65535)
        return gmm_error(GMM_ERR_ARG, "cholesky_cuda_v1: bad arguments");
    h_info = (int *)calloc((size_t)batch, sizeof(int));
    if (!h_info) return gmm_error(GMM_ERR_NOMEM, "cholesky_cuda_v1: info array");
    GMM_CUDA_CHECK(cudaMallocAsync((void **)&d_info, sizeof(int) * batch, s));
    GMM_CUDA_CHECK(cudaMemsetAsync(d_info, 0, sizeof(int) * batch, s));
    for (int j = 0; j < dim; j += NB) {
        const int nb = dim - j < NB ? dim - j : NB;
        chol_diag_kernel<<<batch, 256, 0, s>>>(d_A, dim, j, d_info);
        GMM_LAUNCH_CHECK("chol_diag_kernel");
        const int below = dim - j - nb;
        if (below <= 0) break;
        chol_panel_kernel<<<dim3((below + 127) / 128, 1, batch), 128, 0, s>>>(d_A, dim, j, d_info);
        GMM_LAUNCH_CHECK("chol_panel_kernel");
        const int tiles = (below + tile64::T - 1) / tile64::T;
        chol_update_kernel<<<dim3(tiles * (tiles + 1) / 2, 1, batch), tile64::THREADS, 0, s>>>(
            d_A, dim, j + nb, j, d_info);
        GMM_LAUNCH_CHECK("chol_update_kernel");
    }
    if ((status = cholesky_triangle_pass(d_A, dim, batch, 0, s)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpyAsync(h_info, d_info, sizeof(int) * batch, cudaMemcpyDeviceToHost, s));
    GMM_CUDA_CHECK(cudaStreamSynchronize(s));
    status = cholesky_report_info(h_info, batch, failed_order, "cholesky_cuda_v1");
fail:
    if (d_info) cudaFreeAsync(d_info, s);
    free(h_info);
    return status;
}

extern "C" gmm_status cholesky_version(int version, double *d_A, int dim, int batch,
                                       int *failed_order, gmm_gpu *gpu)
{
    switch (version) {
    case 0: return cholesky_cusolver(d_A, dim, batch, failed_order, gpu);
    case 1: return cholesky_cuda_v1(d_A, dim, batch, failed_order, gmm_gpu_stream(gpu));
    default: return gmm_error(GMM_ERR_ARG, "cholesky_version: no version %d", version);
    }
}
