/* Check suite for UMAP's layout SGD and its curve (kernels/umap_sgd.h): umap_find_ab against
 * scipy's curve_fit (umap-learn's find_ab_params); one head against one tail worked through
 * umap-learn's schedule by hand; a small graph against a float64 reference written from
 * umap-learn's loop; two cliques pulled apart (dim 2 and 10); the same bytes for the same seed on
 * 1 and 4 threads, other bytes for another seed; a new point placed by the transform next to the
 * group it is joined to, the tails untouched; the bad arguments; on a GPU, the CUDA twin
 * deterministic, equal to the CPU over its first sampling epoch, and separating the cliques. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/umap_sgd.h"
#include "kernels/umap_sgd_epoch.h"
#include "tests/testutil.h"

/* A CSR graph the test owns. */
typedef struct {
    umap_edges e;
    int64_t *row_ptr;
    int32_t *col;
    double *weight;
} graph;

static void graph_free(graph *g) { free(g->row_ptr), free(g->col), free(g->weight); }

/* Two cliques of n points each (0 .. n-1 and n .. 2n-1), every edge of weight 1, none between. */
static graph two_cliques(int n)
{
    graph g;
    const int64_t N = 2 * n, nnz = N * (n - 1);
    g.row_ptr = malloc(sizeof(int64_t) * (N + 1));
    g.col = malloc(sizeof(int32_t) * nnz);
    g.weight = malloc(sizeof(double) * nnz);
    int64_t p = 0;
    for (int64_t i = 0; i < N; i++) {
        g.row_ptr[i] = p;
        const int64_t base = i < n ? 0 : n;
        for (int64_t j = base; j < base + n; j++)
            if (j != i) g.col[p] = (int32_t)j, g.weight[p++] = 1.0;
    }
    g.row_ptr[N] = p;
    g.e = (umap_edges){N, N, g.row_ptr, g.col, g.weight};
    return g;
}

/* Each point joined to k random others with weights in (0, 1], then the fuzzy union a + b - ab
 * (symmetric, columns ascending). */
static graph random_graph(int64_t n, int k, uint64_t seed)
{
    uint64_t s = seed;
    double *dense = calloc((size_t)(n * n), sizeof(double));
    for (int64_t i = 0; i < n; i++)
        for (int q = 0; q < k; q++) {
            int64_t j = (int64_t)(tu_rand_u64(&s) % (uint64_t)n);
            if (j != i) dense[i * n + j] = 0.05 + 0.95 * tu_rand_uniform(&s);
        }
    graph g;
    g.row_ptr = malloc(sizeof(int64_t) * (n + 1));
    g.col = malloc(sizeof(int32_t) * n * 2 * k);
    g.weight = malloc(sizeof(double) * n * 2 * k);
    int64_t p = 0;
    for (int64_t i = 0; i < n; i++) {
        g.row_ptr[i] = p;
        for (int64_t j = 0; j < n; j++) {
            const double a = dense[i * n + j], b = dense[j * n + i], w = a + b - a * b;
            if (w > 0) g.col[p] = (int32_t)j, g.weight[p++] = w;
        }
    }
    g.row_ptr[n] = p;
    free(dense);
    g.e = (umap_edges){n, n, g.row_ptr, g.col, g.weight};
    return g;
}

static umap_sgd_options default_options(int n_epochs, uint64_t seed)
{
    umap_sgd_options o = {0};
    o.a = 1.5769434601962196, o.b = 0.8950608779914887; /* min_dist 0.1, spread 1 */
    o.n_epochs = n_epochs;
    o.seed = seed;
    return o;
}

/* ---- the curve -------------------------------------------------------------------------- */

