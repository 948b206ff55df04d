/* Check suite for UMAP's fuzzy simplicial set (kernels/fuzzy_set.h): rho and sigma against a plain
 * transcription of umap-learn's smooth_knn_dist and hand-worked rows, the row sums at log2(k),
 * self entries, the bipartite mode, local_connectivity 0, rows of duplicates, missing neighbours,
 * the fuzzy union against a dense computation (symmetric to the bit, no zeros, columns sorted),
 * the bad inputs, and on a GPU the CUDA memberships against the CPU's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/fuzzy_set.h"
#include "kernels/knn.h"
#include "tests/testutil.h"

/* ---- the reference: umap-learn's smooth_knn_dist and membership rule, written out plainly ---- */

typedef struct {
    double *rho, *sigma, *mid; /* mid: sigma before the floor */
    int *converged;            /* the search met the tolerance */
    double mean_all;
} reference;

static reference ref_smooth(const int32_t *nn, const float *dist, int64_t n, int k, double lc)
{
    reference r = {malloc(sizeof(double) * n), malloc(sizeof(double) * n),
                   malloc(sizeof(double) * n), malloc(sizeof(int) * n), 0};
    double total = 0;
    long count = 0;
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            if (nn[i * k + j] != -1) {
                total += dist[i * k + j];
                count++;
            }
    r.mean_all = count ? total / count : 0;
    double *nz = malloc(sizeof(double) * k);
    const double target = log2(k);
    for (int64_t i = 0; i < n; i++) {
        int m = 0, listed = 0;
        double row_sum = 0;
        for (int j = 0; j < k; j++) {
            if (nn[i * k + j] == -1) continue;
            listed++;
            row_sum += dist[i * k + j];
            if (dist[i * k + j] > 0) nz[m++] = dist[i * k + j];
        }
        double rho = 0;
        if (m >= lc) {
            int index = (int)floor(lc);
            double interpolation = lc - index;
            if (index > 0) {
                rho = nz[index - 1];
                if (interpolation > 1e-5) rho += interpolation * (nz[index] - nz[index - 1]);
            } else {
                rho = interpolation * nz[0];
            }
        } else if (m > 0) {
            for (int q = 0; q < m; q++)
                if (nz[q] > rho) rho = nz[q];
        }
        double lo = 0, hi = INFINITY, mid = 1;
        r.converged[i] = 0;
        for (int it = 0; it < 64; it++) {
            double psum = 0;
            for (int j = 1; j < k; j++) {
                if (nn[i * k + j] == -1) continue;
                double d = dist[i * k + j] - rho;
                if (d > 0)
                    psum += exp(-(d / mid));
                else
                    psum += 1.0;
            }
            if (fabs(psum - target) < 1e-5) {
                r.converged[i] = 1;
                break;
            }
            if (psum > target) {
                hi = mid;
                mid = (lo + hi) / 2.0;
            } else {
                lo = mid;
                if (hi == INFINITY)
                    mid *= 2;
                else
                    mid = (lo + hi) / 2.0;
            }
        }
        double sigma = mid;
        if (rho > 0) {
            if (sigma < 1e-3 * (row_sum / listed)) sigma = 1e-3 * (row_sum / listed);
        } else if (sigma < 1e-3 * r.mean_all) {
            sigma = 1e-3 * r.mean_all;
        }
        r.rho[i] = rho;
        r.sigma[i] = sigma;
        r.mid[i] = mid;
    }
    free(nz);
    return r;
}

static void ref_free(reference *r)
{
    free(r->rho);
    free(r->sigma);
    free(r->mid);
    free(r->converged);
}

static double ref_membership(int32_t index, float d, int64_t i, double rho, double sigma,
                             int bipartite)
{
    if (index == -1) return 0;
    if (!bipartite && index == i) return 0;
    if (d - rho <= 0 || sigma == 0) return 1;
    return exp(-((d - rho) / sigma));
}

