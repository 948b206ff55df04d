/* CUDA valid-region 2-D convolution (see conv2d.h). The filter sits in constant memory (every
 * thread of a warp reads the same tap at once: a broadcast).
 * When the row length is a multiple of 4 (and the arrays aligned), each thread computes 4
 * neighbouring outputs of a row for 32 rows down: it reads each input row it needs once with
 * 16-byte loads (a warp reads 512 contiguous bytes; the K - 1 columns past its 4 come from the
 * neighbour's line, in L1), keeps the last K rows in registers as the window slides down, and
 * writes 8-byte pairs. So the input is read from memory about once and no shared memory or
 * barrier is needed. Otherwise a block of 32 x 8 threads owns a 32 x 32 output tile and stages its
 * (32 + K - 1)^2 input tile in shared memory with coalesced row reads; each thread then computes
 * 4 outputs of one column, rows 8 apart, so that each warp writes a contiguous row segment. int32 accumulates unsigned (wrapping, as the CPU twin);
 * float32 multiplies and adds without fusing, in the CPU twin's order, so both agree to the bit. */
#include <cuda_runtime.h>
#include <stdint.h>

#include "kernels/conv2d.h"
#include "kernels/cuda_check.h"

namespace {

constexpr int TILE = 32, BLOCK_ROWS = 8, MAX_K = 5;

__constant__ int32_t c_filter_i32[MAX_K * MAX_K];
__constant__ float c_filter_f32[MAX_K * MAX_K];

template <typename T> struct Ops;
template <> struct Ops<int32_t> {
    typedef uint32_t acc_t;
    static __device__ __forceinline__ acc_t tap(int i) { return (uint32_t)c_filter_i32[i]; }
    static __device__ __forceinline__ acc_t madd(acc_t acc, int32_t x, acc_t f) { return acc + (uint32_t)x * f; }
    static __device__ __forceinline__ int32_t out(acc_t acc) { return (int32_t)acc; }
};
template <> struct Ops<float> {
    typedef float acc_t;
    static __device__ __forceinline__ acc_t tap(int i) { return c_filter_f32[i]; }
    static __device__ __forceinline__ acc_t madd(acc_t acc, float x, acc_t f) { return __fadd_rn(acc, __fmul_rn(x, f)); }
    static __device__ __forceinline__ float out(acc_t acc) { return acc; }
};

template <typename T, int K>
__global__ void __launch_bounds__(TILE * BLOCK_ROWS)
conv2d_kernel(const T *__restrict__ in, int n_rows, int n_cols, T *__restrict__ out)
{
    constexpr int HALO = TILE + K - 1;
    __shared__ T tile[HALO][HALO + 1];
    const int out_rows = n_rows - K + 1, out_cols = n_cols - K + 1;
    const int row0 = blockIdx.y * TILE, col0 = blockIdx.x * TILE;
    const int tx = threadIdx.x, ty = threadIdx.y;
    for (int r = ty; r < HALO; r += BLOCK_ROWS) {
        const int gr = row0 + r;
        for (int c = tx; c < HALO; c += TILE) {
            const int gc = col0 + c;
            tile[r][c] = (gr < n_rows && gc < n_cols) ? in[(size_t)gr * n_cols + gc] : T(0);
        }
    }
    __syncthreads();
    const int col = col0 + tx;
    if (col >= out_cols) return;
#pragma unroll
    for (int i = 0; i < TILE / BLOCK_ROWS; i++) {
        const int r = ty + BLOCK_ROWS * i, row = row0 + r;
        if (row >= out_rows) break;
        typename Ops<T>::acc_t acc = 0;
#pragma unroll
        for (int a = 0; a < K; a++)
#pragma unroll
            for (int b = 0; b < K; b++) acc = Ops<T>::madd(acc, tile[r + a][tx + b], Ops<T>::tap(a * K + b));
        out[(size_t)row * out_cols + col] = Ops<T>::out(acc);
    }
}

/* 4 + K - 1 consecutive values starting at a multiple of 4, the tail past the row's end zero. */
template <typename T, int K> struct RowSpan {
    T v[4 + K - 1];
};
template <typename T> struct Vec4;
template <> struct Vec4<int32_t> { typedef int4 type; typedef int2 pair; };
template <> struct Vec4<float> { typedef float4 type; typedef float2 pair; };

template <typename T, int K>
__device__ __forceinline__ void load_span(const T *__restrict__ row, int c, int n_cols, T *v)
{
    typedef typename Vec4<T>::type V;
    const V a = __ldg(reinterpret_cast<const V *>(row + c));
    v[0] = a.x, v[1] = a.y, v[2] = a.z, v[3] = a.w;
    if (c + 4 < n_cols) { /* n_cols is a multiple of 4: the next 4 exist */
        const V b = __ldg(reinterpret_cast<const V *>(row + c + 4));
        const T tail[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
        for (int j = 0; j < K - 1; j++) v[4 + j] = tail[j];
    } else {
#pragma unroll
        for (int j = 0; j < K - 1; j++) v[4 + j] = T(0);
    }
}

/* 32 rows per thread: measured on the H100 (10000 x 10000, 3 x 3 int32) 0.33 ms against 0.37
 * (8 rows), 0.39 (16) and 0.45 (64). */
constexpr int VEC_ROWS = 32, VEC_THREADS = 128;

template <typename T, int K>
__global__ void __launch_bounds__(VEC_THREADS)
conv2d_vec4_kernel(const T *__restrict__ in, int n_rows, int n_cols, T *__restrict__ out)
{
    typedef typename Ops<T>::acc_t acc_t;
    typedef typename Vec4<T>::pair P;
    const int out_rows = n_rows - K + 1, out_cols = n_cols - K + 1;
    const int c = 4 * (blockIdx.x * VEC_THREADS + threadIdx.x);
    const int r0 = blockIdx.y * VEC_ROWS;
    if (c >= out_cols || r0 >= out_rows) return;
    const int rows = min(VEC_ROWS, out_rows - r0);
    acc_t f[K * K];
#pragma unroll
    for (int i = 0; i < K * K; i++) f[i] = Ops<T>::tap(i);
    T win[K][4 + K - 1]; /* input rows r .. r + K - 1 of output row r, slot (row % K) */
#pragma unroll
    for (int a = 0; a < K - 1; a++) load_span<T, K>(in + (size_t)(r0 + a) * n_cols, c, n_cols, win[a]);
#pragma unroll
    for (int i = 0; i < VEC_ROWS; i++) {
        if (i >= rows) break;
        load_span<T, K>(in + (size_t)(r0 + i + K - 1) * n_cols, c, n_cols, win[(i + K - 1) % K]);
        acc_t acc[4];
#pragma unroll
        for (int j = 0; j < 4; j++) {
            acc[j] = 0;
#pragma unroll
            for (int a = 0; a < K; a++)
#pragma unroll
                for (int b = 0; b < K; b++) acc[j] = Ops<T>::madd(acc[j], win[(i + a) % K][j + b], f[a * K + b]);
        }
        /* out_cols is even (n_cols - K + 1, K odd) and c a multiple of 4: 8-byte aligned pairs */
        T *o = out + (size_t)(r0 + i) * out_cols + c;
        P p0, p1;
        p0.x = Ops<T>::out(acc[0]), p0.y = Ops<T>::out(acc[1]);
        p1.x = Ops<T>::out(acc[2]), p1.y = Ops<T>::out(acc[3]);
        *reinterpret_cast<P *>(o) = p0;
        if (c + 2 < out_cols) *reinterpret_cast<P *>(o + 2) = p1;
    }
}

cudaError_t copy_filter(const int32_t *filter, size_t bytes) { return cudaMemcpyToSymbol(c_filter_i32, filter, bytes); }
cudaError_t copy_filter(const float *filter, size_t bytes) { return cudaMemcpyToSymbol(c_filter_f32, filter, bytes); }

template <typename T>
gmm_status conv2d_run(const T *d_in, size_t n_rows, size_t n_cols, const T *filter, int filter_size,
                      T *d_out, const char *name)
{
    gmm_status status = GMM_OK;
    if (!d_in || !d_out || !filter) return gmm_error(GMM_ERR_ARG, "%s: NULL array", name);
    if (filter_size != 3 && filter_size != 5)
        return gmm_error(GMM_ERR_ARG, "%s: filter_size %d (3 or 5 supported)", name, filter_size);
    if (n_rows < (size_t)filter_size || n_cols < (size_t)filter_size || n_rows > INT32_MAX ||
        n_cols > INT32_MAX || (n_rows + TILE - 1) / TILE > 65535)
        return gmm_error(GMM_ERR_ARG, "%s: %zu x %zu input does not suit a %d x %d filter", name,
                         n_rows, n_cols, filter_size, filter_size);
    {
        const size_t out_rows = n_rows - filter_size + 1, out_cols = n_cols - filter_size + 1;
        dim3 grid((unsigned)((out_cols + TILE - 1) / TILE), (unsigned)((out_rows + TILE - 1) / TILE));
        dim3 block(TILE, BLOCK_ROWS);
        const size_t filter_bytes = sizeof(T) * filter_size * filter_size;
        GMM_CUDA_CHECK(copy_filter(filter, filter_bytes));
        if (n_cols % 4 == 0 && (uintptr_t)d_in % 16 == 0 && (uintptr_t)d_out % 8 == 0 &&
            (out_rows + VEC_ROWS - 1) / VEC_ROWS <= 65535) {
            dim3 vgrid((unsigned)((out_cols + 4 * VEC_THREADS - 1) / (4 * VEC_THREADS)),
                       (unsigned)((out_rows + VEC_ROWS - 1) / VEC_ROWS));
            if (filter_size == 3)
                conv2d_vec4_kernel<T, 3><<<vgrid, VEC_THREADS>>>(d_in, (int)n_rows, (int)n_cols, d_out);
            else
                conv2d_vec4_kernel<T, 5><<<vgrid, VEC_THREADS>>>(d_in, (int)n_rows, (int)n_cols, d_out);
        } else if (filter_size == 3)
            conv2d_kernel<T, 3><<<grid, block>>>(d_in, (int)n_rows, (int)n_cols, d_out);
        else
            conv2d_kernel<T, 5><<<grid, block>>>(d_in, (int)n_rows, (int)n_cols, d_out);
        GMM_LAUNCH_CHECK("conv2d_kernel");
        GMM_CUDA_CHECK(cudaDeviceSynchronize());
    }
fail:
    return status;
}

} // namespace

extern "C" gmm_status conv2d_i32_cuda(const int32_t *d_in, size_t n_rows, size_t n_cols,
                                      const int32_t *filter, int filter_size, int32_t *d_out)
{
    return conv2d_run<int32_t>(d_in, n_rows, n_cols, filter, filter_size, d_out, "conv2d_i32_cuda");
}

extern "C" gmm_status conv2d_f32_cuda(const float *d_in, size_t n_rows, size_t n_cols, const float *filter,
                                      int filter_size, float *d_out)
{
    return conv2d_run<float>(d_in, n_rows, n_cols, filter, filter_size, d_out, "conv2d_f32_cuda");
}

namespace {
template <typename T>
gmm_status conv2d_host(const T *in, size_t n_rows, size_t n_cols, const T *filter, int filter_size,
                       T *out, const char *name)
{
    gmm_status status = GMM_OK;
    T *d_in = nullptr, *d_out = nullptr;
    if (!in || !out || !filter) return gmm_error(GMM_ERR_ARG, "%s: NULL array", name);
    if (n_rows < (size_t)filter_size || n_cols < (size_t)filter_size || filter_size < 1)
        return gmm_error(GMM_ERR_ARG, "%s: input smaller than the filter", name);
    {
        const size_t in_bytes = n_rows * n_cols * sizeof(T);
        const size_t out_bytes = (n_rows - filter_size + 1) * (n_cols - filter_size + 1) * sizeof(T);
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_in, in_bytes));
        GMM_CUDA_CHECK(cudaMalloc((void **)&d_out, out_bytes));
        GMM_CUDA_CHECK(cudaMemcpy(d_in, in, in_bytes, cudaMemcpyHostToDevice));
        GMM_CUDA_CHECK(cudaMemset(d_out, 0xFF, out_bytes)); /* poison */
        status = conv2d_run<T>(d_in, n_rows, n_cols, filter, filter_size, d_out, name);
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaMemcpy(out, d_out, out_bytes, cudaMemcpyDeviceToHost));
    }
fail:
    cudaFree(d_in);
    cudaFree(d_out);
    return status;
}
} // namespace

extern "C" gmm_status conv2d_i32_cuda_host(const int32_t *in, size_t n_rows, size_t n_cols,
                                           const int32_t *filter, int filter_size, int32_t *out)
{
    return conv2d_host<int32_t>(in, n_rows, n_cols, filter, filter_size, out, "conv2d_i32_cuda_host");
}

extern "C" gmm_status conv2d_f32_cuda_host(const float *in, size_t n_rows, size_t n_cols,
                                           const float *filter, int filter_size, float *out)
{
    return conv2d_host<float>(in, n_rows, n_cols, filter, filter_size, out, "conv2d_f32_cuda_host");
}
