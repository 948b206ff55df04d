/* The EM loop, written once over the backend table: n_init runs from the chosen
 * initialisation, E-step and M-step until the mean log-likelihood changes by less than tol,
 * keeping the best run (scikit-learn's BaseMixture.fit semantics). Empty components are
 * re-seeded by splitting the heaviest one instead of being left to degenerate. */
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/clock.h"
#include "kernels/parallel.h"
#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/core/bayes_prior.h"
#include "models/core/init.h"
#include "models/core/init_kmeans.h"
#include "models/precisions.h"

/* A component holding less than this many samples' worth of responsibility is empty. */
#define EMPTY_COMPONENT_NK 1e-3

static void notice(const gmm_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void notice(const gmm_options *o, const char *fmt, ...)
{
    if (!o->on_notice) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    o->on_notice(o->user, msg);
}

/* Re-seeds each empty component by splitting the heaviest component: the empty one takes half
 * its weight, its covariance, and a mean moved halfway towards the worst-explained sample that
 * the heaviest component holds (a direction in which it is spread; over every rank's rows, the
 * first such sample on ties). EM then pulls the two apart when the data there is really two
 * clusters. The parameters are reloaded into the backend. */
static gmm_status reseed_empty(const gmm_backend *be, gmm_backend_ctx *ctx,
                               const gmm_data_view *data, const gmm_options *o, const double *nk,
                               gmm_model *scratch, int iteration)
{
    gmm_status status = GMM_OK;
    int K = scratch->n_components, d = scratch->dim;
    const int64_t n_samples = data->n_rows;
    const int rank = gmm_comm_rank(o->comm), size = gmm_comm_size(o->comm);
    double *loglik = NULL, *log_resp = NULL, *values = NULL, *row = NULL;
    int n_empty = 0;
    for (int k = 0; k < K; k++) n_empty += nk[k] < EMPTY_COMPONENT_NK;
    if (n_empty == 0) return GMM_OK;
    if (n_empty == K)
        return gmm_error(GMM_ERR_NUMERIC, "every component is empty at iteration %d", iteration);
    loglik = malloc(sizeof(double) * n_samples);
    log_resp = malloc(sizeof(double) * n_samples * K);
    values = malloc(sizeof(double) * size);
    row = malloc(sizeof(double) * d);
    if (!loglik || !log_resp || !values || !row) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    /* the samples' fit under the parameters just estimated (also when no E-step ran yet) */
    double mean_ll;
    if ((status = be->get_params(ctx, scratch)) != GMM_OK) goto fail;
    if ((status = be->e_step(ctx, &mean_ll)) != GMM_OK) goto fail;
    if ((status = be->get_estep(ctx, loglik, log_resp)) != GMM_OK) goto fail;

    size_t cs = gmm_cov_size(scratch->covariance_type, 1, d); /* per component */
    for (int k = 0; k < K; k++) {
        if (nk[k] >= EMPTY_COMPONENT_NK) continue;
        int heavy = k == 0 ? 1 : 0;
        for (int j = 0; j < K; j++)
            if (j != k && scratch->weights[j] > scratch->weights[heavy]) heavy = j;
        int64_t worst = -1;
        for (int64_t i = 0; i < n_samples; i++) {
            const double *lr = log_resp + (size_t)i * K;
            int top = 0;
            for (int j = 1; j < K; j++)
                if (lr[j] > lr[top]) top = j;
            if (top == heavy && (worst < 0 || loglik[i] < loglik[worst])) worst = i;
        }
        /* the rank with the smallest such log-likelihood (the first on ties; rank 0's first row
         * when no rank has one) sends the sample */
        if ((status = gmm_comm_gather1(o->comm, worst < 0 ? INFINITY : loglik[worst], values)) !=
            GMM_OK)
            goto fail;
        int owner = 0;
        for (int r = 1; r < size; r++)
            if (values[r] < values[owner]) owner = r;
        if (rank == owner) {
            if (worst < 0) worst = 0;
            loglik[worst] = INFINITY; /* the next split takes another sample */
            gmm_data_view_row_f64(data, worst, row);
        }
        if ((status = gmm_comm_broadcast(o->comm, owner, row, d)) != GMM_OK) goto fail;
        const double *mu_h = scratch->means + (size_t)heavy * d;
        double *mu_k = scratch->means + (size_t)k * d;
        for (int j = 0; j < d; j++) mu_k[j] = mu_h[j] + 0.5 * (row[j] - mu_h[j]);
        if (scratch->covariance_type != GMM_COV_TIED)
            memcpy(scratch->covariances + k * cs, scratch->covariances + heavy * cs,
                   sizeof(double) * cs);
        scratch->weights[heavy] *= 0.5;
        scratch->weights[k] = scratch->weights[heavy];
        notice(o, "component %d was empty at iteration %d (N_k = %.3g): re-seeded by splitting "
               "component %d",
               k, iteration, nk[k], heavy);
    }
    if ((status = gmm_model_compute_precisions(scratch)) != GMM_OK) goto fail;
    status = be->set_params(ctx, scratch);
fail:
    free(loglik);
    free(log_resp);
    free(values);
    free(row);
    return status;
}

/* Whether the initialisation needs all the data as one float64 matrix on the host (every
 * method but k-means, which runs on the backend's rows). */
static int init_needs_host_matrix(const gmm_options *o)
{
    return o->init != GMM_INIT_KMEANS;
}

/* One run's starting parameters in the context: responsibilities from the initialisation (or
 * the given ones), one M-step, empty components re-seeded, then options->given_params in their
 * places. resp is n_samples x K scratch. */
static gmm_status initialise_run(const gmm_backend *be, gmm_backend_ctx *ctx,
                                 const gmm_data_view *data, const gmm_options *o,
                                 const double *initial_resp, gmm_rng *rng, double *resp,
                                 gmm_mstep_report *report, gmm_model *scratch)
{
    gmm_status status;
    int K = o->n_components, dim = data->dim;
    int64_t n_samples = data->n_rows;
    int resp_in_ctx = 0; /* the initialisation left the responsibilities in the context */
    if (initial_resp) {
        memcpy(resp, initial_resp, sizeof(double) * (size_t)n_samples * K);
        status = GMM_OK;
    } else if (o->init == GMM_INIT_KMEANS) {
        status = gmm_kmeans_init_on_backend(be, ctx, data, o, rng);
        resp_in_ctx = 1;
    } else {
        const double *X = data->rows; /* gmm_fit_on_context checked: float64, one rank */
        /* the initialisation runs where the fit runs: on the backend's GPU, or the CPU */
        gmm_options on_backend = *o;
        on_backend.gpu = be->resources(ctx);
        status = gmm_init_resp(X, n_samples, dim, &on_backend, rng, resp);
    }
    if (status != GMM_OK) return status;
    if (!resp_in_ctx && (status = be->set_resp(ctx, resp)) != GMM_OK) return status;
    if ((status = be->m_step(ctx, o->reg_covar, report)) != GMM_OK) return status;
    /* a variational fit lets components empty: that is how it chooses their number */
    if (!o->bayes && (status = reseed_empty(be, ctx, data, o, report->nk, scratch, 0)) != GMM_OK)
        return status;
    if (!o->given_params) return GMM_OK;
    if ((status = be->get_params(ctx, scratch)) != GMM_OK) return status;
    gmm_given_params_apply(o->given_params, scratch);
    return be->set_params(ctx, scratch);
}

/* The first index of the largest of row[0..K). */
static int row_argmax(const double *row, int K)
{
    int best = 0;
    for (int k = 1; k < K; k++)
        if (row[k] > row[best]) best = k;
    return best;
}

/* labels[i] = the first largest of row i of the context's log responsibilities, read in slabs. */
static gmm_status labels_by_slab(const gmm_backend *be, gmm_backend_ctx *ctx, int64_t N, int K,
                                 int *labels)
{
    const int64_t slab = 65536;
    double *buf = malloc(sizeof(double) * (size_t)(N < slab ? N : slab) * K);
    gmm_status status = buf ? GMM_OK : gmm_error(GMM_ERR_NOMEM, "out of memory for the labels");
    for (int64_t r0 = 0; status == GMM_OK && r0 < N; r0 += slab) {
        const int64_t n = N - r0 < slab ? N - r0 : slab;
        if ((status = be->get_log_resp_rows(ctx, r0, n, buf)) != GMM_OK) break;
        for (int64_t i = 0; i < n; i++) labels[r0 + i] = row_argmax(buf + (size_t)i * K, K);
    }
    free(buf);
    return status;
}

/* The final E-step under the model's parameters on the fit's context (set back first when a
 * later initialisation left others there), and the scores it hands on: in float64 whatever the
 * fit's precision (e_step_f64: the data the context holds, converted chunk by chunk on its own
 * device), so that they judge the model, not the precision it was fitted in. */
static gmm_status final_scores(const gmm_backend *be, gmm_backend_ctx *ctx, const gmm_model *model,
                               int params_in_ctx, gmm_fit_scores *s)
{
    gmm_status status = GMM_OK;
    int64_t N = s->n_samples;
    int K = s->n_components;
    if (!params_in_ctx && (status = be->set_params(ctx, model)) != GMM_OK) return status;
    status = (be->e_step_f64 ? be->e_step_f64 : be->e_step)(ctx, &s->mean_log_likelihood);
    if (status != GMM_OK) return status;
    /* log responsibilities into proba, then exponentiated in place (rows on every thread: 81
     * million exp at 8.1 million images, K = 10); without proba, slabs of rows for the labels */
    if ((status = be->get_estep(ctx, s->log_likelihood, s->proba)) != GMM_OK) return status;
    if (!s->proba) return labels_by_slab(be, ctx, N, K, s->labels);
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)N * K * 20))
    for (int64_t i = 0; i < N; i++) {
        double *row = s->proba + (size_t)i * K;
        s->labels[i] = row_argmax(row, K);
        for (int k = 0; k < K; k++) row[k] = exp(row[k]);
    }
    return GMM_OK;
}

