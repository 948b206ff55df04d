/* Check suite for the sparse matrix-vector product (kernels/spmv.h) and the kNN graph
 * (kernels/knn_graph.h): the CPU SpMV against a dense product, the CUDA one against the CPU on a
 * GPU; the graph of a hand-worked neighbour list (entries 1 for mutual neighbours, 1/2 otherwise,
 * no diagonal, degrees, components) and its normalisation, and the bad inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "kernels/knn_graph.h"
#include "kernels/spmv.h"
#include "tests/testutil.h"

/* A random sparse n x n matrix with about `per_row` entries a row (some rows empty). */
static void random_csr(int64_t n, int per_row, uint64_t seed, int64_t **row_ptr, int32_t **col,
                       double **val, double **dense)
{
    uint64_t s = seed;
    *row_ptr = malloc(sizeof(int64_t) * (n + 1));
    *col = malloc(sizeof(int32_t) * n * per_row);
    *val = malloc(sizeof(double) * n * per_row);
    *dense = calloc((size_t)(n * n), sizeof(double));
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++) {
        (*row_ptr)[i] = nnz;
        int len = i % 7 == 3 ? 0 : (int)(tu_rand_u64(&s) % (per_row + 1));
        int32_t c = 0;
        for (int q = 0; q < len && c < n; q++) {
            c += 1 + (int32_t)(tu_rand_u64(&s) % (n / per_row + 1));
            if (c >= n) break;
            (*col)[nnz] = c;
            (*val)[nnz] = tu_rand_uniform(&s) * 2 - 1;
            (*dense)[i * n + c] = (*val)[nnz];
            nnz++;
        }
    }
    (*row_ptr)[n] = nnz;
}

START_TEST(spmv_cpu_matches_dense)
{
    const int64_t n = 300;
    int64_t *rp;
    int32_t *col;
    double *val, *dense;
    random_csr(n, 12, 3, &rp, &col, &val, &dense);
    double x[300], y[300], ref[300];
    tu_fill_uniform(x, n, -1, 1, 9);
    for (int64_t i = 0; i < n; i++) {
        ref[i] = 0;
        for (int64_t j = 0; j < n; j++) ref[i] += dense[i * n + j] * x[j];
    }
    TU_CHECK_OK(spmv_csr_cpu(n, rp, col, val, x, y));
    ck_assert_double_le(tu_rel_error(y, ref, n), 1e-14);
    ck_assert_double_eq(y[3], 0.0); /* an empty row */
    ck_assert_int_eq(spmv_csr_cpu(n, NULL, col, val, x, y), GMM_ERR_ARG);

    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
    } else {
        int64_t *d_rp;
        int32_t *d_col;
        double *d_val, *d_x, *d_y, yg[300];
        const int64_t nnz = rp[n];
        TU_CHECK_OK(bench_gpu_alloc((void **)&d_rp, sizeof(int64_t) * (n + 1)));
        TU_CHECK_OK(bench_gpu_alloc((void **)&d_col, sizeof(int32_t) * nnz));
        TU_CHECK_OK(bench_gpu_alloc((void **)&d_val, sizeof(double) * nnz));
        TU_CHECK_OK(bench_gpu_alloc((void **)&d_x, sizeof(double) * n));
        TU_CHECK_OK(bench_gpu_alloc((void **)&d_y, sizeof(double) * n));
        TU_CHECK_OK(bench_gpu_upload(d_rp, rp, sizeof(int64_t) * (n + 1)));
        TU_CHECK_OK(bench_gpu_upload(d_col, col, sizeof(int32_t) * nnz));
        TU_CHECK_OK(bench_gpu_upload(d_val, val, sizeof(double) * nnz));
        TU_CHECK_OK(bench_gpu_upload(d_x, x, sizeof(double) * n));
        TU_CHECK_OK(spmv_csr_cuda(n, d_rp, d_col, d_val, d_x, d_y, NULL));
        TU_CHECK_OK(bench_gpu_download(yg, d_y, sizeof(double) * n));
        ck_assert_double_le(tu_rel_error(yg, y, n), 1e-14);
        bench_gpu_free(d_rp);
        bench_gpu_free(d_col);
        bench_gpu_free(d_val);
        bench_gpu_free(d_x);
        bench_gpu_free(d_y);
    }
    free(rp);
    free(col);
    free(val);
    free(dense);
}
END_TEST