/* A self-kNN of n uniform points in [0, 1]^dim (malloc'd index and distances). */
static void random_knn(int64_t n, int dim, int k, uint64_t seed, int32_t **nn, float **dist)
{
    float *x = malloc(sizeof(float) * n * dim);
    tu_fill_uniform_f(x, (size_t)(n * dim), 0, 1, seed);
    *nn = malloc(sizeof(int32_t) * n * k);
    *dist = malloc(sizeof(float) * n * k);
    TU_CHECK_OK(knn_cpu(x, (size_t)n, x, (size_t)n, (size_t)dim, (size_t)k, *nn, *dist));
    free(x);
}

/* Runs fuzzy_memberships_cpu and compares rho, sigma and every membership with the reference. */
static void check_against_reference(const int32_t *nn, const float *dist, int64_t n, int k,
                                    double lc, int bipartite, double *rho, double *sigma,
                                    double *w, reference *r)
{
    TU_CHECK_OK(fuzzy_memberships_cpu(nn, dist, n, k, lc, bipartite, rho, sigma, w));
    *r = ref_smooth(nn, dist, n, k, lc);
    for (int64_t i = 0; i < n; i++) {
        ck_assert_msg(rho[i] == r->rho[i], "rho[%lld] = %.17g, want %.17g", (long long)i, rho[i],
                      r->rho[i]);
        ck_assert_msg(tu_rel_error_1(sigma[i], r->sigma[i]) <= 1e-14,
                      "sigma[%lld] = %.17g, want %.17g", (long long)i, sigma[i], r->sigma[i]);
        for (int j = 0; j < k; j++) {
            const double want = ref_membership(nn[i * k + j], dist[i * k + j], i, r->rho[i],
                                               r->sigma[i], bipartite);
            ck_assert_msg(fabs(w[i * k + j] - want) <= 1e-14, "w[%lld][%d] = %.17g, want %.17g",
                          (long long)i, j, w[i * k + j], want);
        }
    }
}

START_TEST(rho_by_hand)
{
    /* one row, k = 5: distances 0, 0, 1, 2, 3 (the point, a duplicate, three others) */
    const int32_t nn[5] = {0, 1, 2, 3, 4};
    const float dist[5] = {0, 0, 1, 2, 3};
    const double lcs[] = {1, 1.5, 2, 0.5, 3, 3.5, 0, 1 + 1e-6, 2.25};
    const double want[] = {1, 1.5, 2, 0.5, 3, 3, 0, 1, 2.25};
    double rho, sigma, w[5];
    for (size_t t = 0; t < sizeof lcs / sizeof *lcs; t++) {
        TU_CHECK_OK(fuzzy_memberships_cpu(nn, dist, 1, 5, lcs[t], 0, &rho, &sigma, w));
        ck_assert_msg(rho == want[t], "local_connectivity %g: rho %.17g, want %g", lcs[t], rho,
                      want[t]);
    }

    /* k = 3, distances 0, 1, 2 with rho 1: 1 + exp(-1 / sigma) = log2(3) */
    const int32_t nn3[3] = {0, 1, 2};
    const float d3[3] = {0, 1, 2};
    double w3[3];
    TU_CHECK_OK(fuzzy_memberships_cpu(nn3, d3, 1, 3, 1.0, 0, &rho, &sigma, w3));
    const double exact = -1 / log(log2(3.0) - 1);
    ck_assert_double_eq(rho, 1.0);
    ck_assert_msg(fabs(sigma - exact) < 1e-4, "sigma %.10g, want %.10g", sigma, exact);
    ck_assert_double_eq(w3[0], 0.0); /* the point itself */
    ck_assert_double_eq(w3[1], 1.0); /* the nearest at a positive distance */
    ck_assert_double_eq_tol(w3[1] + w3[2], log2(3.0), 1e-5);
}
END_TEST