/* The training metadata a saved model records, from the options of its fit. */
static void record_training_metadata(gmm_model *m, const gmm_options *o, int64_t n_samples)
{
    m->n_train_samples = n_samples;
    m->reg_covar = o->reg_covar;
    m->tol = o->tol;
    m->max_iter = o->max_iter;
    m->n_init = o->init_model ? 1 : o->n_init;
    /* a continued fit keeps the initialisation its chain started from: the file format has no
     * value for "from a model" */
    m->init = o->init_model ? o->init_model->init : o->init;
    m->seed = o->init_model ? o->init_model->seed : o->seed;
}

/* The current run's parameters after `iteration` iterations, handed to the checkpoint callback
 * in scratch (which reseed_empty also only borrows). */
static gmm_status checkpoint(const gmm_backend *be, gmm_backend_ctx *ctx, const gmm_options *o,
                             int64_t n_samples, int iteration, double lower_bound,
                             gmm_model *scratch)
{
    gmm_status status = be->get_params(ctx, scratch);
    if (status != GMM_OK) return status;
    scratch->converged = 0;
    scratch->n_iter = iteration;
    scratch->lower_bound = lower_bound;
    record_training_metadata(scratch, o, n_samples);
    return o->on_checkpoint(o->user, scratch);
}

void gmm_fit_scores_free(gmm_fit_scores *scores)
{
    if (!scores) return;
    free(scores->log_likelihood);
    free(scores->proba);
    free(scores->labels);
    memset(scores, 0, sizeof *scores);
}

