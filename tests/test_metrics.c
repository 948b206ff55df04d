/* Check suite for models/eval/metrics.c: Hungarian matching against brute force, and accuracy, NMI and
 * ARI against hand-computed values and the numbers scikit-learn 1.2 reports for the same labels. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/eval/metrics.h"
#include "tests/testutil.h"

#define N_OF(a) ((int64_t)(sizeof(a) / sizeof((a)[0])))

START_TEST(test_perfect_permuted)
{
    /* Cluster c holds class (c + 2) % 4: a relabelling only, so every score is perfect. */
    int clusters[40];
    uint8_t classes[40];
    for (int i = 0; i < 40; i++) {
        classes[i] = (uint8_t)(i % 4);
        clusters[i] = (classes[i] + 2) % 4;
    }
    cluster_metrics m;
    ck_assert_int_eq(cluster_metrics_compute(clusters, 4, classes, 4, 40, &m), GMM_OK);
    ck_assert_double_eq_tol(m.accuracy, 1.0, 1e-15);
    ck_assert_double_eq_tol(m.nmi, 1.0, 1e-12);
    ck_assert_double_eq_tol(m.ari, 1.0, 1e-15);
    for (int c = 0; c < 4; c++) ck_assert_int_eq(m.cluster_to_class[c], (c + 2) % 4);
    cluster_metrics_free(&m);
    cluster_metrics_free(&m); /* freeing twice is harmless */
}
END_TEST

START_TEST(test_sklearn_example)
{
    /* labels_true = [0,0,0,1,1,1], labels_pred = [0,0,1,1,2,2].
     * Contingency (cluster x class): [[2,0],[1,1],[0,2]].
     * ARI: sum C(n_ij,2) = 1+0+0+0+0+1 = 2; sum C(a_i,2) = 1+1+1 = 3; sum C(b_j,2) = 3+3 = 6;
     * expected = 3*6/C(6,2) = 18/15 = 1.2; max = (3+6)/2 = 4.5; ARI = (2-1.2)/(4.5-1.2) = 8/33.
     * NMI: MI = (2/3) log 2 (the two pure clusters each contribute
     * (1/3) log 2, the mixed one 0); H(true) = log 2; H(pred) = log 3;
     * NMI = (2/3) log 2 / ((log 2 + log 3) / 2). */
    int clusters[] = {0, 0, 1, 1, 2, 2};
    uint8_t classes[] = {0, 0, 0, 1, 1, 1};
    cluster_metrics m;
    ck_assert_int_eq(cluster_metrics_compute(clusters, 3, classes, 2, 6, &m), GMM_OK);
    double nmi_hand = (2.0 / 3.0) * log(2.0) / ((log(2.0) + log(3.0)) / 2.0);
    ck_assert_double_eq_tol(m.ari, 8.0 / 33.0, 1e-15);
    ck_assert_double_eq_tol(m.ari, 0.24242424242424243, 1e-15);
    ck_assert_double_eq_tol(m.nmi, nmi_hand, 1e-15);
    ck_assert_double_eq_tol(m.nmi, 0.5158037429793888, 1e-15);
    /* Best matching: cluster 0 -> class 0 (2), cluster 2 -> class 1 (2); 4 of 6. */
    ck_assert_double_eq_tol(m.accuracy, 4.0 / 6.0, 1e-15);
    ck_assert_int_eq(m.cluster_to_class[0], 0);
    ck_assert_int_eq(m.cluster_to_class[1], -1);
    ck_assert_int_eq(m.cluster_to_class[2], 1);
    int64_t expect_conf[] = {2, 0, 1, 1, 0, 2};
    for (int i = 0; i < 6; i++) ck_assert_int_eq(m.confusion[i], expect_conf[i]);
    cluster_metrics_free(&m);
}
END_TEST