START_TEST(rows_match_reference_and_sum_to_log2k)
{
    const int64_t n = 300;
    const int k = 15;
    int32_t *nn;
    float *dist;
    random_knn(n, 6, k, 11, &nn, &dist);
    double *rho = malloc(sizeof(double) * n), *sigma = malloc(sizeof(double) * n);
    double *w = malloc(sizeof(double) * n * k);
    reference r;
    check_against_reference(nn, dist, n, k, 1.0, 0, rho, sigma, w, &r);
    int n_checked = 0;
    for (int64_t i = 0; i < n; i++) {
        ck_assert_int_eq(nn[i * k], (int)i); /* distinct points: each is its own first */
        ck_assert_double_eq(w[i * k], 0.0);
        ck_assert_double_eq(rho[i], dist[i * k + 1]);
        ck_assert_double_eq(w[i * k + 1], 1.0);
        double sum = 0;
        for (int j = 1; j < k; j++) {
            ck_assert(w[i * k + j] > 0 && w[i * k + j] <= 1);
            sum += w[i * k + j];
        }
        if (r.converged[i] && sigma[i] == r.mid[i]) {
            ck_assert_msg(fabs(sum - log2(k)) < 1e-4, "row %lld sums to %.10g, want log2(%d)",
                          (long long)i, sum, k);
            n_checked++;
        }
    }
    ck_assert_int_ge(n_checked, 295);
    ref_free(&r);

    /* local_connectivity 1.5 and 3 go through the interpolation and the later neighbours */
    check_against_reference(nn, dist, n, k, 1.5, 0, rho, sigma, w, &r);
    for (int64_t i = 0; i < n; i++) ck_assert(rho[i] > dist[i * k + 1] && rho[i] < dist[i * k + 2]);
    ref_free(&r);
    check_against_reference(nn, dist, n, k, 3.0, 0, rho, sigma, w, &r);
    for (int64_t i = 0; i < n; i++) ck_assert_double_eq(rho[i], dist[i * k + 3]);
    ref_free(&r);

    /* local_connectivity 0: rho 0, sigma floored at 1e-3 x the mean of all distances */
    check_against_reference(nn, dist, n, k, 0.0, 0, rho, sigma, w, &r);
    for (int64_t i = 0; i < n; i++) {
        ck_assert_double_eq(rho[i], 0.0);
        ck_assert(sigma[i] >= 1e-3 * r.mean_all);
        ck_assert_double_eq(w[i * k], 0.0);
        for (int j = 1; j < k; j++) ck_assert(w[i * k + j] < 1 && w[i * k + j] > 0);
    }
    ref_free(&r);
    free(nn);
    free(dist);
    free(rho);
    free(sigma);
    free(w);
}
END_TEST

START_TEST(bipartite)
{
    /* queries near the first 40 of 100 reference points: query i's nearest is reference i */
    const int64_t n_refs = 100, n = 40;
    const int dim = 4, k = 8;
    float *refs = malloc(sizeof(float) * n_refs * dim), *q = malloc(sizeof(float) * n * dim);
    tu_fill_uniform_f(refs, (size_t)(n_refs * dim), 0, 1, 5);
    for (int64_t i = 0; i < n * dim; i++) q[i] = refs[i] + 1e-4f;
    int32_t nn[40 * 8];
    float dist[40 * 8];
    TU_CHECK_OK(knn_cpu(q, (size_t)n, refs, (size_t)n_refs, dim, k, nn, dist));
    double rho[40], sigma[40], w[40 * 8], w0[40 * 8];
    reference r;
    check_against_reference(nn, dist, n, k, 1.0, 1, rho, sigma, w, &r);
    ref_free(&r);
    int beyond_n = 0;
    for (int64_t i = 0; i < n; i++) {
        ck_assert_int_eq(nn[i * k], (int)i);
        ck_assert(dist[i * k] > 0);
        ck_assert_double_eq(w[i * k], 1.0); /* not the point's own entry: the nearest, 1 */
        for (int j = 0; j < k; j++) beyond_n += nn[i * k + j] >= n;
    }
    ck_assert_int_gt(beyond_n, 0); /* indices past n are fine in bipartite mode */
    /* the same rows as a self-kNN: the entry at index i becomes 0, the others stay */
    TU_CHECK_OK(fuzzy_memberships_cpu(nn, dist, n, k, 1.0, 0, rho, sigma, w0));
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < k; j++)
            ck_assert_double_eq(w0[i * k + j], nn[i * k + j] == i ? 0.0 : w[i * k + j]);

    /* a self-kNN in bipartite mode: the point's own entry (distance 0) gets 1 */
    int32_t *sn;
    float *sd;
    random_knn(50, 3, 6, 8, &sn, &sd);
    double srho[50], ssigma[50], sw[50 * 6];
    check_against_reference(sn, sd, 50, 6, 1.0, 1, srho, ssigma, sw, &r);
    ref_free(&r);
    for (int i = 0; i < 50; i++) ck_assert_double_eq(sw[i * 6], 1.0);
    free(sn);
    free(sd);
    free(refs);
    free(q);
}
END_TEST

