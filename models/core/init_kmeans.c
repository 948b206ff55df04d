/* The k-means initialisation of a fit on its backend (see init_kmeans.h): k-means++ and Lloyd
 * through the backend table (models/backend/cpu/kmeans.h's loops, on the context's device), on a
 * stratified sample of the rows first when there are many. */
#include "models/core/init_kmeans.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int64_t gmm_kmeans_sample_rows(const gmm_options *o, int64_t n_total)
{
    int64_t m = o->kmeans_sample_size;
    if (m < 0) return n_total;
    if (m == 0) return n_total > GMM_KMEANS_SAMPLE_ABOVE ? GMM_KMEANS_SAMPLE_AUTO : n_total;
    return m < n_total ? m : n_total;
}

void gmm_kmeans_sample_indices(gmm_rng *rng, int64_t n_total, int64_t m, int64_t *indices)
{
    for (int64_t j = 0; j < m; j++) {
        /* stratum j: [floor(j n / m), floor((j + 1) n / m)), never empty since m <= n */
        const int64_t lo = (int64_t)((__int128)j * n_total / m);
        const int64_t hi = (int64_t)((__int128)(j + 1) * n_total / m);
        indices[j] = lo + (int64_t)gmm_rng_below(rng, (uint64_t)(hi - lo));
    }
}

/* k-means++ seeds, then at most max_iter Lloyd iterations, on ctx; centers (K x dim) kept. */
static gmm_status seed_and_iterate(const gmm_backend *be, gmm_backend_ctx *ctx, int K,
                                   int max_iter, gmm_rng *rng, double *centers)
{
    int64_t *idx = malloc(sizeof(int64_t) * K);
    if (!idx) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
    gmm_status status = be->kmeans_plusplus(ctx, rng, idx, centers);
    free(idx);
    if (status != GMM_OK) return status;
    return be->kmeans_lloyd(ctx, max_iter, centers, NULL);
}

/* The k-means on m sampled rows of every rank's data (indices: the m global rows), in a context
 * of the same backend, device and ranks: this rank's sampled rows gathered into a buffer of the
 * data's element type. *empty_somewhere: a rank holds none of them (nothing was run). */
static gmm_status sample_kmeans(const gmm_backend *be, gmm_backend_ctx *ctx,
                                const gmm_data_view *data, const gmm_options *o, int64_t m,
                                const int64_t *indices, gmm_rng *rng, double *centers,
                                int *empty_somewhere)
{
    gmm_status status = GMM_OK;
    const int64_t first = data->first_row, end = first + data->n_rows;
    int64_t lo = 0, hi;
    while (lo < m && indices[lo] < first) lo++;
    for (hi = lo; hi < m && indices[hi] < end; hi++) {
    }
    int empty = hi == lo;
    if ((status = gmm_comm_any(o->comm, &empty)) != GMM_OK) return status;
    *empty_somewhere = empty;
    if (empty) return GMM_OK;
    const size_t row_bytes = (size_t)data->dim * gmm_elem_size(data->elem);
    char *rows = malloc(row_bytes * (size_t)(hi - lo));
    if (!rows) return gmm_error(GMM_ERR_NOMEM, "out of memory for the k-means sample "
                                "(%lld rows)", (long long)(hi - lo));
    for (int64_t s = lo; s < hi; s++)
        memcpy(rows + row_bytes * (size_t)(s - lo),
               (const char *)data->rows + row_bytes * (size_t)(indices[s] - first), row_bytes);
    const gmm_backend_config cfg = {
        .data = {.elem = data->elem, .rows = rows, .n_rows = hi - lo, .dim = data->dim,
                 .first_row = lo, .n_total = m},
        /* float64 whatever the fit's precision: the k-means computes in float64, and a float64
         * context keeps the sample's exact values in one piece where a float32 one would keep
         * a rounded copy and convert it back chunk by chunk on every Lloyd iteration (0.3 s of
         * a TF32 run at 8.1 million images); the sample's k-means is then the same in every
         * precision */
        .n_components = o->n_components, .type = o->covariance_type,
        .precision = GMM_PRECISION_FP64,
        .tuning = &o->tuning, .gpu = be->resources(ctx), .comm = o->comm, .bayes = NULL};
    gmm_backend_ctx *sample = NULL;
    if ((status = be->create(&sample, &cfg)) == GMM_OK)
        status = seed_and_iterate(be, sample, o->n_components, o->kmeans_max_iter, rng, centers);
    be->destroy(sample);
    free(rows);
    return status;
}

gmm_status gmm_kmeans_init_on_backend(const gmm_backend *be, gmm_backend_ctx *ctx,
                                      const gmm_data_view *data, const gmm_options *o,
                                      gmm_rng *rng)
{
    gmm_status status = GMM_OK;
    const int K = o->n_components;
    const int64_t n_total = data->n_total, m = gmm_kmeans_sample_rows(o, n_total);
    double *centers = malloc(sizeof(double) * (size_t)K * data->dim);
    int64_t *indices = m < n_total ? malloc(sizeof(int64_t) * (size_t)m) : NULL;
    if (!centers || (m < n_total && !indices)) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto done;
    }
    int sampled = 0;
    if (m < n_total) {
        gmm_kmeans_sample_indices(rng, n_total, m, indices);
        int empty = 0;
        status = sample_kmeans(be, ctx, data, o, m, indices, rng, centers, &empty);
        if (status != GMM_OK) goto done;
        sampled = !empty;
        if (sampled && o->verbose >= 1 && o->on_notice) {
            char msg[200];
            const int p = o->kmeans_full_passes > 0 ? o->kmeans_full_passes
                                                    : GMM_KMEANS_FULL_PASSES;
            snprintf(msg, sizeof msg, "k-means on a sample of %lld of the %lld rows, then at "
                     "most %d Lloyd pass%s over all of them", (long long)m, (long long)n_total, p,
                     p == 1 ? "" : "es");
            o->on_notice(o->user, msg);
        }
    }
    if (sampled) {
        int passes = o->kmeans_full_passes > 0 ? o->kmeans_full_passes : GMM_KMEANS_FULL_PASSES;
        if (passes > o->kmeans_max_iter) passes = o->kmeans_max_iter;
        status = be->kmeans_lloyd(ctx, passes, centers, NULL);
    } else {
        status = seed_and_iterate(be, ctx, K, o->kmeans_max_iter, rng, centers);
    }
done:
    free(indices);
    free(centers);
    return status;
}
