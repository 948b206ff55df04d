/* The programs' MPI (Open MPI): started when a program runs under an MPI launcher (mpirun sets
 * OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), with a gmm_comm (models/dist/comm.h) over
 * MPI_COMM_WORLD for the library, the gathering of per-rank results to rank 0, and the end of
 * every rank when one fails. app/cli_mpi.c is built when mpicc is found (MPI=1);
 * app/cli_mpi_nompi.c stands in otherwise and refuses to run under a launcher with more than
 * one rank. */
#ifndef GMM_CLI_MPI_H
#define GMM_CLI_MPI_H

#include <stdint.h>

#include "kernels/gpu.h"
#include "models/dist/comm.h"
#include "models/dist/comm_nccl.h"

/* Seconds a rank waits in one collective (a sum, a gather) for the others before it ends every
 * rank with a message, unless GMM_MPI_WAIT_S says otherwise (<= 0: no limit). */
#define GMM_MPI_WAIT_LIMIT_S 300.0

typedef struct {
    int rank, size;   /* 0 and 1 when not under a launcher */
    int started;      /* MPI_Init was called */
    gmm_comm comm;    /* size > 1: sums over MPI_COMM_WORLD, the same bits on every rank */
    gmm_nccl *nccl;   /* after cli_mpi_gpu: the ranks' NCCL communicator (comm.sum_device) */
} cli_mpi;

/* Whether the program was started by an MPI launcher with more than one rank. */
int cli_mpi_launched(void);
/* Starts MPI when launched (else rank 0 of 1). 0, or an exit code after printing why not. */
int cli_mpi_start(int *argc, char ***argv, cli_mpi *mpi);
/* A rank failed: prints "PROGRAM: error: rank R of S: message" and ends every rank
 * (MPI_Abort); without MPI it returns the exit code for the message. */
int cli_mpi_fail(cli_mpi *mpi, gmm_status status);
/* Rank 0 receives every rank's n values in rank order (all: the sum of the n's; NULL on the
 * other ranks). */
gmm_status cli_mpi_gather_int(cli_mpi *mpi, const int *mine, int64_t n, int *all);
gmm_status cli_mpi_gather_u8(cli_mpi *mpi, const uint8_t *mine, int64_t n, uint8_t *all);
/* The same for float64 (a rank's rows of an N x K table: n = rows x K; 2^31 values at most). */
gmm_status cli_mpi_gather_double(cli_mpi *mpi, const double *mine, int64_t n, double *all);
/* One GPU per rank: GPU (local rank mod the GPUs of the host) becomes this process's device and
 * *gpu its resources object; with nccl, the device sums of a fit go through NCCL, its
 * communicator bootstrapped over MPI (rank 0's unique id broadcast; every rank calls it). */
gmm_status cli_mpi_gpu(cli_mpi *mpi, int nccl, gmm_gpu **gpu);
void cli_mpi_finish(cli_mpi *mpi);

#endif
