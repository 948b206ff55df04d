/* Check suite for the density-peaks kNN initialisation: it recovers well-separated clusters (one
 * seed per cluster, every point labelled with its own cluster's seed), also from a sample of the
 * data, through gmm_fit with init=knn (which honours the options' neighbours and sample size),
 * and refuses bad arguments. */
#include <stdlib.h>
#include <string.h>

#include "models/core/em.h"
#include "models/core/score.h"
#include "models/core/init.h"
#include "models/core/init_knn.h"
#include "tests/testutil.h"

#define N_CLUSTERS 4
#define PER_CLUSTER 150
#define DIM 6
#define N_POINTS (N_CLUSTERS * PER_CLUSTER)

/* Four Gaussian blobs (sd 1) whose centres are 20 apart; point i belongs to cluster i / 150. */
static void blobs(double *X)
{
    uint64_t s = 5;
    for (int i = 0; i < N_POINTS; i++)
        for (int j = 0; j < DIM; j++)
            X[i * DIM + j] = (j == i / PER_CLUSTER ? 20.0 : 0.0) + tu_rand_normal(&s);
}

/* Each cluster's points all got the same column, and different clusters different columns. */
static void check_recovered(const double *resp, int K)
{
    int column_of[N_CLUSTERS];
    for (int c = 0; c < N_CLUSTERS; c++) column_of[c] = -1;
    for (int i = 0; i < N_POINTS; i++) {
        int col = -1;
        for (int k = 0; k < K; k++) {
            ck_assert(resp[i * K + k] == 0.0 || resp[i * K + k] == 1.0);
            if (resp[i * K + k] == 1.0) col = k;
        }
        ck_assert_int_ge(col, 0);
        int c = i / PER_CLUSTER;
        if (column_of[c] < 0) column_of[c] = col;
        ck_assert_int_eq(col, column_of[c]);
    }
    for (int a = 0; a < N_CLUSTERS; a++)
        for (int b = a + 1; b < N_CLUSTERS; b++) ck_assert_int_ne(column_of[a], column_of[b]);
}

START_TEST(test_recovers_separated_clusters)
{
    double *X = malloc(sizeof(double) * N_POINTS * DIM), *resp = malloc(sizeof(double) * N_POINTS * N_CLUSTERS);
    int64_t seeds[N_CLUSTERS];
    blobs(X);
    gmm_rng rng;
    gmm_rng_seed(&rng, 1);
    ck_assert_int_eq(gmm_init_knn(X, N_POINTS, DIM, N_CLUSTERS, 10, 60000, &rng, NULL, resp, seeds), GMM_OK);
    check_recovered(resp, N_CLUSTERS);
    int seen[N_CLUSTERS] = {0};
    for (int k = 0; k < N_CLUSTERS; k++) seen[seeds[k] / PER_CLUSTER]++;
    for (int c = 0; c < N_CLUSTERS; c++) ck_assert_int_eq(seen[c], 1);
    free(X);
    free(resp);
}
END_TEST

START_TEST(test_from_a_sample)
{
    double *X = malloc(sizeof(double) * N_POINTS * DIM), *resp = malloc(sizeof(double) * N_POINTS * N_CLUSTERS);
    int64_t seeds[N_CLUSTERS];
    blobs(X);
    gmm_rng rng;
    gmm_rng_seed(&rng, 7);
    ck_assert_int_eq(gmm_init_knn(X, N_POINTS, DIM, N_CLUSTERS, 8, 200, &rng, NULL, resp, seeds), GMM_OK);
    check_recovered(resp, N_CLUSTERS);
    for (int k = 0; k < N_CLUSTERS; k++) ck_assert(seeds[k] >= 0 && seeds[k] < N_POINTS);
    free(X);
    free(resp);
}
END_TEST

START_TEST(test_fit_with_knn_init)
{
    double *X = malloc(sizeof(double) * N_POINTS * DIM);
    blobs(X);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = N_CLUSTERS;
    o.init = GMM_INIT_KNN;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit(X, N_POINTS, DIM, &o, &m), GMM_OK);
    ck_assert(m.converged);
    for (int k = 0; k < N_CLUSTERS; k++) ck_assert_double_eq_tol(m.weights[k], 0.25, 1e-6);
    ck_assert_int_eq(m.init, GMM_INIT_KNN);
    gmm_model_free(&m);
    free(X);
}
END_TEST

/* Points without cluster structure (uniform in the unit square), where the density peaks, and so
 * the seeds, depend on how many neighbours and which points make up the graph. */
#define N_FLAT 300
#define K_FLAT 5
static void flat_points(double *X)
{
    tu_fill_uniform(X, (size_t)N_FLAT * 2, 0.0, 1.0, 11);
}

/* gmm_fit with init=knn from o, and gmm_fit_from_resp from gmm_init_knn(n_neighbors, sample_size)
 * drawn with o's seed: the means after the same EM iterations; returns whether they are equal. */
