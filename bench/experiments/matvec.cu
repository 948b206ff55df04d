/* Float64 matrix-vector experiments (contract: kernels/matvec.h; versions:
 * bench/experiments/experiments.h).
 *   version 0  matvec_f64_cublas, the library path (cuBLAS DGEMV): the reference;
 *   version 1  matvec_f64_cuda_v1, the library's float32 kernel template
 *              (kernels/matvec_kernel.cuh) at double, moved here from kernels/matvec.cu: 0.94x
 *              DGEMV on 10000 x 10000 (H100, kernels/BENCH_NOTES.md; the float32 instance wins,
 *              1.16x SGEMV, and stays in the library). */
#include "bench/experiments/experiments.h"

#include "kernels/matvec.h"
#include "kernels/matvec_kernel.cuh"

namespace matvec_detail {

template <> struct Vec<double> {
    using type = double2;
    static constexpr int width = 2;
    __device__ static double dot(double2 a, double2 b) { return a.x * b.x + a.y * b.y; }
};

} // namespace matvec_detail

extern "C" gmm_status matvec_f64_cuda_v1(const double *d_A, size_t n_rows, size_t n_cols,
                                         const double *d_x, double *d_y, void *stream)
{
    return matvec_detail::matvec_launch<double>(d_A, n_rows, n_cols, d_x, d_y,
                                                dense_stream(stream), "matvec_f64_cuda_v1");
}

extern "C" gmm_status matvec_f64_version(int version, const double *d_A, size_t n_rows,
                                         size_t n_cols, const double *d_x, double *d_y,
                                         gmm_gpu *gpu)
{
    switch (version) {
    case 0: return matvec_f64_cublas(d_A, n_rows, n_cols, d_x, d_y, gpu);
    case 1: return matvec_f64_cuda_v1(d_A, n_rows, n_cols, d_x, d_y, gmm_gpu_stream(gpu));
    default: return gmm_error(GMM_ERR_ARG, "matvec_f64_version: no version %d", version);
    }
}