START_TEST(find_ab_matches_scipy)
{
    /* scipy.optimize.curve_fit (scipy 1.10.1, numpy 1.24.2) on umap-learn's find_ab_params */
    const struct { double spread, min_dist, a, b; } ref[] = {
        {1.0, 0.1, 1.5769434601962196, 0.8950608779914887},
        {1.0, 0.0, 1.9328083975546724, 0.7904949734010681},
        {1.0, 0.5, 0.583030020479462, 1.3341669929263487},
        {1.0, 0.001, 1.9290733952004866, 0.7915045329560677},
        {2.0, 0.3, 0.3794946888755375, 0.9488152190879922},
        {1.0, 1.0, 0.11497568285252263, 1.9292371466948077},
    };
    for (size_t t = 0; t < sizeof ref / sizeof ref[0]; t++) {
        double a = NAN, b = NAN;
        TU_CHECK_OK(umap_find_ab(ref[t].spread, ref[t].min_dist, &a, &b));
        ck_assert_msg(tu_rel_error_1(a, ref[t].a) < 1e-5 && tu_rel_error_1(b, ref[t].b) < 1e-5,
                      "spread %g min_dist %g: a %.9g b %.9g, scipy %.9g %.9g", ref[t].spread,
                      ref[t].min_dist, a, b, ref[t].a, ref[t].b);
    }
    double a, b;
    ck_assert_int_eq(umap_find_ab(0, 0.1, &a, &b), GMM_ERR_ARG);
    ck_assert_int_eq(umap_find_ab(-1, 0.1, &a, &b), GMM_ERR_ARG);
    ck_assert_int_eq(umap_find_ab(1, -0.1, &a, &b), GMM_ERR_ARG);
    ck_assert_int_eq(umap_find_ab(1, 1.5, &a, &b), GMM_ERR_ARG);
    ck_assert_int_eq(umap_find_ab(NAN, 0.1, &a, &b), GMM_ERR_ARG);
    ck_assert_int_eq(umap_find_ab(1, 0.1, NULL, &b), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "umap sgd"));
}
END_TEST

/* ---- the schedule and the gradients against references ----------------------------------- */

static float clip4(double g) { return (float)(g > 4 ? 4 : g < -4 ? -4 : g); }

START_TEST(one_head_one_tail_by_hand)
{
    /* One new point at 0 joined to one tail at 1 (dim 1, weight 1): every negative sample is the
     * tail. umap-learn's schedule: epochs_per_sample 1, negative every 0.2; epoch 0 samples
     * nothing, epoch n >= 1 samples the edge and int((n - next_neg) / 0.2) negatives. */
    const int64_t rp[2] = {0, 1};
    const int32_t col[1] = {0};
    const double w[1] = {0.7};
    const umap_edges e = {1, 1, rp, col, w};
    const float tail[1] = {1.0f};
    for (int n_epochs = 1; n_epochs <= 6; n_epochs++) {
        umap_sgd_options o = default_options(n_epochs, 5);
        o.gamma = 0.5;
        float head[1] = {0.0f};
        TU_CHECK_OK(umap_sgd_cpu(&e, head, tail, 1, &o));
        const double a = o.a, b = o.b;
        double x = 0, next = 1, next_neg = 0.2;
        int total_neg = 0;
        for (int n = 0; n < n_epochs; n++) {
            const double alpha = 1.0 * (1.0 - (double)n / n_epochs);
            if (next > n) continue;
            double d2 = (x - 1) * (x - 1);
            x += clip4(-2 * a * b * pow(d2, b - 1) / (a * pow(d2, b) + 1) * (x - 1)) * alpha;
            next += 1;
            const int n_neg = (int)((n - next_neg) / 0.2);
            for (int s = 0; s < n_neg; s++) {
                d2 = (x - 1) * (x - 1);
                x += clip4(2 * 0.5 * b / ((0.001 + d2) * (a * pow(d2, b) + 1)) * (x - 1)) * alpha;
            }
            next_neg += n_neg * 0.2;
            total_neg += n_neg;
        }
        if (n_epochs == 1) ck_assert_float_eq(head[0], 0.0f); /* epoch 0 moves nothing */
        if (n_epochs == 2) ck_assert_int_eq(total_neg, 4); /* the first sample has 4 */
        ck_assert_msg(fabs(head[0] - x) < 1e-5, "%d epochs: %.8g, by hand %.8g", n_epochs,
                      head[0], x);
    }
}
END_TEST