static int fit_matches_direct(const double *X, const gmm_options *o, int n_neighbors,
                              int64_t sample_size)
{
    double *resp = malloc(sizeof(double) * N_FLAT * K_FLAT);
    gmm_rng rng;
    gmm_rng_seed(&rng, o->seed);
    ck_assert_int_eq(gmm_init_knn(X, N_FLAT, 2, K_FLAT, n_neighbors, sample_size, &rng, NULL, resp, NULL),
                     GMM_OK);
    gmm_model fitted = {0}, direct = {0};
    ck_assert_int_eq(gmm_fit(X, N_FLAT, 2, o, &fitted), GMM_OK);
    ck_assert_int_eq(gmm_fit_from_resp(X, N_FLAT, 2, o, resp, &direct), GMM_OK);
    int same = memcmp(fitted.means, direct.means, sizeof(double) * K_FLAT * 2) == 0 &&
               memcmp(fitted.weights, direct.weights, sizeof(double) * K_FLAT) == 0;
    gmm_model_free(&fitted);
    gmm_model_free(&direct);
    free(resp);
    return same;
}

static void flat_options(gmm_options *o)
{
    gmm_options_default(o);
    o->n_components = K_FLAT;
    o->init = GMM_INIT_KNN;
    o->device = GMM_DEVICE_CPU;
    o->max_iter = 2;
    o->tol = 0;
    o->seed = 3;
}

/* gmm_fit starts from the options' neighbours and sample size: the same fit as gmm_init_knn with
 * them, a different one (on these points) from the defaults; 0 means the default. */
START_TEST(test_fit_honours_knn_options)
{
    double *X = malloc(sizeof(double) * N_FLAT * 2);
    flat_points(X);
    gmm_options o;
    flat_options(&o);
    o.knn_neighbors = 3;
    ck_assert(fit_matches_direct(X, &o, 3, GMM_KNN_DEFAULT_SAMPLE));
    /* the two k give different starts here, so the first check says something */
    ck_assert(!fit_matches_direct(X, &o, 10, GMM_KNN_DEFAULT_SAMPLE));
    o.knn_neighbors = 0; /* the default, 10 */
    ck_assert(fit_matches_direct(X, &o, GMM_KNN_DEFAULT_NEIGHBORS, GMM_KNN_DEFAULT_SAMPLE));
    o.knn_sample_size = 100;
    ck_assert(fit_matches_direct(X, &o, GMM_KNN_DEFAULT_NEIGHBORS, 100));
    ck_assert(!fit_matches_direct(X, &o, GMM_KNN_DEFAULT_NEIGHBORS, GMM_KNN_DEFAULT_SAMPLE));
    free(X);
}
END_TEST

START_TEST(test_names_and_validation)
{
    gmm_init_method m;
    ck_assert_int_eq(gmm_init_parse("knn", &m), 0);
    ck_assert_int_eq(m, GMM_INIT_KNN);
    ck_assert_str_eq(gmm_init_name(GMM_INIT_KNN), "knn");
    gmm_options o;
    gmm_options_default(&o);
    ck_assert_int_eq(o.knn_neighbors, GMM_KNN_DEFAULT_NEIGHBORS);
    ck_assert_int_eq(o.knn_sample_size, GMM_KNN_DEFAULT_SAMPLE);
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_OK);
    o.knn_neighbors = 0; /* the default */
    o.knn_sample_size = 0;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_OK);
    ck_assert_int_eq(gmm_knn_neighbors(&o), GMM_KNN_DEFAULT_NEIGHBORS);
    ck_assert_int_eq(gmm_knn_sample_size(&o), GMM_KNN_DEFAULT_SAMPLE);
    o.knn_neighbors = -1;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
    o.knn_neighbors = 128;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
    o.knn_neighbors = 10;
    o.knn_sample_size = 1;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
    o.knn_sample_size = -5;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_bad_arguments)
{
    double X[20] = {0}, resp[20];
    gmm_rng rng;
    gmm_rng_seed(&rng, 0);
    /* k + 1 neighbours need more points than the sample has */
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 2, 10, 100, &rng, NULL, resp, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 11, 3, 100, &rng, NULL, resp, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 2, 0, 100, &rng, NULL, resp, NULL), GMM_ERR_ARG);
    /* identical points: every distance is 0, the init still returns one-hot rows */
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 2, 3, 100, &rng, NULL, resp, NULL), GMM_OK);
    for (int i = 0; i < 10; i++) ck_assert_double_eq(resp[2 * i] + resp[2 * i + 1], 1.0);
}
END_TEST

static Suite *init_knn_suite(void)
{
    Suite *s = suite_create("init_knn");
    TCase *tc = tcase_create("init_knn");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_recovers_separated_clusters);
    tcase_add_test(tc, test_from_a_sample);
    tcase_add_test(tc, test_fit_with_knn_init);
    tcase_add_test(tc, test_fit_honours_knn_options);
    tcase_add_test(tc, test_names_and_validation);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(init_knn_suite()); }
