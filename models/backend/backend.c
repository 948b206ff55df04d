/* The backend registry: the device choice turned into a backend and a GPU resources object (or
 * none). The CUDA backend lives in a library of its own, loaded when a GPU is asked for
 * (kernels/cuda_loader.h knows where it is and whether CUDA was built at all). */
#include "models/backend/backend.h"

#include <stdio.h>

#include "kernels/gpu_info.h"

gmm_status gmm_backend_select(gmm_device device, const gmm_gpu *gpu, const gmm_backend **backend,
                              const char **notice)
{
    if (notice) *notice = NULL;
    if (device == GMM_DEVICE_CPU) {
        *backend = &gmm_backend_cpu;
        return GMM_OK;
    }
    const gmm_backend *cuda = NULL;
    gmm_status loaded = gmm_backend_cuda_load(&cuda);
    if (gpu && loaded == GMM_OK) { /* a resources object: the library that made it is loaded */
        *backend = cuda;
        return GMM_OK;
    }
    int count = 0;
    gmm_status probed = loaded == GMM_OK ? gmm_gpu_probe(&count) : loaded;
    if (probed == GMM_OK && cuda->available()) {
        *backend = cuda;
        if (notice && device == GMM_DEVICE_AUTO) *notice = "using the GPU (CUDA backend)";
        return GMM_OK;
    }
    if (device == GMM_DEVICE_GPU) {
        char why[1024];
        snprintf(why, sizeof why, "%s",
                 probed != GMM_OK ? gmm_error_message(probed) : "the CUDA backend finds no GPU");
        return gmm_error(GMM_ERR_NO_DEVICE, "--device gpu: %s", why);
    }
    gmm_error_clear(); /* auto: the CPU, quietly but for the notice */
    *backend = &gmm_backend_cpu;
    if (notice)
        *notice = loaded != GMM_OK ? "no CUDA backend: using the CPU backend"
                                   : "no GPU found: using the CPU backend";
    return GMM_OK;
}

gmm_status gmm_device_open(gmm_device device, gmm_gpu **gpu, const char **notice)
{
    const gmm_backend *be = NULL;
    *gpu = NULL;
    gmm_status status = gmm_backend_select(device, NULL, &be, notice);
    if (status != GMM_OK || be == &gmm_backend_cpu) return status;
    return gmm_gpu_create(gpu);
}

gmm_status gmm_backend_create_f64(const gmm_backend *be, gmm_backend_ctx **ctx, const double *X,
                                  int64_t n_samples, int dim, int n_components,
                                  gmm_cov_type type, gmm_precision precision,
                                  const gmm_tuning *tuning, gmm_gpu *gpu)
{
    const gmm_backend_config cfg = {.data = gmm_data_view_f64(X, n_samples, dim),
                                    .n_components = n_components, .type = type,
                                    .precision = precision, .tuning = tuning, .gpu = gpu};
    return be->create(ctx, &cfg);
}
