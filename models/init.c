/* EM initialisation: k-means++ seeding, Lloyd's k-means with GEMM distances, random starts,
 * and the dispatch to the kNN density peaks. */
#include "models/init.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "models/init_knn.h"

#ifdef _OPENMP
#include <omp.h>
#else
static int omp_get_thread_num(void) { return 0; }
static int omp_get_max_threads(void) { return 1; }
#endif

/* rows per GEMM chunk: small enough that the chunk is still in cache for the center sums */
#define KMEANS_CHUNK_ROWS 8192

static double sq_dist(const double *a, const double *b, int d)
{
    double s = 0;
    for (int j = 0; j < d; j++) s += (a[j] - b[j]) * (a[j] - b[j]);
    return s;
}

gmm_status gmm_kmeans_plusplus(const double *X, int64_t n_samples, int dim, int n_components,
                               gmm_rng *rng, int64_t *indices)
{
    gmm_status status = GMM_OK;
    int n_trials = 2 + (int)log((double)n_components);
    double *closest = malloc(sizeof(double) * n_samples);
    double *cand_dist = malloc(sizeof(double) * n_samples * n_trials);
    double *cumsum = malloc(sizeof(double) * n_samples);
    if (!closest || !cand_dist || !cumsum) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means++");
        goto fail;
    }
    indices[0] = (int64_t)gmm_rng_below(rng, (uint64_t)n_samples);
    /* Sums over the samples are taken in index order after the parallel loops, not by OpenMP
     * reductions (whose order varies between runs): the same seed gives the same seeds. */
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_samples; i++) closest[i] = sq_dist(X + i * dim, X + indices[0] * dim, dim);
    double pot = 0;
    for (int64_t i = 0; i < n_samples; i++) pot += closest[i];
    for (int c = 1; c < n_components; c++) {
        double run = 0;
        for (int64_t i = 0; i < n_samples; i++) cumsum[i] = (run += closest[i]);
        int64_t cand[64];
        for (int t = 0; t < n_trials; t++) {
            double r = gmm_rng_uniform(rng) * pot;
            /* first index with cumsum > r (searchsorted), clipped */
            int64_t lo = 0, hi = n_samples - 1;
            while (lo < hi) {
                int64_t mid = lo + (hi - lo) / 2;
                if (cumsum[mid] > r) hi = mid; else lo = mid + 1;
            }
            cand[t] = lo;
        }
        double best_pot = INFINITY;
        int best = 0;
        for (int t = 0; t < n_trials; t++) {
            double p = 0;
            double *dt = cand_dist + (size_t)t * n_samples;
#pragma omp parallel for schedule(static)
            for (int64_t i = 0; i < n_samples; i++) {
                double dd = sq_dist(X + i * dim, X + cand[t] * dim, dim);
                dt[i] = dd < closest[i] ? dd : closest[i];
            }
            for (int64_t i = 0; i < n_samples; i++) p += dt[i];
            if (p < best_pot) {
                best_pot = p;
                best = t;
            }
        }
        indices[c] = cand[best];
        pot = best_pot;
        memcpy(closest, cand_dist + (size_t)best * n_samples, sizeof(double) * n_samples);
    }
fail:
    free(closest);
    free(cand_dist);
    free(cumsum);
    return status;
}

/* Labels of the nearest centers and their squared distances, through ||x||^2 - 2 x.c + ||c||^2
 * as one GEMM per row chunk. When sums is not NULL it also adds each row to its new center's
 * sum (sums: one K x dim + K block per thread, counts after the sums) while the chunk is still in
 * cache, so that a Lloyd iteration reads X from memory once. Returns how many labels changed. */
static int64_t assign_labels(const double *X, const double *x_norm, int64_t n_samples, int dim,
                             int K, const double *centers, int *labels, double *min_dist,
                             double *buf, double *sums)
{
    double *c_norm = buf;
    double *dots = buf + K;
    size_t block = (size_t)K * dim + K;
    for (int k = 0; k < K; k++) {
        double s = 0;
        for (int j = 0; j < dim; j++) s += centers[(size_t)k * dim + j] * centers[(size_t)k * dim + j];
        c_norm[k] = s;
    }
    int64_t changed = 0;
    for (int64_t r0 = 0; r0 < n_samples; r0 += KMEANS_CHUNK_ROWS) {
        int64_t rows = n_samples - r0 < KMEANS_CHUNK_ROWS ? n_samples - r0 : KMEANS_CHUNK_ROWS;
        la_dgemm(false, true, (int)rows, K, dim, 1.0, X + (size_t)r0 * dim, dim, centers, dim, 0.0,
                 dots, K);
#pragma omp parallel reduction(+ : changed)
        {
            double *my = sums ? sums + (size_t)omp_get_thread_num() * block : NULL;
#pragma omp for schedule(static)
            for (int64_t i = 0; i < rows; i++) {
                int best = 0;
                double bd = INFINITY;
                for (int k = 0; k < K; k++) {
                    double dd = x_norm[r0 + i] - 2 * dots[i * K + k] + c_norm[k];
                    if (dd < bd) {
                        bd = dd;
                        best = k;
                    }
                }
                if (labels[r0 + i] != best) changed++;
                labels[r0 + i] = best;
                min_dist[r0 + i] = bd < 0 ? 0 : bd;
                if (my) {
                    const double *x = X + (size_t)(r0 + i) * dim;
                    double *c = my + (size_t)best * dim;
                    for (int j = 0; j < dim; j++) c[j] += x[j];
                    my[(size_t)K * dim + best] += 1;
                }
            }
        }
    }
    return changed;
}

