/* The symmetric kNN connectivity graph in CSR form (kernels/knn_graph.h). */
#include "kernels/knn_graph.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void knn_graph_free(knn_graph *g)
{
    if (!g) return;
    free(g->row_ptr);
    free(g->col);
    free(g->val);
    free(g->degree);
    memset(g, 0, sizeof *g);
}

static int compare_int32(const void *a, const void *b)
{
    const int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Connected components by breadth-first search over the CSR rows; queue holds n entries. */
static int count_components(const knn_graph *g, int32_t *queue, unsigned char *seen)
{
    int components = 0;
    memset(seen, 0, (size_t)g->n);
    for (int64_t start = 0; start < g->n; start++) {
        if (seen[start]) continue;
        components++;
        int64_t head = 0, tail = 0;
        queue[tail++] = (int32_t)start;
        seen[start] = 1;
        while (head < tail) {
            const int32_t i = queue[head++];
            for (int64_t p = g->row_ptr[i]; p < g->row_ptr[i + 1]; p++)
                if (!seen[g->col[p]]) {
                    seen[g->col[p]] = 1;
                    queue[tail++] = g->col[p];
                }
        }
    }
    return components;
}

gmm_status knn_graph_build(const int32_t *nn_index, int64_t n, int k, knn_graph *g)
{
    gmm_status status = GMM_OK;
    memset(g, 0, sizeof *g);
    int64_t *fill = NULL;
    int32_t *cols = NULL;
    unsigned char *seen = NULL;
    if (!nn_index || n < 2 || n > INT32_MAX || k < 2)
        return gmm_error(GMM_ERR_ARG, "kNN graph: needs at least 2 points and 2 neighbours "
                                      "(got %lld points, k = %d)", (long long)n, k);
    for (int64_t q = 0; q < n * k; q++)
        if (nn_index[q] < 0 || nn_index[q] >= n)
            return gmm_error(GMM_ERR_ARG, "kNN graph: neighbour index %d of point %lld out of "
                                          "range", nn_index[q], (long long)(q / k));
    g->n = n;
    g->row_ptr = calloc((size_t)n + 1, sizeof *g->row_ptr);
    g->degree = calloc((size_t)n, sizeof *g->degree);
    fill = calloc((size_t)n + 1, sizeof *fill);
    if (!g->row_ptr || !g->degree || !fill) goto nomem;

    /* Every off-diagonal pair (i, j) of C enters row i and row j once each (with weight 1/2);
     * a pair in both directions then appears twice in a row and merges into weight 1. */
    for (int64_t i = 0; i < n; i++)
        for (int q = 0; q < k; q++) {
            const int32_t j = nn_index[i * k + q];
            if (j == i) continue;
            fill[i + 1]++;
            fill[j + 1]++;
        }
    for (int64_t i = 0; i < n; i++) fill[i + 1] += fill[i];
    cols = malloc(sizeof *cols * (size_t)(fill[n] ? fill[n] : 1));
    if (!cols) goto nomem;
    {
        int64_t *next = g->row_ptr; /* borrowed as the write cursor, rebuilt below */
        memcpy(next, fill, sizeof *next * (size_t)(n + 1));
        for (int64_t i = 0; i < n; i++)
            for (int q = 0; q < k; q++) {
                const int32_t j = nn_index[i * k + q];
                if (j == i) continue;
                cols[next[i]++] = j;
                cols[next[j]++] = (int32_t)i;
            }
    }
    /* sort each row, then count the distinct columns */
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        int32_t *row = cols + fill[i];
        const int64_t len = fill[i + 1] - fill[i];
        qsort(row, (size_t)len, sizeof *row, compare_int32);
        for (int64_t p = 0; p < len; p++) nnz += p == 0 || row[p] != row[p - 1];
    }
    g->nnz = nnz;
    g->col = malloc(sizeof *g->col * (size_t)(nnz ? nnz : 1));
    g->val = malloc(sizeof *g->val * (size_t)(nnz ? nnz : 1));
    if (!g->col || !g->val) goto nomem;
    int64_t out = 0;
    for (int64_t i = 0; i < n; i++) {
        g->row_ptr[i] = out;
        const int32_t *row = cols + fill[i];
        const int64_t len = fill[i + 1] - fill[i];
        for (int64_t p = 0; p < len; p++) {
            if (p > 0 && row[p] == row[p - 1]) {
                g->val[out - 1] += 0.5;
                continue;
            }
            g->col[out] = row[p];
            g->val[out++] = 0.5;
        }
        double d = 0;
        for (int64_t p = g->row_ptr[i]; p < out; p++) d += g->val[p];
        g->degree[i] = d;
        if (d == 0) {
            status = gmm_error(GMM_ERR_NUMERIC, "kNN graph: point %lld has no neighbour but "
                                                "itself (duplicates of it fill its %d nearest?)",
                               (long long)i, k);
            goto fail;
        }
    }
    g->row_ptr[n] = out;
    seen = malloc((size_t)n);
    if (!seen) goto nomem;
    g->n_components = count_components(g, cols, seen); /* cols is free scratch by now */
    free(fill);
    free(cols);
    free(seen);
    return GMM_OK;
nomem:
    status = gmm_error(GMM_ERR_NOMEM, "kNN graph: out of memory for %lld points", (long long)n);
fail:
    free(fill);
    free(cols);
    free(seen);
    knn_graph_free(g);
    return status;
}

void knn_graph_normalise(knn_graph *g)
{
    for (int64_t i = 0; i < g->n; i++) {
        const double si = 1.0 / sqrt(g->degree[i]);
        for (int64_t p = g->row_ptr[i]; p < g->row_ptr[i + 1]; p++)
            g->val[p] *= si / sqrt(g->degree[g->col[p]]);
    }
}
