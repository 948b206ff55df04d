/* The CPU twin of UMAP's fuzzy simplicial set (kernels/fuzzy_set.h): rho, sigma and the
 * memberships of each row (kernels/fuzzy_set_row.h, shared with the CUDA version) over an OpenMP
 * loop, the checks and mean both versions share, and the fuzzy union as a symmetric CSR matrix. */
#include "kernels/fuzzy_set.h"
#include "kernels/fuzzy_set_row.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


gmm_status fuzzy_memberships_check(const int32_t *nn_index, const float *nn_dist, int64_t n,
                                   int k, double local_connectivity, const double *rho,
                                   const double *sigma, const double *memberships,
                                   double *mean_dist)
{
    if (!nn_index || !nn_dist || !rho || !sigma || !memberships || !mean_dist)
        return gmm_error(GMM_ERR_ARG, "fuzzy set: NULL array");
    if (k < 2 || n < 1 || n > INT64_MAX / k)
        return gmm_error(GMM_ERR_ARG, "fuzzy set: needs at least 1 point and 2 neighbours "
                                      "(got %lld points, k = %d)", (long long)n, k);
    if (!(local_connectivity >= 0))
        return gmm_error(GMM_ERR_ARG, "fuzzy set: local_connectivity %g is negative or NaN",
                         local_connectivity);
    double sum = 0;
    int64_t count = 0;
    for (int64_t q = 0; q < n * k; q++) {
        if (nn_index[q] == -1) continue;
        const float d = nn_dist[q];
        if (nn_index[q] < -1)
            return gmm_error(GMM_ERR_ARG, "fuzzy set: neighbour index %d of point %lld is "
                                          "negative", nn_index[q], (long long)(q / k));
        if (!(d >= 0) || isinf(d))
            return gmm_error(GMM_ERR_ARG, "fuzzy set: distance %g of point %lld to neighbour "
                                          "%d is negative, NaN or infinite",
                             (double)d, (long long)(q / k), nn_index[q]);
        sum += d;
        count++;
    }
    *mean_dist = count > 0 ? sum / (double)count : 0.0;
    return GMM_OK;
}

gmm_status fuzzy_memberships_cpu(const int32_t *nn_index, const float *nn_dist, int64_t n, int k,
                                 double local_connectivity, int bipartite, double *rho,
                                 double *sigma, double *memberships)
{
    double mean_all;
    gmm_status status = fuzzy_memberships_check(nn_index, nn_dist, n, k, local_connectivity, rho,
                                                sigma, memberships, &mean_all);
    if (status != GMM_OK) return status;
    const double target = log2((double)k);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++)
        fuzzy_set_row(i, nn_index + i * k, nn_dist + i * k, k, local_connectivity, bipartite,
                      target, mean_all, rho + i, sigma + i, memberships + i * k);
    return GMM_OK;
}

void fuzzy_graph_free(fuzzy_graph *graph)
{
    if (!graph) return;
    free(graph->row_ptr);
    free(graph->col);
    free(graph->val);
    memset(graph, 0, sizeof *graph);
}

typedef struct {
    int32_t col;
    double val;
} fuzzy_entry;

static int compare_entry(const void *a, const void *b)
{
    const int32_t x = ((const fuzzy_entry *)a)->col, y = ((const fuzzy_entry *)b)->col;
    return (x > y) - (x < y);
}

/* Sorts a row by column: insertion sort for the usual short rows, qsort for long ones. */
static void sort_row(fuzzy_entry *row, int64_t len)
{
    if (len > 32) {
        qsort(row, (size_t)len, sizeof *row, compare_entry);
        return;
    }
    for (int64_t p = 1; p < len; p++) {
        const fuzzy_entry e = row[p];
        int64_t q = p;
        for (; q > 0 && row[q - 1].col > e.col; q--) row[q] = row[q - 1];
        row[q] = e;
    }
}

