/* GPU version of the symmetric eigensolver (see eigen.h): cuSOLVER syevd through kernels/gpu.h,
 * then one kernel that reverses the ascending order and fixes the signs. */
#include "linalg/eigen.h"

#include "kernels/cuda_check.h"

namespace {

/* One block per output row i: it takes the eigenpair dim - 1 - i of the ascending input and
 * negates it when its largest-magnitude entry is negative. */
__global__ void descending_kernel(const double *in_values, const double *in_vectors, int dim,
                                  double *values, double *vectors)
{
    __shared__ double best_abs[256];
    __shared__ double best_val[256];
    const int i = blockIdx.x, src = dim - 1 - i;
    const double *v = in_vectors + (size_t)src * dim;
    double a = -1.0, val = 0.0;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) {
        if (fabs(v[c]) > a) {
            a = fabs(v[c]);
            val = v[c];
        }
    }
    best_abs[threadIdx.x] = a;
    best_val[threadIdx.x] = val;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        if (threadIdx.x < s && best_abs[threadIdx.x + s] > best_abs[threadIdx.x]) {
            best_abs[threadIdx.x] = best_abs[threadIdx.x + s];
            best_val[threadIdx.x] = best_val[threadIdx.x + s];
        }
        __syncthreads();
    }
    const double sign = best_val[0] < 0 ? -1.0 : 1.0;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) vectors[(size_t)i * dim + c] = sign * v[c];
    if (threadIdx.x == 0) values[i] = in_values[src];
}

} // namespace

extern "C" gmm_status eigen_sym_cusolver(const double *d_A, int dim, double *d_eigenvalues,
                                         double *d_eigenvectors, gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    double *d_work = NULL; /* dim x dim ascending vectors, then dim values */
    int *d_info = NULL, info = 0;
    cudaStream_t stream = (cudaStream_t)gmm_gpu_stream(gpu);
    if (!d_A || !d_eigenvalues || !d_eigenvectors || !gpu || dim <= 0)
        return gmm_error(GMM_ERR_ARG, "eigen_sym_cusolver: bad arguments");
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_work, sizeof(double) * ((size_t)dim * dim + dim)));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_info, sizeof(int)));
    GMM_CUDA_CHECK(cudaMemcpyAsync(d_work, d_A, sizeof(double) * (size_t)dim * dim,
                                   cudaMemcpyDeviceToDevice, stream));
    if ((status = gmm_gpu_dsyevd(gpu, dim, d_work, dim, d_work + (size_t)dim * dim, d_info)) !=
        GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpyAsync(&info, d_info, sizeof(int), cudaMemcpyDeviceToHost, stream));
    GMM_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (info != 0) {
        status = gmm_error(info < 0 ? GMM_ERR_ARG : GMM_ERR_NUMERIC,
                           "cusolverDnDsyevd: info %d (%s)", info,
                           info < 0 ? "an invalid argument" : "did not converge");
        goto fail;
    }
    descending_kernel<<<dim, 256, 0, stream>>>(d_work + (size_t)dim * dim, d_work, dim,
                                               d_eigenvalues, d_eigenvectors);
    GMM_LAUNCH_CHECK("descending_kernel");
    GMM_CUDA_CHECK(cudaStreamSynchronize(stream));
fail:
    cudaFree(d_work);
    cudaFree(d_info);
    return status;
}