/* The model's two covariance-sized arrays are first written by the copy back after the last
 * iteration (get_params); faulting in their fresh pages there made most of that copy's 0.03 s
 * (98 MB at K = 10, d = 784, traced on the H100 machine), on the critical path. A thread touches
 * them while the fit runs instead: one write of the zero already there per 4 KiB. */
typedef struct {
    char *arrays[2];
    size_t bytes;
    pthread_t thread;
    bool started;
} page_toucher;

static void *touch_pages(void *arg)
{
    page_toucher *t = arg;
    for (int a = 0; a < 2; a++) {
        volatile char *p = t->arrays[a];
        for (size_t off = 0; off < t->bytes; off += 4096) p[off] = 0;
    }
    return NULL;
}

/* Starts the thread for arrays of at least 8 MiB (else, or if no thread can be made, nothing). */
static void touch_start(page_toucher *t, gmm_model *m)
{
    t->started = false;
    t->bytes = sizeof(double) * gmm_cov_size(m->covariance_type, m->n_components, m->dim);
    t->arrays[0] = (char *)m->covariances;
    t->arrays[1] = (char *)m->precisions_cholesky;
    if (t->bytes >= ((size_t)8 << 20))
        t->started = pthread_create(&t->thread, NULL, touch_pages, t) == 0;
}

