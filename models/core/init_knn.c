/* Density-peaks initialisation (Rodriguez and Laio 2014) on the kNN graph of a sample. */
#include "models/core/init_knn.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/knn.h"
#include "models/options.h"

typedef struct {
    double key;
    int64_t index;
} ranked_point;

/* Descending key, then ascending index: a strict order even when densities tie. */
static int by_key_desc(const void *a, const void *b)
{
    const ranked_point *x = a, *y = b;
    if (x->key != y->key) return x->key > y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static double sq_dist_f(const float *a, const float *b, int d)
{
    double s = 0;
    for (int j = 0; j < d; j++) {
        float t = a[j] - b[j];
        s += (double)(t * t);
    }
    return s;
}

static gmm_status stop_check(const char *where)
{
    if (!gmm_stop_requested()) return GMM_OK;
    return gmm_error(GMM_INTERRUPTED, "interrupted in the knn initialisation (%s)", where);
}

gmm_status gmm_init_knn(const double *X, int64_t n_samples, int dim, int n_components,
                        int n_neighbors, int64_t sample_size, gmm_rng *rng, gmm_gpu *gpu,
                        double *resp, int64_t *seeds)
{
    gmm_status status = GMM_OK;
    int K = n_components, k = n_neighbors;
    int64_t m = n_samples <= sample_size ? n_samples : sample_size;
    int64_t *sample = NULL, *rank = NULL, *seed_index = NULL, *maxima = NULL;
    float *Xs = NULL, *nn_dist = NULL, *seed_rows = NULL;
    int32_t *nn_index = NULL;
    double *density = NULL, *delta = NULL;
    ranked_point *order = NULL;
    if (n_samples < 1 || dim < 1 || K < 1 || K > m)
        return gmm_error(GMM_ERR_ARG, "knn init: need 1 <= n_components=%d <= sample of %lld",
                         K, (long long)m);
    if (k < 1 || k > 127 || k + 1 > m)
        return gmm_error(GMM_ERR_ARG, "knn init: n_neighbors=%d must be in 1..127 and below the "
                         "sample size %lld", k, (long long)m);
    sample = malloc(sizeof(int64_t) * (size_t)(n_samples > m ? n_samples : m));
    Xs = malloc(sizeof(float) * (size_t)m * dim);
    nn_index = malloc(sizeof(int32_t) * (size_t)m * (k + 1));
    nn_dist = malloc(sizeof(float) * (size_t)m * (k + 1));
    density = malloc(sizeof(double) * m);
    delta = malloc(sizeof(double) * m);
    rank = malloc(sizeof(int64_t) * m);
    maxima = malloc(sizeof(int64_t) * m);
    order = malloc(sizeof(ranked_point) * m);
    seed_index = malloc(sizeof(int64_t) * K);
    seed_rows = malloc(sizeof(float) * (size_t)K * dim);
    if (!sample || !Xs || !nn_index || !nn_dist || !density || !delta || !rank || !maxima || !order ||
        !seed_index || !seed_rows) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in the knn init (%lld points)",
                           (long long)m);
        goto fail;
    }
    /* 1. the sample: the first m entries of a partial Fisher-Yates shuffle of 0..n-1 */
    for (int64_t i = 0; i < n_samples; i++) sample[i] = i;
    if (m < n_samples) {
        for (int64_t i = 0; i < m; i++) {
            int64_t j = i + (int64_t)gmm_rng_below(rng, (uint64_t)(n_samples - i));
            int64_t t = sample[i];
            sample[i] = sample[j];
            sample[j] = t;
        }
    }
    for (int64_t i = 0; i < m; i++)
        for (int j = 0; j < dim; j++)
            Xs[(size_t)i * dim + j] = (float)X[(size_t)sample[i] * dim + j];

    /* 2. k + 1 neighbours: the point itself is among them (first, unless it has duplicates) */
    if (gpu)
        status = knn_cuda_host(Xs, (size_t)m, Xs, (size_t)m, (size_t)dim, (size_t)(k + 1), gpu,
                               nn_index, nn_dist);
    else {
        knn_blas_params params = KNN_BLAS_DEFAULTS;
        params.should_stop = gmm_stop_poll; /* heard within one tile of the search */
        status = knn_cpu_blas_params(Xs, (size_t)m, Xs, (size_t)m, (size_t)dim, (size_t)(k + 1),
                                     nn_index, nn_dist, &params);
    }
    if (status != GMM_OK) goto fail;
    if ((status = stop_check("after the kNN search")) != GMM_OK) goto fail;

    /* 3a. density: inverse mean distance to the k neighbours other than the point itself */
    for (int64_t i = 0; i < m; i++) {
        double sum = 0;
        int used = 0;
        for (int t = 0; t <= k && used < k; t++) {
            if (nn_index[i * (k + 1) + t] == (int32_t)i) continue;
            sum += nn_dist[i * (k + 1) + t];
            used++;
        }
        density[i] = 1.0 / (sum / used + 1e-12);
        order[i].key = density[i];
        order[i].index = i;
    }
    qsort(order, (size_t)m, sizeof *order, by_key_desc);
    for (int64_t r = 0; r < m; r++) rank[order[r].index] = r;

    /* 3b. delta: the nearest denser point is usually a neighbour; only local maxima of the
     * density (no denser neighbour) need a scan over all denser points. */
    int64_t n_maxima = 0;
    for (int64_t i = 0; i < m; i++) {
        delta[i] = -1;
        for (int t = 0; t <= k; t++) {
            int32_t j = nn_index[i * (k + 1) + t];
            if (j != (int32_t)i && rank[j] < rank[i]) {
                delta[i] = nn_dist[i * (k + 1) + t];
                break;
            }
        }
        if (delta[i] < 0) maxima[n_maxima++] = i;
    }
