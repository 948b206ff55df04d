/* A communicator (models/dist/comm.h) for ranks that are threads of one process: the multi-GPU
 * driver's host collectives and the tests' in-process ranks. Each rank leaves its values in a
 * slot of its own, and after a barrier every rank sums (or takes the maximum of) all the slots
 * itself, in rank order, so every rank gets the same bits. A rank that fails calls the table's
 * abort: the others, waiting at a barrier or arriving at one later, return the failed rank's
 * status with its message ("rank 1 failed: ..."), never a hang. */
#ifndef GMM_COMM_THREADS_H
#define GMM_COMM_THREADS_H

#include "models/dist/comm.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmm_comm_threads gmm_comm_threads;

gmm_status gmm_comm_threads_create(int size, gmm_comm_threads **out);
/* Rank rank's table (owned by the group; valid until gmm_comm_threads_destroy). */
gmm_comm *gmm_comm_threads_rank(gmm_comm_threads *group, int rank);
void gmm_comm_threads_destroy(gmm_comm_threads *group); /* accepts NULL; no rank may be inside */
/* Waits for every rank of comm's group (a table of gmm_comm_threads_rank, or a copy of one); the
 * failed rank's status once a rank has aborted. For collectives outside the group (NCCL): the
 * ranks meet here first, so that none enters one that a failed rank will never join. */
gmm_status gmm_comm_threads_barrier(gmm_comm *comm);
/* The rank that aborted first, or -1. */
int gmm_comm_threads_failed_rank(gmm_comm_threads *group);

#ifdef __cplusplus
}
#endif
#endif
