/* The programs' MPI over Open MPI (see cli_mpi.h). Sums are a reduce to rank 0 and a broadcast
 * back, so that every rank holds the same bits (an all-reduce need not promise that). Every
 * collective is started non-blocking and waited for with a limit (GMM_MPI_WAIT_S): a rank that
 * stops alive (SIGSTOP, a hang) is noticed by no launcher, and its peers would otherwise wait
 * for it without end. */
#include "app/cli_mpi.h"

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "app/cli.h"
#include "kernels/gpu_info.h"

/* Open MPI's counts are int: large buffers go in slices. */
#define SLICE ((size_t)1 << 28)

int cli_mpi_launched(void)
{
    const char *vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};
    for (int i = 0; i < 3; i++) {
        const char *v = getenv(vars[i]);
        if (v && *v) return i == 2 || atoi(v) > 1;
    }
    return 0;
}

static gmm_status mpi_status(int rc, const char *what)
{
    if (rc == MPI_SUCCESS) return GMM_OK;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return gmm_error(GMM_ERR_IO, "%s failed: %s", what, text);
}

/* Seconds a rank waits in one collective for the others (GMM_MPI_WAIT_S; <= 0: no limit). */
static double wait_limit_s = GMM_MPI_WAIT_LIMIT_S;

/* Waits for a started collective (rc: what starting it returned): MPI_Test in a loop, at first
 * at once, after the first millisecond with 100 us pauses; past wait_limit_s an error that says
 * so (the request stays pending: the caller ends every rank). */
static gmm_status wait_for(int rc, MPI_Request *req, const char *what)
{
    if (rc != MPI_SUCCESS) return mpi_status(rc, what);
    const double t0 = cli_now_seconds();
    const struct timespec pause = {0, 100000};
    for (;;) {
        int done = 0;
        if ((rc = MPI_Test(req, &done, MPI_STATUS_IGNORE)) != MPI_SUCCESS)
            return mpi_status(rc, what);
        if (done) return GMM_OK;
        const double waited = cli_now_seconds() - t0;
        if (wait_limit_s > 0 && waited > wait_limit_s)
            return gmm_error(GMM_ERR_IO, "waited %.0f s in %s for the other ranks: one of them "
                             "has stopped or hangs (GMM_MPI_WAIT_S sets the limit, now %g s)",
                             waited, what, wait_limit_s);
        if (waited > 1e-3) nanosleep(&pause, NULL);
    }
}

static gmm_status reduce(gmm_comm *comm, double *buf, size_t n, MPI_Op op)
{
    double *tmp = malloc(sizeof(double) * (n < SLICE ? n : SLICE));
    if (!tmp) return gmm_error(GMM_ERR_NOMEM, "out of memory for a sum over ranks");
    gmm_status status = GMM_OK;
    for (size_t at = 0; at < n && status == GMM_OK; at += SLICE) {
        int m = (int)(n - at < SLICE ? n - at : SLICE);
        MPI_Request req;
        status = wait_for(MPI_Ireduce(buf + at, tmp, m, MPI_DOUBLE, op, 0, MPI_COMM_WORLD, &req),
                          &req, "MPI_Reduce");
        if (status == GMM_OK && comm->rank == 0) memcpy(buf + at, tmp, sizeof(double) * m);
        if (status == GMM_OK)
            status = wait_for(MPI_Ibcast(buf + at, m, MPI_DOUBLE, 0, MPI_COMM_WORLD, &req), &req,
                              "MPI_Bcast");
    }
    free(tmp);
    return status;
}

static gmm_status mpi_sum(gmm_comm *comm, double *buf, size_t n)
{
    return reduce(comm, buf, n, MPI_SUM);
}

static gmm_status mpi_max(gmm_comm *comm, double *buf, size_t n)
{
    return reduce(comm, buf, n, MPI_MAX);
}

static void mpi_abort(gmm_comm *comm, gmm_status status)
{
    fprintf(stderr, "%s: error: rank %d of %d: %s\n", cli_program, comm->rank, comm->size,
            gmm_error_message(status));
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int cli_mpi_start(int *argc, char ***argv, cli_mpi *m)
{
    memset(m, 0, sizeof *m);
    m->size = 1;
    if (!cli_mpi_launched()) return 0;
    if (MPI_Init(argc, argv) != MPI_SUCCESS) return cli_error("MPI_Init failed");
    m->started = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m->size);
    /* errors come back as codes, so that a failed call names itself */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *wait = getenv("GMM_MPI_WAIT_S");
    if (wait && *wait) wait_limit_s = atof(wait);
    m->comm = (gmm_comm){.rank = m->rank, .size = m->size, .sum = mpi_sum, .max = mpi_max,
                         .abort = mpi_abort};
    return 0;
}

