/* Check suite for the UMAP space (models/features/umap.h, umap_space.h) and its place in the
 * model file (models/io/model_sections.h): three blobs embedded, fitted and found again; the same
 * seed giving the same embedding bit for bit and another seed another; new points placed with
 * their blob; a space made without images keeping the float data (values); the space (images or
 * values) and the matched labels through save and load, and the sections' decoder refusing
 * forged sections; on a GPU the same run deterministic there and the blobs found. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/core/em.h"
#include "models/core/pixel_means.h"
#include "models/core/score.h"
#include "models/features/umap.h"
#include "models/io/model_io.h"
#include "models/io/model_sections.h"
#include "tests/testutil.h"

enum { DIM = 12, BLOBS = 3 };

/* n points: point i in blob i % 3, N(0, 1) around a centre 6 units out on axis (i % 3) */
static float *blob_points(int n, uint64_t seed)
{
    float *X = malloc(sizeof(float) * n * DIM);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < DIM; c++)
            X[i * DIM + c] = (float)(tu_rand_normal(&seed) + (c == i % BLOBS ? 6.0 : 0.0));
    return X;
}

static uint8_t *as_bytes(const float *X, int n)
{
    uint8_t *b = malloc((size_t)n * DIM);
    for (int i = 0; i < n * DIM; i++) {
        const double v = 100 + 15 * X[i];
        b[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    return b;
}

/* wrong assignments after naming each blob by its first point's component (-1: names clash) */
static int wrong_blobs(const int *labels, int n)
{
    int name[BLOBS] = {-1, -1, -1}, wrong = 0;
    for (int i = 0; i < n; i++) {
        if (name[i % BLOBS] < 0) name[i % BLOBS] = labels[i];
        wrong += labels[i] != name[i % BLOBS];
    }
    if (name[0] == name[1] || name[1] == name[2] || name[0] == name[2]) return -1;
    return wrong;
}

static gmm_umap_space *embed(const float *X, const uint8_t *bytes, int n, uint64_t seed,
                             gmm_gpu *gpu)
{
    const gmm_umap_options o = {.n_neighbors = 10, .n_dims = 3, .map_dims = 2, .seed = seed,
                                .n_epochs = 200};
    gmm_umap_space *s = NULL;
    gmm_umap_report rep;
    TU_CHECK_OK(gmm_umap_embed(X, n, DIM, bytes, &o, gpu, &s, &rep));
    ck_assert_int_eq(rep.n_epochs, 200);
    ck_assert_int_gt(rep.n_edges, (int64_t)n * 9); /* the union has at least k - 1 a row */
    return s;
}

static void fit_in(const gmm_umap_space *s, gmm_model *m, int *labels)
{
    const int64_t n = s->n_train;
    double *coords = malloc(sizeof(double) * n * s->n_dims);
    for (int64_t i = 0; i < n * s->n_dims; i++) coords[i] = s->embedding[i];
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = BLOBS;
    o.n_init = 3;
    o.device = GMM_DEVICE_CPU;
    TU_CHECK_OK(gmm_fit(coords, n, s->n_dims, &o, m));
    TU_CHECK_OK(gmm_score_samples(m, coords, n, GMM_DEVICE_CPU, NULL, NULL, labels));
    free(coords);
}

START_TEST(blobs_found_and_reproduced)
{
    enum { N = 600 };
    float *X = blob_points(N, 5);
    uint8_t *bytes = as_bytes(X, N);
    gmm_umap_space *s = embed(X, bytes, N, 7, NULL);
    ck_assert_int_eq(s->n_dims, 3);
    ck_assert_int_eq(s->map_dims, 2);
    ck_assert_int_eq(s->n_neighbors, 10);
    ck_assert_double_le(fabs(s->a - 1.9328084), 1e-4); /* min_dist 0, spread 1 (scipy) */
    ck_assert_double_le(fabs(s->b - 0.7904950), 1e-4);
    ck_assert_int_eq(memcmp(s->images, bytes, (size_t)N * DIM), 0);
    ck_assert_ptr_null(s->values);
    TU_CHECK_OK(gmm_umap_space_check(s, 3));
    int labels[N];
    gmm_model m = {0};
    fit_in(s, &m, labels);
    ck_assert_int_eq(wrong_blobs(labels, N), 0);
    /* the blobs apart in the map too: centroid gaps well above the spread inside a blob */
    double cen[BLOBS][2] = {{0}}, spread = 0;
    for (int i = 0; i < N; i++)
        for (int c = 0; c < 2; c++) cen[i % BLOBS][c] += s->map[i * 2 + c] / (N / BLOBS);
    for (int i = 0; i < N; i++)
        spread += hypot(s->map[i * 2] - cen[i % BLOBS][0], s->map[i * 2 + 1] - cen[i % BLOBS][1]) / N;
    for (int a = 0; a < BLOBS; a++)
        for (int b = a + 1; b < BLOBS; b++)
            ck_assert_double_ge(hypot(cen[a][0] - cen[b][0], cen[a][1] - cen[b][1]), 4 * spread);

    /* the same seed: the same bits; another seed: another layout */
    gmm_umap_space *again = embed(X, bytes, N, 7, NULL), *other = embed(X, bytes, N, 8, NULL);
    ck_assert_int_eq(memcmp(again->embedding, s->embedding, sizeof(float) * N * 3), 0);
    ck_assert_int_eq(memcmp(again->map, s->map, sizeof(float) * N * 2), 0);
    ck_assert_int_ne(memcmp(other->embedding, s->embedding, sizeof(float) * N * 3), 0);
    gmm_umap_space_free(again);
    gmm_umap_space_free(other);
    /* without images the space keeps X itself; the embedding does not depend on what is kept */
    const gmm_umap_options vo = {.n_neighbors = 10, .n_dims = 3, .map_dims = 2, .seed = 7,
                                 .n_epochs = 200};
    gmm_umap_space *kept = NULL;
    TU_CHECK_OK(gmm_umap_embed(X, N, DIM, NULL, &vo, NULL, &kept, NULL));
    ck_assert_ptr_null(kept->images);
    ck_assert_int_eq(gmm_umap_space_storage(kept), GMM_UMAP_KEEPS_VALUES);
    ck_assert_int_eq(memcmp(kept->values, X, sizeof(float) * N * DIM), 0);
    ck_assert_int_eq(memcmp(kept->embedding, s->embedding, sizeof(float) * N * 3), 0);
    TU_CHECK_OK(gmm_umap_space_check(kept, 3));
    gmm_umap_space *kept_copy = NULL;
    TU_CHECK_OK(gmm_umap_space_copy(kept, &kept_copy));
    ck_assert_ptr_null(kept_copy->images);
    ck_assert_int_eq(memcmp(kept_copy->values, X, sizeof(float) * N * DIM), 0);
    kept_copy->values[5] = NAN; /* a loaded space's values must be finite */
    ck_assert_int_eq(gmm_umap_space_check(kept_copy, 3), GMM_ERR_FORMAT);
    gmm_umap_space_free(kept);
    gmm_umap_space_free(kept_copy);

    /* new points of the same blobs are placed with them */
    enum { M = 90 };
    float *Y = blob_points(M, 99);
    float coords[M * 3], places[M * 2];
    TU_CHECK_OK(gmm_umap_transform(s, X, Y, M, NULL, coords, places));
    double Yc[M * 3];
    for (int i = 0; i < M * 3; i++) Yc[i] = coords[i];
    int ylab[M], name[BLOBS];
    for (int b = 0; b < BLOBS; b++) name[b] = labels[b];
    TU_CHECK_OK(gmm_score_samples(&m, Yc, M, GMM_DEVICE_CPU, NULL, NULL, ylab));
    for (int i = 0; i < M; i++) ck_assert_int_eq(ylab[i], name[i % BLOBS]);
    for (int i = 0; i < M; i++) { /* nearer its blob's centroid in the map than any other */
        const double own = hypot(places[i * 2] - cen[i % BLOBS][0], places[i * 2 + 1] - cen[i % BLOBS][1]);
        for (int b = 0; b < BLOBS; b++)
            if (b != i % BLOBS)
                ck_assert_double_lt(own, hypot(places[i * 2] - cen[b][0], places[i * 2 + 1] - cen[b][1]));
    }
    /* placing is deterministic too */
    float coords2[M * 3];
    TU_CHECK_OK(gmm_umap_transform(s, X, Y, M, NULL, coords2, NULL));
    ck_assert_int_eq(memcmp(coords, coords2, sizeof coords), 0);

    gmm_model_free(&m);
    gmm_umap_space_free(s);
    free(X);
    free(Y);
    free(bytes);
}
END_TEST

START_TEST(bad_arguments)
{
    enum { N = 40 };
    float *X = blob_points(N, 1);
    uint8_t *bytes = as_bytes(X, N);
    gmm_umap_space *s = NULL;
    gmm_umap_options o = {.n_neighbors = N, .n_dims = 2};
    ck_assert_int_eq(gmm_umap_embed(X, N, DIM, bytes, &o, NULL, &s, NULL), GMM_ERR_ARG);
    o = (gmm_umap_options){.n_neighbors = 1};
    ck_assert_int_eq(gmm_umap_embed(X, N, DIM, bytes, &o, NULL, &s, NULL), GMM_ERR_ARG);
    o = (gmm_umap_options){.n_dims = 101};
    ck_assert_int_eq(gmm_umap_embed(X, N, DIM, bytes, &o, NULL, &s, NULL), GMM_ERR_ARG);
    o = (gmm_umap_options){.map_dims = 3};
    ck_assert_int_eq(gmm_umap_embed(X, N, DIM, bytes, &o, NULL, &s, NULL), GMM_ERR_ARG);
    o = (gmm_umap_options){.min_dist = 2.0};
    ck_assert_int_eq(gmm_umap_embed(X, N, DIM, bytes, &o, NULL, &s, NULL), GMM_ERR_ARG);
    ck_assert_ptr_null(s);
    free(X);
    free(bytes);
}
END_TEST

/* A small model with a umap space (keeping images or values) and matched labels. */
static void small_umap_model(gmm_model *m, gmm_umap_storage storage)
{
    TU_CHECK_OK(gmm_model_alloc(m, 2, 2, GMM_COV_DIAG));
    m->weights[0] = m->weights[1] = 0.5;
    for (int i = 0; i < 4; i++) {
        m->means[i] = i;
        m->covariances[i] = 1;
        m->precisions_cholesky[i] = 1;
    }
    gmm_umap_space *u = NULL;
    TU_CHECK_OK(gmm_umap_space_alloc(5, 3, 2, 2, 2, storage, &u));
    *u = (gmm_umap_space){.n_train = 5, .input_dim = 3, .n_neighbors = 2, .n_dims = 2,
                          .map_dims = 2, .n_epochs = 200, .min_dist = 0, .spread = 1,
                          .a = 1.8956, .b = 0.8006, .seed = 42, .metric = GMM_UMAP_EUCLIDEAN,
                          .knn_power = 1, .images = u->images,
                          .values = u->values, .embedding = u->embedding, .map = u->map};
    for (int i = 0; i < 15; i++) {
        if (u->images) u->images[i] = (uint8_t)(17 * i);
        else u->values[i] = 0.125f * i - 0.7f;
    }
    for (int i = 0; i < 10; i++) {
        u->embedding[i] = 0.25f * i - 1;
        u->map[i] = 3.5f - i;
    }
    TU_CHECK_OK(gmm_feature_space_from_umap(u, &m->space));
    m->image_rows = 1;
    m->image_cols = 3;
    m->matched_label = malloc(2 * sizeof(int));
    m->matched_label[0] = 7;
    m->matched_label[1] = -1;
}

START_TEST(space_through_the_file)
{
    gmm_model m = {0}, back = {0}, copy = {0};
    small_umap_model(&m, GMM_UMAP_KEEPS_IMAGES);
    const char *path = tu_tmp_path("umap_model.bin");
    TU_CHECK_OK(gmm_model_save(path, &m));
    TU_CHECK_OK(gmm_model_load(path, &back));
    const gmm_umap_space *a = gmm_space_umap(m.space), *b = gmm_space_umap(back.space);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_eq(gmm_feature_space_name(back.space), "umap");
    ck_assert_int_eq(gmm_model_input_dim(&back), 3);
    ck_assert_int_eq(b->n_train, 5);
    ck_assert_int_eq(b->n_epochs, 200);
    ck_assert(b->seed == 42 && b->a == a->a && b->b == a->b && b->spread == 1);
    ck_assert_int_eq(memcmp(a->images, b->images, 15), 0);
    ck_assert_ptr_null(b->values);
    ck_assert_int_eq(memcmp(a->embedding, b->embedding, 10 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a->map, b->map, 10 * sizeof(float)), 0);
    ck_assert_ptr_nonnull(back.matched_label);
    ck_assert_int_eq(back.matched_label[0], 7);
    ck_assert_int_eq(back.matched_label[1], -1);
    TU_CHECK_OK(gmm_model_copy(&copy, &back));
    ck_assert_int_eq(copy.matched_label[0], 7);
    ck_assert_int_eq(memcmp(gmm_space_umap(copy.space)->map, a->map, 10 * sizeof(float)), 0);
    /* a model without the extras still loads without them */
    gmm_model plain = {0}, plain_back = {0};
    TU_CHECK_OK(gmm_model_alloc(&plain, 2, 2, GMM_COV_DIAG));
    memcpy(plain.weights, m.weights, 2 * sizeof(double));
    memcpy(plain.covariances, m.covariances, 4 * sizeof(double));
    memcpy(plain.precisions_cholesky, m.precisions_cholesky, 4 * sizeof(double));
    TU_CHECK_OK(gmm_model_save(path, &plain));
    TU_CHECK_OK(gmm_model_load(path, &plain_back));
    ck_assert_ptr_null(plain_back.space);
    ck_assert_ptr_null(plain_back.matched_label);
    gmm_model_free(&plain);
    gmm_model_free(&plain_back);
    gmm_model_free(&m);
    gmm_model_free(&back);
    gmm_model_free(&copy);
}
END_TEST

/* A space that keeps float values: storage 1 in the file, the values back bit for bit; and the
 * images' file stays as it was (storage 0, the bytes padded to 8). */
START_TEST(values_through_the_file)
{
    gmm_model m = {0}, back = {0}, copy = {0};
    small_umap_model(&m, GMM_UMAP_KEEPS_VALUES);
    unsigned char *bytes = NULL;
    size_t n = 0;
    TU_CHECK_OK(model_sections_encode(&m, &bytes, &n));
    /* head 16, then k, q, n (8), d, map, epochs: the storage field at 16 + 28 */
    ck_assert_int_eq(bytes[16 + 28], 1);
    /* the section: 72 fixed + 15 values x 4 (60, padded to 64) + 5 x (2 + 2) x 4 = 216 */
    ck_assert_int_eq(bytes[8], 216);
    free(bytes);
    const char *path = tu_tmp_path("umap_values.bin");
    TU_CHECK_OK(gmm_model_save(path, &m));
    TU_CHECK_OK(gmm_model_load(path, &back));
    const gmm_umap_space *a = gmm_space_umap(m.space), *b = gmm_space_umap(back.space);
    ck_assert_ptr_null(b->images);
    ck_assert_int_eq(gmm_umap_space_storage(b), GMM_UMAP_KEEPS_VALUES);
    ck_assert_int_eq(memcmp(a->values, b->values, 15 * sizeof(float)), 0);
    ck_assert_int_eq(memcmp(a->embedding, b->embedding, 10 * sizeof(float)), 0);
    TU_CHECK_OK(gmm_model_copy(&copy, &back));
    ck_assert_int_eq(memcmp(gmm_space_umap(copy.space)->values, a->values, 15 * sizeof(float)), 0);
    /* the pixel means of a values space: the responsibility-weighted values (not / 255) */
    double means[2 * 3], coords[5 * 2], proba[5 * 2];
    TU_CHECK_OK(gmm_model_pixel_means(&back, means));
    for (int i = 0; i < 10; i++) coords[i] = a->embedding[i];
    TU_CHECK_OK(gmm_score_samples(&back, coords, 5, GMM_DEVICE_CPU, NULL, proba, NULL));
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++) {
            double num = 0, den = 0;
            for (int i = 0; i < 5; i++) {
                num += proba[i * 2 + k] * a->values[i * 3 + j];
                den += proba[i * 2 + k];
            }
            ck_assert_double_eq_tol(means[k * 3 + j], num / den, 1e-9);
        }
    gmm_model_free(&m);
    gmm_model_free(&back);
    gmm_model_free(&copy);
    /* an images space: storage 0 and the layout of before */
    small_umap_model(&m, GMM_UMAP_KEEPS_IMAGES);
    TU_CHECK_OK(model_sections_encode(&m, &bytes, &n));
    ck_assert_int_eq(bytes[16 + 28], 0);
    ck_assert_int_eq(bytes[8], 72 + 16 + 80); /* 15 bytes padded to 16 */
    free(bytes);
    gmm_model_free(&m);
}
END_TEST

/* The decoder on forged section lists (the CRC would catch an accident; these are forgeries). */
START_TEST(forged_sections_refused)
{
    gmm_model m = {0}, target = {0};
    small_umap_model(&m, GMM_UMAP_KEEPS_IMAGES);
    unsigned char *bytes = NULL;
    size_t n = 0;
    TU_CHECK_OK(model_sections_encode(&m, &bytes, &n));
    TU_CHECK_OK(gmm_model_alloc(&target, 2, 2, GMM_COV_DIAG));
    TU_CHECK_OK(model_sections_decode("x", bytes, n, &target));
    gmm_model_free(&target);
    struct {
        size_t at;
        unsigned char value;
        const char *needle;
    } forgeries[] = {
        {0, 9, "unknown section"},       /* the first tag */
        {8, 0xff, "does not fit"},       /* its length */
        {16 + 12, 0x01, "invalid umap"}, /* the image count's high bytes */
        {16 + 8, 0x00, "invalid umap"},  /* zero images */
        {16 + 28, 0x02, "storage is 2"}, /* neither images nor values */
        {16 + 28, 0x01, "length"},       /* values where the images' bytes are */
    };
    for (size_t f = 0; f < sizeof forgeries / sizeof forgeries[0]; f++) {
        unsigned char *forged = malloc(n);
        memcpy(forged, bytes, n);
        forged[forgeries[f].at] = forgeries[f].value;
        TU_CHECK_OK(gmm_model_alloc(&target, 2, 2, GMM_COV_DIAG));
        gmm_status st = model_sections_decode("x", forged, n, &target);
        ck_assert_int_eq(st, GMM_ERR_FORMAT);
        ck_assert_msg(strstr(gmm_error_message(st), forgeries[f].needle), "forgery %zu: %s", f,
                      gmm_error_message(st));
        gmm_model_free(&target);
        free(forged);
    }
    /* bytes after the end tag, and a list without its end */
    unsigned char *longer = calloc(n + 8, 1);
    memcpy(longer, bytes, n);
    TU_CHECK_OK(gmm_model_alloc(&target, 2, 2, GMM_COV_DIAG));
    ck_assert_int_eq(model_sections_decode("x", longer, n + 8, &target), GMM_ERR_FORMAT);
    gmm_model_free(&target);
    TU_CHECK_OK(gmm_model_alloc(&target, 2, 2, GMM_COV_DIAG));
    ck_assert_int_eq(model_sections_decode("x", bytes, n - 16, &target), GMM_ERR_FORMAT);
    gmm_model_free(&target);
    /* matched labels for another K */
    TU_CHECK_OK(gmm_model_alloc(&target, 3, 2, GMM_COV_DIAG));
    ck_assert_int_eq(model_sections_decode("x", bytes, n, &target), GMM_ERR_FORMAT);
    gmm_model_free(&target);
    free(longer);
    free(bytes);
    gmm_model_free(&m);
}
END_TEST

START_TEST(gpu_deterministic_and_blobs)
{
    if (!tu_gpu_available()) {
        printf("umap gpu: no GPU, skipped\n");
        return;
    }
    enum { N = 600 };
    float *X = blob_points(N, 5);
    uint8_t *bytes = as_bytes(X, N);
    gmm_gpu *gpu = NULL;
    TU_CHECK_OK(gmm_gpu_create(&gpu));
    gmm_umap_space *s = embed(X, bytes, N, 7, gpu), *again = embed(X, bytes, N, 7, gpu);
    ck_assert_int_eq(memcmp(again->embedding, s->embedding, sizeof(float) * N * 3), 0);
    ck_assert_int_eq(memcmp(again->map, s->map, sizeof(float) * N * 2), 0);
    int labels[N];
    gmm_model m = {0};
    fit_in(s, &m, labels);
    ck_assert_int_eq(wrong_blobs(labels, N), 0);
    gmm_model_free(&m);
    gmm_umap_space_free(s);
    gmm_umap_space_free(again);
    gmm_gpu_destroy(gpu);
    free(X);
    free(bytes);
}
END_TEST

static Suite *umap_suite(void)
{
    Suite *s = suite_create("umap");
    TCase *tc = tcase_create("umap");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, blobs_found_and_reproduced);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, space_through_the_file);
    tcase_add_test(tc, values_through_the_file);
    tcase_add_test(tc, forged_sections_refused);
    tcase_add_test(tc, gpu_deterministic_and_blobs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(umap_suite()); }