START_TEST(duplicates_and_missing)
{
    /* points 0..3 coincide, point 4 is 5 away, the last column missing (a distance of 99 that
     * must count nowhere): rows of zeros get rho 0 and the floor of all listed distances (15 over
     * 20), row 4 has rho 5 and the floor of its own row (15 over 4); with three terms of 1 against
     * log2(5) every search ran 64 halvings */
    const int32_t nn[5 * 5] = {0, 1, 2, 3, -1, /**/ 1, 0, 2, 3, -1, /**/ 2, 0, 1, 3, -1,
                               /**/ 3, 0, 1, 2, -1, /**/ 4, 0, 1, 2, -1};
    float dist[5 * 5] = {0};
    for (int i = 0; i < 5; i++) dist[i * 5 + 4] = 99;
    dist[21] = dist[22] = dist[23] = 5;
    double rho[5], sigma[5], w[25];
    reference r;
    check_against_reference(nn, dist, 5, 5, 1.0, 0, rho, sigma, w, &r);
    ck_assert_double_eq(r.mean_all, 0.75);
    ref_free(&r);
    double mean;
    TU_CHECK_OK(fuzzy_memberships_check(nn, dist, 5, 5, 1.0, rho, sigma, w, &mean));
    ck_assert_double_eq(mean, 0.75);
    for (int i = 0; i < 4; i++) {
        ck_assert_double_eq(rho[i], 0.0);
        ck_assert_double_eq(sigma[i], 1e-3 * 0.75);
    }
    ck_assert_double_eq(rho[4], 5.0);
    ck_assert_double_eq(sigma[4], 1e-3 * 3.75);
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            ck_assert_double_eq(w[i * 5 + j], j == 0 || j == 4 ? 0.0 : 1.0);

    /* every distance 0: no floor at all, sigma = 2^-64 after 64 halvings, memberships 1 */
    const float zero[5 * 5] = {0};
    TU_CHECK_OK(fuzzy_memberships_cpu(nn, zero, 5, 5, 1.0, 0, rho, sigma, w));
    for (int i = 0; i < 5; i++) {
        ck_assert_double_eq(rho[i], 0.0);
        ck_assert_double_eq(sigma[i], ldexp(1.0, -64));
        for (int j = 0; j < 5; j++)
            ck_assert_double_eq(w[i * 5 + j], j == 0 || j == 4 ? 0.0 : 1.0);
    }

    /* a missing neighbour (-1): its distance is never read, its membership is 0 */
    int32_t *mn;
    float *md;
    const int64_t n = 60;
    const int k = 7;
    random_knn(n, 3, k, 21, &mn, &md);
    mn[4 * k + 6] = -1;
    mn[9 * k + 3] = -1;
    mn[10 * k + 0] = -1; /* the point's own entry */
    for (int j = 1; j < k; j++) mn[20 * k + j] = -1; /* only itself left */
    mn[30 * k + 1] = -1; /* the nearest gone: rho from the next */
    md[30 * k + 1] = 1e-6f;
    double *rho_a = malloc(sizeof(double) * n), *sig_a = malloc(sizeof(double) * n);
    double *rho_b = malloc(sizeof(double) * n), *sig_b = malloc(sizeof(double) * n);
    double *wa = malloc(sizeof(double) * n * k), *wb = malloc(sizeof(double) * n * k);
    md[4 * k + 6] = NAN;
    md[9 * k + 3] = -7;
    check_against_reference(mn, md, n, k, 1.0, 0, rho_a, sig_a, wa, &r);
    ck_assert_double_eq(r.rho[20], 0.0);
    ref_free(&r);
    md[4 * k + 6] = 1e30f;
    md[9 * k + 3] = 0;
    md[30 * k + 1] = 0.5f;
    TU_CHECK_OK(fuzzy_memberships_cpu(mn, md, n, k, 1.0, 0, rho_b, sig_b, wb));
    for (int64_t i = 0; i < n; i++) {
        ck_assert_double_eq(rho_a[i], rho_b[i]);
        ck_assert_double_eq(sig_a[i], sig_b[i]);
    }
    for (int64_t q = 0; q < n * k; q++) {
        ck_assert_double_eq(wa[q], wb[q]);
        if (mn[q] == -1) ck_assert_double_eq(wa[q], 0.0);
    }
    /* row 4 lost its farthest neighbour: rho unchanged, the search over one term fewer */
    ck_assert_double_eq(rho_a[4], md[4 * k + 1]);
    ck_assert_double_eq(rho_a[30], md[30 * k + 2]);
    free(mn);
    free(md);
    free(rho_a);
    free(sig_a);
    free(rho_b);
    free(sig_b);
    free(wa);
    free(wb);
}
END_TEST

