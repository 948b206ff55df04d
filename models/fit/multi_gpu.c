/* The fit over several GPUs of one process (see multi_gpu.h): the threads, their communicator
 * (models/dist/comm_threads.h's breakable barrier and host sums in rank order, NCCL on the devices)
 * and the gathering of the ranks' results. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/convert.h"
#include "kernels/gpu.h"
#include "kernels/gpu_info.h"
#include "models/dist/comm.h"
#include "models/dist/comm_nccl.h"
#include "models/dist/comm_threads.h"
#include "models/fit/multi_gpu.h"

/* A rank's communicator: the threads' group's table (host sums in rank order, a barrier that
 * an abort breaks; models/dist/comm_threads.h) with the device sums through NCCL and an abort that
 * also aborts this rank's NCCL communicator. */
typedef struct {
    gmm_comm comm; /* first: the table handed to gmm_fit_view (a copy of the group's) */
    void (*group_abort)(gmm_comm *comm, gmm_status status);
    gmm_nccl *nccl; /* NULL on one GPU, or after an abort */
} rank_comm;

/* The device sum: the ranks meet on the host first (so that nobody enqueues an all-reduce that
 * a failed rank will never join), then one NCCL all-reduce. */
static gmm_status threaded_sum_device(gmm_comm *comm, double *d_buf, size_t n, void *stream)
{
    rank_comm *rc = (rank_comm *)comm;
    gmm_status status = gmm_comm_threads_barrier(comm);
    if (status != GMM_OK) return status;
    return gmm_nccl_sum(rc->nccl, d_buf, n, stream);
}

/* A sum's wait ends once a rank of the group has failed (comm_nccl.h: gmm_nccl_set_wait). */
static int group_failed(void *group) { return gmm_comm_threads_failed_rank(group) >= 0; }

/* Breaks the group's barrier for every waiting rank; this rank's NCCL communicator is aborted
 * (from its own thread: nothing else uses it). */
static void threaded_abort(gmm_comm *comm, gmm_status status)
{
    rank_comm *rc = (rank_comm *)comm;
    rc->group_abort(comm, status);
    if (rc->nccl) {
        gmm_nccl_abort(rc->nccl);
        rc->nccl = NULL;
    }
}

/* One rank's work and results. */
typedef struct {
    rank_comm rc;
    int device;
    gmm_data_view view;
    gmm_options options;
    gmm_model model;
    gmm_fit_scores scores;
    int want_scores;
    const gmm_multi_gpu_test *test;
    gmm_status status;
    char message[1024]; /* gmm_error_message(status), read by the caller's thread */
} rank_work;

static gmm_status fail_on_purpose(void *user, const gmm_model *so_far)
{
    (void)user;
    (void)so_far;
    return gmm_error(GMM_ERR_CUDA, "failure on purpose after EM iteration 2 (test)");
}

static void *rank_main(void *arg)
{
    rank_work *w = (rank_work *)arg;
    gmm_gpu *gpu = NULL;
    gmm_status status = gmm_gpu_create_on(w->device, &gpu);
    const gmm_multi_gpu_test *t = w->test;
    if (status == GMM_OK && t && t->fail_rank == w->rc.comm.rank) {
        if (t->fail_at == 0) {
            status = gmm_error(GMM_ERR_NOMEM, "failure on purpose before the fit (test)");
        } else {
            w->options.on_checkpoint = fail_on_purpose;
            w->options.checkpoint_every = 2;
        }
    }
    if (status == GMM_OK) {
        w->options.gpu = gpu;
        status = gmm_fit_view(&w->view, &w->options, &w->model,
                              w->want_scores ? &w->scores : NULL);
    }
    /* an interrupted fit stops on every rank together (should_stop goes through the comm) */
    if (status != GMM_OK && status != GMM_INTERRUPTED) gmm_comm_abort(&w->rc.comm, status);
    w->status = status;
    snprintf(w->message, sizeof w->message, "%s", status == GMM_OK ? "" : gmm_error_message(status));
    gmm_gpu_destroy(gpu);
    return NULL;
}

/* The ranks' scores, in row order, into one. */
static gmm_status gather_scores(rank_work *w, int n, int64_t n_total, gmm_fit_scores *out)
{
    const int K = w[0].scores.n_components;
    *out = w[0].scores; /* the times and the training score: rank 0's (the score is global) */
    out->n_samples = n_total;
    out->log_likelihood = malloc(sizeof(double) * (size_t)n_total);
    out->proba = w[0].scores.proba ? malloc(sizeof(double) * (size_t)n_total * K) : NULL;
    out->labels = malloc(sizeof(int) * (size_t)n_total);
    if (!out->log_likelihood || (w[0].scores.proba && !out->proba) || !out->labels) {
        gmm_fit_scores_free(out);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the scores of %lld rows",
                         (long long)n_total);
    }
    for (int r = 0; r < n; r++) {
        const gmm_fit_scores *s = &w[r].scores;
        const int64_t first = w[r].view.first_row, rows = w[r].view.n_rows;
        memcpy(out->log_likelihood + first, s->log_likelihood, sizeof(double) * rows);
        if (out->proba) memcpy(out->proba + first * K, s->proba, sizeof(double) * rows * K);
        memcpy(out->labels + first, s->labels, sizeof(int) * rows);
    }
    return GMM_OK;
}

