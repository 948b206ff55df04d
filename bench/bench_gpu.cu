/* GPU helpers for gmm-bench (see bench_gpu.h). */
#include "bench/bench_gpu.h"

#include <algorithm>
#include <vector>

#include "kernels/cuda_check.h"
#include "kernels/gpu.h"

extern "C" gmm_gpu *bench_gpu_resources(void)
{
    static gmm_gpu *gpu = nullptr;
    if (!gpu && gmm_gpu_create(&gpu) != GMM_OK) gpu = nullptr;
    return gpu;
}

extern "C" gmm_status bench_gpu_alloc(void **d_ptr, size_t bytes)
{
    gmm_status status = GMM_OK;
    *d_ptr = nullptr;
    GMM_CUDA_CHECK(cudaMalloc(d_ptr, bytes ? bytes : 1));
fail:
    return status;
}

extern "C" void bench_gpu_free(void *d_ptr)
{
    if (d_ptr) cudaFree(d_ptr);
}

extern "C" gmm_status bench_gpu_upload(void *d_dst, const void *src, size_t bytes)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemcpy(d_dst, src, bytes, cudaMemcpyHostToDevice));
fail:
    return status;
}

extern "C" gmm_status bench_gpu_download(void *dst, const void *d_src, size_t bytes)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemcpy(dst, d_src, bytes, cudaMemcpyDeviceToHost));
fail:
    return status;
}

extern "C" gmm_status bench_gpu_copy(void *d_dst, const void *d_src, size_t bytes)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemcpy(d_dst, d_src, bytes, cudaMemcpyDeviceToDevice));
fail:
    return status;
}

extern "C" gmm_status bench_gpu_sync(void)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaDeviceSynchronize());
fail:
    return status;
}

extern "C" gmm_status bench_gpu_time(bench_gpu_work work, bench_gpu_work before, void *ctx,
                                     int warmup, int repeats, double *times_ms)
{
    gmm_status status = GMM_OK;
    cudaEvent_t start = nullptr, stop = nullptr;
    GMM_CUDA_CHECK(cudaEventCreate(&start));
    GMM_CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmup; i++) {
        if (before && (status = before(ctx)) != GMM_OK) goto fail;
        if ((status = work(ctx)) != GMM_OK) goto fail;
    }
    GMM_CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < repeats; i++) {
        if (before) {
            if ((status = before(ctx)) != GMM_OK) goto fail;
            GMM_CUDA_CHECK(cudaDeviceSynchronize());
        }
        GMM_CUDA_CHECK(cudaEventRecord(start, 0));
        if ((status = work(ctx)) != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaEventRecord(stop, 0));
        GMM_CUDA_CHECK(cudaEventSynchronize(stop));
        float ms = 0;
        GMM_CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
        times_ms[i] = ms;
    }
fail:
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    return status;
}

namespace {

__global__ void fill_kernel(double *x, size_t n, double v)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = v * (double)((i * 2654435761u) % 1000) / 1000.0 + 0.5;
}
__global__ void fill_kernel_f(float *x, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        x[i] = (float)((i * 2654435761u) % 1000) / 1000.0f + 0.5f;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* kind 0: DGEMM, 1: SGEMM, 2: TF32 GEMM (gpu's math mode set by the caller), 3: device copy */
gmm_status time_events(cudaStream_t s, int repeats, std::vector<double> &ms, int kind,
                       gmm_gpu *gpu, int n, void *A, void *B, void *C, size_t copy_bytes)
{
    gmm_status status = GMM_OK;
    cudaEvent_t e0 = nullptr, e1 = nullptr;
    GMM_CUDA_CHECK(cudaEventCreate(&e0));
    GMM_CUDA_CHECK(cudaEventCreate(&e1));
    for (int i = -2; i < repeats; i++) { /* two warm-up runs */
        GMM_CUDA_CHECK(cudaEventRecord(e0, s));
        if (kind == 0)
            status = gmm_gpu_dgemm(gpu, false, false, n, n, n, 1.0, (const double *)A, n,
                                   (const double *)B, n, 0.0, (double *)C, n);
        else if (kind == 1 || kind == 2)
            status = gmm_gpu_sgemm(gpu, false, false, n, n, n, 1.0f, (const float *)A, n,
                                   (const float *)B, n, 0.0f, (float *)C, n);
        else
            GMM_CUDA_CHECK(cudaMemcpyAsync(B, A, copy_bytes, cudaMemcpyDeviceToDevice, s));
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaEventRecord(e1, s));
        GMM_CUDA_CHECK(cudaEventSynchronize(e1));
        float t = 0;
        GMM_CUDA_CHECK(cudaEventElapsedTime(&t, e0, e1));
        if (i >= 0) ms.push_back(t);
    }
fail:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    return status;
}

} // namespace

