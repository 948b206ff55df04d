/* Internal to the matrix-vector kernels: the one-warp-per-row kernel template and its launcher,
 * instantiated at float by the library (kernels/matvec.cu, matvec_f32_cuda) and at double by the
 * experiment that lost to cuBLAS DGEMV (bench/experiments/matvec.cu, matvec_f64_cuda_v1).
 *
 * Bound by reading A once (4 or 8 bytes per multiply-add). One warp per row: 16-byte loads of A,
 * coalesced along the row, four in flight per thread; x is read through the read-only cache
 * (it is reused by every row); a shuffle reduction ends the row. */
#ifndef GMM_MATVEC_KERNEL_CUH
#define GMM_MATVEC_KERNEL_CUH

#include <stdint.h>

#include "kernels/dense_lib.cuh"

namespace matvec_detail {

constexpr int WARPS = 8;

/* The 16-byte vector of T and its dot product; a file instantiating the kernel at another type
 * specialises it (bench/experiments/matvec.cu does for double). */
template <typename T> struct Vec;
template <> struct Vec<float> {
    using type = float4;
    static constexpr int width = 4;
    __device__ static float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w; }
};

template <typename T, bool VEC>
__global__ void __launch_bounds__(32 * WARPS) matvec_kernel(const T *__restrict__ A, size_t n_rows,
                                                            size_t n_cols, const T *__restrict__ x,
                                                            T *__restrict__ y)
{
    const size_t row = (size_t)blockIdx.x * WARPS + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (row >= n_rows) return;
    const T *a = A + row * n_cols;
    T s = 0;
    if (VEC) {
        using V = typename Vec<T>::type;
        const V *av = reinterpret_cast<const V *>(a);
        const V *xv = reinterpret_cast<const V *>(x);
        const size_t nv = n_cols / Vec<T>::width;
#pragma unroll 4
        for (size_t v = lane; v < nv; v += 32) s += Vec<T>::dot(__ldcs(av + v), __ldg(xv + v));
    } else {
#pragma unroll 4
        for (size_t j = lane; j < n_cols; j += 32) s += a[j] * __ldg(x + j);
    }
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffffu, s, o);
    if (lane == 0) y[row] = s;
}

/* One warp per row; the vector loads when the row length and both pointers allow them. */
template <typename T>
inline gmm_status matvec_launch(const T *d_A, size_t n_rows, size_t n_cols, const T *d_x,
                                T *d_y, cudaStream_t s, const char *name)
{
    gmm_status status = GMM_OK;
    if (!d_A || !d_x || !d_y) return gmm_error(GMM_ERR_ARG, "%s: NULL argument", name);
    if (n_rows == 0) return GMM_OK;
    {
        const size_t blocks = (n_rows + WARPS - 1) / WARPS;
        if (blocks > 0x7fffffffu) return gmm_error(GMM_ERR_ARG, "%s: too many rows", name);
        const bool vec = n_cols % Vec<T>::width == 0 && (uintptr_t)d_A % 16 == 0 &&
                         (uintptr_t)d_x % 16 == 0;
        if (vec)
            matvec_kernel<T, true><<<(unsigned)blocks, 32 * WARPS, 0, s>>>(d_A, n_rows, n_cols, d_x, d_y);
        else
            matvec_kernel<T, false><<<(unsigned)blocks, 32 * WARPS, 0, s>>>(d_A, n_rows, n_cols, d_x, d_y);
        GMM_LAUNCH_CHECK("matvec_kernel");
    }
fail:
    return status;
}

} // namespace matvec_detail

#endif