/* umap-learn's loop in float64 over the heads with this library's snapshot, factor 2 and picks. */
static void reference_layout(const umap_edges *e, double *y, int dim, const umap_sgd_options *o)
{
    const int64_t n = e->n_heads, nnz = e->row_ptr[n];
    double max_w = 0, *eps = malloc(sizeof(double) * nnz), *next = malloc(sizeof(double) * nnz);
    double *next_neg = malloc(sizeof(double) * nnz), *snap = malloc(sizeof(double) * n * dim);
    for (int64_t p = 0; p < nnz; p++) max_w = fmax(max_w, e->weight[p]);
    for (int64_t p = 0; p < nnz; p++) eps[p] = next[p] = max_w / e->weight[p];
    for (int64_t p = 0; p < nnz; p++) next_neg[p] = eps[p] / 5;
    const double a = o->a, b = o->b;
    for (int ep = 0; ep < o->n_epochs; ep++) {
        const double alpha = (float)(1.0 - (double)ep / o->n_epochs);
        memcpy(snap, y, sizeof(double) * n * dim);
        for (int64_t i = 0; i < n; i++) {
            double *cur = y + i * dim;
            for (int64_t p = e->row_ptr[i]; p < e->row_ptr[i + 1]; p++) {
                if (next[p] > ep) continue;
                const double *oth = snap + (int64_t)e->col[p] * dim;
                double d2 = 0;
                for (int d = 0; d < dim; d++) d2 += (cur[d] - oth[d]) * (cur[d] - oth[d]);
                const double c = d2 > 0 ? -2 * a * b * pow(d2, b - 1) / (a * pow(d2, b) + 1) : 0;
                for (int d = 0; d < dim; d++) cur[d] += 2 * clip4(c * (cur[d] - oth[d])) * alpha;
                next[p] += eps[p];
                const int n_neg = (int)((ep - next_neg[p]) / (eps[p] / 5));
                const uint64_t key = usgd_edge_key(usgd_mix(o->seed), ep, p);
                for (int s = 0; s < n_neg; s++) {
                    const int64_t k = usgd_pick(usgd_mix(key ^ (uint64_t)s), n);
                    if (k == i) continue;
                    oth = snap + k * dim;
                    d2 = 0;
                    for (int d = 0; d < dim; d++) d2 += (cur[d] - oth[d]) * (cur[d] - oth[d]);
                    if (d2 <= 0) continue;
                    const double r = 2 * b / ((0.001 + d2) * (a * pow(d2, b) + 1));
                    for (int d = 0; d < dim; d++) cur[d] += clip4(r * (cur[d] - oth[d])) * alpha;
                }
                next_neg[p] += n_neg * (eps[p] / 5);
            }
        }
    }
    free(eps), free(next), free(next_neg), free(snap);
}

START_TEST(small_graph_against_reference)
{
    graph g = random_graph(40, 4, 11);
    enum { N = 40, DIM = 3 };
    float y[N * DIM];
    double ref[N * DIM], got[N * DIM];
    tu_fill_uniform_f(y, N * DIM, 0, 10, 12);
    for (int i = 0; i < N * DIM; i++) ref[i] = y[i];
    const umap_sgd_options o = default_options(4, 99);
    TU_CHECK_OK(umap_sgd_cpu(&g.e, y, NULL, DIM, &o));
    reference_layout(&g.e, ref, DIM, &o);
    for (int i = 0; i < N * DIM; i++) got[i] = y[i];
    const double err = tu_rel_error(got, ref, N * DIM);
    ck_assert_msg(err < 1e-5, "4 epochs: relative error %g against the float64 reference", err);
    graph_free(&g);
}
END_TEST

/* ---- layouts ------------------------------------------------------------------------------- */

static gmm_status sgd(int gpu, const umap_edges *e, float *head, const float *tail, int dim,
                      const umap_sgd_options *o)
{
    return gpu ? umap_sgd_cuda(e, head, tail, dim, o) : umap_sgd_cpu(e, head, tail, dim, o);
}