extern "C" gmm_status bench_gpu_ceilings(double scale, double *fp64_tflops, double *fp32_tflops,
                                         double *tf32_tflops, double *copy_tbps)
{
    gmm_status status = GMM_OK;
    gmm_gpu *h = nullptr;
    void *A = nullptr, *B = nullptr, *C = nullptr;
    std::vector<double> ms;
    int n = 8192;
    if (scale < 1.0) n = std::max(1024, (int)(8192 * scale) / 256 * 256);
    const size_t copy_bytes = scale < 1.0 ? ((size_t)1 << 28) : ((size_t)1 << 30);
    const size_t bytes = std::max((size_t)n * n * sizeof(double), copy_bytes);
    const double flop = 2.0 * n * (double)n * n;
    *fp64_tflops = *fp32_tflops = *tf32_tflops = *copy_tbps = 0;
    if ((status = gmm_gpu_create(&h)) != GMM_OK) return status;
    GMM_CUDA_CHECK(cudaMalloc(&A, bytes));
    GMM_CUDA_CHECK(cudaMalloc(&B, bytes));
    GMM_CUDA_CHECK(cudaMalloc(&C, (size_t)n * n * sizeof(double)));
    fill_kernel<<<1024, 256>>>((double *)A, bytes / 8, 1.0);
    GMM_LAUNCH_CHECK("fill_kernel");
    fill_kernel<<<1024, 256>>>((double *)B, bytes / 8, 2.0);
    GMM_LAUNCH_CHECK("fill_kernel");
    if ((status = time_events(0, 5, ms, 0, h, n, A, B, C, 0)) != GMM_OK) goto fail;
    *fp64_tflops = flop / (median(ms) * 1e-3) / 1e12;
    fill_kernel_f<<<1024, 256>>>((float *)A, bytes / 4);
    GMM_LAUNCH_CHECK("fill_kernel_f");
    fill_kernel_f<<<1024, 256>>>((float *)B, bytes / 4);
    GMM_LAUNCH_CHECK("fill_kernel_f");
    ms.clear();
    if ((status = time_events(0, 5, ms, 1, h, n, A, B, C, 0)) != GMM_OK) goto fail;
    *fp32_tflops = flop / (median(ms) * 1e-3) / 1e12;
    ms.clear();
    if ((status = gmm_gpu_set_tf32(h, true)) != GMM_OK) goto fail;
    if ((status = time_events(0, 5, ms, 2, h, n, A, B, C, 0)) != GMM_OK) goto fail;
    *tf32_tflops = flop / (median(ms) * 1e-3) / 1e12;
    ms.clear();
    if ((status = time_events(0, 10, ms, 3, h, n, A, B, C, copy_bytes)) != GMM_OK) goto fail;
    *copy_tbps = 2.0 * copy_bytes / (median(ms) * 1e-3) / 1e12;
fail:
    if (A) cudaFree(A);
    if (B) cudaFree(B);
    if (C) cudaFree(C);
    gmm_gpu_destroy(h);
    return status;
}

template <typename T>
__global__ void fill_pattern(T *x, size_t n, unsigned seed)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    for (; i < n; i += (size_t)gridDim.x * blockDim.x) {
        unsigned v = (unsigned)(i * 2654435761u) ^ seed;
        v ^= v >> 13;
        v *= 0x5bd1e995u;
        v ^= v >> 15;
        x[i] = (T)((v & 0xffff) / 65536.0 - 0.5);
    }
}

extern "C" gmm_status bench_gpu_gemm(int precision, int m, int n, int k, int repeats,
                                             double *median_ms)
{
    gmm_status status = GMM_OK;
    gmm_gpu *h = NULL;
    void *A = NULL, *B = NULL, *C = NULL;
    cudaEvent_t e0 = NULL, e1 = NULL;
    size_t es = precision == 0 ? sizeof(double) : sizeof(float);
    std::vector<double> times;
    if (repeats < 1) repeats = 1;
    if ((status = gmm_gpu_create(&h)) != GMM_OK) return status;
    if ((status = gmm_gpu_set_tf32(h, precision == 2)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMalloc(&A, es * (size_t)m * k));
    GMM_CUDA_CHECK(cudaMalloc(&B, es * (size_t)k * n));
    GMM_CUDA_CHECK(cudaMalloc(&C, es * (size_t)m * n));
    if (precision == 0) {
        fill_pattern<<<1024, 256>>>((double *)A, (size_t)m * k, 1u);
        GMM_LAUNCH_CHECK("fill_pattern");
        fill_pattern<<<1024, 256>>>((double *)B, (size_t)k * n, 2u);
        GMM_LAUNCH_CHECK("fill_pattern");
    } else {
        fill_pattern<<<1024, 256>>>((float *)A, (size_t)m * k, 1u);
        GMM_LAUNCH_CHECK("fill_pattern");
        fill_pattern<<<1024, 256>>>((float *)B, (size_t)k * n, 2u);
        GMM_LAUNCH_CHECK("fill_pattern");
    }
    GMM_CUDA_CHECK(cudaEventCreate(&e0));
    GMM_CUDA_CHECK(cudaEventCreate(&e1));
    for (int r = -2; r < repeats; r++) {
        GMM_CUDA_CHECK(cudaEventRecord(e0, 0));
        if (precision == 0)
            status = gmm_gpu_dgemm(h, false, false, m, n, k, 1.0, (double *)A, k, (double *)B, n,
                                   0.0, (double *)C, n);
        else
            status = gmm_gpu_sgemm(h, false, false, m, n, k, 1.0f, (float *)A, k, (float *)B, n,
                                   0.0f, (float *)C, n);
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaEventRecord(e1, 0));
        GMM_CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0;
        GMM_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (r >= 0) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    *median_ms = times[times.size() / 2];
fail:
    if (e0) cudaEventDestroy(e0);
    if (e1) cudaEventDestroy(e1);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
    gmm_gpu_destroy(h);
    return status;
}
