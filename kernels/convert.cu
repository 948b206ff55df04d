/* CUDA version of the element conversion (see convert.h): one grid-stride kernel per type pair,
 * with the CPU's arithmetic (byte / 255.0 in float64, then rounded to float32 where asked). */
#include <stdint.h>

#include "kernels/convert.h"
#include "kernels/cuda_check.h"
#include "kernels/grid.cuh"

template <typename TI, typename TO>
__global__ void convert_kernel(const TI *in, size_t n, TO *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (TO)(double)in[i];
}

template <typename TO>
__global__ void convert_bytes_kernel(const uint8_t *in, size_t n, TO *out)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        out[i] = (TO)(in[i] / 255.0);
}

template <typename TO>
static void launch(const void *in, gmm_elem in_elem, size_t n, TO *out, cudaStream_t s)
{
    const int threads = 256;
    int grid = kernel_grid_for((int64_t)n, threads);
    if (in_elem == GMM_ELEM_U8)
        convert_bytes_kernel<<<grid, threads, 0, s>>>((const uint8_t *)in, n, out);
    else if (in_elem == GMM_ELEM_F32)
        convert_kernel<<<grid, threads, 0, s>>>((const float *)in, n, out);
    else
        convert_kernel<<<grid, threads, 0, s>>>((const double *)in, n, out);
}

extern "C" gmm_status convert_rows_cuda(const void *d_in, gmm_elem in_elem, size_t n, void *d_out,
                                        gmm_elem out_elem, void *stream)
{
    gmm_status status = GMM_OK;
    cudaStream_t s = (cudaStream_t)stream;
    if ((!d_in || !d_out) && n > 0) return gmm_error(GMM_ERR_ARG, "convert_rows_cuda: NULL array");
    if (out_elem != GMM_ELEM_F64 && out_elem != GMM_ELEM_F32)
        return gmm_error(GMM_ERR_ARG, "convert_rows_cuda: the output must be float64 or float32");
    if (n == 0) return GMM_OK;
    if (in_elem == out_elem) {
        GMM_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, n * gmm_elem_size(in_elem),
                                       cudaMemcpyDeviceToDevice, s));
        return GMM_OK;
    }
    if (out_elem == GMM_ELEM_F64)
        launch(d_in, in_elem, n, (double *)d_out, s);
    else
        launch(d_in, in_elem, n, (float *)d_out, s);
    GMM_CUDA_CHECK(cudaGetLastError());
fail:
    return status;
}
