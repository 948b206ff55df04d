/* Check suite for the k-means start on a sample of the rows (models/core/init_kmeans.h): the
 * stratified indices (ascending, distinct, one per stratum, every row when m = n), the size rule
 * (262144 above 1048576 rows, the option's own size, every row), the option's check, and a fit
 * on the MNIST digits started from a sample of 4096 of them (the notice says so) against the fit
 * started from the k-means of every image: the lower bounds after EM within 1% (seeds 0 and 1
 * of the full k-means differ by 0.4% there). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "models/core/em.h"
#include "models/core/init_kmeans.h"
#include "tests/testutil.h"

START_TEST(test_sample_indices)
{
    const int64_t cases[][2] = {{10, 10}, {601, 150}, {1000003, 4096}, {7, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        const int64_t n = cases[c][0], m = cases[c][1];
        int64_t *idx = malloc(sizeof(int64_t) * m), *again = malloc(sizeof(int64_t) * m);
        gmm_rng rng;
        gmm_rng_seed(&rng, 5);
        gmm_kmeans_sample_indices(&rng, n, m, idx);
        gmm_rng_seed(&rng, 5);
        gmm_kmeans_sample_indices(&rng, n, m, again);
        ck_assert_int_eq(memcmp(idx, again, sizeof(int64_t) * m), 0);
        for (int64_t j = 0; j < m; j++) {
            const int64_t lo = j * n / m, hi = (j + 1) * n / m;
            ck_assert_msg(idx[j] >= lo && idx[j] < hi, "n %lld m %lld: row %lld outside stratum "
                          "%lld [%lld, %lld)", (long long)n, (long long)m, (long long)idx[j],
                          (long long)j, (long long)lo, (long long)hi);
            if (j) ck_assert(idx[j] > idx[j - 1]);
            if (m == n) ck_assert_int_eq(idx[j], j);
        }
        free(idx);
        free(again);
    }
}
END_TEST

START_TEST(test_sample_rule)
{
    gmm_options o;
    gmm_options_default(&o);
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 60000), 60000);
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 1048576), 1048576);
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 1048577), 262144);
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 8100000), 262144);
    o.kmeans_sample_size = -1;
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 8100000), 8100000);
    o.kmeans_sample_size = 5000;
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 60000), 5000);
    ck_assert_int_eq(gmm_kmeans_sample_rows(&o, 4000), 4000);
    o.n_components = 10;
    o.kmeans_sample_size = 9;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 4), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "kmeans_sample_size=9"));
    gmm_error_clear();
    o.kmeans_sample_size = 10;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 4), GMM_OK);
    o.kmeans_full_passes = -1;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 4), GMM_ERR_ARG);
    gmm_error_clear();
}
END_TEST

static int sample_notices;
static void count_notice(void *user, const char *message)
{
    (void)user;
    if (strstr(message, "k-means on a sample of 4096 of the 19690 rows")) sample_notices++;
}

/* The lower bound after EM on the digits (diagonal covariances) from the given start. */
static double digits_fit(const double *X, int64_t n, int d, int64_t sample, uint64_t seed)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 10;
    o.covariance_type = GMM_COV_DIAG;
    o.device = GMM_DEVICE_CPU;
    o.seed = seed;
    o.kmeans_sample_size = sample;
    o.verbose = 1;
    o.on_notice = count_notice;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit(X, n, d, &o, &m), GMM_OK);
    double lb = m.lower_bound;
    gmm_model_free(&m);
    return lb;
}

START_TEST(test_digits_sampled_start)
{
    const char *dir = getenv("GMM_TEST_MNIST_DIR");
    if (!dir || !*dir) {
        printf("test_init_kmeans: digits case skipped (GMM_TEST_MNIST_DIR is not set)\n");
        return;
    }
    dataset ds = {0};
    ck_assert_int_eq(dataset_load(dir, DATASET_TRAIN, &ds), GMM_OK);
    double *X = NULL;
    ck_assert_int_eq(dataset_to_double(&ds, &X), GMM_OK);
    const int d = ds.rows * ds.cols;
    double all[1], sampled[1];
    for (int s = 0; s < 1; s++) {
        all[s] = digits_fit(X, ds.n_samples, d, -1, (uint64_t)s);
        sampled[s] = digits_fit(X, ds.n_samples, d, 4096, (uint64_t)s);
        printf("digits, diag, seed %d: lower bound %.6f from every image's k-means, %.6f from "
               "the sample's (%+.3f%%)\n", s, all[s], sampled[s],
               100 * (sampled[s] - all[s]) / all[s]);
        ck_assert_msg(tu_rel_error_1(sampled[s], all[s]) < 0.01, "the sampled start is worse");
    }
    ck_assert_int_eq(sample_notices, 1);
    free(X);
    dataset_free(&ds);
}
END_TEST

static Suite *init_kmeans_suite(void)
{
    Suite *s = suite_create("init_kmeans");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_sample_indices);
    tcase_add_test(tc, test_sample_rule);
    tcase_add_test(tc, test_digits_sampled_start);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(init_kmeans_suite()); }
