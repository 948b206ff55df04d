/* libgmm's public interface (include/gmm/gmm.h) over the internal model: opaque handles, fit
 * parameters by name, data in float64/float32/uint8 with a scale (api_data.h), the space the
 * mixture is fitted in (api_space.h), and "CODE: detail" errors. */
#include "include/gmm/gmm.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/api/api_bayes.h"
#include "models/api/api_data.h"
#include "models/api/api_mixture.h"
#include "models/api/api_space.h"
#include "models/api/api_start.h"
#include "models/backend/backend.h"
#include "models/fit/spectral_init.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/eval/metrics.h"
#include "models/io/model_io.h"

/* The public codes are the internal status values. */
_Static_assert(GMM_CODE_ERR_NOMEM == GMM_ERR_NOMEM && GMM_CODE_ERR_IO == GMM_ERR_IO &&
                   GMM_CODE_ERR_FORMAT == GMM_ERR_FORMAT &&
                   GMM_CODE_ERR_VERSION == GMM_ERR_VERSION &&
                   GMM_CODE_ERR_CHECKSUM == GMM_ERR_CHECKSUM && GMM_CODE_ERR_ARG == GMM_ERR_ARG &&
                   GMM_CODE_ERR_CHOLESKY == GMM_ERR_CHOLESKY &&
                   GMM_CODE_ERR_NUMERIC == GMM_ERR_NUMERIC && GMM_CODE_ERR_CUDA == GMM_ERR_CUDA &&
                   GMM_CODE_ERR_NO_DEVICE == GMM_ERR_NO_DEVICE &&
                   GMM_CODE_ERR_UNSUPPORTED == GMM_ERR_UNSUPPORTED,
               "public codes follow gmm_status");
_Static_assert(sizeof(int) == sizeof(int32_t), "labels are int32_t in the public interface");
_Static_assert(_Generic((gmm_progress_callback)0, gmm_progress_fn: 1, default: 0),
               "gmm_progress_callback is gmm_progress_fn");

struct gmm_params {
    gmm_options options;
    gmm_api_space space;
    double *weights_init, *means_init, *precisions_init;
    size_t n_weights, n_means, n_precisions;
    double *resp_init; /* resp_rows x resp_components */
    int64_t resp_rows;
    int resp_components;
    const gmm_mixture *start;
    gmm_api_bayes bayes; /* a variational fit's parameters (api_bayes.h) */
};

static _Thread_local char last_error[1200];

const char *gmm_version(void) { return "1.0.0"; }
const char *gmm_last_error(void) { return last_error; }

const char *gmm_code_name(int code)
{
    static const char *const names[] = {
        "GMM_CODE_OK",        "GMM_CODE_ERR_NOMEM",    "GMM_CODE_ERR_IO",
        "GMM_CODE_ERR_FORMAT", "GMM_CODE_ERR_VERSION", "GMM_CODE_ERR_CHECKSUM",
        "GMM_CODE_ERR_ARG",   "GMM_CODE_ERR_CHOLESKY", "GMM_CODE_ERR_NUMERIC",
        "GMM_CODE_ERR_CUDA",  "GMM_CODE_ERR_NO_DEVICE", "GMM_CODE_ERR_UNSUPPORTED",
    };
    if (code == GMM_INTERRUPTED) return "GMM_CODE_INTERRUPTED";
    return code >= 0 && code < (int)(sizeof names / sizeof *names) ? names[code]
                                                                    : "GMM_CODE_UNKNOWN";
}

/* Records "CODE: detail" for gmm_last_error, with the programs' option names --reg-covar and
 * --device replaced by the parameters', reg_covar and device. Returns the code. */