START_TEST(test_sklearn_more_cases)
{
    /* Values printed by scikit-learn 1.2.1 for the same label vectors. */
    {
        uint8_t t[] = {0, 0, 1, 1, 2, 2, 2, 3, 3, 1};
        int p[] = {1, 1, 0, 0, 2, 2, 0, 3, 3, 3};
        cluster_metrics m;
        ck_assert_int_eq(cluster_metrics_compute(p, 4, t, 4, N_OF(t), &m), GMM_OK);
        ck_assert_double_eq_tol(m.ari, 0.3918918918918919, 1e-14);
        ck_assert_double_eq_tol(m.nmi, 0.7204508819333747, 1e-14);
        ck_assert_double_eq_tol(m.accuracy, 0.8, 1e-15);
        cluster_metrics_free(&m);
    }
    {
        /* One cluster against two classes: no information, no agreement beyond chance. */
        uint8_t t[] = {0, 0, 1, 1};
        int p[] = {0, 0, 0, 0};
        cluster_metrics m;
        ck_assert_int_eq(cluster_metrics_compute(p, 1, t, 2, 4, &m), GMM_OK);
        ck_assert_double_eq(m.ari, 0.0);
        ck_assert_double_eq(m.nmi, 0.0);
        ck_assert_double_eq_tol(m.accuracy, 0.5, 1e-15);
        cluster_metrics_free(&m);
    }
    {
        /* One label on both sides (empty clusters and classes do not count): scikit-learn's
         * special case scores it 1. */
        uint8_t t[] = {2, 2, 2, 2};
        int p[] = {1, 1, 1, 1};
        cluster_metrics m;
        ck_assert_int_eq(cluster_metrics_compute(p, 3, t, 3, 4, &m), GMM_OK);
        ck_assert_double_eq(m.ari, 1.0);
        ck_assert_double_eq(m.nmi, 1.0);
        ck_assert_double_eq(m.accuracy, 1.0);
        cluster_metrics_free(&m);
    }
    {
        /* Singletons against pairs: NMI 2/3 (MI = log 2, H = log 4 and log 2), ARI 0. */
        uint8_t t[] = {0, 1, 2, 3};
        int p[] = {0, 0, 1, 1};
        cluster_metrics m;
        ck_assert_int_eq(cluster_metrics_compute(p, 2, t, 4, 4, &m), GMM_OK);
        ck_assert_double_eq_tol(m.nmi, 0.6666666666666666, 1e-15);
        ck_assert_double_eq_tol(m.ari, 0.0, 1e-15);
        cluster_metrics_free(&m);
    }
}
END_TEST

START_TEST(test_confusion_sums_and_large_n)
{
    /* Large enough that pair counts (about N^2) overflow 32 bits and their products 64. */
    int64_t n = 3000000;
    int *clusters = malloc((size_t)n * sizeof *clusters);
    uint8_t *classes = malloc((size_t)n);
    uint64_t s = 7;
    for (int64_t i = 0; i < n; i++) {
        classes[i] = (uint8_t)(tu_rand_u64(&s) % 10);
        clusters[i] = tu_rand_uniform(&s) < 0.8 ? classes[i] : (int)(tu_rand_u64(&s) % 12);
    }
    cluster_metrics m;
    ck_assert_int_eq(cluster_metrics_compute(clusters, 12, classes, 10, n, &m), GMM_OK);
    int64_t total = 0;
    for (int i = 0; i < 12 * 10; i++) total += m.confusion[i];
    ck_assert_int_eq(total, n);
    ck_assert(m.accuracy > 0.8 && m.accuracy < 0.9);
    ck_assert(m.ari > 0.5 && m.ari < 1.0);
    ck_assert(m.nmi > 0.5 && m.nmi < 1.0);
    cluster_metrics_free(&m);
    free(clusters);
    free(classes);
}
END_TEST

START_TEST(test_out_of_range)
{
    int clusters[] = {0, 1, 3, 0};
    uint8_t classes[] = {0, 1, 1, 0};
    cluster_metrics m;
    gmm_error_clear();
    ck_assert_int_eq(cluster_metrics_compute(clusters, 3, classes, 2, 4, &m), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "cluster label 3"));
    ck_assert_ptr_null(m.confusion);

    clusters[2] = -1;
    ck_assert_int_eq(cluster_metrics_compute(clusters, 3, classes, 2, 4, &m), GMM_ERR_ARG);

    clusters[2] = 2;
    classes[3] = 5;
    ck_assert_int_eq(cluster_metrics_compute(clusters, 3, classes, 2, 4, &m), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "class label 5"));

    ck_assert_int_eq(cluster_metrics_compute(clusters, 3, classes, 2, 0, &m), GMM_ERR_ARG);
    ck_assert_int_eq(cluster_metrics_compute(clusters, 0, classes, 2, 4, &m), GMM_ERR_ARG);
    ck_assert_int_eq(cluster_metrics_compute(NULL, 3, classes, 2, 4, &m), GMM_ERR_ARG);
    cluster_metrics_free(&m);
}
END_TEST

