/* CUDA device queries behind gpu_info.h. */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <string.h>

#include "kernels/gpu_info.h"

extern "C" int gmm_cuda_built(void) { return 1; }

extern "C" int gmm_gpu_count(void)
{
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return count;
}

extern "C" gmm_status gmm_gpu_probe(int *count)
{
    *count = 0;
    cudaError_t e = cudaGetDeviceCount(count);
    if (e == cudaSuccess && *count > 0) return GMM_OK;
    *count = 0;
    if (e == cudaSuccess) return gmm_error(GMM_ERR_NO_DEVICE, "the NVIDIA driver finds no GPU");
    cudaGetLastError(); /* clear the sticky error */
    /* the runtime opens the driver's library itself and says only "insufficient driver" when it
     * is missing: ask the dynamic loader for its own words */
    dlerror();
    void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    const char *why = driver ? NULL : dlerror();
    if (driver) dlclose(driver);
    if (why)
        return gmm_error(GMM_ERR_NO_DEVICE, "the NVIDIA driver is not installed (%s)", why);
    return gmm_error(GMM_ERR_NO_DEVICE, "cudaGetDeviceCount: %s", cudaGetErrorString(e));
}

extern "C" void gmm_cuda_start_context(void)
{
    if (cudaFree(0) != cudaSuccess) cudaGetLastError(); /* reported by the next call */
}

extern "C" int gmm_gpu_describe(char *name, size_t name_len, size_t *free_bytes,
                                size_t *total_bytes)
{
    int dev = 0;
    cudaDeviceProp prop;
    if (gmm_gpu_count() == 0 || cudaGetDevice(&dev) != cudaSuccess ||
        cudaGetDeviceProperties(&prop, dev) != cudaSuccess)
        return -1;
    if (name && name_len) {
        strncpy(name, prop.name, name_len - 1);
        name[name_len - 1] = '\0';
    }
    size_t f = 0, t = 0;
    if (cudaMemGetInfo(&f, &t) != cudaSuccess) return -1;
    if (free_bytes) *free_bytes = f;
    if (total_bytes) *total_bytes = t;
    return 0;
}

extern "C" void gmm_cuda_release(void) { cudaDeviceReset(); }