static double entry(const knn_graph *g, int i, int j)
{
    for (int64_t p = g->row_ptr[i]; p < g->row_ptr[i + 1]; p++)
        if (g->col[p] == j) return g->val[p];
    return 0;
}

START_TEST(graph_by_hand)
{
    /* 5 points, k = 3, each listing itself: 0-1 mutual, 1-2 mutual, 0->2 one way, 3-4 mutual,
     * 4->0 one way, 3->4 twice would be a duplicate so 3 lists 2 instead. */
    const int32_t nn[5 * 3] = {0, 1, 2, /**/ 1, 0, 2, /**/ 2, 1, 0, /**/ 3, 4, 2, /**/ 4, 3, 0};
    knn_graph g;
    TU_CHECK_OK(knn_graph_build(nn, 5, 3, &g));
    /* C (off-diagonal): 0->1, 0->2, 1->0, 1->2, 2->1, 2->0, 3->4, 3->2, 4->3, 4->0 */
    const double want[5][5] = {{0, 1, 1, 0, 0.5},
                               {1, 0, 1, 0, 0},
                               {1, 1, 0, 0.5, 0},
                               {0, 0, 0.5, 0, 1},
                               {0.5, 0, 0, 1, 0}};
    for (int i = 0; i < 5; i++) {
        double d = 0;
        for (int j = 0; j < 5; j++) {
            ck_assert_msg(entry(&g, i, j) == want[i][j], "A[%d][%d] = %g, want %g", i, j,
                          entry(&g, i, j), want[i][j]);
            d += want[i][j];
        }
        ck_assert_double_eq(g.degree[i], d);
        for (int64_t p = g.row_ptr[i] + 1; p < g.row_ptr[i + 1]; p++)
            ck_assert_int_lt(g.col[p - 1], g.col[p]);
    }
    ck_assert_int_eq(g.nnz, 12);
    ck_assert_int_eq(g.n_components, 1);
    knn_graph_normalise(&g);
    ck_assert_double_le(fabs(entry(&g, 0, 4) - 0.5 / sqrt(2.5 * 1.5)), 1e-15);
    ck_assert_double_le(fabs(entry(&g, 1, 2) - 1.0 / sqrt(2.0 * 2.5)), 1e-15);
    knn_graph_free(&g);

    /* two groups: components counted */
    const int32_t two[4 * 2] = {0, 1, 1, 0, 2, 3, 3, 2};
    TU_CHECK_OK(knn_graph_build(two, 4, 2, &g));
    ck_assert_int_eq(g.n_components, 2);
    knn_graph_free(&g);

    /* bad input */
    const int32_t bad[3 * 2] = {0, 1, 1, 7, 2, 0};
    ck_assert_int_eq(knn_graph_build(bad, 3, 2, &g), GMM_ERR_ARG);
    ck_assert_int_eq(knn_graph_build(two, 4, 1, &g), GMM_ERR_ARG);
    const int32_t lonely[3 * 2] = {0, 1, 1, 0, 2, 2}; /* point 2 lists only itself */
    ck_assert_int_eq(knn_graph_build(lonely, 3, 2, &g), GMM_ERR_NUMERIC);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_NUMERIC), "point 2"));
}
END_TEST

static Suite *spmv_suite(void)
{
    Suite *s = suite_create("k_spmv");
    TCase *tc = tcase_create("spmv");
    tcase_add_test(tc, spmv_cpu_matches_dense);
    tcase_add_test(tc, graph_by_hand);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(spmv_suite()); }
