/* Stand-ins for comm_nccl.h in a build without NCCL (CUDA=0, or nccl.h not found). */
#include <stdlib.h>

#include "models/dist/comm_nccl.h"

static gmm_status missing(void)
{
    return gmm_error(GMM_ERR_UNSUPPORTED, "this build has no NCCL (it needs CUDA and nccl.h at "
                     "build time): a fit over several GPUs cannot sum on the devices");
}

bool gmm_nccl_available(void) { return false; }
gmm_status gmm_nccl_unique_id(unsigned char id[GMM_NCCL_ID_BYTES])
{
    (void)id;
    return missing();
}
gmm_status gmm_nccl_create(gmm_nccl **out, const unsigned char id[GMM_NCCL_ID_BYTES], int rank,
                           int size)
{
    (void)id, (void)rank, (void)size;
    *out = NULL;
    return missing();
}
gmm_status gmm_nccl_create_all(int n_devices, gmm_nccl **out)
{
    for (int i = 0; i < n_devices; i++) out[i] = NULL;
    return missing();
}
gmm_status gmm_nccl_sum(gmm_nccl *nccl, double *d_buf, size_t count, void *stream)
{
    (void)nccl, (void)d_buf, (void)count, (void)stream;
    return missing();
}
void gmm_nccl_abort(gmm_nccl *nccl) { (void)nccl; }
void gmm_nccl_destroy(gmm_nccl *nccl) { (void)nccl; }
