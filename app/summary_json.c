/* gmm-train's and gmm-predict's --json summaries (summary_json.h). */
#include "app/summary_json.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/json.h"
#include "models/bayes.h"
#include "models/eval/metrics.h"
#include "models/fit/select_k.h"
#include "models/features/pca.h"

void iter_log_progress(void *user, int init_index, int iteration, double lower_bound,
                       double change, double seconds)
{
    iter_log *l = user;
    if (l->n == l->capacity) {
        int cap = l->capacity ? 2 * l->capacity : 256;
        int *ints[3] = {l->k, l->init_index, l->iteration};
        double *dbls[3] = {l->lower_bound, l->change, l->seconds};
        int ok = 1;
        for (int i = 0; i < 3; i++) {
            int *a = realloc(ints[i], sizeof(int) * cap);
            if (a) ints[i] = a; else ok = 0;
            double *b = realloc(dbls[i], sizeof(double) * cap);
            if (b) dbls[i] = b; else ok = 0;
        }
        l->k = ints[0], l->init_index = ints[1], l->iteration = ints[2];
        l->lower_bound = dbls[0], l->change = dbls[1], l->seconds = dbls[2];
        if (ok) l->capacity = cap;
    }
    if (l->n < l->capacity) { /* out of memory: the iteration is left out of the summary */
        int i = l->n++;
        l->k[i] = l->fixed_k > 0 ? l->fixed_k : -1;
        l->init_index[i] = init_index;
        l->iteration[i] = iteration;
        l->lower_bound[i] = lower_bound;
        l->change[i] = change;
        l->seconds[i] = seconds;
    }
    if (l->next) l->next(l->next_user, init_index, iteration, lower_bound, change, seconds);
}

void iter_log_mark_k(void *log, int n_components)
{
    iter_log *l = log;
    for (int i = l->n - 1; i >= 0 && l->k[i] < 0; i--) l->k[i] = n_components;
}

void iter_log_free(iter_log *l)
{
    free(l->k);
    free(l->init_index);
    free(l->iteration);
    free(l->lower_bound);
    free(l->change);
    free(l->seconds);
    l->k = l->init_index = l->iteration = NULL;
    l->lower_bound = l->change = l->seconds = NULL;
    l->n = l->capacity = 0;
}

static const char *device_name(gmm_device d)
{
    return d == GMM_DEVICE_CPU ? "cpu" : d == GMM_DEVICE_GPU ? "gpu" : "auto";
}

/* The clustering metrics of assignments against labels, and the counts per component (and per
 * component and label when labelled). Returns 0 or an exit code. */
static int write_clustering(json_writer *w, const int *assign, int K, const uint8_t *labels,
                            int64_t n)
{
    int64_t *counts = calloc((size_t)K, sizeof(int64_t));
    if (!counts) return cli_error("out of memory");
    for (int64_t i = 0; i < n; i++) counts[assign[i]]++;
    json_begin_array(w, "component_counts");
    for (int k = 0; k < K; k++) json_int(w, NULL, counts[k]);
    json_end_array(w);
    free(counts);
    if (!labels) {
        json_null(w, "metrics");
        return 0;
    }
    int n_classes = 0;
    for (int64_t i = 0; i < n; i++)
        if (labels[i] + 1 > n_classes) n_classes = labels[i] + 1;
    cluster_metrics m = {0};
    gmm_status st = cluster_metrics_compute(assign, K, labels, n_classes, n, &m);
    if (st != GMM_OK) return cli_fail(st);
    json_begin_object(w, "metrics");
    json_number(w, "accuracy", m.accuracy);
    json_number(w, "nmi", m.nmi);
    json_number(w, "ari", m.ari);
    json_begin_array(w, "component_to_label");
    for (int k = 0; k < K; k++) json_int(w, NULL, m.cluster_to_class[k]);
    json_end_array(w);
    json_begin_array(w, "confusion"); /* rows: components, columns: labels */
    for (int k = 0; k < K; k++) {
        json_begin_array(w, NULL);
        for (int c = 0; c < n_classes; c++) json_int(w, NULL, m.confusion[(size_t)k * n_classes + c]);
        json_end_array(w);
    }
    json_end_array(w);
    json_end_object(w);
    cluster_metrics_free(&m);
    return 0;
}

