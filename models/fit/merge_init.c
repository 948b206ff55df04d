/* init=merge: a finer mixture, its components joined along the kNN graph of a sample of the
 * data, the joined responsibilities as EM's start (models/fit/merge_init.h). */
#include "models/fit/merge_init.h"

#include <float.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/clock.h"
#include "kernels/knn.h"
#include "kernels/rng.h"
#include "models/core/em.h"
#include "models/core/init.h"

/* The smallest squared distance between a mean of group a and a mean of group b. */
static double nearest_means(const int *group, int n_fine, int a, int b, const double *means,
                            int dim)
{
    double best = DBL_MAX;
    for (int i = 0; i < n_fine; i++) {
        if (group[i] != a) continue;
        for (int j = 0; j < n_fine; j++) {
            if (group[j] != b) continue;
            double s = 0;
            for (int t = 0; t < dim; t++) {
                double d = means[(size_t)i * dim + t] - means[(size_t)j * dim + t];
                s += d * d;
            }
            if (s < best) best = s;
        }
    }
    return best;
}

gmm_status gmm_merge_components(int n_fine, int n_groups, const int64_t *sizes,
                                const double *edges, const double *means, int dim,
                                double small_share, int *group_of)
{
    if (n_fine < 1 || n_groups < 1 || n_groups > n_fine || dim < 1 || !(small_share >= 0))
        return gmm_error(GMM_ERR_ARG, "merge: need 1 <= n_groups=%d <= n_fine=%d, dim >= 1 and "
                         "small_share >= 0", n_groups, n_fine);
    const size_t nf = (size_t)n_fine;
    int *group = malloc(sizeof(int) * nf);          /* each component's group: its smallest */
    int64_t *size = malloc(sizeof(int64_t) * nf);   /* per group (at its smallest component) */
    double *between = malloc(sizeof(double) * nf * nf); /* edges between groups */
    if (!group || !size || !between) {
        free(group);
        free(size);
        free(between);
        return gmm_error(GMM_ERR_NOMEM, "merge: out of memory for %d components", n_fine);
    }
    int64_t total = 0;
    for (int c = 0; c < n_fine; c++) {
        group[c] = c;
        size[c] = sizes[c];
        total += sizes[c];
        for (int d = 0; d < n_fine; d++) between[c * nf + d] = c == d ? 0 : edges[c * nf + d];
    }
    const double small = small_share * (double)total / n_groups;
    for (int alive = n_fine; alive > n_groups; alive--) {
        int a = -1, b = -1;
        for (int g = 0; g < n_fine; g++) /* the smallest fragment */
            if (group[g] == g && (double)size[g] < small && (a < 0 || size[g] < size[a])) a = g;
        if (a >= 0) {
            double best_edges = -1, best_dist = DBL_MAX;
            for (int g = 0; g < n_fine; g++) {
                if (group[g] != g || g == a) continue;
                double e = between[(size_t)a * nf + g];
                if (e < best_edges) continue;
                double d = e > 0 ? 0 : nearest_means(group, n_fine, a, g, means, dim);
                if (e > best_edges || d < best_dist) {
                    best_edges = e;
                    best_dist = d;
                    b = g;
                }
            }
        } else {
            double best = -1;
            for (int g = 0; g < n_fine; g++) {
                if (group[g] != g) continue;
                for (int h = g + 1; h < n_fine; h++) {
                    if (group[h] != h) continue;
                    int64_t smaller = size[g] < size[h] ? size[g] : size[h];
                    double s = between[(size_t)g * nf + h] / (double)(smaller > 0 ? smaller : 1);
                    if (s > best) {
                        best = s;
                        a = g;
                        b = h;
                    }
                }
            }
            if (best == 0) { /* no edge between any two groups: the nearest means decide */
                double nearest = DBL_MAX;
                for (int g = 0; g < n_fine; g++) {
                    if (group[g] != g) continue;
                    for (int h = g + 1; h < n_fine; h++) {
                        if (group[h] != h) continue;
                        double d = nearest_means(group, n_fine, g, h, means, dim);
                        if (d < nearest) {
                            nearest = d;
                            a = g;
                            b = h;
                        }
                    }
                }
            }
        }
        const int keep = a < b ? a : b, gone = a < b ? b : a;
        for (int c = 0; c < n_fine; c++)
            if (group[c] == gone) group[c] = keep;
        size[keep] += size[gone];
        for (int g = 0; g < n_fine; g++) {
            between[(size_t)keep * nf + g] += between[(size_t)gone * nf + g];
            between[(size_t)g * nf + keep] += between[(size_t)g * nf + gone];
        }
        between[(size_t)keep * nf + keep] = 0;
    }
    int next = 0;
    for (int c = 0; c < n_fine; c++) /* a group's number: the order of its smallest component */
        if (group[c] == c) size[c] = next++;
    for (int c = 0; c < n_fine; c++) group_of[c] = (int)size[group[c]];
    free(group);
    free(size);
    free(between);
    return GMM_OK;
}

