/* Stand-ins for gpu.h in a build without CUDA: no resources object can be created. */
#include <stddef.h>

#include "kernels/gpu.h"

gmm_status gmm_gpu_libs_load(void) { return GMM_OK; } /* nothing to load */
gmm_status gmm_gpu_solver_load(void) { return GMM_OK; }
gmm_status gmm_gpu_create(gmm_gpu **out)
{
    *out = NULL;
    return gmm_error(GMM_ERR_NO_DEVICE, "this build has no CUDA support");
}
gmm_status gmm_gpu_create_on(int device, gmm_gpu **out)
{
    (void)device;
    *out = NULL;
    return gmm_error(GMM_ERR_NO_DEVICE, "this build has no CUDA support");
}
void gmm_gpu_destroy(gmm_gpu *gpu) { (void)gpu; }
void gmm_gpu_blas_warm_up_start(gmm_gpu *gpu) { (void)gpu; }
long gmm_gpu_created_count(void) { return 0; }
void *gmm_gpu_stream(const gmm_gpu *gpu)
{
    (void)gpu;
    return NULL;
}