int cli_mpi_fail(cli_mpi *m, gmm_status status)
{
    if (m->size <= 1) return cli_fail(status);
    mpi_abort(&m->comm, status);
    return 2; /* MPI_Abort does not return */
}

/* Rank 0 receives every rank's n items of type t (bytes each) in rank order. */
static gmm_status gather(cli_mpi *m, const void *mine, int64_t n, void *all, MPI_Datatype t,
                         size_t bytes)
{
    if (m->size <= 1) {
        memcpy(all, mine, (size_t)n * bytes);
        return GMM_OK;
    }
    if (n > 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "a rank holds more than 2^31 values to gather");
    int mine_n = (int)n, *counts = NULL, *displs = NULL;
    gmm_status status = GMM_OK;
    if (m->rank == 0) {
        counts = malloc(sizeof(int) * m->size);
        displs = malloc(sizeof(int) * m->size);
        if (!counts || !displs) status = gmm_error(GMM_ERR_NOMEM, "out of memory");
    }
    MPI_Request req;
    if (status == GMM_OK)
        status = wait_for(MPI_Igather(&mine_n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD,
                                      &req), &req, "MPI_Gather");
    if (status == GMM_OK && m->rank == 0) {
        int64_t at = 0;
        for (int r = 0; r < m->size; r++) {
            displs[r] = (int)at;
            at += counts[r];
        }
        if (at > 0x7fffffff) status = gmm_error(GMM_ERR_ARG, "more than 2^31 values to gather");
    }
    if (status == GMM_OK)
        status = wait_for(MPI_Igatherv(mine, mine_n, t, all, counts, displs, t, 0,
                                       MPI_COMM_WORLD, &req), &req, "MPI_Gatherv");
    free(counts);
    free(displs);
    return status;
}

gmm_status cli_mpi_gather_int(cli_mpi *m, const int *mine, int64_t n, int *all)
{
    return gather(m, mine, n, all, MPI_INT, sizeof(int));
}

gmm_status cli_mpi_gather_u8(cli_mpi *m, const uint8_t *mine, int64_t n, uint8_t *all)
{
    return gather(m, mine, n, all, MPI_UNSIGNED_CHAR, 1);
}

gmm_status cli_mpi_gather_double(cli_mpi *m, const double *mine, int64_t n, double *all)
{
    return gather(m, mine, n, all, MPI_DOUBLE, sizeof(double));
}

static gmm_status nccl_sum(gmm_comm *comm, double *d_buf, size_t n, void *stream)
{
    return gmm_nccl_sum((gmm_nccl *)comm->impl, d_buf, n, stream);
}

gmm_status cli_mpi_gpu(cli_mpi *m, int nccl, gmm_gpu **gpu)
{
    *gpu = NULL;
    int count = gmm_gpu_count();
    if (count < 1)
        return gmm_error(GMM_ERR_NO_DEVICE, "rank %d: no CUDA GPU is available", m->rank);
    const char *local = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
    int device = (local && *local ? atoi(local) : m->rank) % count;
    gmm_status status = gmm_gpu_create_on(device, gpu);
    if (status != GMM_OK || m->size <= 1 || !nccl) return status;
    unsigned char id[GMM_NCCL_ID_BYTES] = {0};
    if (m->rank == 0 && (status = gmm_nccl_unique_id(id)) != GMM_OK) return status;
    MPI_Request req;
    if ((status = wait_for(MPI_Ibcast(id, GMM_NCCL_ID_BYTES, MPI_UNSIGNED_CHAR, 0, MPI_COMM_WORLD,
                                      &req), &req, "MPI_Bcast")) != GMM_OK)
        return status;
    if ((status = gmm_nccl_create(&m->nccl, id, m->rank, m->size)) != GMM_OK) return status;
    /* how long a device sum waits for the other ranks (a dead rank's peers end with a message) */
    const char *wait = getenv("GMM_NCCL_WAIT_S");
    if (wait && *wait) gmm_nccl_set_wait(m->nccl, atof(wait), NULL, NULL);
    m->comm.impl = m->nccl;
    m->comm.sum_device = nccl_sum;
    return GMM_OK;
}

void cli_mpi_finish(cli_mpi *m)
{
    gmm_nccl_destroy(m->nccl);
    m->nccl = NULL;
    if (m->started) MPI_Finalize();
    m->started = 0;
}