gmm_status fuzzy_union_cpu(const int32_t *nn_index, const double *memberships, int64_t n, int k,
                           fuzzy_graph *graph)
{
    gmm_status status = GMM_OK;
    fuzzy_entry *a = NULL, *t = NULL;
    int64_t *a_ptr = NULL, *t_ptr = NULL, *next = NULL;
    if (!graph) return gmm_error(GMM_ERR_ARG, "fuzzy set: NULL graph");
    memset(graph, 0, sizeof *graph);
    if (!nn_index || !memberships) return gmm_error(GMM_ERR_ARG, "fuzzy set: NULL array");
    if (n < 1 || k < 1 || n > (int64_t)INT32_MAX + 1 || n > INT64_MAX / k / 2)
        return gmm_error(GMM_ERR_ARG, "fuzzy set: bad graph size (%lld points, k = %d)",
                         (long long)n, k);
    for (int64_t q = 0; q < n * k; q++) {
        if (nn_index[q] == -1) continue;
        if (nn_index[q] < 0 || nn_index[q] >= n)
            return gmm_error(GMM_ERR_ARG, "fuzzy set: neighbour index %d of point %lld out of "
                                          "range [0, %lld)", nn_index[q], (long long)(q / k),
                             (long long)n);
        if (!(memberships[q] >= 0 && memberships[q] <= 1))
            return gmm_error(GMM_ERR_ARG, "fuzzy set: membership %g of point %lld outside "
                                          "[0, 1]", memberships[q], (long long)(q / k));
    }
    const size_t nk = (size_t)(n * k);
    a_ptr = malloc(sizeof *a_ptr * (size_t)(n + 1));
    t_ptr = calloc((size_t)n + 1, sizeof *t_ptr);
    next = malloc(sizeof *next * (size_t)n);
    a = malloc(sizeof *a * nk);
    if (!a_ptr || !t_ptr || !next || !a) goto nomem;

    /* A: each row's listed non-zero entries, sorted by column, a repeated column kept once
     * with its larger value */
    int64_t nnz_a = 0;
    for (int64_t i = 0; i < n; i++) {
        const int64_t start = nnz_a;
        a_ptr[i] = start;
        for (int c = 0; c < k; c++) {
            const int32_t j = nn_index[i * k + c];
            const double m = memberships[i * k + c];
            if (j == -1 || m == 0) continue;
            a[nnz_a].col = j;
            a[nnz_a++].val = m;
        }
        sort_row(a + start, nnz_a - start);
        int64_t w = start;
        for (int64_t p = start; p < nnz_a; p++) {
            if (w > start && a[w - 1].col == a[p].col) {
                if (a[p].val > a[w - 1].val) a[w - 1].val = a[p].val;
            } else {
                a[w++] = a[p];
            }
        }
        nnz_a = w;
    }
    a_ptr[n] = nnz_a;

    /* A^T by counting; rows of A taken in order, so each row of A^T comes out sorted */
    t = malloc(sizeof *t * (size_t)(nnz_a ? nnz_a : 1));
    if (!t) goto nomem;
    for (int64_t p = 0; p < nnz_a; p++) t_ptr[a[p].col + 1]++;
    for (int64_t i = 0; i < n; i++) t_ptr[i + 1] += t_ptr[i];
    memcpy(next, t_ptr, sizeof *next * (size_t)n);
    for (int64_t i = 0; i < n; i++)
        for (int64_t p = a_ptr[i]; p < a_ptr[i + 1]; p++) {
            const int64_t q = next[a[p].col]++;
            t[q].col = (int32_t)i;
            t[q].val = a[p].val;
        }

    /* W row i: the merge of row i of A (a = A_ij) and of A^T (b = A_ji) */
    const size_t cap = nnz_a > 0 ? (size_t)(2 * nnz_a) : 1;
    graph->n = n;
    graph->row_ptr = malloc(sizeof *graph->row_ptr * (size_t)(n + 1));
    graph->col = malloc(sizeof *graph->col * cap);
    graph->val = malloc(sizeof *graph->val * cap);
    if (!graph->row_ptr || !graph->col || !graph->val) goto nomem;
    int64_t out = 0;
    for (int64_t i = 0; i < n; i++) {
        graph->row_ptr[i] = out;
        int64_t p = a_ptr[i], q = t_ptr[i];
        const int64_t p_end = a_ptr[i + 1], q_end = t_ptr[i + 1];
        while (p < p_end || q < q_end) {
            int32_t j;
            double x = 0, y = 0;
            if (q == q_end || (p < p_end && a[p].col < t[q].col)) {
                j = a[p].col;
                x = a[p++].val;
            } else if (p == p_end || t[q].col < a[p].col) {
                j = t[q].col;
                y = t[q++].val;
            } else {
                j = a[p].col;
                x = a[p++].val;
                y = t[q++].val;
            }
            const double w = (x + y) - x * y;
            if (w == 0) continue;
            graph->col[out] = j;
            graph->val[out++] = w;
        }
    }
    graph->row_ptr[n] = out;
    graph->nnz = out;
    free(a_ptr);
    free(t_ptr);
    free(next);
    free(a);
    free(t);
    return GMM_OK;
nomem:
    status = gmm_error(GMM_ERR_NOMEM, "fuzzy set: out of memory for the union of %lld points",
                       (long long)n);
    free(a_ptr);
    free(t_ptr);
    free(next);
    free(a);
    free(t);
    fuzzy_graph_free(graph);
    return status;
}