/* The edges of the kNN graph of GMM_MERGE_QUERIES random samples (k neighbours each among all
 * samples, itself counted as knn_neighbors counts it, so k - 1 edges) between the components of
 * labels: edges[a][b] and edges[b][a] each count the edges from a sample of a to one in b. */
static gmm_status count_edges(const double *X, int64_t n, int dim, const int *labels, int n_fine,
                              int k, uint64_t seed, gmm_gpu *gpu, double *edges)
{
    gmm_status status = GMM_OK;
    const int64_t m = n < GMM_MERGE_QUERIES ? n : GMM_MERGE_QUERIES;
    int64_t *order = malloc(sizeof(int64_t) * (size_t)n);
    float *refs = malloc(sizeof(float) * (size_t)n * dim);
    float *queries = malloc(sizeof(float) * (size_t)m * dim);
    int32_t *nn_index = malloc(sizeof(int32_t) * (size_t)m * k);
    float *nn_dist = malloc(sizeof(float) * (size_t)m * k);
    if (!order || !refs || !queries || !nn_index || !nn_dist) {
        status = gmm_error(GMM_ERR_NOMEM, "init=merge: out of memory for the kNN graph of %lld "
                           "samples", (long long)m);
        goto done;
    }
    for (size_t i = 0; i < (size_t)n * dim; i++) refs[i] = (float)X[i];
    gmm_rng rng;
    gmm_rng_seed(&rng, seed ^ 0x6d657267ULL); /* not the finer fit's own stream */
    for (int64_t i = 0; i < n; i++) order[i] = i;
    if (m < n) /* the first m of a random permutation (partial Fisher-Yates) */
        for (int64_t i = 0; i < m; i++) {
            int64_t j = i + (int64_t)gmm_rng_below(&rng, (uint64_t)(n - i));
            int64_t t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
    for (int64_t q = 0; q < m; q++)
        memcpy(queries + (size_t)q * dim, refs + (size_t)order[q] * dim, sizeof(float) * dim);
    if (gpu) {
        status = knn_cuda_host(queries, (size_t)m, refs, (size_t)n, (size_t)dim, (size_t)k, gpu,
                               nn_index, nn_dist);
    } else {
        knn_blas_params p = KNN_BLAS_DEFAULTS;
        p.should_stop = gmm_stop_poll; /* heard between the search's tiles */
        status = knn_cpu_blas_params(queries, (size_t)m, refs, (size_t)n, (size_t)dim,
                                     (size_t)k, nn_index, nn_dist, &p);
    }
    if (status != GMM_OK) goto done;
    memset(edges, 0, sizeof(double) * (size_t)n_fine * n_fine);
    for (int64_t q = 0; q < m; q++) {
        const int a = labels[order[q]];
        for (int j = 0, taken = 0; j < k && taken < k - 1; j++) { /* itself among them */
            const int64_t nb = nn_index[(size_t)q * k + j];
            if (nb == order[q]) continue;
            taken++;
            const int b = labels[nb];
            if (a == b) continue;
            edges[(size_t)a * n_fine + b] += 1;
            edges[(size_t)b * n_fine + a] += 1;
        }
    }
done:
    free(order);
    free(refs);
    free(queries);
    free(nn_index);
    free(nn_dist);
    return status;
}

gmm_status gmm_init_merge(const double *X, int64_t n_samples, int dim, const gmm_options *o,
                          double *resp)
{
    gmm_status status;
    const int K = o->n_components;
    const int64_t fine = (int64_t)GMM_MERGE_FACTOR * K;
    const int n_fine = (int)(fine < n_samples ? fine : n_samples);
    int k = gmm_knn_neighbors(o);
    if (k > n_samples) k = (int)n_samples;
    gmm_model m = {0};
    gmm_fit_scores scores = {0};
    int64_t *sizes = calloc((size_t)n_fine, sizeof(int64_t));
    double *edges = calloc((size_t)n_fine * n_fine, sizeof(double));
    int *group_of = malloc(sizeof(int) * (size_t)n_fine);
    if (!sizes || !edges || !group_of) {
        status = gmm_error(GMM_ERR_NOMEM, "init=merge: out of memory");
        goto done;
    }
    gmm_options eo; /* the finer mixture: the best of n_init k-means starts */
    gmm_options_default(&eo);
    eo.n_components = n_fine;
    eo.covariance_type = o->covariance_type;
    eo.tol = o->tol;
    eo.reg_covar = o->reg_covar;
    eo.max_iter = o->max_iter;
    eo.n_init = o->n_init;
    eo.seed = o->seed;
    eo.device = o->device;
    eo.precision = o->precision;
    eo.kmeans_max_iter = o->kmeans_max_iter;
    eo.kmeans_sample_size = o->kmeans_sample_size;
    eo.kmeans_full_passes = o->kmeans_full_passes;
    eo.tuning = o->tuning;
    eo.gpu = o->gpu;
    eo.should_stop = o->should_stop;
    eo.user = o->user;
    const double t0 = gmm_clock_seconds();
    if ((status = gmm_fit_scored(X, n_samples, dim, &eo, &m, &scores)) != GMM_OK) goto done;
    const double t1 = gmm_clock_seconds();
    for (int64_t i = 0; i < n_samples; i++) sizes[scores.labels[i]]++;
    if (k >= 2 && (status = count_edges(X, n_samples, dim, scores.labels, n_fine, k, o->seed,
                                        o->gpu, edges)) != GMM_OK)
        goto done;
    if ((status = gmm_merge_components(n_fine, K, sizes, edges, m.means, dim,
                                       GMM_MERGE_SMALL_SHARE, group_of)) != GMM_OK)
        goto done;
    memset(resp, 0, sizeof(double) * (size_t)n_samples * K);
    for (int64_t i = 0; i < n_samples; i++)
        for (int c = 0; c < n_fine; c++)
            resp[(size_t)i * K + group_of[c]] += scores.proba[(size_t)i * n_fine + c];
    if (o->on_notice && o->verbose >= 2) {
        char msg[256];
        snprintf(msg, sizeof msg, "init=merge: a mixture of %d components (best of %d runs, "
                 "%.2f s) joined into %d along the %d-nearest-neighbour graph of %lld samples "
                 "(%.2f s)", n_fine, o->n_init, t1 - t0, K, k,
                 (long long)(n_samples < GMM_MERGE_QUERIES ? n_samples : GMM_MERGE_QUERIES),
                 gmm_clock_seconds() - t1);
        o->on_notice(o->user, msg);
    }
done:
    gmm_fit_scores_free(&scores);
    gmm_model_free(&m);
    free(sizes);
    free(edges);
    free(group_of);
    return status;
}
