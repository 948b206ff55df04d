/* NCCL communicators for the device sums over ranks (see comm_nccl.h), and the watched wait for
 * each sum: never a wait without end when a peer has died or failed. */
#include <nccl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/clock.h"
#include "kernels/cuda_check.h"
#include "models/dist/comm_nccl.h"

struct gmm_nccl {
    ncclComm_t comm; /* NULL once aborted */
    double wait_limit_s;
    int (*abandon)(void *arg);
    void *abandon_arg;
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
    n->wait_limit_s = GMM_NCCL_WAIT_LIMIT_S;
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
        out[i]->wait_limit_s = GMM_NCCL_WAIT_LIMIT_S;
    }
fail:
    free(comms);
    return status;
}

extern "C" void gmm_nccl_set_wait(gmm_nccl *n, double limit_s, int (*abandon)(void *arg),
                                  void *arg)
{
    if (!n) return;
    n->wait_limit_s = limit_s;
    n->abandon = abandon;
    n->abandon_arg = arg;
}

/* Ends the communicator (its kernels in flight stop) and returns why. */
static gmm_status abandon_sum(gmm_nccl *n, gmm_status why)
{
    ncclCommAbort(n->comm);
    n->comm = NULL;
    return why;
}

/* Waits for the all-reduce queued on stream, watching the communicator's asynchronous error
 * (a peer's connection lost), the abandon callback (another rank of this process failed) and
 * the time limit (a peer that died where no error reaches this rank, e.g. over NVLink). */
static gmm_status wait_for_sum(gmm_nccl *n, cudaStream_t stream)
{
    const double start = gmm_clock_seconds();
    for (long polls = 0;; polls++) {
        cudaError_t e = cudaStreamQuery(stream);
        if (e == cudaSuccess) return GMM_OK;
        if (e != cudaErrorNotReady)
            return gmm_error(GMM_ERR_CUDA, "the sum over ranks (NCCL all-reduce) failed: %s",
                             cudaGetErrorString(e));
        ncclResult_t async = ncclSuccess;
        if (ncclCommGetAsyncError(n->comm, &async) == ncclSuccess && async != ncclSuccess &&
            async != ncclInProgress)
            return abandon_sum(n, gmm_error(GMM_ERR_CUDA, "the sum over ranks (NCCL all-reduce) "
                                            "failed: %s (%s); another rank died or lost its "
                                            "connection", ncclGetErrorString(async),
                                            ncclGetLastError(n->comm)));
        if (n->abandon && n->abandon(n->abandon_arg))
            return abandon_sum(n, gmm_error(GMM_ERR_CUDA, "the sum over ranks (NCCL all-reduce) "
                                            "abandoned: another rank failed"));
        double waited = gmm_clock_seconds() - start;
        if (n->wait_limit_s > 0 && waited > n->wait_limit_s)
            return abandon_sum(n, gmm_error(GMM_ERR_CUDA, "the sum over ranks (NCCL all-reduce) "
                                            "waited %.0f s for the other ranks: one of them has "
                                            "stopped (died, hung or failed); aborted", waited));
        if (polls > 200) { /* past the first ~0.1 ms: poll every 50 us */
            struct timespec pause = {0, 50000};
            nanosleep(&pause, NULL);
        }
    }
}

extern "C" gmm_status gmm_nccl_sum(gmm_nccl *n, double *d_buf, size_t count, void *stream)
{
    gmm_status status = GMM_OK;
    if (!n) return gmm_error(GMM_ERR_ARG, "gmm_nccl_sum: no communicator");
    if (!n->comm)
        return gmm_error(GMM_ERR_CUDA, "the sum over ranks: the NCCL communicator was aborted");
    GMM_NCCL_CHECK(ncclAllReduce(d_buf, d_buf, count, ncclDouble, ncclSum, n->comm,
                                 (cudaStream_t)stream));
    return wait_for_sum(n, (cudaStream_t)stream);
fail:
    return status;
}

extern "C" void gmm_nccl_abort(gmm_nccl *n)
{
    if (!n) return;
    if (n->comm) ncclCommAbort(n->comm); /* teardown after a failure: nothing more to report */
    free(n);
}

extern "C" void gmm_nccl_destroy(gmm_nccl *n)
{
    if (!n) return;
    if (n->comm) ncclCommDestroy(n->comm);
    free(n);
}