gmm_status gmm_fit_gpus_test(const gmm_data_view *data, int n_gpus, const gmm_options *options,
                             gmm_model *model, gmm_fit_scores *scores,
                             const gmm_multi_gpu_test *test)
{
    gmm_status status = GMM_OK;
    int have = gmm_gpu_count(), started = 0, first_failed = -1;
    gmm_comm_threads *group = NULL;
    rank_work *w = NULL;
    pthread_t *threads = NULL;
    gmm_nccl **nccl = NULL;
    if (model) memset(model, 0, sizeof *model);
    if (scores) memset(scores, 0, sizeof *scores);
    if (!data || !options || !model) return gmm_error(GMM_ERR_ARG, "gmm_fit_gpus: NULL argument");
    if ((status = gmm_data_view_check(data)) != GMM_OK) return status;
    if (data->first_row != 0 || data->n_rows != data->n_total)
        return gmm_error(GMM_ERR_ARG, "gmm_fit_gpus takes the whole data set (rows %lld..%lld "
                         "of %lld given)", (long long)data->first_row,
                         (long long)(data->first_row + data->n_rows), (long long)data->n_total);
    if (n_gpus < 1 || n_gpus > have)
        return gmm_error(GMM_ERR_ARG, "%d GPUs asked for, %d present", n_gpus, have);
    if (n_gpus > data->n_total)
        return gmm_error(GMM_ERR_ARG, "%d GPUs for %lld rows: at least one row per GPU",
                         n_gpus, (long long)data->n_total);
    if (options->comm || options->gpu)
        return gmm_error(GMM_ERR_ARG, "gmm_fit_gpus makes its own communicator and GPU "
                         "resources: options->comm and options->gpu must be NULL");
    if (n_gpus > 1 && !gmm_nccl_available())
        return gmm_error(GMM_ERR_UNSUPPORTED, "%d GPUs need NCCL, which this build lacks "
                         "(nccl.h was not found at build time)", n_gpus);

    w = calloc((size_t)n_gpus, sizeof *w);
    threads = calloc((size_t)n_gpus, sizeof *threads);
    nccl = calloc((size_t)n_gpus, sizeof *nccl);
    if (!w || !threads || !nccl) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((status = gmm_comm_threads_create(n_gpus, &group)) != GMM_OK) goto fail;
    if (n_gpus > 1 && (status = gmm_nccl_create_all(n_gpus, nccl)) != GMM_OK) goto fail;

    for (int r = 0; r < n_gpus; r++) {
        rank_work *x = &w[r];
        int64_t first, count;
        gmm_comm_row_range(data->n_total, r, n_gpus, &first, &count);
        x->device = r;
        x->view = *data;
        x->view.rows = (const char *)data->rows +
                       (size_t)first * data->dim * gmm_elem_size(data->elem);
        x->view.n_rows = count;
        x->view.first_row = first;
        x->rc.nccl = nccl[r];
        nccl[r] = NULL; /* the rank owns it now */
        gmm_nccl_set_wait(x->rc.nccl, GMM_NCCL_WAIT_LIMIT_S, group_failed, group);
        x->rc.comm = *gmm_comm_threads_rank(group, r);
        x->rc.group_abort = x->rc.comm.abort;
        x->rc.comm.abort = threaded_abort;
        x->rc.comm.sum_device = n_gpus > 1 ? threaded_sum_device : NULL;
        x->options = *options;
        x->options.device = GMM_DEVICE_GPU;
        x->options.comm = n_gpus > 1 ? &x->rc.comm : NULL;
        if (r > 0) {
            x->options.on_progress = NULL;
            x->options.on_notice = NULL;
            x->options.should_stop = NULL;
            x->options.on_checkpoint = NULL;
        }
        x->want_scores = scores != NULL;
        x->test = test;
    }
    if (n_gpus == 1) {
        rank_main(&w[0]);
    } else {
        for (; started < n_gpus; started++)
            if (pthread_create(&threads[started], NULL, rank_main, &w[started]) != 0) {
                /* the ones running meet a broken barrier */
                gmm_comm_abort(&w[started].rc.comm,
                               gmm_error(GMM_ERR_NOMEM, "cannot start the thread of GPU %d",
                                         started));
                w[started].status = GMM_ERR_NOMEM;
                snprintf(w[started].message, sizeof w[started].message,
                         "cannot start the thread of GPU %d", started);
                break;
            }
        for (int r = 0; r < started; r++) pthread_join(threads[r], NULL);
    }

    for (int r = 0; r < n_gpus; r++) {
        if (test && test->rank_status) test->rank_status[r] = w[r].status;
        if (w[r].status != GMM_OK && w[r].status != GMM_INTERRUPTED && first_failed < 0)
            first_failed = r;
    }
    if (first_failed >= 0) {
        /* the rank that failed first, in its own words (the others report its failure) */
        int r = gmm_comm_threads_failed_rank(group);
        if (r < 0) r = first_failed;
        status = w[r].status == GMM_OK ? GMM_ERR_CUDA : w[r].status;
        status = gmm_error(status, "GPU %d of %d failed: %s", r, n_gpus, w[r].message);
        goto fail;
    }
    if (scores && w[0].status == GMM_OK &&
        (status = gather_scores(w, n_gpus, data->n_total, scores)) != GMM_OK)
        goto fail;
    status = w[0].status; /* GMM_OK, or GMM_INTERRUPTED with the model so far */
    *model = w[0].model;
    memset(&w[0].model, 0, sizeof w[0].model);
fail:
    for (int r = 0; w && r < n_gpus; r++) {
        gmm_model_free(&w[r].model);
        gmm_fit_scores_free(&w[r].scores);
        gmm_nccl_destroy(w[r].rc.nccl);
    }
    for (int r = 0; nccl && r < n_gpus; r++) gmm_nccl_destroy(nccl[r]);
    gmm_comm_threads_destroy(group);
    free(nccl);
    free(threads);
    free(w);
    return status;
}

gmm_status gmm_fit_gpus(const gmm_data_view *data, int n_gpus, const gmm_options *options,
                        gmm_model *model, gmm_fit_scores *scores)
{
    return gmm_fit_gpus_test(data, n_gpus, options, model, scores, NULL);
}