int gmm_api_finish(gmm_status status)
{
    if (status == GMM_OK) {
        last_error[0] = '\0';
        return GMM_CODE_OK;
    }
    char detail[1024];
    snprintf(detail, sizeof detail, "%s", gmm_error_message(status));
    char *flag;
    while ((flag = strstr(detail, "--reg-covar")) != NULL) {
        memmove(flag, flag + 2, strlen(flag + 2) + 1);
        flag[3] = '_';
    }
    while ((flag = strstr(detail, "--device")) != NULL) memmove(flag, flag + 2, strlen(flag + 2) + 1);
    snprintf(last_error, sizeof last_error, "%s: %s", gmm_code_name(status), detail);
    return status;
}

int gmm_api_fail_arg(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return gmm_api_finish(gmm_error(GMM_ERR_ARG, "%s", msg));
}

/* ---- parameters ------------------------------------------------------------------------- */

int gmm_params_new(gmm_params **params)
{
    if (!params) return gmm_api_fail_arg("gmm_params_new: the output pointer is NULL");
    *params = calloc(1, sizeof **params);
    if (!*params) return gmm_api_finish(gmm_error(GMM_ERR_NOMEM, "out of memory for the parameters"));
    gmm_options_default(&(*params)->options);
    gmm_api_space_default(&(*params)->space);
    return gmm_api_finish(GMM_OK);
}

void gmm_params_free(gmm_params *params)
{
    if (!params) return;
    free(params->weights_init);
    free(params->means_init);
    free(params->precisions_init);
    gmm_api_bayes_free(&params->bayes);
    free(params->resp_init);
    free(params);
}

static int int_in_range(const char *name, long long value, long long lo, long long hi, int *out)
{
    if (value < lo || value > hi)
        return gmm_api_fail_arg("%s=%lld must be in %lld..%lld", name, value, lo, hi);
    *out = (int)value;
    return gmm_api_finish(GMM_OK);
}

int gmm_params_set_int(gmm_params *params, const char *name, long long value)
{
    if (!params || !name) return gmm_api_fail_arg("gmm_params_set_int: params or name is NULL");
    gmm_options *o = &params->options;
    if (!strcmp(name, "n_components")) return int_in_range(name, value, 1, 1 << 20, &o->n_components);
    if (!strcmp(name, "max_iter")) return int_in_range(name, value, 1, 1 << 30, &o->max_iter);
    if (!strcmp(name, "n_init")) return int_in_range(name, value, 1, 1 << 20, &o->n_init);
    if (!strcmp(name, "verbose")) return int_in_range(name, value, 0, 10, &o->verbose);
    gmm_api_space *sp = &params->space;
    if (!strcmp(name, "n_neighbors")) return int_in_range(name, value, 2, 128, &sp->n_neighbors);
    if (!strcmp(name, "embed_dims")) return int_in_range(name, value, 1, 100, &sp->embed_dims);
    if (!strcmp(name, "n_epochs")) return int_in_range(name, value, 0, 100000, &sp->n_epochs);
    if (!strcmp(name, "metric")) return int_in_range(name, value, 0, 2, &sp->metric);
    if (!strcmp(name, "knn_pca")) return int_in_range(name, value, -1, 100000, &sp->knn_pca);
    gmm_status status;
    if (gmm_api_bayes_set_int(&params->bayes, name, value, &status)) return gmm_api_finish(status);
    if (!strcmp(name, "random_state")) {
        if (value < 0) return gmm_api_fail_arg("random_state=%lld must be >= 0", value);
        o->seed = (uint64_t)value;
        return gmm_api_finish(GMM_OK);
    }
    return gmm_api_fail_arg("unknown integer parameter '%s' (n_components, max_iter, n_init, "
                    "random_state, verbose, n_neighbors, embed_dims, n_epochs, metric, knn_pca, "
                    "bayesian)", name);
}

