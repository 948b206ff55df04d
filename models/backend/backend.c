/* The backend registry: the one place that knows whether the CUDA backend is built in, and the
 * device choice turned into a GPU resources object (or none). */
#include "models/backend/backend.h"

#include "kernels/gpu_info.h"

#ifdef GMM_WITH_CUDA
extern const gmm_backend gmm_backend_cuda;
static const gmm_backend *const gpu_backend = &gmm_backend_cuda;
#else
static const gmm_backend *const gpu_backend = NULL;
#endif

gmm_status gmm_backend_select(gmm_device device, const gmm_gpu *gpu, const gmm_backend **backend,
                              const char **notice)
{
    if (notice) *notice = NULL;
    if (device == GMM_DEVICE_CPU) {
        *backend = &gmm_backend_cpu;
        return GMM_OK;
    }
    if (gpu && gpu_backend) {
        *backend = gpu_backend;
        return GMM_OK;
    }
    int have_gpu = gpu_backend && gpu_backend->available();
    if (have_gpu) {
        *backend = gpu_backend;
        if (notice && device == GMM_DEVICE_AUTO) *notice = "using the GPU (CUDA backend)";
        return GMM_OK;
    }
    if (device == GMM_DEVICE_GPU)
        return gmm_error(GMM_ERR_NO_DEVICE, gpu_backend
                                                ? "--device gpu: no CUDA GPU is available"
                                                : "--device gpu: this build has no CUDA support "
                                                  "(rebuild with nvcc installed, or CUDA=1)");
    *backend = &gmm_backend_cpu;
    if (notice)
        *notice = gpu_backend ? "no GPU found: using the CPU backend"
                              : "built without CUDA: using the CPU backend";
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