static void write_scores(json_writer *w, const gmm_model *model, double mean, int64_t n)
{
    json_number(w, "mean_log_likelihood", mean);
    if (model->bayes) return; /* a variational fit chose its components: no BIC or AIC */
    json_number(w, "bic", gmm_bic(model, mean, n));
    json_number(w, "aic", gmm_aic(model, mean, n));
    json_int(w, "n_parameters", gmm_n_parameters(model));
}

static void write_k_table(json_writer *w, const k_table *t, gmm_k_criterion criterion)
{
    json_begin_object(w, "k_selection");
    json_string(w, "criterion", gmm_k_criterion_name(criterion));
    json_int(w, "fits", t->n_fits);
    json_int(w, "finished", t->n_done);
    if (t->chosen >= 0) json_int(w, "chosen_k", t->results[t->chosen].n_components);
    else json_null(w, "chosen_k");
    json_string(w, "test_images", t->have_test ? t->test_path : NULL);
    json_begin_array(w, "table");
    for (int i = 0; i < t->n_done; i++) {
        const gmm_k_result *r = &t->results[i];
        json_begin_object(w, NULL);
        json_int(w, "k", r->n_components);
        json_int(w, "n_iter", r->n_iter);
        json_bool(w, "converged", r->converged);
        json_number(w, "lower_bound", r->lower_bound);
        json_number(w, "mean_log_likelihood", r->mean_log_likelihood);
        json_number(w, "bic", r->bic);
        json_number(w, "aic", r->aic);
        json_number(w, "icl", r->icl);
        json_number(w, "entropy", r->entropy);
        json_int(w, "n_parameters", r->n_parameters);
        if (t->have_test) json_number(w, "test_mean_log_likelihood", t->test_mean_ll[i]);
        else json_null(w, "test_mean_log_likelihood");
        json_number(w, "seconds", r->seconds);
        json_end_object(w);
    }
    json_end_array(w);
    json_end_object(w);
}

static void write_train_options(json_writer *w, const train_summary *s)
{
    const gmm_train_args *a = s->args;
    const gmm_options *o = s->opt;
    json_begin_object(w, "options");
    json_string(w, "data", a->data_path);
    json_string(w, "output", a->output);
    if (a->k_is_range) {
        json_begin_object(w, "k_range");
        json_int(w, "first", a->k_range.k_first);
        json_int(w, "last", a->k_range.k_last);
        json_int(w, "step", a->k_range.k_step);
        json_string(w, "select", gmm_k_criterion_name(a->k_range.criterion));
        json_end_object(w);
    } else {
        json_int(w, "n_components", o->n_components);
    }
    json_string(w, "covariance", gmm_cov_type_name(o->covariance_type));
    json_number(w, "tol", o->tol);
    json_number(w, "reg_covar", o->reg_covar);
    json_int(w, "max_iter", o->max_iter);
    json_bool(w, "bayesian", o->bayes != NULL);
    json_int(w, "n_init", o->n_init);
    json_string(w, "init", a->init_from ? "from a model" : gmm_init_name(o->init));
    json_string(w, "init_from", a->init_from);
    json_int(w, "seed", (long long)o->seed);
    json_string(w, "device", device_name(o->device));
    json_string(w, "precision", gmm_precision_name(o->precision));
    json_int(w, "limit", a->limit);
    json_number(w, "blur", a->blur);
    json_int(w, "pca", a->pca_axes);
    json_bool(w, "whiten", a->whiten != 0);
    json_end_object(w);
}