int gmm_params_set_double(gmm_params *params, const char *name, double value)
{
    if (!params || !name) return gmm_api_fail_arg("gmm_params_set_double: params or name is NULL");
    gmm_status status;
    if (gmm_api_bayes_set_double(&params->bayes, name, value, &status)) return gmm_api_finish(status);
    if (!strcmp(name, "knn_whiten")) { /* -1: none, 0: auto */
        if (!(value == -1 || (value >= 0 && value <= 1)))
            return gmm_api_fail_arg("knn_whiten=%g must be -1 (none), 0 (auto) or in (0, 1]",
                                    value);
        params->space.knn_whiten = value;
        return gmm_api_finish(GMM_OK);
    }
    if (!isfinite(value) || value < 0)
        return gmm_api_fail_arg("%s=%g must be a finite number >= 0", name, value);
    if (!strcmp(name, "tol") && value > GMM_TOL_MAX)
        return gmm_api_fail_arg("tol=%g must be at most %g (what a model file holds)", value, GMM_TOL_MAX);
    if (!strcmp(name, "reg_covar") && value > GMM_REG_COVAR_MAX)
        return gmm_api_fail_arg("reg_covar=%g must be at most %g (added to every variance, it must leave "
                        "the covariances below the 1e100 a model file holds)", value,
                        GMM_REG_COVAR_MAX);
    if (!strcmp(name, "tol")) params->options.tol = value;
    else if (!strcmp(name, "reg_covar")) params->options.reg_covar = value;
    else if (!strcmp(name, "min_dist") && value <= 1) params->space.min_dist = value;
    else if (!strcmp(name, "min_dist")) return gmm_api_fail_arg("min_dist=%g must be in 0..1", value);
    else if (!strcmp(name, "knn_power") && value <= 1) params->space.knn_power = value;
    else if (!strcmp(name, "knn_power"))
        return gmm_api_fail_arg("knn_power=%g must be 0 (auto) or in (0, 1]", value);
    else return gmm_api_fail_arg("unknown real parameter '%s' (tol, reg_covar, min_dist, "
                         "knn_power, knn_whiten, "
                         "weight_concentration_prior, mean_precision_prior, "
                         "degrees_of_freedom_prior)", name);
    return gmm_api_finish(GMM_OK);
}

static int parse_device(const char *value, gmm_device *out)
{
    if (!strcmp(value, "auto")) *out = GMM_DEVICE_AUTO;
    else if (!strcmp(value, "cpu")) *out = GMM_DEVICE_CPU;
    else if (!strcmp(value, "gpu")) *out = GMM_DEVICE_GPU;
    else return gmm_api_fail_arg("device '%s' is not one of auto, cpu, gpu", value);
    return gmm_api_finish(GMM_OK);
}

int gmm_params_set_string(gmm_params *params, const char *name, const char *value)
{
    if (!params || !name || !value)
        return gmm_api_fail_arg("gmm_params_set_string: params, name or value is NULL");
    gmm_options *o = &params->options;
    gmm_status status;
    if (gmm_api_bayes_set_string(&params->bayes, name, value, &status)) return gmm_api_finish(status);
    if (!strcmp(name, "covariance_type")) {
        if (gmm_cov_type_parse(value, &o->covariance_type) != 0)
            return gmm_api_fail_arg("covariance_type '%s' is not one of full, tied, diag, spherical",
                            value);
    } else if (!strcmp(name, "init_params")) {
        if (gmm_init_parse(value, &o->init) != 0)
            return gmm_api_fail_arg("init_params '%s' is not one of kmeans, k-means++, random, "
                            "random_from_data, knn, spectral, merge", value);
    } else if (!strcmp(name, "precision")) {
        if (gmm_precision_parse(value, &o->precision) != 0)
            return gmm_api_fail_arg("precision '%s' is not one of fp64, fp32, tf32", value);
    } else if (!strcmp(name, "device")) {
        return parse_device(value, &o->device);
    } else if (!strcmp(name, "space")) {
        if (strcmp(value, "pixels") && strcmp(value, "umap"))
            return gmm_api_fail_arg("space '%s' is not one of pixels, umap", value);
        params->space.umap = !strcmp(value, "umap");
    } else {
        return gmm_api_fail_arg("unknown text parameter '%s' (covariance_type, init_params, device, "
                        "precision, space, weight_concentration_prior_type)", name);
    }
    return gmm_api_finish(GMM_OK);
}