/* The distance between the centroids of points 0 .. n-1 and n .. 2n-1 (*between) and the RMS
 * distance of the points to their own centroid (*within); the centroids in ca, cb if not NULL. */
static void separation(const float *y, int n, int dim, double *between, double *within,
                       double *ca, double *cb)
{
    double c[2][64] = {{0}}, w = 0, b = 0;
    for (int i = 0; i < 2 * n; i++)
        for (int d = 0; d < dim; d++) c[i >= n][d] += y[i * dim + d] / n;
    for (int i = 0; i < 2 * n; i++)
        for (int d = 0; d < dim; d++) w += pow(y[i * dim + d] - c[i >= n][d], 2);
    for (int d = 0; d < dim; d++) b += pow(c[0][d] - c[1][d], 2);
    *between = sqrt(b), *within = sqrt(w / (2 * n));
    if (ca) memcpy(ca, c[0], sizeof(double) * dim);
    if (cb) memcpy(cb, c[1], sizeof(double) * dim);
}

static void check_cliques_separate(int gpu)
{
    graph g = two_cliques(50);
    for (int dim = 2; dim <= 10; dim += 8) {
        float *y = malloc(sizeof(float) * 100 * dim);
        tu_fill_uniform_f(y, 100 * (size_t)dim, 0, 10, 3 + dim);
        double between0, within0, between, within;
        separation(y, 50, dim, &between0, &within0, NULL, NULL);
        const umap_sgd_options o = default_options(200, 1);
        TU_CHECK_OK(sgd(gpu, &g.e, y, NULL, dim, &o));
        for (int i = 0; i < 100 * dim; i++) ck_assert(isfinite(y[i]));
        separation(y, 50, dim, &between, &within, NULL, NULL);
        printf("two cliques, dim %d (%s): centroids %.3g apart, spread %.3g before; %.3g apart, "
               "spread %.3g after\n", dim, gpu ? "GPU" : "CPU", between0, within0, between, within);
        /* each clique a blob of about min_dist's scale (not collapsed: the repulsion works),
         * the two far apart */
        ck_assert_msg(between0 < within0 && between > 8 * within && within > 0.1 && between > 3,
                      "dim %d: centroids %g apart, spread %g", dim, between, within);
        free(y);
    }
    graph_free(&g);
}

START_TEST(two_cliques_separate)
{
    check_cliques_separate(0);
}
END_TEST

START_TEST(deterministic_on_any_threads)
{
    graph g = random_graph(500, 6, 21);
    enum { N = 500, DIM = 2 };
    static float init[N * DIM], y1[N * DIM], y2[N * DIM], y4[N * DIM], other[N * DIM];
    tu_fill_uniform_f(init, N * DIM, 0, 10, 22);
    const umap_sgd_options o = default_options(60, 7), o2 = default_options(60, 8);
#ifdef _OPENMP
    omp_set_num_threads(1);
#endif
    memcpy(y1, init, sizeof init);
    TU_CHECK_OK(umap_sgd_cpu(&g.e, y1, NULL, DIM, &o));
#ifdef _OPENMP
    omp_set_num_threads(4);
#endif
    memcpy(y4, init, sizeof init);
    TU_CHECK_OK(umap_sgd_cpu(&g.e, y4, NULL, DIM, &o));
    memcpy(y2, init, sizeof init);
    TU_CHECK_OK(umap_sgd_cpu(&g.e, y2, NULL, DIM, &o));
    memcpy(other, init, sizeof init);
    TU_CHECK_OK(umap_sgd_cpu(&g.e, other, NULL, DIM, &o2));
    ck_assert_msg(memcmp(y1, y4, sizeof y1) == 0, "1 and 4 threads differ");
    ck_assert_msg(memcmp(y2, y4, sizeof y1) == 0, "two runs differ");
    ck_assert_msg(memcmp(y1, init, sizeof y1) != 0, "nothing moved");
    int differ = 0;
    for (int i = 0; i < N * DIM; i++) differ += y1[i] != other[i];
    ck_assert_msg(differ > N, "another seed changed only %d coordinates", differ);
    graph_free(&g);
}
END_TEST

