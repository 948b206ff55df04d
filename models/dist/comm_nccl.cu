/* NCCL communicators for the device sums over ranks (see comm_nccl.h). */
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/cuda_check.h"
#include "models/dist/comm_nccl.h"

struct gmm_nccl {
    ncclComm_t comm;
};

static_assert(GMM_NCCL_ID_BYTES == NCCL_UNIQUE_ID_BYTES, "GMM_NCCL_ID_BYTES");

#define GMM_NCCL_CHECK(expr)                                                                   \
    do {                                                                                       \
        ncclResult_t gmm_r_ = (expr);                                                          \
        if (gmm_r_ != ncclSuccess) {                                                           \
            status = gmm_error(GMM_ERR_CUDA, "%s failed: %s", #expr,                           \
                               ncclGetErrorString(gmm_r_));                                    \
            goto fail;                                                                         \
        }                                                                                      \
    } while (0)

extern "C" bool gmm_nccl_available(void) { return true; }

extern "C" gmm_status gmm_nccl_unique_id(unsigned char id[GMM_NCCL_ID_BYTES])
{
    gmm_status status = GMM_OK;
    ncclUniqueId uid;
    GMM_NCCL_CHECK(ncclGetUniqueId(&uid));
    memcpy(id, uid.internal, GMM_NCCL_ID_BYTES);
fail:
    return status;
}

extern "C" gmm_status gmm_nccl_create(gmm_nccl **out, const unsigned char id[GMM_NCCL_ID_BYTES],
                                      int rank, int size)
{
    gmm_status status = GMM_OK;
    ncclUniqueId uid;
    gmm_nccl *n = (gmm_nccl *)calloc(1, sizeof *n);
    *out = NULL;
    if (!n) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    if (rank < 0 || rank >= size) {
        free(n);
        return gmm_error(GMM_ERR_ARG, "NCCL rank %d of %d ranks", rank, size);
    }
    memcpy(uid.internal, id, GMM_NCCL_ID_BYTES);
    GMM_NCCL_CHECK(ncclCommInitRank(&n->comm, size, uid, rank));
    *out = n;
    return GMM_OK;
fail:
    free(n);
    return status;
}

extern "C" gmm_status gmm_nccl_create_all(int n_devices, gmm_nccl **out)
{
    gmm_status status = GMM_OK;
    ncclComm_t *comms = (ncclComm_t *)calloc((size_t)(n_devices > 0 ? n_devices : 1), sizeof *comms);
    for (int i = 0; i < n_devices; i++) out[i] = NULL;
    if (!comms) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    GMM_NCCL_CHECK(ncclCommInitAll(comms, n_devices, NULL));
    for (int i = 0; i < n_devices; i++) {
        out[i] = (gmm_nccl *)calloc(1, sizeof(gmm_nccl));
        if (!out[i]) {
            for (int j = 0; j < n_devices; j++) {
                if (j < i) {
                    free(out[j]);
                    out[j] = NULL;
                }
                ncclCommDestroy(comms[j]);
            }
            status = gmm_error(GMM_ERR_NOMEM, "out of memory");
            goto fail;
        }
        out[i]->comm = comms[i];
    }
fail:
    free(comms);
    return status;
}

extern "C" gmm_status gmm_nccl_sum(gmm_nccl *n, double *d_buf, size_t count, void *stream)
{
    gmm_status status = GMM_OK;
    if (!n) return gmm_error(GMM_ERR_ARG, "gmm_nccl_sum: no communicator");
    GMM_NCCL_CHECK(ncclAllReduce(d_buf, d_buf, count, ncclDouble, ncclSum, n->comm,
                                 (cudaStream_t)stream));
fail:
    return status;
}

extern "C" void gmm_nccl_abort(gmm_nccl *n)
{
    if (!n) return;
    ncclCommAbort(n->comm); /* teardown after a failure: nothing more to report */
    free(n);
}

extern "C" void gmm_nccl_destroy(gmm_nccl *n)
{
    if (!n) return;
    ncclCommDestroy(n->comm);
    free(n);
}