/* Replaces *slot with a copy of n values (NULL values: clears it). */
static int keep_copy(double **slot, size_t *slot_n, const double *values, size_t n,
                     const char *name)
{
    free(*slot);
    *slot = NULL;
    *slot_n = 0;
    if (!values) return gmm_api_finish(GMM_OK);
    if (n == 0) return gmm_api_fail_arg("%s is empty", name);
    *slot = malloc(sizeof(double) * n);
    if (!*slot) return gmm_api_finish(gmm_error(GMM_ERR_NOMEM, "out of memory for %s", name));
    memcpy(*slot, values, sizeof(double) * n);
    *slot_n = n;
    return gmm_api_finish(GMM_OK);
}

int gmm_params_set_weights_init(gmm_params *params, const double *weights, int n_components)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_weights_init: params is NULL");
    if (weights && n_components < 1) return gmm_api_fail_arg("weights_init needs n_components >= 1");
    return keep_copy(&params->weights_init, &params->n_weights, weights,
                     weights ? (size_t)n_components : 0, "weights_init");
}

int gmm_params_set_means_init(gmm_params *params, const double *means, int n_components, int dim)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_means_init: params is NULL");
    if (means && (n_components < 1 || dim < 1))
        return gmm_api_fail_arg("means_init is %d x %d; both must be >= 1", n_components, dim);
    return keep_copy(&params->means_init, &params->n_means, means,
                     means ? (size_t)n_components * dim : 0, "means_init");
}

int gmm_params_set_precisions_init(gmm_params *params, const double *precisions, size_t count)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_precisions_init: params is NULL");
    return keep_copy(&params->precisions_init, &params->n_precisions, precisions,
                     precisions ? count : 0, "precisions_init");
}

int gmm_params_set_mean_prior(gmm_params *params, const double *mean, int dim)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_mean_prior: params is NULL");
    if (mean && dim < 1) return gmm_api_fail_arg("mean_prior needs dim >= 1");
    return gmm_api_finish(gmm_api_bayes_set_array(&params->bayes, 0, mean, mean ? (size_t)dim : 0));
}

int gmm_params_set_covariance_prior(gmm_params *params, const double *covariance, size_t count)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_covariance_prior: params is NULL");
    return gmm_api_finish(gmm_api_bayes_set_array(&params->bayes, 1, covariance, covariance ? count : 0));
}

int gmm_params_set_resp_init(gmm_params *params, const double *resp, int64_t n_samples,
                             int n_components)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_resp_init: params is NULL");
    free(params->resp_init);
    params->resp_init = NULL;
    params->resp_rows = 0;
    params->resp_components = 0;
    if (!resp) return gmm_api_finish(GMM_OK);
    if (n_samples < 1 || n_components < 1)
        return gmm_api_fail_arg("resp_init is %lld x %d; both must be >= 1", (long long)n_samples,
                        n_components);
    gmm_status status = gmm_check_resp_init(resp, n_samples, n_components);
    if (status != GMM_OK) return gmm_api_finish(status);
    size_t n = (size_t)n_samples * n_components;
    if (!(params->resp_init = malloc(sizeof(double) * n)))
        return gmm_api_finish(gmm_error(GMM_ERR_NOMEM, "out of memory for resp_init (%lld x %d)",
                                (long long)n_samples, n_components));
    memcpy(params->resp_init, resp, sizeof(double) * n);
    params->resp_rows = n_samples;
    params->resp_components = n_components;
    return gmm_api_finish(GMM_OK);
}

int gmm_params_set_progress(gmm_params *params, gmm_progress_callback callback, void *user)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_progress: params is NULL");
    params->options.on_progress = (gmm_progress_fn)callback; /* the same signature */
    params->options.user = user;
    return gmm_api_finish(GMM_OK);
}

