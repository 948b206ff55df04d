/* The device halves of the PCA (see pca.h): the covariance of the centred data (covariance_cuda)
 * and its eigen-decomposition (eigen_sym_cusolver), and the projection's GEMM, each uploading
 * its inputs and bringing back only the small result. */
#include "models/features/pca.h"

#include "kernels/covariance.h"
#include "kernels/cuda_check.h"
#include "linalg/eigen.h"

extern "C" gmm_status pca_covariance_eigen_cuda(const double *Xc, int64_t n_samples,
                                                int input_dim, gmm_gpu *gpu, double *values,
                                                double *vectors)
{
    gmm_status status = GMM_OK;
    const size_t n = (size_t)n_samples, d = (size_t)input_dim;
    double *d_X = NULL, *d_cov = NULL, *d_values = NULL, *d_vectors = NULL;
    cudaStream_t stream = (cudaStream_t)gmm_gpu_stream(gpu);
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_X, sizeof(double) * n * d));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_cov, sizeof(double) * d * d));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_values, sizeof(double) * d));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_vectors, sizeof(double) * d * d));
    GMM_CUDA_CHECK(cudaMemcpyAsync(d_X, Xc, sizeof(double) * n * d, cudaMemcpyHostToDevice,
                                   stream));
    if ((status = covariance_cuda(d_X, n, input_dim, d_cov, stream)) != GMM_OK) goto fail;
    if ((status = eigen_sym_cusolver(d_cov, input_dim, d_values, d_vectors, gpu)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpyAsync(values, d_values, sizeof(double) * d, cudaMemcpyDeviceToHost,
                                   stream));
    GMM_CUDA_CHECK(cudaMemcpyAsync(vectors, d_vectors, sizeof(double) * d * d,
                                   cudaMemcpyDeviceToHost, stream));
    GMM_CUDA_CHECK(cudaStreamSynchronize(stream));
fail:
    cudaFree(d_X);
    cudaFree(d_cov);
    cudaFree(d_values);
    cudaFree(d_vectors);
    return status;
}

extern "C" gmm_status pca_gemm_cuda(const double *X, int64_t n_samples, int input_dim,
                                    const double *W, int n_axes, gmm_gpu *gpu, double *Z)
{
    gmm_status status = GMM_OK;
    const size_t n = (size_t)n_samples, d = (size_t)input_dim, D = (size_t)n_axes;
    double *d_X = NULL, *d_W = NULL, *d_Z = NULL;
    cudaStream_t stream = (cudaStream_t)gmm_gpu_stream(gpu);
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_X, sizeof(double) * n * d));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_W, sizeof(double) * D * d));
    GMM_CUDA_CHECK(cudaMalloc((void **)&d_Z, sizeof(double) * n * D));
    GMM_CUDA_CHECK(cudaMemcpyAsync(d_X, X, sizeof(double) * n * d, cudaMemcpyHostToDevice, stream));
    GMM_CUDA_CHECK(cudaMemcpyAsync(d_W, W, sizeof(double) * D * d, cudaMemcpyHostToDevice, stream));
    if ((status = gmm_gpu_dgemm(gpu, false, true, (int)n, n_axes, input_dim, 1.0, d_X, input_dim,
                                d_W, input_dim, 0.0, d_Z, n_axes)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpyAsync(Z, d_Z, sizeof(double) * n * D, cudaMemcpyDeviceToHost, stream));
    GMM_CUDA_CHECK(cudaStreamSynchronize(stream));
fail:
    cudaFree(d_X);
    cudaFree(d_W);
    cudaFree(d_Z);
    return status;
}
