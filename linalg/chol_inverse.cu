/* GPU version of the precision Cholesky factor (see chol_inverse.h): recursive halving whose
 * products are strided-batched cuBLAS DGEMMs over the whole batch, and diagonal blocks of at most
 * LEAF_MAX factored and inverted in shared memory, a thread block per matrix.
 *
 * Row-major, S = R^T R, U = R^{-1}. Split S at n1 = n / 2:
 *   U11 of S11 (recursively); R12 = U11^T S12; S22' = S22 - R12^T R12; U22 of S22' (recursively);
 *   U12 = -U11 R12 U22.
 * The work happens in d_U (P) with the scratch d_work (Q) beside it, at the same positions:
 * R12 goes to Q's upper-right block of the split, (R12 U22)^T to its lower-left one. The Schur
 * update writes the whole S22 block, its lower triangle too (nothing reads that before it is
 * cleared): each block kernel zeroes the strict lower triangle of its own diagonal block and each
 * split zeroes its lower-left block at its end, so that a finished U11 or U22 is triangular when
 * a product uses it. */
#include "linalg/chol_inverse.h"

#include "kernels/dense_lib.cuh"

namespace {

constexpr int LEAF_MAX = 112; /* 2 x 112^2 doubles = 196 KiB of shared memory (Hopper) */
constexpr int LEAF_THREADS = 1024;

/* One thread block per matrix b: the n x n diagonal block at (o, o) of P (leading dimension d,
 * matrix b at P + b d^2). Reads its upper triangle S and writes U = R^{-1} (S = R^T R) over its
 * upper triangle, zeros below. Symmetric Gaussian elimination on [S | I]: step k subtracts
 * S[k][i] / S[k][k] times row k from every row i > k, on the upper triangle of the left half
 * (which ends as D L^T, S = L D L^T with L unit lower) and on the right half (which ends as
 * M = L^{-1}); then R = D^{1/2} L^T and U = M^T D^{-1/2}: U[i][j] = M[j][i] / sqrt(D[j]). One
 * barrier a step: step k reads only row k, which it does not write. A pivot that is not > 0
 * records o + k + 1 in info[b] (unless an earlier block already recorded a failure) and leaves
 * the block as it is. */
__global__ void __launch_bounds__(LEAF_THREADS) leaf_kernel(double *P, int d, int o, int n,
                                                            int *info)
{
    extern __shared__ double shared[];
    double *A = shared, *M = shared + n * n;
    const int b = blockIdx.x, tx = threadIdx.x, ty = threadIdx.y, t = ty * 32 + tx;
    double *Pb = P + (size_t)b * d * d + (size_t)o * d + o;
    for (int e = t; e < n * n; e += LEAF_THREADS) {
        const int i = e / n, j = e - i * n;
        A[e] = i <= j ? Pb[(size_t)i * d + j] : 0.0;
        M[e] = i == j ? 1.0 : 0.0;
    }
    __syncthreads();
    for (int k = 0; k < n; k++) {
        const double akk = A[k * n + k];
        if (!(akk > 0.0)) { /* every thread read the same pivot: all leave here */
            if (t == 0 && info[b] == 0) info[b] = o + k + 1;
            return;
        }
        const double inv = 1.0 / akk;
        for (int i = k + 1 + ty; i < n; i += 32) {
            const double f = A[k * n + i] * inv;
            for (int j = i + tx; j < n; j += 32) A[i * n + j] -= f * A[k * n + j];
            for (int c = tx; c <= k; c += 32) M[i * n + c] -= f * M[k * n + c];
        }
        __syncthreads();
    }
    for (int e = t; e < n * n; e += LEAF_THREADS) {
        const int i = e / n, j = e - i * n;
        Pb[(size_t)i * d + j] = i <= j ? M[j * n + i] / sqrt(A[j * n + j]) : 0.0;
    }
}

/* P[i][j] = S[i][j] on and above the diagonal of every matrix (the lower triangle is not
 * needed: see the top of the file). */
__global__ void copy_upper_kernel(const double *__restrict__ S, double *__restrict__ P, int d,
                                  int batch)
{
    const int64_t dd = (int64_t)d * d, n = dd * batch;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        if (rem / d <= rem % d) P[e] = S[e];
    }
}

/* Zeros the rows x cols block at (r0, c0) of every matrix (blockIdx.z: the matrix). */
__global__ void zero_block_kernel(double *P, int d, int r0, int c0, int rows, int cols)
{
    double *Pb = P + (size_t)blockIdx.z * d * d;
    for (int i = blockIdx.y * blockDim.y + threadIdx.y; i < rows; i += gridDim.y * blockDim.y)
        for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < cols; j += gridDim.x * blockDim.x)
            Pb[(size_t)(r0 + i) * d + c0 + j] = 0.0;
}

