/* The communicator of a distributed fit. The ranks of one fit (MPI processes, one per GPU or per
 * machine, or the GPUs of one host driven by one thread each) each hold a row range of the data
 * and run the same fit in lock-step; where a step needs the whole data set (the M-step's
 * sufficient statistics N_k, the K x d sums and the K covariance sums, the lower bound, the
 * k-means sums and the global D^2 draw of k-means++) the ranks' partial results are summed
 * here, and every rank computes the same parameters from the same sums.
 *
 * It is a table of operations, so that the library knows neither MPI nor threads: the programs
 * fill it with MPI (app/comm_mpi.c), the multi-GPU driver with NCCL and threads
 * (models/fit/multi_gpu.h). NULL means one rank: every helper below is then a no-op. */
#ifndef GMM_COMM_H
#define GMM_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gmm_comm gmm_comm;
struct gmm_comm {
    int rank, size;
    /* buf[0..n) := the sum over the ranks of their buf[0..n) (host memory, float64), with the
     * same bits on every rank. */
    gmm_status (*sum)(gmm_comm *comm, double *buf, size_t n);
    /* buf[0..n) := the elementwise maximum over the ranks. */
    gmm_status (*max)(gmm_comm *comm, double *buf, size_t n);
    /* Optional (NULL: the caller copies to the host and calls sum): the sum of n float64 values
     * in device memory, in place, queued on stream (a cudaStream_t as void *). */
    gmm_status (*sum_device)(gmm_comm *comm, double *d_buf, size_t n, void *stream);
    /* This rank has failed with status (its message is gmm_error_message(status)): the others
     * must not wait for it. The MPI version ends every rank (MPI_Abort) after printing the
     * message; the threaded one wakes the other ranks, whose next collective fails. */
    void (*abort)(gmm_comm *comm, gmm_status status);
    void *impl;
};

static inline int gmm_comm_rank(const gmm_comm *comm) { return comm ? comm->rank : 0; }
static inline int gmm_comm_size(const gmm_comm *comm) { return comm ? comm->size : 1; }

/* The table's operations, no-ops for NULL or one rank. */
gmm_status gmm_comm_sum(gmm_comm *comm, double *buf, size_t n);
gmm_status gmm_comm_max(gmm_comm *comm, double *buf, size_t n);
/* buf[0..n) of rank owner on every rank (a sum to which the others add zeros). */
gmm_status gmm_comm_broadcast(gmm_comm *comm, int owner, double *buf, size_t n);
/* Every rank's value (one double) in values[0..size) on every rank. */
gmm_status gmm_comm_gather1(gmm_comm *comm, double value, double *values);
/* The ranks agree to stop: nonzero on every rank when any rank's flag is. */
gmm_status gmm_comm_any(gmm_comm *comm, int *flag);
void gmm_comm_abort(gmm_comm *comm, gmm_status status);

/* Rank rank's rows of n_total split over size ranks: [*first, *first + *count), in rank order,
 * the first n_total % size ranks one row more. */
void gmm_comm_row_range(int64_t n_total, int rank, int size, int64_t *first, int64_t *count);
/* The rank holding global row `row` of that split. */
int gmm_comm_row_owner(int64_t n_total, int size, int64_t row);

#ifdef __cplusplus
}
#endif
#endif
