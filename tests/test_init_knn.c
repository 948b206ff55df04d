/* Check suite for the density-peaks kNN initialisation: it recovers well-separated clusters (one
 * seed per cluster, every point labelled with its own cluster's seed), also from a sample of the
 * data, through gmm_fit with init=knn, and refuses bad arguments. */
#include <stdlib.h>
#include <string.h>

#include "models/gmm.h"
#include "models/init_knn.h"
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
    ck_assert_int_eq(gmm_init_knn(X, N_POINTS, DIM, N_CLUSTERS, 10, 60000, &rng, resp, seeds), GMM_OK);
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
    ck_assert_int_eq(gmm_init_knn(X, N_POINTS, DIM, N_CLUSTERS, 8, 200, &rng, resp, seeds), GMM_OK);
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
    o.knn_neighbors = 0;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
    o.knn_neighbors = 128;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
    o.knn_neighbors = 10;
    o.knn_sample_size = 1;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 2), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_bad_arguments)
{
    double X[20] = {0}, resp[20];
    gmm_rng rng;
    gmm_rng_seed(&rng, 0);
    /* k + 1 neighbours need more points than the sample has */
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 2, 10, 100, &rng, resp, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 11, 3, 100, &rng, resp, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 2, 0, 100, &rng, resp, NULL), GMM_ERR_ARG);
    /* identical points: every distance is 0, the init still returns one-hot rows */
    ck_assert_int_eq(gmm_init_knn(X, 10, 2, 2, 3, 100, &rng, resp, NULL), GMM_OK);
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
    tcase_add_test(tc, test_names_and_validation);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(init_knn_suite()); }
