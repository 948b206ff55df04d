/* Check suite for how the UMAP space finds neighbours (models/features/umap.h: its metric, power,
 * principal axes and whitening) and their place in the model file: cosine distances against a
 * direct 1 - cos, distances among the principal axes (of the values' square roots, whitened or
 * not) against a direct projection, the automatic choice (above 50 values: cosine among 50
 * axes scaled by variance^-1/4, of the pixels' square roots for images; else euclidean in the
 * data), cosine blind to each image's length (the same embedding bit for bit), the settings and
 * axes through save and load with the same places for new points, forged neighbour sections
 * refused, and on a GPU the same neighbours as on the CPU. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/features/pca.h"
#include "models/features/umap.h"
#include "models/io/model_io.h"
#include "models/io/model_sections.h"
#include "tests/testutil.h"

enum { WIDE = 64, K = 6 };

/* n rows of dim values: row i near one of three positive patterns, each row at its own scale */
static float *patterned(int n, int dim, uint64_t seed)
{
    float *X = malloc(sizeof(float) * n * dim);
    for (int i = 0; i < n; i++) {
        const double scale = 0.5 + (i % 7) * 0.25;
        for (int c = 0; c < dim; c++) {
            const double base = ((c + 5 * (i % 3)) % 9 < 3) ? 1.0 : 0.1;
            X[i * dim + c] = (float)(scale * (base + 0.15 * fabs(tu_rand_normal(&seed))));
        }
    }
    return X;
}

/* A bare space over n rows of dim values with the given metric and projection (owned). */
static gmm_umap_space *bare_space(int n, int dim, gmm_umap_metric metric, gmm_projection *pca)
{
    gmm_umap_space *s = NULL;
    TU_CHECK_OK(gmm_umap_space_alloc(n, dim, K, 2, 0, GMM_UMAP_KEEPS_VALUES, &s));
    s->metric = metric;
    s->knn_pca = pca;
    return s;
}

/* Direct distances in double: rows Y (m x p) against R (n x p); 1 - cos or Euclidean. The k
 * smallest of each row, ascending, into best. */
static void direct_nearest(const double *Y, int m, const double *R, int n, int p, int cosine,
                           double *best)
{
    double *d = malloc(sizeof(double) * n);
    for (int q = 0; q < m; q++) {
        for (int j = 0; j < n; j++) {
            double dot = 0, yy = 0, rr = 0, sq = 0;
            for (int c = 0; c < p; c++) {
                const double a = Y[q * p + c], b = R[j * p + c];
                dot += a * b, yy += a * a, rr += b * b, sq += (a - b) * (a - b);
            }
            d[j] = cosine ? 1 - dot / sqrt(yy * rr) : sqrt(sq);
        }
        for (int t = 0; t < K; t++) { /* selection of the K smallest */
            int at = t;
            for (int j = t; j < n; j++)
                if (d[j] < d[at]) at = j;
            const double v = d[at];
            d[at] = d[t];
            d[t] = v;
            best[q * K + t] = v;
        }
    }
    free(d);
}

static double *widen(const float *x, size_t n)
{
    double *d = malloc(sizeof(double) * n);
    for (size_t i = 0; i < n; i++) d[i] = x[i];
    return d;
}

/* The space's neighbours of M queries among N rows against the direct computation: the values
 * raised to power (every query's first one negative, for the sign), projected on the axes, each
 * coordinate divided by variance^(whiten/2). */