#pragma omp parallel for schedule(dynamic, 4)
    for (int64_t a = 0; a < n_maxima; a++) {
        int64_t i = maxima[a];
        const float *xi = Xs + (size_t)i * dim;
        double best = INFINITY, farthest = 0;
        for (int64_t j = 0; j < m; j++) {
            if (j == i) continue;
            double d2 = sq_dist_f(xi, Xs + (size_t)j * dim, dim);
            if (rank[j] < rank[i] && d2 < best) best = d2;
            if (d2 > farthest) farthest = d2;
        }
        delta[i] = rank[i] == 0 ? sqrt(farthest) : sqrt(best);
    }

    if ((status = stop_check("after the density peaks")) != GMM_OK) goto fail;

    /* 4. seeds: the K largest density * delta */
    for (int64_t i = 0; i < m; i++) {
        order[i].key = density[i] * delta[i];
        order[i].index = i;
    }
    qsort(order, (size_t)m, sizeof *order, by_key_desc);
    for (int c = 0; c < K; c++) {
        seed_index[c] = order[c].index;
        memcpy(seed_rows + (size_t)c * dim, Xs + (size_t)order[c].index * dim,
               sizeof(float) * dim);
    }
    /* 5. nearest seed for every point */
    memset(resp, 0, sizeof(double) * (size_t)n_samples * K);
#pragma omp parallel for
    for (int64_t i = 0; i < n_samples; i++) {
        const double *xi = X + (size_t)i * dim;
        double best = INFINITY;
        int best_c = 0;
        for (int c = 0; c < K; c++) {
            const float *s = seed_rows + (size_t)c * dim;
            double d2 = 0;
            for (int j = 0; j < dim; j++) {
                double t = xi[j] - (double)s[j];
                d2 += t * t;
            }
            if (d2 < best) {
                best = d2;
                best_c = c;
            }
        }
        resp[(size_t)i * K + best_c] = 1.0;
    }
    if (seeds) for (int c = 0; c < K; c++) seeds[c] = sample[seed_index[c]];
fail:
    free(sample);
    free(Xs);
    free(nn_index);
    free(nn_dist);
    free(density);
    free(delta);
    free(rank);
    free(maxima);
    free(order);
    free(seed_index);
    free(seed_rows);
    return status;
}
