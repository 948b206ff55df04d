/* CPU twin of the brute-force kNN (see knn.h): direct differences, query and reference tiles so
 * that a tile of references stays in cache while a tile of queries goes over it, and a sorted
 * insertion list of the best k per query. */
#include "kernels/knn.h"

#include <math.h>
#include <stdlib.h>

enum { KNN_QUERY_TILE = 32, KNN_REF_TILE = 256 };

/* Inserts (dist, index) into the ascending list of the best k (ties: the earlier index stays
 * ahead, because references arrive in increasing index order). */
static void insert_best(float *best_dist, int32_t *best_index, size_t k, float dist,
                        int32_t index)
{
    if (!(dist < best_dist[k - 1])) return; /* also rejects NaN */
    size_t pos = k - 1;
    while (pos > 0 && best_dist[pos - 1] > dist) {
        best_dist[pos] = best_dist[pos - 1];
        best_index[pos] = best_index[pos - 1];
        pos--;
    }
    best_dist[pos] = dist;
    best_index[pos] = index;
}

/* never inlined: one machine code for both CPU versions, so one order of the sum's roundings */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
float knn_sq_dist(const float *x, const float *y, size_t dim)
{
    float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
    for (size_t c = 0; c < dim; c++) {
        float diff = x[c] - y[c];
        acc += diff * diff;
    }
    return acc;
}

gmm_status knn_cpu(const float *queries, size_t n_queries, const float *refs, size_t n_refs,
                   size_t dim, size_t k, int32_t *nn_index, float *nn_dist)
{
    if (!queries || !refs || !nn_index || !nn_dist || dim == 0 || k == 0 || k > n_refs ||
        n_refs > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "knn_cpu: need 1 <= k (%zu) <= n_refs (%zu) < 2^31, dim > 0",
                         k, n_refs);
    if (n_queries == 0) return GMM_OK;
    const long n_tiles = (long)((n_queries + KNN_QUERY_TILE - 1) / KNN_QUERY_TILE);
    int failed = 0;

#pragma omp parallel
    {
        float *sq = malloc(sizeof(float) * KNN_QUERY_TILE * KNN_REF_TILE);
        if (!sq) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic)
        for (long t = 0; t < n_tiles; t++) {
            if (!sq) continue;
            size_t q0 = (size_t)t * KNN_QUERY_TILE;
            size_t nq = n_queries - q0 < KNN_QUERY_TILE ? n_queries - q0 : KNN_QUERY_TILE;
            /* the running lists are kept as squared distances in the output arrays */
            for (size_t q = q0; q < q0 + nq; q++)
                for (size_t j = 0; j < k; j++) {
                    nn_dist[q * k + j] = INFINITY;
                    nn_index[q * k + j] = -1;
                }
            for (size_t r0 = 0; r0 < n_refs; r0 += KNN_REF_TILE) {
                size_t nr = n_refs - r0 < KNN_REF_TILE ? n_refs - r0 : KNN_REF_TILE;
                for (size_t qi = 0; qi < nq; qi++) {
                    const float *x = queries + (q0 + qi) * dim;
                    for (size_t ri = 0; ri < nr; ri++)
                        sq[qi * KNN_REF_TILE + ri] = knn_sq_dist(x, refs + (r0 + ri) * dim, dim);
                }
                for (size_t qi = 0; qi < nq; qi++)
                    for (size_t ri = 0; ri < nr; ri++)
                        insert_best(nn_dist + (q0 + qi) * k, nn_index + (q0 + qi) * k, k,
                                    sq[qi * KNN_REF_TILE + ri], (int32_t)(r0 + ri));
            }
            for (size_t q = q0; q < q0 + nq; q++)
                for (size_t j = 0; j < k; j++) nn_dist[q * k + j] = sqrtf(nn_dist[q * k + j]);
        }
        free(sq);
    }
    if (failed) return gmm_error(GMM_ERR_NOMEM, "knn_cpu: out of memory for a distance tile");
    return GMM_OK;
}