static void check_against_direct(gmm_umap_metric metric, int axes, double power, double whiten)
{
    enum { N = 120, M = 30 };
    float *X = patterned(N, WIDE, 3), *Q = patterned(M, WIDE, 4);
    for (int q = 0; q < M; q++) Q[q * WIDE] = -Q[q * WIDE];
    double *Xd = widen(X, (size_t)N * WIDE), *Qd = widen(Q, (size_t)M * WIDE);
    for (int e = 0; e < N * WIDE; e++) Xd[e] = pow(Xd[e], power);
    for (int e = 0; e < M * WIDE; e++) Qd[e] = Qd[e] < 0 ? -pow(-Qd[e], power) : pow(Qd[e], power);
    gmm_projection *pca = NULL;
    int p = WIDE;
    double *R = Xd, *Y = Qd;
    if (axes) {
        TU_CHECK_OK(gmm_projection_fit(Xd, N, WIDE, axes, 0, NULL, &pca));
        R = malloc(sizeof(double) * N * axes);
        Y = malloc(sizeof(double) * M * axes);
        TU_CHECK_OK(gmm_projection_apply(pca, Xd, N, NULL, R));
        TU_CHECK_OK(gmm_projection_apply(pca, Qd, M, NULL, Y));
        p = axes;
        for (int c = 0; c < axes; c++) {
            const double scale = pow(pca->explained_variance[c], -whiten / 2);
            for (int i = 0; i < N; i++) R[i * axes + c] *= scale;
            for (int q = 0; q < M; q++) Y[q * axes + c] *= scale;
        }
    }
    gmm_umap_space *s = bare_space(N, WIDE, metric, pca);
    s->knn_power = power;
    s->knn_whiten = whiten;
    int32_t index[M * K];
    float dist[M * K];
    double best[M * K];
    TU_CHECK_OK(gmm_umap_neighbours(s, Q, M, X, K, NULL, index, dist));
    direct_nearest(Y, M, R, N, p, metric == GMM_UMAP_COSINE, best);
    for (int e = 0; e < M * K; e++)
        ck_assert_msg(fabs(dist[e] - best[e]) <= 2e-5 * (1 + best[e]),
                      "metric %d, %d axes, power %g, whiten %g, entry %d: %.8f against %.8f "
                      "directly", metric, axes, power, whiten, e, dist[e], best[e]);
    /* the training rows themselves: each its own nearest, at distance 0 */
    int32_t self_index[N * K];
    float self_dist[N * K];
    TU_CHECK_OK(gmm_umap_neighbours(s, X, N, X, K, NULL, self_index, self_dist));
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(self_index[i * K], i);
        ck_assert_float_le(self_dist[i * K], 1e-3f);
    }
    gmm_umap_space_free(s);
    if (axes) {
        free(R);
        free(Y);
    }
    free(X), free(Q), free(Xd), free(Qd);
}

START_TEST(cosine_distances_are_one_minus_cos)
{
    check_against_direct(GMM_UMAP_COSINE, 0, 1, 0);
    check_against_direct(GMM_UMAP_EUCLIDEAN, 0, 1, 0);
    check_against_direct(GMM_UMAP_EUCLIDEAN, 0, 0.5, 0);
}
END_TEST

START_TEST(distances_among_principal_axes)
{
    check_against_direct(GMM_UMAP_COSINE, 5, 1, 0);
    check_against_direct(GMM_UMAP_EUCLIDEAN, 5, 1, 0);
    check_against_direct(GMM_UMAP_COSINE, 5, 0.5, 0.5);
    check_against_direct(GMM_UMAP_EUCLIDEAN, 5, 0.25, 1);
}
END_TEST

static gmm_umap_space *embed_images(const float *X, const uint8_t *images, int n, int dim,
                                    gmm_umap_metric metric, int knn_pca, double power,
                                    double whiten, gmm_status expect)
{
    const gmm_umap_options o = {.n_neighbors = 10, .n_dims = 3, .n_epochs = 50, .seed = 11,
                                .metric = metric, .knn_pca = knn_pca, .knn_power = power,
                                .knn_whiten = whiten};
    gmm_umap_space *s = NULL;
    ck_assert_int_eq(gmm_umap_embed(X, n, dim, images, &o, NULL, &s, NULL), expect);
    return s;
}