START_TEST(test_hungarian_3x3)
{
    /* Classic example: the optimum is 0->1 (1), 1->0 (2), 2->2 (2), total 5. */
    double cost[] = {4, 1, 3, 2, 0, 5, 3, 2, 2};
    int row_to_col[3];
    double total = hungarian_min_cost(cost, 3, 3, row_to_col);
    ck_assert_double_eq(total, 5.0);
    ck_assert_int_eq(row_to_col[0], 1);
    ck_assert_int_eq(row_to_col[1], 0);
    ck_assert_int_eq(row_to_col[2], 2);
}
END_TEST

START_TEST(test_hungarian_rectangular)
{
    /* 2 x 4: row 0 takes column 3 (1), row 1 column 0 (2). */
    double wide[] = {5, 9, 4, 1, 2, 8, 7, 3};
    int r2c[4];
    ck_assert_double_eq(hungarian_min_cost(wide, 2, 4, r2c), 3.0);
    ck_assert_int_eq(r2c[0], 3);
    ck_assert_int_eq(r2c[1], 0);

    /* Its transpose, 4 x 2: two of the four rows stay unassigned. */
    double tall[8];
    for (int r = 0; r < 2; r++)
        for (int c = 0; c < 4; c++) tall[c * 2 + r] = wide[r * 4 + c];
    ck_assert_double_eq(hungarian_min_cost(tall, 4, 2, r2c), 3.0);
    ck_assert_int_eq(r2c[0], 1);
    ck_assert_int_eq(r2c[1], -1);
    ck_assert_int_eq(r2c[2], -1);
    ck_assert_int_eq(r2c[3], 0);
}
END_TEST

/* Minimum over all permutations of 0..n-1, by Heap's algorithm. */
static double brute_force_min(const double *cost, int n)
{
    int perm[8], c[8] = {0};
    for (int i = 0; i < n; i++) perm[i] = i;
    double best = INFINITY;
    for (int i = 0;;) {
        double s = 0;
        for (int r = 0; r < n; r++) s += cost[r * n + perm[r]];
        if (s < best) best = s;
        while (i < n && c[i] >= i) c[i++] = 0;
        if (i >= n) break;
        int j = (i % 2 == 0) ? 0 : c[i];
        int t = perm[j];
        perm[j] = perm[i];
        perm[i] = t;
        c[i]++;
        i = 0;
    }
    return best;
}

START_TEST(test_hungarian_vs_brute_force)
{
    for (int trial = 0; trial < 50; trial++) {
        double cost[36];
        tu_fill_uniform(cost, 36, -5.0, 10.0, 1000 + trial);
        /* Some trials with ties, which trip up careless implementations. */
        if (trial % 3 == 0)
            for (int i = 0; i < 36; i++) cost[i] = floor(cost[i] / 5.0);
        int r2c[6];
        double total = hungarian_min_cost(cost, 6, 6, r2c);
        double best = brute_force_min(cost, 6);
        ck_assert_double_eq_tol(total, best, 1e-9);
        int seen[6] = {0}; /* a permutation, and total matches the assignment */
        double check = 0;
        for (int r = 0; r < 6; r++) {
            ck_assert(r2c[r] >= 0 && r2c[r] < 6);
            ck_assert_int_eq(seen[r2c[r]]++, 0);
            check += cost[r * 6 + r2c[r]];
        }
        ck_assert_double_eq_tol(check, total, 1e-12);
    }
}
END_TEST

static Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_perfect_permuted);
    tcase_add_test(tc, test_sklearn_example);
    tcase_add_test(tc, test_sklearn_more_cases);
    tcase_add_test(tc, test_confusion_sums_and_large_n);
    tcase_add_test(tc, test_out_of_range);
    tcase_add_test(tc, test_hungarian_3x3);
    tcase_add_test(tc, test_hungarian_rectangular);
    tcase_add_test(tc, test_hungarian_vs_brute_force);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(metrics_suite()); }