static double stored(const fuzzy_graph *g, int64_t i, int64_t j)
{
    for (int64_t p = g->row_ptr[i]; p < g->row_ptr[i + 1]; p++)
        if (g->col[p] == j) return g->val[p];
    return 0;
}

/* CSR well formed, columns strictly ascending, no zeros, W == W^T to the bit */
static void check_graph_shape(const fuzzy_graph *g)
{
    ck_assert_int_eq(g->row_ptr[0], 0);
    ck_assert_int_eq(g->row_ptr[g->n], g->nnz);
    for (int64_t i = 0; i < g->n; i++) {
        ck_assert_int_le(g->row_ptr[i], g->row_ptr[i + 1]);
        for (int64_t p = g->row_ptr[i]; p < g->row_ptr[i + 1]; p++) {
            ck_assert(g->val[p] > 0 && g->val[p] <= 1);
            if (p > g->row_ptr[i]) ck_assert_int_lt(g->col[p - 1], g->col[p]);
            const double back = stored(g, g->col[p], i);
            ck_assert_msg(back == g->val[p], "W[%lld][%d] = %.17g but W[%d][%lld] = %.17g",
                          (long long)i, g->col[p], g->val[p], g->col[p], (long long)i, back);
        }
    }
}

START_TEST(union_by_hand)
{
    /* A_01 = A_10 = 0.5 (mutual), A_12 = 0.2 (one way), A_20 = 1; -1 entries carry garbage */
    const int32_t nn[3 * 2] = {1, -1, /**/ 0, 2, /**/ 0, -1};
    const double m[3 * 2] = {0.5, NAN, /**/ 0.5, 0.2, /**/ 1.0, 7.0};
    fuzzy_graph g;
    TU_CHECK_OK(fuzzy_union_cpu(nn, m, 3, 2, &g));
    const double want[3][3] = {{0, 0.75, 1}, {0.75, 0, 0.2}, {1, 0.2, 0}};
    ck_assert_int_eq(g.n, 3);
    ck_assert_int_eq(g.nnz, 6);
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 3; j++) ck_assert_double_eq(stored(&g, i, j), want[i][j]);
    check_graph_shape(&g);
    fuzzy_graph_free(&g);
    fuzzy_graph_free(&g); /* a freed graph is accepted */
    fuzzy_graph_free(NULL);
}
END_TEST