static gmm_umap_space *embed_prepared(const float *X, int n, int dim, gmm_umap_metric metric,
                                      int knn_pca, double power, double whiten,
                                      gmm_status expect)
{
    return embed_images(X, NULL, n, dim, metric, knn_pca, power, whiten, expect);
}

static gmm_umap_space *embed(const float *X, int n, int dim, gmm_umap_metric metric,
                             int knn_pca, gmm_status expect)
{
    return embed_prepared(X, n, dim, metric, knn_pca, 0, 0, expect);
}

START_TEST(automatic_choice)
{
    enum { N = 300, NARROW = 12 };
    float *X = patterned(N, WIDE, 5), *narrow = patterned(N, NARROW, 5);
    uint8_t *bytes = malloc((size_t)N * WIDE);
    for (int e = 0; e < N * WIDE; e++) { /* X as images: bytes / 255 */
        bytes[e] = (uint8_t)fmin(255, lround(X[e] * 60));
        X[e] = (float)(bytes[e] / 255.0);
    }
    /* images of more than 50 pixels: cosine among the top 50 axes, those of the PCA of the
     * pixels' square roots, each coordinate divided by variance^(1/4) */
    gmm_umap_space *s = embed_images(X, bytes, N, WIDE, GMM_UMAP_METRIC_AUTO, 0, 0, 0, GMM_OK);
    ck_assert_int_eq(s->metric, GMM_UMAP_COSINE);
    ck_assert_ptr_nonnull(s->knn_pca);
    ck_assert_int_eq(s->knn_pca->n_axes, GMM_UMAP_PCA);
    ck_assert_double_eq(s->knn_power, 0.5);
    ck_assert_double_eq(s->knn_whiten, 0.5);
    double *Xd = widen(X, (size_t)N * WIDE);
    for (int e = 0; e < N * WIDE; e++) Xd[e] = sqrt(Xd[e]);
    gmm_projection *direct = NULL;
    TU_CHECK_OK(gmm_projection_fit(Xd, N, WIDE, GMM_UMAP_PCA, 0, NULL, &direct));
    for (int e = 0; e < GMM_UMAP_PCA * WIDE; e++)
        ck_assert_double_le(fabs(s->knn_pca->components[e] - direct->components[e]), 1e-12);
    TU_CHECK_OK(gmm_umap_space_check(s, 3));
    gmm_umap_space_free(s);
    /* the same values given as values, not images: no square root, the whitening kept; asked
     * for: both none */
    s = embed(X, N, WIDE, GMM_UMAP_METRIC_AUTO, 0, GMM_OK);
    ck_assert_double_eq(s->knn_power, 1);
    ck_assert_double_eq(s->knn_whiten, 0.5);
    gmm_umap_space_free(s);
    s = embed_images(X, bytes, N, WIDE, GMM_UMAP_METRIC_AUTO, 0, 1, -1, GMM_OK);
    ck_assert_double_eq(s->knn_power, 1);
    ck_assert_double_eq(s->knn_whiten, 0);
    gmm_umap_space_free(s);
    /* 50 values or fewer: euclidean in the data as they are; asked for: cosine without axes,
     * 7 axes */
    s = embed(narrow, N, NARROW, GMM_UMAP_METRIC_AUTO, 0, GMM_OK);
    ck_assert_int_eq(s->metric, GMM_UMAP_EUCLIDEAN);
    ck_assert_ptr_null(s->knn_pca);
    ck_assert_double_eq(s->knn_power, 1);
    ck_assert_double_eq(s->knn_whiten, 0);
    gmm_umap_space_free(s);
    s = embed(X, N, WIDE, GMM_UMAP_COSINE, -1, GMM_OK);
    ck_assert_int_eq(s->metric, GMM_UMAP_COSINE);
    ck_assert_ptr_null(s->knn_pca);
    gmm_umap_space_free(s);
    s = embed(narrow, N, NARROW, GMM_UMAP_METRIC_AUTO, 7, GMM_OK);
    ck_assert_int_eq(s->metric, GMM_UMAP_COSINE);
    ck_assert_int_eq(s->knn_pca->n_axes, 7);
    gmm_umap_space_free(s);
    /* nonsense: more axes than values, an unknown metric, a power above 1 or NaN, a whitening
     * above 1 or without axes */
    ck_assert_ptr_null(embed(narrow, N, NARROW, GMM_UMAP_METRIC_AUTO, 13, GMM_ERR_ARG));
    ck_assert_ptr_null(embed(narrow, N, NARROW, (gmm_umap_metric)7, 0, GMM_ERR_ARG));
    ck_assert_ptr_null(embed_prepared(X, N, WIDE, GMM_UMAP_METRIC_AUTO, 0, 1.5, 0, GMM_ERR_ARG));
    ck_assert_ptr_null(embed_prepared(X, N, WIDE, GMM_UMAP_METRIC_AUTO, 0, NAN, 0, GMM_ERR_ARG));
    ck_assert_ptr_null(embed_prepared(X, N, WIDE, GMM_UMAP_METRIC_AUTO, 0, 0, 2, GMM_ERR_ARG));
    ck_assert_ptr_null(embed_prepared(X, N, WIDE, GMM_UMAP_METRIC_AUTO, -1, 0, 0.5, GMM_ERR_ARG));
    gmm_projection_free(direct);
    free(Xd), free(X), free(narrow), free(bytes);
}
END_TEST