gmm_status gmm_kmeans_lloyd(const double *X, int64_t n_samples, int dim, int n_components,
                            int max_iter, double *centers, int *labels, int *n_iter)
{
    gmm_status status = GMM_OK;
    int K = n_components;
    double *x_norm = malloc(sizeof(double) * n_samples);
    double *min_dist = malloc(sizeof(double) * n_samples);
    double *buf = malloc(sizeof(double) * (K + (size_t)KMEANS_CHUNK_ROWS * K));
    double *new_centers = malloc(sizeof(double) * K * dim);
    double *counts = malloc(sizeof(double) * K);
    double *col_mean = calloc(dim, sizeof(double));
    int n_threads = omp_get_max_threads();
    size_t block = (size_t)K * dim + K;
    double *sums = malloc(sizeof(double) * block * n_threads);
    if (!x_norm || !min_dist || !buf || !new_centers || !counts || !col_mean || !sums) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    /* tol as scikit-learn: 1e-4 times the mean over features of the variance */
    double var_sum = 0;
    for (int64_t i = 0; i < n_samples; i++)
        for (int j = 0; j < dim; j++) col_mean[j] += X[i * dim + j];
    for (int j = 0; j < dim; j++) col_mean[j] /= (double)n_samples;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_samples; i++) {
        double s = 0, n2 = 0;
        for (int j = 0; j < dim; j++) {
            double v = X[i * dim + j];
            s += (v - col_mean[j]) * (v - col_mean[j]);
            n2 += v * v;
        }
        min_dist[i] = s; /* summed below in index order (deterministic), then overwritten */
        x_norm[i] = n2;
    }
    for (int64_t i = 0; i < n_samples; i++) var_sum += min_dist[i];
    double tol = 1e-4 * var_sum / ((double)n_samples * dim);
    for (int64_t i = 0; i < n_samples; i++) labels[i] = -1;

    int it = 0;
    for (it = 1; it <= max_iter; it++) {
        memset(sums, 0, sizeof(double) * block * n_threads);
        int64_t changed =
            assign_labels(X, x_norm, n_samples, dim, K, centers, labels, min_dist, buf, sums);
        if (changed == 0 && it > 1) break;
        /* the per-thread sums gathered by assign_labels, reduced */
        memset(new_centers, 0, sizeof(double) * K * dim);
        memset(counts, 0, sizeof(double) * K);
        for (int t = 0; t < n_threads; t++) {
            const double *my = sums + (size_t)t * block;
            for (size_t q = 0; q < (size_t)K * dim; q++) new_centers[q] += my[q];
            for (int k = 0; k < K; k++) counts[k] += my[(size_t)K * dim + k];
        }
        for (int k = 0; k < K; k++) {
            if (counts[k] == 0) {
                /* empty cluster: move it to the sample farthest from its center */
                int64_t far = 0;
                for (int64_t i = 1; i < n_samples; i++)
                    if (min_dist[i] > min_dist[far]) far = i;
                memcpy(new_centers + (size_t)k * dim, X + far * dim, sizeof(double) * dim);
                min_dist[far] = 0;
                continue;
            }
            for (int j = 0; j < dim; j++) new_centers[(size_t)k * dim + j] /= counts[k];
        }
        double shift = 0;
        for (size_t i = 0; i < (size_t)K * dim; i++)
            shift += (new_centers[i] - centers[i]) * (new_centers[i] - centers[i]);
        memcpy(centers, new_centers, sizeof(double) * K * dim);
        if (shift <= tol) {
            assign_labels(X, x_norm, n_samples, dim, K, centers, labels, min_dist, buf, NULL);
            break;
        }
    }
    if (n_iter) *n_iter = it > max_iter ? max_iter : it;
fail:
    free(x_norm);
    free(min_dist);
    free(buf);
    free(new_centers);
    free(counts);
    free(col_mean);
    free(sums);
    return status;
}

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