struct run {
    gmm_gpu *gpu;
    cudaStream_t stream;
    double *P, *Q;
    int d, batch, leaf;
    int *info;
};

/* Row-major block (i, j) of matrix 0 (the batch strides add the others). */
inline double *at(const run &r, double *X, int i, int j) { return X + (size_t)i * r.d + j; }

gmm_status product(const run &r, bool ta, bool tb, int m, int n, int k, double alpha,
                   const double *A, const double *B, double beta, double *C)
{
    const long long dd = (long long)r.d * r.d;
    return gmm_gpu_dgemm_strided(r.gpu, ta, tb, m, n, k, alpha, A, r.d, dd, B, r.d, dd, beta, C,
                                 r.d, dd, r.batch);
}

/* U of the n x n diagonal block at (o, o), in place in P. */
gmm_status factor_block(const run &r, int o, int n)
{
    gmm_status status = GMM_OK;
    const int n1 = n / 2, n2 = n - n1, a = o, b = o + n1;
    double *P = r.P, *Q = r.Q;
    if (n <= r.leaf) {
        leaf_kernel<<<r.batch, dim3(32, LEAF_THREADS / 32), sizeof(double) * 2 * n * n,
                      r.stream>>>(r.P, r.d, o, n, r.info);
        GMM_LAUNCH_CHECK("chol_inverse leaf_kernel");
        return GMM_OK;
    }
    if ((status = factor_block(r, a, n1)) != GMM_OK) goto fail;
    /* R12 = U11^T S12 into Q's upper-right block; S22 -= R12^T R12 */
    if ((status = product(r, true, false, n1, n2, n1, 1.0, at(r, P, a, a), at(r, P, a, b), 0.0,
                          at(r, Q, a, b))) != GMM_OK)
        goto fail;
    if ((status = product(r, true, false, n2, n2, n1, -1.0, at(r, Q, a, b), at(r, Q, a, b), 1.0,
                          at(r, P, b, b))) != GMM_OK)
        goto fail;
    if ((status = factor_block(r, b, n2)) != GMM_OK) goto fail;
    /* (R12 U22)^T = U22^T R12^T into Q's lower-left block; U12 = -U11 (R12 U22) */
    if ((status = product(r, true, true, n2, n1, n2, 1.0, at(r, P, b, b), at(r, Q, a, b), 0.0,
                          at(r, Q, b, a))) != GMM_OK)
        goto fail;
    if ((status = product(r, false, true, n1, n2, n1, -1.0, at(r, P, a, a), at(r, Q, b, a), 0.0,
                          at(r, P, a, b))) != GMM_OK)
        goto fail;
    {
        dim3 block(32, 8), grid((n1 + 31) / 32, (n2 + 7) / 8 < 64 ? (n2 + 7) / 8 : 64, r.batch);
        zero_block_kernel<<<grid, block, 0, r.stream>>>(P, r.d, b, a, n2, n1);
        GMM_LAUNCH_CHECK("chol_inverse zero_block_kernel");
    }
fail:
    return status;
}

} // namespace

extern "C" gmm_status chol_inverse_cuda(const double *d_S, int dim, int batch, double *d_U,
                                        double *d_work, int *d_info, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    if (!d_S || !d_U || !d_work || !d_info || !gpu || dim <= 0 || batch <= 0 || batch > 65535)
        return gmm_error(GMM_ERR_ARG, "chol_inverse_cuda: bad arguments");
    run r = {gpu, dense_stream(gmm_gpu_stream(gpu)), d_U, d_work, dim, batch, LEAF_MAX, d_info};
    int device = 0, optin = 0;
    GMM_CUDA_CHECK(cudaGetDevice(&device));
    GMM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    /* the largest block whose two n x n arrays fit (Hopper 112, A100 102, others 79) */
    while (r.leaf > 8 && sizeof(double) * 2 * r.leaf * r.leaf > (size_t)optin) r.leaf--;
    {
        const int leaf_n = dim < r.leaf ? dim : r.leaf;
        GMM_CUDA_CHECK(cudaFuncSetAttribute(leaf_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            (int)(sizeof(double) * 2 * leaf_n * leaf_n)));
    }
    GMM_CUDA_CHECK(cudaMemsetAsync(d_info, 0, sizeof(int) * batch, r.stream));
    if (d_S != d_U) {
        const int64_t n = (int64_t)dim * dim * batch;
        copy_upper_kernel<<<(int)((n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096), 256, 0,
                            r.stream>>>(d_S, d_U, dim, batch);
        GMM_LAUNCH_CHECK("chol_inverse copy_upper_kernel");
    }
    status = factor_block(r, 0, dim);
fail:
    return status;
}