START_TEST(cosine_ignores_each_images_length)
{
    enum { N = 300 };
    float *X = patterned(N, WIDE, 6), *scaled = malloc(sizeof(float) * N * WIDE);
    for (int i = 0; i < N; i++) /* powers of two: the unit rows are the same bits */
        for (int c = 0; c < WIDE; c++)
            scaled[i * WIDE + c] = X[i * WIDE + c] * (float)(1 << (i % 4));
    gmm_umap_space *a = embed(X, N, WIDE, GMM_UMAP_COSINE, -1, GMM_OK),
                   *b = embed(scaled, N, WIDE, GMM_UMAP_COSINE, -1, GMM_OK),
                   *e1 = embed(X, N, WIDE, GMM_UMAP_EUCLIDEAN, -1, GMM_OK),
                   *e2 = embed(scaled, N, WIDE, GMM_UMAP_EUCLIDEAN, -1, GMM_OK);
    ck_assert_int_eq(memcmp(a->embedding, b->embedding, sizeof(float) * N * 3), 0);
    ck_assert_int_ne(memcmp(e1->embedding, e2->embedding, sizeof(float) * N * 3), 0);
    gmm_umap_space_free(a), gmm_umap_space_free(b), gmm_umap_space_free(e1),
        gmm_umap_space_free(e2);
    free(X), free(scaled);
}
END_TEST

/* A model holding a small cosine space with 5 principal axes of the values' square roots,
 * half-whitened (the space's values kept). */
static void model_with_axes(gmm_model *m, float **X_out)
{
    enum { N = 200 };
    float *X = patterned(N, WIDE, 8);
    gmm_umap_space *s = embed_prepared(X, N, WIDE, GMM_UMAP_COSINE, 5, 0.5, 0.5, GMM_OK);
    TU_CHECK_OK(gmm_model_alloc(m, 2, 3, GMM_COV_DIAG));
    m->weights[0] = m->weights[1] = 0.5;
    for (int i = 0; i < 6; i++) {
        m->means[i] = i;
        m->covariances[i] = 1;
        m->precisions_cholesky[i] = 1;
    }
    TU_CHECK_OK(gmm_feature_space_from_umap(s, &m->space));
    *X_out = X;
}