START_TEST(union_matches_dense)
{
    const int64_t n = 40;
    const int k = 6;
    int32_t *nn;
    float *dist;
    random_knn(n, 2, k, 31, &nn, &dist);
    double rho[40], sigma[40], w[40 * 6];
    TU_CHECK_OK(fuzzy_memberships_cpu(nn, dist, n, k, 1.0, 0, rho, sigma, w));
    /* a repeated column (the larger value kept), a zero entry, a missing one, a self loop */
    nn[3 * k + 5] = nn[3 * k + 2];
    w[3 * k + 5] = 0.25;
    nn[7 * k + 4] = nn[7 * k + 1];
    w[7 * k + 4] = 0.0;
    nn[8 * k + 3] = -1;
    w[11 * k + 0] = 0.5; /* nn[11 * k] == 11: a diagonal entry, as a bipartite use could give */
    w[12 * k + 2] = 0.0;
    double *A = calloc((size_t)(n * n), sizeof(double));
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < k; c++) {
            const int32_t j = nn[i * k + c];
            if (j != -1 && w[i * k + c] > A[i * n + j]) A[i * n + j] = w[i * k + c];
        }
    fuzzy_graph g;
    TU_CHECK_OK(fuzzy_union_cpu(nn, w, n, k, &g));
    ck_assert_int_eq(g.n, n);
    int64_t nnz = 0;
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) {
            const double a = A[i * n + j], b = A[j * n + i];
            const double want = a + b - a * b;
            nnz += want != 0;
            ck_assert_msg(stored(&g, i, j) == want, "W[%lld][%lld] = %.17g, want %.17g",
                          (long long)i, (long long)j, stored(&g, i, j), want);
        }
    ck_assert_int_eq(g.nnz, nnz);
    ck_assert_double_eq(stored(&g, 11, 11), 0.75);
    ck_assert(nnz > n * (k - 1)); /* more entries than A alone: not every pair is mutual */
    check_graph_shape(&g);
    fuzzy_graph_free(&g);
    ck_assert_ptr_null(g.row_ptr);
    free(A);
    free(nn);
    free(dist);
}
END_TEST

START_TEST(bad_arguments)
{
    const int32_t nn[2 * 2] = {0, 1, 1, 0};
    const float d[2 * 2] = {0, 1, 0, 1};
    double rho[2], sigma[2], w[4];
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 2, 1, 1.0, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "fuzzy set"));
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 0, 2, 1.0, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 2, 2, -0.5, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 2, 2, NAN, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(NULL, d, 2, 2, 1.0, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, NULL, 2, 2, 1.0, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 2, 2, 1.0, 0, NULL, sigma, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 2, 2, 1.0, 0, rho, NULL, w), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_memberships_cpu(nn, d, 2, 2, 1.0, 0, rho, sigma, NULL), GMM_ERR_ARG);
    const int32_t nn_neg[4] = {0, -2, 1, 0};
    ck_assert_int_eq(fuzzy_memberships_cpu(nn_neg, d, 2, 2, 1.0, 0, rho, sigma, w), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "-2"));
    const float bad_d[3][4] = {{0, -1, 0, 1}, {0, NAN, 0, 1}, {0, INFINITY, 0, 1}};
    for (int t = 0; t < 3; t++)
        ck_assert_int_eq(fuzzy_memberships_cpu(nn, bad_d[t], 2, 2, 1.0, 0, rho, sigma, w),
                         GMM_ERR_ARG);
    const int32_t nn_missing[4] = {0, -1, 1, 0}; /* a NaN behind a -1 is never read */
    TU_CHECK_OK(fuzzy_memberships_cpu(nn_missing, bad_d[1], 2, 2, 1.0, 0, rho, sigma, w));
    TU_CHECK_OK(fuzzy_memberships_cpu(nn, d, 2, 2, 1e9, 0, rho, sigma, w)); /* rho = max */
    ck_assert_double_eq(rho[0], 1.0);

    fuzzy_graph g;
    const double m[4] = {0, 0.5, 0, 0.5};
    const int32_t out_of_range[4] = {0, 2, 1, 0};
    ck_assert_int_eq(fuzzy_union_cpu(out_of_range, m, 2, 2, &g), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "out of range"));
    ck_assert_ptr_null(g.row_ptr);
    ck_assert_int_eq(fuzzy_union_cpu(nn_neg, m, 2, 2, &g), GMM_ERR_ARG);
    const double m_big[4] = {0, 1.5, 0, 0.5}, m_nan[4] = {0, NAN, 0, 0.5};
    ck_assert_int_eq(fuzzy_union_cpu(nn, m_big, 2, 2, &g), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_union_cpu(nn, m_nan, 2, 2, &g), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_union_cpu(nn, m, 2, 2, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_union_cpu(NULL, m, 2, 2, &g), GMM_ERR_ARG);
    ck_assert_int_eq(fuzzy_union_cpu(nn, m, 0, 2, &g), GMM_ERR_ARG);
    TU_CHECK_OK(fuzzy_union_cpu(nn, m, 2, 2, &g));
    ck_assert_int_eq(g.nnz, 2);
    ck_assert_double_eq(stored(&g, 0, 1), 0.75);
    fuzzy_graph_free(&g);
}
END_TEST

