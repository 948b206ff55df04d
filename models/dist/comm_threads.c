/* The threads' communicator (see comm_threads.h): per-rank slots, a barrier that an abort breaks,
 * and reductions that every rank computes itself in rank order. */
#include "models/dist/comm_threads.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct gmm_comm_threads {
    int size;
    int failed_rank;            /* the rank that aborted first, -1 */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int arrived;
    unsigned long generation;
    int failed;                 /* a rank called abort */
    gmm_status failed_status;
    char failed_message[512];
    double **slot;              /* size slots, each grown by its own rank */
    size_t *slot_cap;
    gmm_comm *ranks;            /* size tables */
};

/* The failure every rank reports once a rank has aborted. */
static gmm_status failure(const gmm_comm_threads *g)
{
    return gmm_error(g->failed_status, "%s", g->failed_message);
}

/* Waits until every rank has arrived (or a rank has failed). */
static gmm_status barrier(gmm_comm_threads *g)
{
    pthread_mutex_lock(&g->mu);
    if (!g->failed) {
        unsigned long gen = g->generation;
        if (++g->arrived == g->size) {
            g->arrived = 0;
            g->generation++;
            pthread_cond_broadcast(&g->cv);
        } else {
            while (gen == g->generation && !g->failed) pthread_cond_wait(&g->cv, &g->mu);
        }
    }
    gmm_status status = g->failed ? failure(g) : GMM_OK;
    pthread_mutex_unlock(&g->mu);
    return status;
}

/* buf := the sum (is_max 0) or maximum of every rank's buf, element by element in rank order. */
static gmm_status reduce(gmm_comm *comm, double *buf, size_t n, int is_max)
{
    gmm_comm_threads *g = comm->impl;
    const int me = comm->rank;
    if (n > g->slot_cap[me]) {
        double *bigger = realloc(g->slot[me], sizeof(double) * n);
        if (!bigger) {
            gmm_status status = gmm_error(GMM_ERR_NOMEM, "out of memory for a collective of %zu "
                                          "values", n);
            comm->abort(comm, status);
            return status;
        }
        g->slot[me] = bigger;
        g->slot_cap[me] = n;
    }
    memcpy(g->slot[me], buf, sizeof(double) * n);
    gmm_status status = barrier(g);
    if (status != GMM_OK) return status;
    for (size_t i = 0; i < n; i++) {
        double v = g->slot[0][i];
        for (int r = 1; r < g->size; r++) {
            double w = g->slot[r][i];
            v = is_max ? (w > v ? w : v) : v + w;
        }
        buf[i] = v;
    }
    return barrier(g); /* nobody refills a slot that another rank is still reading */
}

static gmm_status threads_sum(gmm_comm *comm, double *buf, size_t n)
{
    return reduce(comm, buf, n, 0);
}

static gmm_status threads_max(gmm_comm *comm, double *buf, size_t n)
{
    return reduce(comm, buf, n, 1);
}

static void threads_abort(gmm_comm *comm, gmm_status status)
{
    gmm_comm_threads *g = comm->impl;
    char message[sizeof g->failed_message];
    snprintf(message, sizeof message, "rank %d failed: %s", comm->rank,
             gmm_error_message(status));
    pthread_mutex_lock(&g->mu);
    if (!g->failed) {
        g->failed = 1;
        g->failed_rank = comm->rank;
        g->failed_status = status;
        memcpy(g->failed_message, message, sizeof message);
    }
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

gmm_status gmm_comm_threads_create(int size, gmm_comm_threads **out)
{
    *out = NULL;
    if (size < 1) return gmm_error(GMM_ERR_ARG, "a group of %d ranks", size);
    gmm_comm_threads *g = calloc(1, sizeof *g);
    if (!g) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    g->size = size;
    g->failed_rank = -1;
    g->slot = calloc(size, sizeof *g->slot);
    g->slot_cap = calloc(size, sizeof *g->slot_cap);
    g->ranks = calloc(size, sizeof *g->ranks);
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    if (!g->slot || !g->slot_cap || !g->ranks) {
        gmm_comm_threads_destroy(g);
        return gmm_error(GMM_ERR_NOMEM, "out of memory");
    }
    for (int r = 0; r < size; r++)
        g->ranks[r] = (gmm_comm){.rank = r, .size = size, .sum = threads_sum, .max = threads_max,
                                 .abort = threads_abort, .impl = g};
    *out = g;
    return GMM_OK;
}

gmm_status gmm_comm_threads_barrier(gmm_comm *comm)
{
    return barrier(comm->impl);
}

int gmm_comm_threads_failed_rank(gmm_comm_threads *g)
{
    pthread_mutex_lock(&g->mu);
    int r = g->failed ? g->failed_rank : -1;
    pthread_mutex_unlock(&g->mu);
    return r;
}

gmm_comm *gmm_comm_threads_rank(gmm_comm_threads *g, int rank)
{
    return g && rank >= 0 && rank < g->size ? &g->ranks[rank] : NULL;
}

void gmm_comm_threads_destroy(gmm_comm_threads *g)
{
    if (!g) return;
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
    for (int r = 0; g->slot && r < g->size; r++) free(g->slot[r]);
    free(g->slot);
    free(g->slot_cap);
    free(g->ranks);
    free(g);
}