int gmm_params_set_start(gmm_params *params, const gmm_mixture *start)
{
    if (!params) return gmm_api_fail_arg("gmm_params_set_start: params is NULL");
    params->start = start;
    return gmm_api_finish(GMM_OK);
}

/* ---- fit, score, sample ----------------------------------------------------------------- */

/* A zeroed handle with its scoring lock made (NULL when out of memory). */
static gmm_mixture *mixture_new(void)
{
    gmm_mixture *m = calloc(1, sizeof *m);
    if (m && pthread_mutex_init(&m->score_lock, NULL) != 0) {
        free(m);
        return NULL;
    }
    return m;
}

int gmm_mixture_fit(const gmm_params *params, const void *X, int64_t n_samples, int dim,
                    int dtype, double scale, gmm_mixture **model)
{
    if (!params || !model) return gmm_api_fail_arg("gmm_mixture_fit: params or model is NULL");
    *model = NULL;
    const double *x = NULL;
    double *owned = NULL;
    gmm_start_plan plan = {0};
    const double *resp = NULL; /* every run's initial responsibilities */
    gmm_mixture *m = NULL;
    gmm_umap_space *umap = NULL;
    gmm_gpu *gpu = NULL;
    gmm_options o = params->options;
    gmm_options_plug_fitted_init(&o);
    gmm_status status;
    if (params->space.umap) { /* the mixture in the data's UMAP embedding */
        if ((status = gmm_options_validate(&o, n_samples, dim)) != GMM_OK ||
            (status = gmm_device_open(o.device, &gpu, NULL)) != GMM_OK ||
            (status = gmm_api_umap_embed(X, n_samples, dim, dtype, scale, &params->space, o.seed,
                                         gpu, &umap, &owned)) != GMM_OK)
            goto fail;
        x = owned;
        dim = umap->n_dims;
        o.gpu = gpu;
    } else if ((status = gmm_api_as_float64(X, n_samples, dim, dtype, scale, &x, &owned)) !=
               GMM_OK) {
        goto fail;
    }
    if ((status = gmm_options_validate(&o, n_samples, dim)) != GMM_OK) goto fail;
    gmm_bayes_options bayes_options;
    if ((status = gmm_api_bayes_options(&params->bayes, o.covariance_type, dim, &bayes_options,
                                        &o.bayes)) != GMM_OK)
        goto fail;
    if (o.bayes && !params->start &&
        (params->weights_init || params->means_init || params->precisions_init)) {
        status = gmm_error(GMM_ERR_ARG, "a variational fit starts from init_params' "
                           "responsibilities: weights_init, means_init and precisions_init "
                           "belong to the maximum-likelihood mixture");
        goto fail;
    }
    if (o.bayes && params->start && !params->start->model.bayes) {
        status = gmm_error(GMM_ERR_ARG, "a variational fit cannot continue from a "
                           "maximum-likelihood model (warm start)");
        goto fail;
    }
    if (params->start) {
        o.init_model = &params->start->model;
        o.n_init = 1;
    } else {
        if (params->resp_init && (params->resp_rows != n_samples ||
                                  params->resp_components != o.n_components)) {
            status = gmm_error(GMM_ERR_ARG, "resp_init is %lld x %d but the data has %lld "
                               "samples and n_components=%d", (long long)params->resp_rows,
                               params->resp_components, (long long)n_samples, o.n_components);
            goto fail;
        }
        gmm_initial_arrays given = {params->weights_init, params->n_weights, params->means_init,
                                    params->n_means, params->precisions_init,
                                    params->n_precisions};
        if ((status = gmm_start_plan_make(&given, o.n_components, dim, o.covariance_type,
                                          &plan)) != GMM_OK)
            goto fail;
        if (plan.all_given) { /* every run would start alike: one run */
            plan.start.init = o.init;
            plan.start.seed = o.seed;
            o.init_model = &plan.start;
            o.n_init = 1;
        } else {
            if (params->weights_init || params->means_init || params->precisions_init)
                o.given_params = &plan.given;
            resp = params->resp_init;
        }
    }
    if (!(m = mixture_new())) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory for a model handle");
        goto fail;
    }
    m->device = o.device;
    status = resp ? gmm_fit_from_resp(x, n_samples, dim, &o, resp, &m->model)
                  : gmm_fit(x, n_samples, dim, &o, &m->model);
    if (status != GMM_OK) goto fail;
    if (umap) {
        status = gmm_feature_space_from_umap(umap, &m->model.space); /* owns it, or frees it */
        umap = NULL;
        if (status != GMM_OK) goto fail;
    }
    *model = m;
    m = NULL;