START_TEST(metric_and_axes_through_the_file)
{
    gmm_model m = {0}, back = {0};
    float *X = NULL, *Y = patterned(20, WIDE, 9);
    model_with_axes(&m, &X);
    const char *path = tu_tmp_path("umap_axes.bin");
    TU_CHECK_OK(gmm_model_save(path, &m));
    TU_CHECK_OK(gmm_model_load(path, &back));
    const gmm_umap_space *s = gmm_space_umap(m.space), *t = gmm_space_umap(back.space);
    ck_assert_int_eq(t->metric, GMM_UMAP_COSINE);
    ck_assert_ptr_nonnull(t->knn_pca);
    ck_assert_int_eq(t->knn_pca->n_axes, 5);
    ck_assert_int_eq(memcmp(t->knn_pca->components, s->knn_pca->components,
                            sizeof(double) * 5 * WIDE), 0);
    ck_assert_int_eq(memcmp(t->knn_pca->mean, s->knn_pca->mean, sizeof(double) * WIDE), 0);
    ck_assert_double_eq(t->knn_power, 0.5);
    ck_assert_double_eq(t->knn_whiten, 0.5);
    float before[20 * 3], after[20 * 3];
    TU_CHECK_OK(gmm_umap_transform(s, X, Y, 20, NULL, before, NULL));
    TU_CHECK_OK(gmm_umap_transform(t, t->values, Y, 20, NULL, after, NULL));
    ck_assert_int_eq(memcmp(before, after, sizeof before), 0);
    gmm_model_free(&back);
    /* without axes: the square root alone goes through the file */
    gmm_umap_space *u = gmm_space_umap(m.space);
    gmm_projection_free(u->knn_pca);
    u->knn_pca = NULL;
    u->metric = GMM_UMAP_EUCLIDEAN;
    u->knn_whiten = 0;
    TU_CHECK_OK(gmm_model_save(path, &m));
    TU_CHECK_OK(gmm_model_load(path, &back));
    t = gmm_space_umap(back.space);
    ck_assert_ptr_null(t->knn_pca);
    ck_assert_double_eq(t->knn_power, 0.5);
    ck_assert_double_eq(t->knn_whiten, 0);
    gmm_model_free(&back);
    /* a euclidean space on the values as they are writes no neighbours section: a file as
     * before */
    u->knn_power = 1;
    unsigned char *bytes = NULL;
    size_t n = 0;
    TU_CHECK_OK(model_sections_encode(&m, &bytes, &n));
    uint64_t umap_len = 0;
    memcpy(&umap_len, bytes + 8, 8);
    const size_t after_umap = 16 + umap_len + (8 - umap_len % 8) % 8;
    ck_assert_int_eq(bytes[after_umap], 0); /* the end tag */
    free(bytes);
    gmm_model_free(&m);
    free(X), free(Y);
}
END_TEST