/* The layout of the two cliques, then two new points: point 0 joined to 10 points of group A and
 * started at B's centroid, point 1 joined to 10 of B and started at A's. */
static void check_transform(int gpu)
{
    enum { DIM = 2 };
    graph g = two_cliques(50);
    float y[100 * DIM];
    tu_fill_uniform_f(y, 100 * DIM, 0, 10, 5);
    umap_sgd_options o = default_options(200, 3);
    TU_CHECK_OK(umap_sgd_cpu(&g.e, y, NULL, DIM, &o));
    double ca[DIM], cb[DIM], ab, spread;
    separation(y, 50, DIM, &ab, &spread, ca, cb);
    double spread_a = 0;
    for (int i = 0; i < 50; i++)
        spread_a += pow(y[2 * i] - ca[0], 2) + pow(y[2 * i + 1] - ca[1], 2);
    spread_a = sqrt(spread_a / 50);

    int64_t rp[3] = {0, 10, 20};
    int32_t col[20];
    double w[20];
    for (int q = 0; q < 10; q++) col[q] = 3 * q, col[10 + q] = 50 + 4 * q;
    for (int q = 0; q < 20; q++) w[q] = 0.5 + 0.05 * q;
    const umap_edges e = {2, 100, rp, col, w};
    float tails[100 * DIM];
    float heads[2 * DIM] = {(float)cb[0], (float)cb[1], (float)ca[0], (float)ca[1]};
    memcpy(tails, y, sizeof y);
    o.n_epochs = 100, o.initial_alpha = 0.25;
    TU_CHECK_OK(sgd(gpu, &e, heads, tails, DIM, &o));
    ck_assert_msg(memcmp(tails, y, sizeof y) == 0, "the tails moved");
    const double to_a = hypot(heads[0] - ca[0], heads[1] - ca[1]);
    const double to_b = hypot(heads[2] - cb[0], heads[3] - cb[1]);
    printf("transform (%s): new points %.3g and %.3g from their groups' centroids (group spread "
           "%.3g, groups %.3g apart)\n", gpu ? "GPU" : "CPU", to_a, to_b, spread_a, ab);
    /* at the group's rim: attracted by 10 of its points with umap-learn's factor 1 (move_other
     * False), pushed by the same negative samples as the group's own points */
    ck_assert_msg(to_a < 3 * spread_a && to_b < 3 * spread_a && to_a < 0.2 * ab && to_b < 0.2 * ab,
                  "new points %g and %g from their centroids (spread %g, groups %g apart)", to_a,
                  to_b, spread_a, ab);
    graph_free(&g);
}

START_TEST(transform_places_new_points)
{
    check_transform(0);
}
END_TEST

START_TEST(bad_arguments)
{
    graph g = two_cliques(5);
    float y[10 * 2] = {0};
    umap_sgd_options o = default_options(10, 1);
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 0, &o), GMM_ERR_ARG);
    o.n_epochs = 0;
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 2, &o), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "n_epochs"));
    o.n_epochs = 10;
    ck_assert_int_eq(umap_sgd_cpu(NULL, y, NULL, 2, &o), GMM_ERR_ARG);
    ck_assert_int_eq(umap_sgd_cpu(&g.e, NULL, NULL, 2, &o), GMM_ERR_ARG);
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 2, NULL), GMM_ERR_ARG);
    o.a = 0;
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 2, &o), GMM_ERR_ARG);
    o = default_options(10, 1);
    g.col[7] = 10; /* one past the last point */
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 2, &o), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "column 10"));
    g.col[7] = -1;
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 2, &o), GMM_ERR_ARG);
    g.col[7] = 2;
    g.weight[3] = NAN;
    ck_assert_int_eq(umap_sgd_cpu(&g.e, y, NULL, 2, &o), GMM_ERR_ARG);
    g.weight[3] = 1;
    umap_edges e = g.e;
    e.n_tails = 9; /* a layout needs n_tails == n_heads */
    ck_assert_int_eq(umap_sgd_cpu(&e, y, NULL, 2, &o), GMM_ERR_ARG);
    e = g.e;
    g.row_ptr[3] = g.row_ptr[4] + 1;
    ck_assert_int_eq(umap_sgd_cpu(&e, y, NULL, 2, &o), GMM_ERR_ARG);
    /* nothing wrong: no edge of positive weight moves nothing */
    graph h = two_cliques(5);
    for (int64_t p = 0; p < h.row_ptr[10]; p++) h.weight[p] = 0;
    float z[20], z0[20];
    tu_fill_uniform_f(z, 20, 0, 1, 4);
    memcpy(z0, z, sizeof z);
    TU_CHECK_OK(umap_sgd_cpu(&h.e, z, NULL, 2, &o));
    ck_assert_int_eq(memcmp(z, z0, sizeof z), 0);
    graph_free(&g);
    graph_free(&h);
}
END_TEST