int train_json_write(const char *path, const train_summary *s)
{
    json_writer w;
    gmm_status st = json_open(&w, path);
    if (st != GMM_OK) return cli_fail(st);
    const gmm_model *m = s->model;
    int64_t n = s->scores->n_samples;
    json_begin_object(&w, NULL);
    json_string(&w, "program", "gmm-train");
    write_train_options(&w, s);
    json_begin_object(&w, "data");
    json_string(&w, "images", s->ds->images_path);
    json_int(&w, "n", n);
    json_int(&w, "rows", s->ds->rows);
    json_int(&w, "cols", s->ds->cols);
    json_bool(&w, "labelled", s->ds->labels != NULL);
    json_end_object(&w);
    if (gmm_space_pca(m->space)) {
        json_begin_object(&w, "projection");
        json_int(&w, "input_dim", gmm_space_pca(m->space)->input_dim);
        json_int(&w, "axes", gmm_space_pca(m->space)->n_axes);
        json_bool(&w, "whiten", gmm_space_pca(m->space)->whiten != 0);
        json_number(&w, "variance_explained", gmm_projection_explained_ratio(gmm_space_pca(m->space)));
        json_end_object(&w);
    }
    json_begin_array(&w, "iterations");
    for (int i = 0; i < s->iterations->n; i++) {
        const iter_log *l = s->iterations;
        json_begin_object(&w, NULL);
        json_int(&w, "k", l->k[i]);
        json_int(&w, "init", l->init_index[i] + 1);
        json_int(&w, "iteration", l->iteration[i]);
        json_number(&w, "lower_bound", l->lower_bound[i]);
        json_number(&w, "change", l->change[i]);
        json_number(&w, "seconds", l->seconds[i]);
        json_end_object(&w);
    }
    json_end_array(&w);
    json_begin_object(&w, "model");
    json_int(&w, "n_components", m->n_components);
    json_int(&w, "dim", m->dim);
    json_bool(&w, "converged", m->converged);
    json_int(&w, "n_iter", m->n_iter);
    json_number(&w, "lower_bound", m->lower_bound);
    write_scores(&w, m, s->scores->mean_log_likelihood, n);
    json_begin_array(&w, "weights");
    for (int k = 0; k < m->n_components; k++) json_number(&w, NULL, m->weights[k]);
    json_end_array(&w);
    if (m->bayes) { /* a variational fit: how many components it kept */
        json_begin_object(&w, "bayesian");
        json_string(&w, "weight_prior", gmm_weight_prior_name(m->bayes->weight_prior_type));
        json_number(&w, "weight_concentration_prior", m->bayes->weight_concentration_prior);
        json_number(&w, "kept_weight_threshold", GMM_BAYES_KEPT_WEIGHT);
        json_int(&w, "components_kept", gmm_bayes_components_kept(m, GMM_BAYES_KEPT_WEIGHT));
        json_end_object(&w);
    }
    json_end_object(&w);
    int rc = write_clustering(&w, s->scores->labels, m->n_components, s->ds->labels, n);
    if (s->k_table) write_k_table(&w, s->k_table, s->args->k_range.criterion);
    json_begin_object(&w, "timings");
    json_number(&w, "load_seconds", s->seconds_load);
    json_number(&w, "fit_seconds", s->seconds_fit);
    json_number(&w, "fit_setup_seconds", s->scores->seconds_setup);
    json_number(&w, "fit_init_seconds", s->scores->seconds_init);
    json_number(&w, "fit_em_seconds", s->scores->seconds_em);
    json_number(&w, "fit_scores_seconds", s->scores->seconds_scores);
    json_int(&w, "em_iterations", s->scores->n_iter_total);
    json_number(&w, "summary_pictures_seconds", s->seconds_pictures);
    json_number(&w, "model_write_seconds", s->seconds_save);
    json_number(&w, "total_seconds", s->seconds_total);
    json_end_object(&w);
    json_end_object(&w);
    if ((st = json_close(&w)) != GMM_OK && !rc) rc = cli_fail(st);
    return rc;
}

int predict_json_write(const char *path, const char *model_path, const gmm_model *model,
                       const dataset *ds, double mean, const int *assignments)
{
    json_writer w;
    gmm_status st = json_open(&w, path);
    if (st != GMM_OK) return cli_fail(st);
    json_begin_object(&w, NULL);
    json_string(&w, "program", "gmm-predict");
    json_string(&w, "model", model_path);
    json_int(&w, "n_components", model->n_components);
    json_string(&w, "covariance", gmm_cov_type_name(model->covariance_type));
    json_string(&w, "data", ds->images_path);
    json_int(&w, "n", ds->n_samples);
    json_bool(&w, "labelled", ds->labels != NULL);
    write_scores(&w, model, mean, ds->n_samples);
    int rc = write_clustering(&w, assignments, model->n_components, ds->labels, ds->n_samples);
    json_end_object(&w);
    if ((st = json_close(&w)) != GMM_OK && !rc) rc = cli_fail(st);
    return rc;
}
