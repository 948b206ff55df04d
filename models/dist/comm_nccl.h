/* NCCL for the sums over ranks on the device (the comm table's sum_device, models/dist/comm.h): one
 * communicator per rank on that rank's current device, made from a unique id that rank 0 draws
 * and hands to the others (over MPI, or in memory for the GPUs of one process), or all of one
 * process's communicators at once. Implemented in the CUDA backend library (comm_nccl.cu). Without
 * NCCL in it (nccl.h not found) every function but gmm_nccl_available returns
 * GMM_ERR_UNSUPPORTED saying so, and without that library GMM_ERR_NO_DEVICE
 * (models/backend/cuda_api_forward.c). */
#ifndef GMM_COMM_NCCL_H
#define GMM_COMM_NCCL_H

#include <stdbool.h>
#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GMM_NCCL_ID_BYTES 128 /* NCCL_UNIQUE_ID_BYTES */
/* How long a sum waits for the other ranks before it gives up, unless gmm_nccl_set_wait says
 * otherwise (seconds). */
#define GMM_NCCL_WAIT_LIMIT_S 300.0

typedef struct gmm_nccl gmm_nccl;

/* Whether this build has NCCL. */
bool gmm_nccl_available(void);
/* A new unique id (rank 0 draws it, every rank passes it to gmm_nccl_create). */
gmm_status gmm_nccl_unique_id(unsigned char id[GMM_NCCL_ID_BYTES]);
/* This rank's communicator of `size` ranks on the calling thread's current device; returns
 * when every rank has called it (ncclCommInitRank). */
gmm_status gmm_nccl_create(gmm_nccl **out, const unsigned char id[GMM_NCCL_ID_BYTES], int rank,
                           int size);
/* Communicators for devices 0 .. n_devices - 1 of this process, out[i] for device i
 * (ncclCommInitAll; rank i is device i). */
gmm_status gmm_nccl_create_all(int n_devices, gmm_nccl **out);
/* d_buf[0..count) := the sum over the ranks (ncclAllReduce, float64, in place) on stream (a
 * cudaStream_t as void *; NULL: the legacy default stream); returns when it is complete. The
 * wait never lasts for ever: it ends with an error, the communicator aborted (every later sum
 * fails at once), when NCCL reports an asynchronous error (a peer's connection lost), when the
 * abandon callback of gmm_nccl_set_wait returns nonzero, or after the wait limit. */
gmm_status gmm_nccl_sum(gmm_nccl *nccl, double *d_buf, size_t count, void *stream);
/* The wait of each sum: limit_s seconds at most (<= 0: no limit; default GMM_NCCL_WAIT_LIMIT_S),
 * and abandon(arg), polled while waiting (NULL: none), nonzero when another rank has failed. */
void gmm_nccl_set_wait(gmm_nccl *nccl, double limit_s, int (*abandon)(void *arg), void *arg);
/* Aborts the communicator (operations in flight end) and frees it. */
void gmm_nccl_abort(gmm_nccl *nccl);
void gmm_nccl_destroy(gmm_nccl *nccl); /* accepts NULL */

#ifdef __cplusplus
}
#endif
#endif
