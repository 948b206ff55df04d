/* The communicator's helpers (see comm.h): the collectives a fit needs, built on the table's
 * sum and max, and the split of rows over ranks. */
#include "models/dist/comm.h"

#include <stdlib.h>
#include <string.h>

static int single(const gmm_comm *comm) { return !comm || comm->size <= 1; }

gmm_status gmm_comm_sum(gmm_comm *comm, double *buf, size_t n)
{
    return single(comm) || n == 0 ? GMM_OK : comm->sum(comm, buf, n);
}

gmm_status gmm_comm_max(gmm_comm *comm, double *buf, size_t n)
{
    return single(comm) || n == 0 ? GMM_OK : comm->max(comm, buf, n);
}

gmm_status gmm_comm_broadcast(gmm_comm *comm, int owner, double *buf, size_t n)
{
    if (single(comm) || n == 0) return GMM_OK;
    if (comm->rank != owner) memset(buf, 0, sizeof(double) * n);
    return comm->sum(comm, buf, n);
}

gmm_status gmm_comm_gather1(gmm_comm *comm, double value, double *values)
{
    int size = gmm_comm_size(comm);
    for (int r = 0; r < size; r++) values[r] = 0;
    values[gmm_comm_rank(comm)] = value;
    return single(comm) ? GMM_OK : comm->sum(comm, values, (size_t)size);
}

gmm_status gmm_comm_any(gmm_comm *comm, int *flag)
{
    if (single(comm)) return GMM_OK;
    double v = *flag ? 1.0 : 0.0;
    gmm_status status = comm->max(comm, &v, 1);
    if (status == GMM_OK) *flag = v != 0.0;
    return status;
}

void gmm_comm_abort(gmm_comm *comm, gmm_status status)
{
    if (!single(comm) && comm->abort) comm->abort(comm, status);
}

void gmm_comm_row_range(int64_t n_total, int rank, int size, int64_t *first, int64_t *count)
{
    int64_t base = n_total / size, extra = n_total % size;
    *count = base + (rank < extra ? 1 : 0);
    *first = rank * base + (rank < extra ? rank : extra);
}

int gmm_comm_row_owner(int64_t n_total, int size, int64_t row)
{
    int64_t base = n_total / size, extra = n_total % size;
    int64_t big = extra * (base + 1); /* rows held by the ranks with one more */
    if (row < big) return (int)(row / (base + 1));
    return base > 0 ? (int)(extra + (row - big) / base) : size - 1;
}