START_TEST(forged_neighbour_sections_refused)
{
    gmm_model m = {0};
    float *X = NULL;
    model_with_axes(&m, &X);
    unsigned char *bytes = NULL;
    size_t n = 0;
    TU_CHECK_OK(model_sections_encode(&m, &bytes, &n));
    uint64_t umap_len = 0;
    memcpy(&umap_len, bytes + 8, 8);
    const size_t at = 16 + umap_len + (8 - umap_len % 8) % 8; /* the neighbours section */
    ck_assert_int_eq(bytes[at], 4);
    struct {
        size_t at;
        unsigned char value;
        const char *needle;
    } forgeries[] = {
        {at + 16, 3, "invalid umap neighbours"},      /* metric 3 */
        {at + 16, 0, "invalid umap neighbours"},      /* metric 0 (auto is no stored metric) */
        {at + 20, 65, "invalid umap neighbours"},     /* more axes than values */
        {at + 24, 63, "invalid umap neighbours"},     /* another input size */
        {at + 28, 2, "invalid umap neighbours"},      /* a flag other than 0 or 1 */
        {at + 28, 0, "invalid umap neighbours"},      /* flag 0 with the power present */
        {at + 32 + 7, 0x40, "power"},                 /* power 0.5 made 32768 */
        {at + 32 + 7, 0xbf, "power"},                 /* power -0.5 */
        {at + 40 + 7, 0x40, "whitening"},             /* whitening 0.5 made 32768 */
        {at + 48 + 8 + 8 * WIDE + 8 * 5 + 7, 0x47, "orthonormal"}, /* an axis far too long */
    };
    for (size_t f = 0; f < sizeof forgeries / sizeof forgeries[0]; f++) {
        unsigned char *forged = malloc(n);
        memcpy(forged, bytes, n);
        forged[forgeries[f].at] = forgeries[f].value;
        gmm_model target = {0};
        TU_CHECK_OK(gmm_model_alloc(&target, 2, 3, GMM_COV_DIAG));
        gmm_status st = model_sections_decode("x", forged, n, &target);
        if (st == GMM_OK) st = gmm_feature_space_check(target.space, 3);
        ck_assert_msg(st == GMM_ERR_FORMAT, "forgery %zu accepted", f);
        ck_assert_msg(strstr(gmm_error_message(st), forgeries[f].needle), "forgery %zu: %s",
                          f, gmm_error_message(st));
        gmm_model_free(&target);
        free(forged);
    }
    /* a neighbours section with no umap space before it */
    unsigned char *alone = malloc(n - at);
    memcpy(alone, bytes + at, n - at);
    gmm_model target = {0};
    TU_CHECK_OK(gmm_model_alloc(&target, 2, 3, GMM_COV_DIAG));
    gmm_status st = model_sections_decode("x", alone, n - at, &target);
    ck_assert_int_eq(st, GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(st), "without a umap space"));
    gmm_model_free(&target);
    free(alone);
    free(bytes);
    gmm_model_free(&m);
    free(X);
}
END_TEST

START_TEST(gpu_finds_the_cpus_neighbours)
{
    if (!tu_gpu_available()) {
        printf("umap neighbours gpu: no GPU, skipped\n");
        return;
    }
    enum { N = 400, M = 50 };
    float *X = patterned(N, WIDE, 12), *Q = patterned(M, WIDE, 13);
    double *Xd = widen(X, (size_t)N * WIDE);
    gmm_projection *pca = NULL;
    TU_CHECK_OK(gmm_projection_fit(Xd, N, WIDE, 10, 0, NULL, &pca));
    gmm_umap_space *s = bare_space(N, WIDE, GMM_UMAP_COSINE, pca);
    s->knn_power = 0.5;
    s->knn_whiten = 0.5;
    gmm_gpu *gpu = NULL;
    TU_CHECK_OK(gmm_gpu_create(&gpu));
    int32_t ci[M * K], gi[M * K];
    float cd[M * K], gd[M * K];
    TU_CHECK_OK(gmm_umap_neighbours(s, Q, M, X, K, NULL, ci, cd));
    TU_CHECK_OK(gmm_umap_neighbours(s, Q, M, X, K, gpu, gi, gd));
    for (int e = 0; e < M * K; e++) {
        ck_assert_int_eq(ci[e], gi[e]);
        ck_assert_float_le(fabsf(cd[e] - gd[e]), 1e-5f);
    }
    gmm_gpu_destroy(gpu);
    gmm_umap_space_free(s);
    free(X), free(Q), free(Xd);
}
END_TEST

static Suite *umap_neighbours_suite(void)
{
    Suite *s = suite_create("umap_neighbours");
    TCase *tc = tcase_create("umap_neighbours");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, cosine_distances_are_one_minus_cos);
    tcase_add_test(tc, distances_among_principal_axes);
    tcase_add_test(tc, automatic_choice);
    tcase_add_test(tc, cosine_ignores_each_images_length);
    tcase_add_test(tc, metric_and_axes_through_the_file);
    tcase_add_test(tc, forged_neighbour_sections_refused);
    tcase_add_test(tc, gpu_finds_the_cpus_neighbours);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(umap_neighbours_suite()); }