fail:
    gmm_mixture_free(m);
    gmm_start_plan_free(&plan);
    gmm_umap_space_free(umap);
    gmm_gpu_destroy(gpu);
    free(owned);
    return gmm_api_finish(status);
}

void gmm_mixture_free(gmm_mixture *model)
{
    if (!model) return;
    gmm_scorer_free(model->scorer);
    pthread_mutex_destroy(&model->score_lock);
    gmm_model_free(&model->model);
    free(model);
}

int gmm_mixture_set_device(gmm_mixture *model, const char *device)
{
    if (!model || !device) return gmm_api_fail_arg("gmm_mixture_set_device: model or device is NULL");
    return parse_device(device, &model->device);
}

int gmm_mixture_save(const gmm_mixture *model, const char *path)
{
    if (!model || !path) return gmm_api_fail_arg("gmm_mixture_save: model or path is NULL");
    return gmm_api_finish(gmm_model_save(path, &model->model));
}

int gmm_mixture_load(const char *path, gmm_mixture **model)
{
    if (!path || !model) return gmm_api_fail_arg("gmm_mixture_load: path or model is NULL");
    *model = mixture_new();
    if (!*model) return gmm_api_finish(gmm_error(GMM_ERR_NOMEM, "out of memory for a model handle"));
    (*model)->device = GMM_DEVICE_AUTO;
    gmm_status status = gmm_model_load(path, &(*model)->model);
    if (status != GMM_OK) {
        gmm_mixture_free(*model);
        *model = NULL;
    }
    return gmm_api_finish(status);
}

/* ---- metrics ---------------------------------------------------------------------------- */

int gmm_cluster_scores(const int32_t *clusters, int n_clusters, const uint8_t *classes,
                       int n_classes, int64_t n_samples, double *accuracy, double *nmi,
                       double *ari)
{
    if (!clusters || !classes) return gmm_api_fail_arg("gmm_cluster_scores: clusters or classes is NULL");
    if (n_samples < 1 || n_clusters < 1 || n_classes < 1 || n_classes > 256)
        return gmm_api_fail_arg("gmm_cluster_scores: %lld samples, %d clusters, %d classes (samples and "
                        "clusters >= 1, classes in 1..256)", (long long)n_samples, n_clusters,
                        n_classes);
    for (int64_t i = 0; i < n_samples; i++) {
        if (clusters[i] < 0 || clusters[i] >= n_clusters)
            return gmm_api_fail_arg("clusters[%lld]=%d is outside 0..%d", (long long)i, clusters[i],
                            n_clusters - 1);
        if (classes[i] >= n_classes)
            return gmm_api_fail_arg("classes[%lld]=%d is outside 0..%d", (long long)i, classes[i],
                            n_classes - 1);
    }
    cluster_metrics m = {0};
    gmm_status status = cluster_metrics_compute((const int *)clusters, n_clusters, classes,
                                                n_classes, n_samples, &m);
    if (status == GMM_OK) {
        if (accuracy) *accuracy = m.accuracy;
        if (nmi) *nmi = m.nmi;
        if (ari) *ari = m.ari;
    }
    cluster_metrics_free(&m);
    return gmm_api_finish(status);
}