/* Waits for it; before anything else reads or writes the arrays, or frees them. */
static void touch_join(page_toucher *t)
{
    if (t->started) pthread_join(t->thread, NULL);
    t->started = false;
}

gmm_status gmm_fit_on_context(const gmm_backend *be, gmm_backend_ctx *ctx, double seconds_setup,
                              const gmm_data_view *data, const gmm_options *o,
                              const double *initial_resp, gmm_model *model,
                              gmm_fit_scores *scores)
{
    gmm_status status = GMM_OK;
    double *resp = NULL, *nk = NULL;
    gmm_model scratch = {0};
    page_toucher toucher = {.started = false};
    bool handed_over = false; /* on_fitted has the model: never freed here after that */
    bool interrupted_in_init = false; /* before any run had parameters: no model at all */
    int K = o->n_components, dim = data->dim;
    const int64_t n_samples = data->n_rows, n_total = data->n_total;
    memset(model, 0, sizeof *model);
    if (scores) memset(scores, 0, sizeof *scores);
    if (!initial_resp && !o->init_model && init_needs_host_matrix(o) &&
        (data->elem != GMM_ELEM_F64 || gmm_comm_size(o->comm) > 1))
        return gmm_error(GMM_ERR_UNSUPPORTED, "--init %s needs all the data in memory as one "
                         "float64 matrix; a fit of data split over ranks or kept in its stored "
                         "form starts from --init kmeans", gmm_init_name(o->init));
    if ((status = gmm_model_alloc(model, K, dim, o->covariance_type)) != GMM_OK) goto fail;
    touch_start(&toucher, model);
    if ((status = gmm_model_alloc(&scratch, K, dim, o->covariance_type)) != GMM_OK) goto fail;
    scratch.reg_covar = o->reg_covar;
    resp = malloc(sizeof(double) * (size_t)n_samples * K);
    nk = malloc(sizeof(double) * K);
    if (!resp || !nk) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory for %lld x %d responsibilities",
                           (long long)n_samples, K);
        goto fail;
    }
    double t_phase, seconds_init = 0, seconds_em = 0;
    int n_iter_total = 0;
    gmm_rng rng;
    gmm_rng_seed(&rng, o->seed);
    double best_lb = -INFINITY;
    int have_best = 0;
    gmm_mstep_report report = {.nk = nk};
    int best_is_in_ctx = 0; /* the context holds the best run's parameters */
    if (scores) {
        memset(scores, 0, sizeof *scores);
        scores->n_samples = n_samples;
        scores->n_components = K;
        scores->log_likelihood = malloc(sizeof(double) * (size_t)n_samples);
        if (!o->scores_without_proba)
            scores->proba = malloc(sizeof(double) * (size_t)n_samples * K);
        scores->labels = malloc(sizeof(int) * (size_t)n_samples);
        if (!scores->log_likelihood || (!o->scores_without_proba && !scores->proba) ||
            !scores->labels) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory for %lld per-sample scores",
                               (long long)n_samples);
            goto fail;
        }
    }
    if (!initial_resp && !o->init_model && o->init == GMM_INIT_KNN && o->n_init > 1 &&
        n_total <= gmm_knn_sample_size(o))
        notice(o, "--init knn on all the data is deterministic: every --n-init run starts alike");
    if (o->init_model && o->n_init > 1)
        notice(o, "starting from a given model: one run (n_init=%d does not apply)", o->n_init);
    int n_runs = o->init_model || (!initial_resp && gmm_init_is_fit(o->init)) ? 1 : o->n_init;
    int stopped = 0, stopped_init = 0, stopped_iter = 0; /* a stop was asked for, and where */
    for (int init = 0; init < n_runs && !stopped; init++) {
        t_phase = gmm_clock_seconds();
        if (o->init_model) { /* EM from the given parameters: the first E-step runs under them */
            status = be->set_params(ctx, o->init_model);
        } else {
            /* the initialisation's own loops hear a stop request too (options.h) */
            const gmm_stop_scope enclosing = gmm_stop_scope_begin(o);
            status = initialise_run(be, ctx, data, o, initial_resp, &rng, resp, &report,
                                    &scratch);
            gmm_stop_scope_end(enclosing);
            int stop = status == GMM_OK && o->should_stop && o->should_stop(o->user);
            if (status == GMM_OK && (status = gmm_comm_any(o->comm, &stop)) != GMM_OK) goto fail;
            if (stop)
                status = gmm_error(GMM_INTERRUPTED, "interrupted after initialisation %d",
                                   init + 1);
        }
        if (status == GMM_INTERRUPTED) {
            /* stopped inside an initialisation: that run has no parameters; the best of the
             * runs before it (if any) is the model, else there is none (freed below) */
            if (have_best) {
                stopped = 1;
                stopped_init = init;
                stopped_iter = 0; /* no EM iteration of this run */
                break;
            }
            char where[256]; /* the loop's words (gmm_error writes the buffer they are in) */
            snprintf(where, sizeof where, "%s", gmm_error_message(status));
            status = gmm_error(GMM_INTERRUPTED, "%s; no model", where);
            interrupted_in_init = true;
            goto fail;
        }
        if (status != GMM_OK) goto fail;

        double lb = -INFINITY, change = INFINITY;
        int converged = 0, iter = 0;
        double t0 = gmm_clock_seconds(), t_em = t0;
        seconds_init += t0 - t_phase;
        if (o->verbose >= 2)
            notice(o, "initialisation %d (%s): %.3f s", init + 1,
                   o->init_model   ? "from the given model"
                   : initial_resp ? "given responsibilities, first M-step"
                                  : gmm_init_name(o->init),
                   t0 - t_phase);
        for (iter = 1; iter <= o->max_iter; iter++) {
            double prev = lb;
            if ((status = be->e_step(ctx, &lb)) != GMM_OK) goto fail;
            if ((status = be->m_step(ctx, o->reg_covar, &report)) != GMM_OK) goto fail;
            if (o->bayes) /* the variational bound: the E-step's entropy, the new posterior */
                lb = report.lower_bound;
            else if ((status = reseed_empty(be, ctx, data, o, nk, &scratch, iter)) != GMM_OK)
                goto fail;
            change = lb - prev;
            double t1 = gmm_clock_seconds();
            if (o->on_progress) o->on_progress(o->user, init, iter, lb, change, t1 - t0);
            t0 = t1;
            if (fabs(change) < o->tol) {
                converged = 1;
                break;
            }
            /* asked after the iteration (the initialisation asks in its own loops and after
             * it); and again after a checkpoint, which takes a while */
            int stop = o->should_stop && o->should_stop(o->user);
            /* every rank stops together, after the same iteration */
            if ((status = gmm_comm_any(o->comm, &stop)) != GMM_OK) goto fail;
            if (!stop && o->on_checkpoint && o->checkpoint_every > 0 &&
                iter % o->checkpoint_every == 0) {
                if ((status = checkpoint(be, ctx, o, n_total, iter, lb, &scratch)) != GMM_OK)
                    goto fail;
                stop = o->should_stop && o->should_stop(o->user);
                if ((status = gmm_comm_any(o->comm, &stop)) != GMM_OK) goto fail;
            }
            if (stop) {
                stopped = 1;
                stopped_init = init;
                stopped_iter = iter;
                break;
            }
        }
        if (iter > o->max_iter) iter = o->max_iter;
        seconds_em += gmm_clock_seconds() - t_em;
        n_iter_total += iter;
        if (lb > best_lb || !have_best) {
            touch_join(&toucher);
            if ((status = be->get_params(ctx, model)) != GMM_OK) goto fail;
            best_lb = lb;
            have_best = 1;
            model->converged = converged;
            model->n_iter = iter;
            model->lower_bound = lb;
            best_is_in_ctx = 1;
        } else {
            best_is_in_ctx = 0;
        }
        if (!converged && !stopped)
            notice(o, "initialisation %d did not converge in %d iterations (last change %.3g > tol %g); "
                   "try a larger --max-iter or --tol",
                   init + 1, o->max_iter, fabs(change), o->tol);
    }
    record_training_metadata(model, o, n_total);
    if (!stopped && o->on_fitted) {
        o->on_fitted(o->user, model);
        handed_over = true;
    }
    if (stopped) {
        /* the per-sample scores would cost one more E-step over all the data: skipped */
        if (stopped_iter == 0)
            status = gmm_error(GMM_INTERRUPTED, "interrupted during initialisation %d of %d; "
                               "the best of the %d runs before it kept", stopped_init + 1,
                               n_runs, stopped_init);
        else if (n_runs > 1)
            status = gmm_error(GMM_INTERRUPTED, "interrupted after EM iteration %d of "
                               "initialisation %d of %d", stopped_iter, stopped_init + 1, n_runs);
        else
            status = gmm_error(GMM_INTERRUPTED, "interrupted after EM iteration %d", stopped_iter);
        goto fail;
    }
    if (scores) {
        t_phase = gmm_clock_seconds();
        status = final_scores(be, ctx, model, best_is_in_ctx, scores);
        scores->seconds_setup = seconds_setup;
        scores->seconds_init = seconds_init;
        scores->seconds_em = seconds_em;
        scores->seconds_scores = gmm_clock_seconds() - t_phase;
        scores->n_iter_total = n_iter_total;
        if (status == GMM_OK && o->verbose >= 2)
            notice(o, "final E-step and per-sample scores: %.3f s", scores->seconds_scores);
    }