/* ---- the GPU ------------------------------------------------------------------------------- */

START_TEST(cuda_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    graph g = random_graph(2000, 8, 31);
    enum { N = 2000, DIM = 3 };
    static float init[N * DIM], c1[N * DIM], c2[N * DIM], cpu[N * DIM];
    tu_fill_uniform_f(init, N * DIM, 0, 10, 32);
    /* determinism over a full run */
    umap_sgd_options o = default_options(100, 9);
    memcpy(c1, init, sizeof init);
    memcpy(c2, init, sizeof init);
    TU_CHECK_OK(umap_sgd_cuda(&g.e, c1, NULL, DIM, &o));
    TU_CHECK_OK(umap_sgd_cuda(&g.e, c2, NULL, DIM, &o));
    ck_assert_msg(memcmp(c1, c2, sizeof c1) == 0, "two CUDA runs differ");
    ck_assert_msg(memcmp(c1, init, sizeof c1) != 0, "nothing moved on the GPU");
    /* the first epochs that sample (epoch 1 of 2; epochs 1 and 2 of 3) against the CPU: the
     * GPU's powf differs from the C library's by an ulp or two here and there, which the SGD
     * amplifies (on the CPU, powf moved by one ulp at random gives 1e-7 after 2 epochs, 1e-5
     * after 3, 3e-5 after 4, 1e-3 after 5 and whole units after 10) */
    for (int n_epochs = 2; n_epochs <= 3; n_epochs++) {
        o = default_options(n_epochs, 9);
        memcpy(c1, init, sizeof init);
        memcpy(cpu, init, sizeof init);
        TU_CHECK_OK(umap_sgd_cuda(&g.e, c1, NULL, DIM, &o));
        TU_CHECK_OK(umap_sgd_cpu(&g.e, cpu, NULL, DIM, &o));
        double worst = 0;
        for (int i = 0; i < N * DIM; i++) worst = fmax(worst, fabs((double)c1[i] - cpu[i]));
        printf("CUDA against CPU after %d epochs: max abs difference %g\n", n_epochs, worst);
        ck_assert_msg(worst < 1e-4, "%d epochs: CUDA and CPU differ by %g", n_epochs, worst);
    }
    graph_free(&g);
}
END_TEST

START_TEST(cuda_two_cliques_and_transform)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    check_cliques_separate(1);
    check_transform(1);
}
END_TEST

static Suite *umap_sgd_suite(void)
{
    Suite *s = suite_create("k_umap_sgd");
    TCase *tc = tcase_create("umap_sgd");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, find_ab_matches_scipy);
    tcase_add_test(tc, one_head_one_tail_by_hand);
    tcase_add_test(tc, small_graph_against_reference);
    tcase_add_test(tc, two_cliques_separate);
    tcase_add_test(tc, deterministic_on_any_threads);
    tcase_add_test(tc, transform_places_new_points);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, cuda_matches_cpu);
    tcase_add_test(tc, cuda_two_cliques_and_transform);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(umap_sgd_suite()); }