/* max_q |a_q - b_q| / |b_q| (|b_q| floored at 1e-300) */
static double max_rel(const double *a, const double *b, int64_t n)
{
    double worst = 0;
    for (int64_t q = 0; q < n; q++) {
        const double e = tu_rel_error_1(a[q], b[q]);
        if (!(e <= worst)) worst = e;
    }
    return worst;
}

START_TEST(cuda_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const int64_t n = 3000;
    const int k = 15;
    int32_t *nn;
    float *dist;
    {
        /* points 0..5 coincide (rows of zeros), some neighbours missing */
        const int dim = 10;
        float *x = malloc(sizeof(float) * n * dim);
        tu_fill_uniform_f(x, (size_t)(n * dim), 0, 1, 77);
        for (int i = 0; i < 5; i++) memcpy(x + i * dim, x + 5 * dim, sizeof(float) * dim);
        nn = malloc(sizeof(int32_t) * n * k);
        dist = malloc(sizeof(float) * n * k);
        TU_CHECK_OK(knn_cpu(x, (size_t)n, x, (size_t)n, dim, k, nn, dist));
        free(x);
        for (int64_t i = 100; i < 200; i += 7) {
            nn[i * k + (i % k)] = -1;
            dist[i * k + (i % k)] = i % 2 ? NAN : 1e-6f; /* never read */
        }
    }
    double *rho_c = malloc(sizeof(double) * n), *sig_c = malloc(sizeof(double) * n);
    double *rho_g = malloc(sizeof(double) * n), *sig_g = malloc(sizeof(double) * n);
    double *w_c = malloc(sizeof(double) * n * k), *w_g = malloc(sizeof(double) * n * k);
    const double lcs[3] = {1.0, 0.0, 1.5};
    for (int t = 0; t < 3; t++)
        for (int bip = 0; bip <= 1; bip++) {
            TU_CHECK_OK(fuzzy_memberships_cpu(nn, dist, n, k, lcs[t], bip, rho_c, sig_c, w_c));
            tu_poison(rho_g, n);
            tu_poison(sig_g, n);
            tu_poison(w_g, n * k);
            TU_CHECK_OK(fuzzy_memberships_cuda(nn, dist, n, k, lcs[t], bip, rho_g, sig_g, w_g));
            ck_assert_msg(max_rel(rho_g, rho_c, n) <= 1e-10, "rho, lc %g", lcs[t]);
            ck_assert_msg(max_rel(sig_g, sig_c, n) <= 1e-10, "sigma, lc %g: %g", lcs[t],
                          max_rel(sig_g, sig_c, n));
            ck_assert_msg(max_rel(w_g, w_c, n * k) <= 1e-10, "memberships, lc %g: %g", lcs[t],
                          max_rel(w_g, w_c, n * k));
            /* row 0 lists itself and its 5 copies at distance 0 first */
            ck_assert_double_eq(w_g[0], bip ? 1.0 : 0.0);
            for (int j = 1; j < 6; j++) ck_assert_double_eq(w_g[j], 1.0);
            if (lcs[t] != 1.5) ck_assert_double_eq(rho_g[0], lcs[t] == 0 ? 0.0 : dist[6]);
        }
    ck_assert_int_eq(fuzzy_memberships_cuda(nn, dist, n, 1, 1.0, 0, rho_g, sig_g, w_g),
                     GMM_ERR_ARG);
    free(nn);
    free(dist);
    free(rho_c);
    free(sig_c);
    free(rho_g);
    free(sig_g);
    free(w_c);
    free(w_g);
}
END_TEST

static Suite *fuzzy_set_suite(void)
{
    Suite *s = suite_create("k_fuzzy_set");
    TCase *tc = tcase_create("fuzzy_set");
    tcase_add_test(tc, rho_by_hand);
    tcase_add_test(tc, rows_match_reference_and_sum_to_log2k);
    tcase_add_test(tc, bipartite);
    tcase_add_test(tc, duplicates_and_missing);
    tcase_add_test(tc, union_by_hand);
    tcase_add_test(tc, union_matches_dense);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, cuda_matches_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(fuzzy_set_suite()); }