fail:
    touch_join(&toucher);
    if (status != GMM_OK) {
        if ((status != GMM_INTERRUPTED || interrupted_in_init) && !handed_over)
            gmm_model_free(model);
        gmm_fit_scores_free(scores);
    }
    gmm_model_free(&scratch);
    free(resp);
    free(nk);
    return status;
}

static gmm_status fit(const gmm_data_view *data, const gmm_options *o,
                      const double *initial_resp, gmm_model *model, gmm_fit_scores *scores)
{
    memset(model, 0, sizeof *model);
    if (scores) memset(scores, 0, sizeof *scores);
    gmm_status status = gmm_data_view_check(data);
    if (status != GMM_OK) return status;
    const int dim = data->dim;
    if ((status = gmm_options_validate(o, data->n_total, dim)) != GMM_OK) return status;
    if (o->init_model && (status = gmm_check_init_model(o->init_model, o, dim)) != GMM_OK)
        return status;
    if (o->checkpoint_every < 0)
        return gmm_error(GMM_ERR_ARG, "checkpoint_every=%d must be >= 0", o->checkpoint_every);
    if (initial_resp && gmm_comm_size(o->comm) > 1)
        return gmm_error(GMM_ERR_UNSUPPORTED, "given responsibilities cannot start a fit of data "
                         "split over ranks");
    const gmm_backend *be = NULL;
    gmm_backend_ctx *ctx = NULL;
    if ((status = gmm_fit_backend_select(o, &be)) != GMM_OK) return status;
    double t_phase = gmm_clock_seconds();
    gmm_bayes *prior = NULL; /* a variational fit's priors, completed from the data */
    if (o->bayes && (status = gmm_bayes_prior_for_data(o, data, &prior)) != GMM_OK) return status;
    const gmm_backend_config cfg = {.data = *data, .n_components = o->n_components,
                                    .type = o->covariance_type, .precision = o->precision,
                                    .tuning = &o->tuning, .gpu = o->gpu, .comm = o->comm,
                                    .bayes = prior};
    status = be->create(&ctx, &cfg);
    gmm_bayes_free(prior); /* the context keeps its own copy */
    if (status != GMM_OK) return status;
    double seconds_setup = gmm_clock_seconds() - t_phase;
    if (o->verbose >= 2)
        notice(o, "%s backend context (the data on the device, buffers): %.3f s", be->name,
               seconds_setup);
    const bool streamed = be->streams && be->streams(ctx);
    if (streamed)
        notice(o, "the data (%.2f GB as stored) does not fit the device memory%s: it streams "
               "from host memory, chunk by chunk, in every pass",
               (double)data->n_rows * data->dim * gmm_elem_size(data->elem) / 1e9,
               o->tuning.memory_budget > 0 ? " budget" : "");
    status = gmm_fit_on_context(be, ctx, seconds_setup, data, o, initial_resp, model, scores);
    if (scores && status == GMM_OK) scores->data_streamed = streamed;
    be->destroy(ctx);
    return status;
}

