/* The programs' MPI in a build without it (see cli_mpi.h): one rank, and a clear refusal when a
 * launcher started several. */
#include "app/cli_mpi.h"

#include <stdlib.h>
#include <string.h>

#include "app/cli.h"

int cli_mpi_launched(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_SIZE");
    if (!v || !*v) v = getenv("PMI_SIZE");
    return v && atoi(v) > 1;
}

int cli_mpi_start(int *argc, char ***argv, cli_mpi *m)
{
    (void)argc;
    (void)argv;
    memset(m, 0, sizeof *m);
    m->size = 1;
    if (cli_mpi_launched())
        return cli_error("started by mpirun with several ranks, but this build has no MPI: "
                         "install Open MPI (libopenmpi-dev) and rebuild (make MPI=1)");
    return 0;
}

int cli_mpi_fail(cli_mpi *m, gmm_status status)
{
    (void)m;
    return cli_fail(status);
}

gmm_status cli_mpi_gather_int(cli_mpi *m, const int *mine, int64_t n, int *all)
{
    (void)m;
    memcpy(all, mine, sizeof(int) * (size_t)n);
    return GMM_OK;
}

gmm_status cli_mpi_gather_u8(cli_mpi *m, const uint8_t *mine, int64_t n, uint8_t *all)
{
    (void)m;
    memcpy(all, mine, (size_t)n);
    return GMM_OK;
}

gmm_status cli_mpi_gather_double(cli_mpi *m, const double *mine, int64_t n, double *all)
{
    (void)m;
    memcpy(all, mine, sizeof(double) * (size_t)n);
    return GMM_OK;
}

gmm_status cli_mpi_gpu(cli_mpi *m, int nccl, gmm_gpu **gpu)
{
    (void)m;
    (void)nccl;
    return gmm_gpu_create(gpu);
}

void cli_mpi_finish(cli_mpi *m) { (void)m; }
