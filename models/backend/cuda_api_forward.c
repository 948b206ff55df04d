/* The models layer's CUDA entry points in the CPU core: the CUDA backend's table for the registry
 * (models/backend/backend.c), and stand-ins for the PCA's device halves and NCCL that forward each call
 * through the table the CUDA backend library exports (models/backend/cuda_api.h), or return
 * GMM_ERR_NO_DEVICE saying which library is missing (kernels/cuda_loader.h). */
#include "models/backend/cuda_api.h"

GMM_CUDA_API_GETTER(models_api, gmm_models_cuda_api, GMM_MODELS_CUDA_API_SYMBOL)
#define FORWARD(name, ...) GMM_CUDA_FORWARD(models_api, name, __VA_ARGS__)

gmm_status gmm_backend_cuda_load(const gmm_backend **backend)
{
    const gmm_models_cuda_api *t = models_api();
    *backend = t ? t->backend : NULL;
    if (t) return GMM_OK;
    gmm_status status = gmm_cuda_backend_open(); /* its reason as it is */
    return status != GMM_OK ? status : gmm_cuda_backend_missing("gmm_backend_cuda_load");
}

gmm_status pca_covariance_eigen_cuda(const double *Xc, int64_t n_samples, int input_dim,
                                     gmm_gpu *gpu, double *values, double *vectors)
{
    FORWARD(pca_covariance_eigen_cuda, Xc, n_samples, input_dim, gpu, values, vectors);
}

gmm_status pca_gemm_cuda(const double *X, int64_t n_samples, int input_dim, const double *W,
                         int n_axes, gmm_gpu *gpu, double *Z)
{
    FORWARD(pca_gemm_cuda, X, n_samples, input_dim, W, n_axes, gpu, Z);
}

/* ---- NCCL (comm_nccl.h): GMM_ERR_UNSUPPORTED from a backend built without it ---------------- */

static gmm_status no_nccl(const char *caller)
{
    if (!models_api()) return gmm_cuda_backend_missing(caller);
    return gmm_error(GMM_ERR_UNSUPPORTED,
                     "%s: this build has no NCCL (it needs nccl.h at build time): a fit over "
                     "several GPUs cannot sum on the devices",
                     caller);
}

#define FORWARD_NCCL(name, ...)                                                                    \
    do {                                                                                           \
        const gmm_models_cuda_api *t_ = models_api();                                              \
        return t_ && t_->name ? t_->name(__VA_ARGS__) : no_nccl(#name);                            \
    } while (0)

bool gmm_nccl_available(void)
{
    const gmm_models_cuda_api *t = models_api();
    return t && t->gmm_nccl_available && t->gmm_nccl_available();
}

gmm_status gmm_nccl_unique_id(unsigned char id[GMM_NCCL_ID_BYTES])
{
    FORWARD_NCCL(gmm_nccl_unique_id, id);
}

gmm_status gmm_nccl_create(gmm_nccl **out, const unsigned char id[GMM_NCCL_ID_BYTES], int rank,
                           int size)
{
    *out = NULL;
    FORWARD_NCCL(gmm_nccl_create, out, id, rank, size);
}

gmm_status gmm_nccl_create_all(int n_devices, gmm_nccl **out)
{
    for (int i = 0; i < n_devices; i++) out[i] = NULL;
    FORWARD_NCCL(gmm_nccl_create_all, n_devices, out);
}

gmm_status gmm_nccl_sum(gmm_nccl *nccl, double *d_buf, size_t count, void *stream)
{
    FORWARD_NCCL(gmm_nccl_sum, nccl, d_buf, count, stream);
}

/* a communicator exists only when the backend made it */
void gmm_nccl_set_wait(gmm_nccl *nccl, double limit_s, int (*abandon)(void *arg), void *arg)
{
    const gmm_models_cuda_api *t = nccl && gmm_cuda_backend_is_open() ? models_api() : NULL;
    if (t && t->gmm_nccl_set_wait) t->gmm_nccl_set_wait(nccl, limit_s, abandon, arg);
}

void gmm_nccl_abort(gmm_nccl *nccl)
{
    const gmm_models_cuda_api *t = nccl && gmm_cuda_backend_is_open() ? models_api() : NULL;
    if (t && t->gmm_nccl_abort) t->gmm_nccl_abort(nccl);
}

void gmm_nccl_destroy(gmm_nccl *nccl)
{
    const gmm_models_cuda_api *t = nccl && gmm_cuda_backend_is_open() ? models_api() : NULL;
    if (t && t->gmm_nccl_destroy) t->gmm_nccl_destroy(nccl);
}