gmm_status gmm_fit_backend_select(const gmm_options *o, const gmm_backend **backend)
{
    const char *why = NULL;
    gmm_status status = gmm_backend_select(o->device, o->gpu, backend, &why);
    if (status != GMM_OK) return status;
    if (why) notice(o, "%s", why);
    if (!(*backend)->supports(o->covariance_type, o->precision))
        return gmm_error(GMM_ERR_UNSUPPORTED, "the %s backend does not support %s covariance in %s",
                         (*backend)->name, gmm_cov_type_name(o->covariance_type),
                         gmm_precision_name(o->precision));
    return GMM_OK;
}

gmm_status gmm_fit(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                   gmm_model *model)
{
    const gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
    return fit(&data, options, NULL, model, NULL);
}

gmm_status gmm_fit_view(const gmm_data_view *data, const gmm_options *options, gmm_model *model,
                        gmm_fit_scores *scores)
{
    if (!data || !options || !model) return gmm_error(GMM_ERR_ARG, "gmm_fit_view: NULL argument");
    return fit(data, options, NULL, model, scores);
}

gmm_status gmm_fit_scored(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                          gmm_model *model, gmm_fit_scores *scores)
{
    if (!scores) return gmm_error(GMM_ERR_ARG, "gmm_fit_scored: scores is NULL");
    const gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
    return fit(&data, options, NULL, model, scores);
}

gmm_status gmm_fit_from_resp(const double *X, int64_t n_samples, int dim,
                             const gmm_options *options, const double *initial_resp,
                             gmm_model *model)
{
    if (!initial_resp) return gmm_error(GMM_ERR_ARG, "initial responsibilities are missing");
    const gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
    return fit(&data, options, initial_resp, model, NULL);
}

gmm_status gmm_fit_from_model(const double *X, int64_t n_samples, int dim,
                              const gmm_options *options, const gmm_model *start,
                              gmm_model *model)
{
    if (!options || !start) return gmm_error(GMM_ERR_ARG, "gmm_fit_from_model: NULL argument");
    gmm_options o = *options;
    o.init_model = start;
    const gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
    return fit(&data, &o, NULL, model, NULL);
}
