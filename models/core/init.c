/* EM initialisation: the dispatch to k-means (models/backend/cpu/kmeans.c), random starts and random
 * samples, the kNN density peaks (models/core/init_knn.c) and, through options.fitted_init, the
 * initialisations that are fits themselves (init=spectral: models/fit/spectral_init.c). */
#include "models/core/init.h"

#include <stdlib.h>
#include <string.h>

#include "models/core/init_knn.h"

int gmm_knn_neighbors(const gmm_options *options)
{
    return options->knn_neighbors > 0 ? options->knn_neighbors : GMM_KNN_DEFAULT_NEIGHBORS;
}

int64_t gmm_knn_sample_size(const gmm_options *options)
{
    return options->knn_sample_size > 0 ? options->knn_sample_size : GMM_KNN_DEFAULT_SAMPLE;
}

gmm_status gmm_init_resp(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                         gmm_rng *rng, double *resp)
{
    gmm_status status = GMM_OK;
    int K = options->n_components;
    gmm_init_method method = options->init;
    int64_t *idx = NULL;
    double *centers = NULL;
    int *labels = NULL;
    memset(resp, 0, sizeof(double) * n_samples * K);
    switch (method) {
    case GMM_INIT_RANDOM:
        for (int64_t i = 0; i < n_samples; i++) {
            double s = 0;
            for (int k = 0; k < K; k++) s += (resp[i * K + k] = gmm_rng_uniform(rng));
            for (int k = 0; k < K; k++) resp[i * K + k] /= s;
        }
        return GMM_OK;
    case GMM_INIT_KNN:
        return gmm_init_knn(X, n_samples, dim, K, gmm_knn_neighbors(options),
                            gmm_knn_sample_size(options), rng, options->gpu, resp, NULL);
    case GMM_INIT_SPECTRAL: /* fits themselves: plugged in from models/fit/ */
    case GMM_INIT_MERGE:
        if (!options->fitted_init)
            return gmm_error(GMM_ERR_ARG, "init=%s needs its fitted initialisation: call "
                             "gmm_options_plug_fitted_init (models/fit/spectral_init.h) first",
                             gmm_init_name(method));
        return options->fitted_init(X, n_samples, dim, options, resp);
    case GMM_INIT_RANDOM_FROM_DATA:
    case GMM_INIT_KMEANS_PP:
    case GMM_INIT_KMEANS:
        break;
    default:
        return gmm_error(GMM_ERR_ARG, "unknown initialisation method %d", (int)method);
    }
    idx = malloc(sizeof(int64_t) * K);
    if (!idx) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    if (method == GMM_INIT_RANDOM_FROM_DATA) {
        /* K distinct indices (partial Fisher-Yates over a virtual permutation) */
        for (int k = 0; k < K; k++) {
            int64_t pick;
            int dup;
            do {
                pick = (int64_t)gmm_rng_below(rng, (uint64_t)n_samples);
                dup = 0;
                for (int j = 0; j < k; j++) dup |= idx[j] == pick;
            } while (dup);
            idx[k] = pick;
        }
    } else {
        status = gmm_kmeans_plusplus(X, n_samples, dim, K, rng, idx);
        if (status != GMM_OK) goto fail;
    }
    if (method != GMM_INIT_KMEANS) {
        for (int k = 0; k < K; k++) resp[idx[k] * K + k] = 1.0;
        goto fail; /* done */
    }
    centers = malloc(sizeof(double) * K * dim);
    labels = malloc(sizeof(int) * n_samples);
    if (!centers || !labels) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    for (int k = 0; k < K; k++) memcpy(centers + (size_t)k * dim, X + idx[k] * dim, sizeof(double) * dim);
    status = gmm_kmeans_lloyd(X, n_samples, dim, K, options->kmeans_max_iter, centers, labels, NULL);
    if (status != GMM_OK) goto fail;
    for (int64_t i = 0; i < n_samples; i++) resp[i * K + labels[i]] = 1.0;
fail:
    free(idx);
    free(centers);
    free(labels);
    return status;
}

/* A starting model fits the data and the options (GMM_ERR_ARG naming what differs). */
gmm_status gmm_check_init_model(const gmm_model *start, const gmm_options *o, int dim)
{
    if (!start->weights || !start->means || !start->covariances || !start->precisions_cholesky)
        return gmm_error(GMM_ERR_ARG, "the starting model's parameter arrays are not allocated");
    if (start->dim != dim)
        return gmm_error(GMM_ERR_ARG, "the starting model has dim=%d but the data has %d "
                         "features per sample", start->dim, dim);
    if (start->n_components != o->n_components)
        return gmm_error(GMM_ERR_ARG, "the starting model has %d components but n_components=%d",
                         start->n_components, o->n_components);
    if (start->covariance_type != o->covariance_type)
        return gmm_error(GMM_ERR_ARG, "the starting model has %s covariance but covariance_type "
                         "is %s", gmm_cov_type_name(start->covariance_type),
                         gmm_cov_type_name(o->covariance_type));
    return GMM_OK;
}
