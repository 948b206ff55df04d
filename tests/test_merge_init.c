/* Check suite for init=merge (models/fit/merge_init.h): the joining rule on hand-made counts
 * (edges per sample of the smaller group, fragments first, by edges and else by the nearest
 * means, the groups' numbering, nonsense refused), and whole fits on a long bar beside two small
 * blobs, where k-means starts split the bar and merge the blobs (adjusted Rand index 0.38 in
 * scikit-learn, a local optimum) and init=merge finds the three: on the CPU, the same model for
 * the same seed, and on a GPU when there is one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/rng.h"
#include "models/core/em.h"
#include "models/fit/merge_init.h"
#include "models/fit/spectral_init.h"
#include "tests/testutil.h"

/* Symmetric edge counts from a list of (a, b, count). */
static void set_edge(double *edges, int n, int a, int b, double count)
{
    edges[a * n + b] = count;
    edges[b * n + a] = count;
}

START_TEST(joins_most_edges_per_sample_of_the_smaller)
{
    /* 0-1: 240 edges, 0.4 per sample of the smaller (600); 1-2: 300, only 0.3 per sample: a
     * rule counting edges alone would join 1 and 2 */
    const int64_t sizes[3] = {600, 1000, 1000};
    double edges[9] = {0}, means[3] = {0, 1, 2};
    set_edge(edges, 3, 0, 1, 240);
    set_edge(edges, 3, 1, 2, 300);
    int group_of[3];
    TU_CHECK_OK(gmm_merge_components(3, 2, sizes, edges, means, 1, 0.25, group_of));
    ck_assert_int_eq(group_of[0], 0);
    ck_assert_int_eq(group_of[1], 0);
    ck_assert_int_eq(group_of[2], 1);
    /* a chain of four: the two strong links join first, the weak one stays cut */
    const int64_t four[4] = {100, 100, 100, 100};
    double e4[16] = {0}, m4[4] = {0, 1, 2, 3};
    set_edge(e4, 4, 0, 1, 50);
    set_edge(e4, 4, 2, 3, 40);
    set_edge(e4, 4, 1, 2, 5);
    int g4[4];
    TU_CHECK_OK(gmm_merge_components(4, 2, four, e4, m4, 1, 0.25, g4));
    ck_assert(g4[0] == 0 && g4[1] == 0 && g4[2] == 1 && g4[3] == 1);
    /* groups numbered by their smallest component: 0 and 2 together are group 0, 1 is group 1 */
    double e3[9] = {0};
    set_edge(e3, 3, 0, 2, 10);
    const int64_t even[3] = {100, 100, 100};
    TU_CHECK_OK(gmm_merge_components(3, 2, even, e3, means, 1, 0.25, group_of));
    ck_assert(group_of[0] == 0 && group_of[1] == 1 && group_of[2] == 0);
    /* as many groups as components: each its own */
    TU_CHECK_OK(gmm_merge_components(3, 3, even, e3, means, 1, 0.25, group_of));
    ck_assert(group_of[0] == 0 && group_of[1] == 1 && group_of[2] == 2);
}
END_TEST

START_TEST(fragments_join_first)
{
    /* component 2 holds 10 samples, under 0.25 x 2010 / 2: a fragment. It has no edge, so it
     * joins the group with the nearest means (1), although 0 and 1 share many edges */
    const int64_t sizes[3] = {1000, 1000, 10};
    double edges[9] = {0};
    set_edge(edges, 3, 0, 1, 100);
    const double means[6] = {0, 0, 5, 0, 5.5, 0.5}; /* 2 dims */
    int group_of[3];
    TU_CHECK_OK(gmm_merge_components(3, 2, sizes, edges, means, 2, 0.25, group_of));
    ck_assert(group_of[0] == 0 && group_of[1] == 1 && group_of[2] == 1);
    /* with edges the fragment goes where most of them lead (0), whatever the means */
    set_edge(edges, 3, 2, 0, 3);
    set_edge(edges, 3, 2, 1, 1);
    TU_CHECK_OK(gmm_merge_components(3, 2, sizes, edges, means, 2, 0.25, group_of));
    ck_assert(group_of[0] == 0 && group_of[1] == 1 && group_of[2] == 0);
    /* share 0: no fragments, the edges per sample decide (2-0: 3 of 10 samples) */
    TU_CHECK_OK(gmm_merge_components(3, 2, sizes, edges, means, 2, 0.0, group_of));
    ck_assert(group_of[0] == 0 && group_of[1] == 1 && group_of[2] == 0);
    /* an empty component is a fragment too (nearest means: 1) */
    const int64_t empty[3] = {1000, 1000, 0};
    double none[9] = {0};
    set_edge(none, 3, 0, 1, 100);
    TU_CHECK_OK(gmm_merge_components(3, 2, empty, none, means, 2, 0.25, group_of));
    ck_assert(group_of[0] == 0 && group_of[1] == 1 && group_of[2] == 1);
    /* nonsense */
    ck_assert_int_eq(gmm_merge_components(2, 3, sizes, edges, means, 2, 0.25, group_of),
                     GMM_ERR_ARG);
    ck_assert_int_eq(gmm_merge_components(3, 0, sizes, edges, means, 2, 0.25, group_of),
                     GMM_ERR_ARG);
    ck_assert_int_eq(gmm_merge_components(3, 2, sizes, edges, means, 2, NAN, group_of),
                     GMM_ERR_ARG);
}
END_TEST

/* A bar 20 x 0.5 (3000 points, uniform) and two round blobs of 400 (sd 0.25) above it at
 * (8, 2) and (12, 2): truth[i] is 0, 1 or 2. */
enum { BAR = 3000, BLOB = 400, N_BAR = BAR + 2 * BLOB };
static double *bar_and_blobs(int *truth)
{
    double *X = malloc(sizeof(double) * N_BAR * 2);
    uint64_t s = 7;
    for (int i = 0; i < N_BAR; i++) {
        if (i < BAR) {
            X[2 * i] = 20 * tu_rand_uniform(&s);
            X[2 * i + 1] = 0.5 * tu_rand_uniform(&s);
            truth[i] = 0;
        } else {
            truth[i] = i < BAR + BLOB ? 1 : 2;
            X[2 * i] = (truth[i] == 1 ? 8 : 12) + 0.25 * tu_rand_normal(&s);
            X[2 * i + 1] = 2 + 0.25 * tu_rand_normal(&s);
        }
    }
    return X;
}

/* The share of samples whose label is the majority label of their true group, when the three
 * majorities differ; 0 when two groups share one component. */
static double recovered(const int *labels, const int *truth)
{
    int count[3][3] = {{0}}, major[3];
    for (int i = 0; i < N_BAR; i++) count[truth[i]][labels[i]]++;
    double right = 0;
    for (int t = 0; t < 3; t++) {
        major[t] = 0;
        for (int k = 1; k < 3; k++)
            if (count[t][k] > count[t][major[t]]) major[t] = k;
        right += count[t][major[t]];
    }
    if (major[0] == major[1] || major[1] == major[2] || major[0] == major[2]) return 0;
    return right / N_BAR;
}

static void fit_bar(gmm_init_method init, gmm_device device, const double *X, gmm_model *m,
                    gmm_fit_scores *sc)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 3;
    o.n_init = 3;
    o.init = init;
    o.device = device;
    o.knn_neighbors = 15;
    gmm_options_plug_fitted_init(&o);
    TU_CHECK_OK(gmm_fit_scored(X, N_BAR, 2, &o, m, sc));
}

START_TEST(bar_and_blobs_cpu)
{
    int *truth = malloc(sizeof(int) * N_BAR);
    double *X = bar_and_blobs(truth);
    gmm_model m = {0};
    gmm_fit_scores sc = {0};
    /* k-means starts: the likelihood's choice cuts the bar and puts the blobs together */
    fit_bar(GMM_INIT_KMEANS, GMM_DEVICE_CPU, X, &m, &sc);
    ck_assert_double_eq(recovered(sc.labels, truth), 0);
    const double kmeans_bound = m.lower_bound;
    gmm_fit_scores_free(&sc);
    gmm_model_free(&m);
    fit_bar(GMM_INIT_MERGE, GMM_DEVICE_CPU, X, &m, &sc);
    ck_assert_double_ge(recovered(sc.labels, truth), 0.995);
    ck_assert_int_eq(m.init, GMM_INIT_MERGE);
    ck_assert_int_eq(m.n_init, 3);
    /* here the likelihood agrees: k-means starts all end in a worse local optimum */
    ck_assert_double_gt(m.lower_bound, kmeans_bound + 0.1);
    ck_assert_str_eq(gmm_init_name(GMM_INIT_MERGE), "merge");
    gmm_init_method parsed;
    ck_assert_int_eq(gmm_init_parse("merge", &parsed), 0);
    ck_assert_int_eq(parsed, GMM_INIT_MERGE);
    /* the same seed: the same model */
    gmm_model again = {0};
    gmm_fit_scores sc2 = {0};
    fit_bar(GMM_INIT_MERGE, GMM_DEVICE_CPU, X, &again, &sc2);
    ck_assert_double_eq(again.lower_bound, m.lower_bound);
    ck_assert_int_eq(memcmp(again.means, m.means, sizeof(double) * 6), 0);
    gmm_fit_scores_free(&sc2);
    gmm_model_free(&again);
    gmm_fit_scores_free(&sc);
    gmm_model_free(&m);
    /* without the plug the EM loop says what is missing */
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 3;
    o.init = GMM_INIT_MERGE;
    o.device = GMM_DEVICE_CPU;
    ck_assert_int_eq(gmm_fit(X, N_BAR, 2, &o, &m), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "init=merge"));
    free(X);
    free(truth);
}
END_TEST

START_TEST(bar_and_blobs_gpu)
{
    if (!tu_gpu_available()) {
        printf("bar_and_blobs_gpu: no GPU, skipped\n");
        return;
    }
    int *truth = malloc(sizeof(int) * N_BAR);
    double *X = bar_and_blobs(truth);
    gmm_model m = {0}, c = {0};
    gmm_fit_scores sc = {0}, sc_cpu = {0};
    fit_bar(GMM_INIT_MERGE, GMM_DEVICE_GPU, X, &m, &sc);
    ck_assert_double_ge(recovered(sc.labels, truth), 0.995);
    fit_bar(GMM_INIT_MERGE, GMM_DEVICE_CPU, X, &c, &sc_cpu);
    int differ = 0;
    for (int i = 0; i < N_BAR; i++) differ += sc.labels[i] != sc_cpu.labels[i];
    ck_assert_int_le(differ, 3);
    ck_assert_double_le(fabs(m.lower_bound - c.lower_bound), 1e-6 * fabs(c.lower_bound));
    gmm_fit_scores_free(&sc);
    gmm_fit_scores_free(&sc_cpu);
    gmm_model_free(&m);
    gmm_model_free(&c);
    free(X);
    free(truth);
}
END_TEST

static Suite *merge_init_suite(void)
{
    Suite *s = suite_create("merge_init");
    TCase *tc = tcase_create("merge_init");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, joins_most_edges_per_sample_of_the_smaller);
    tcase_add_test(tc, fragments_join_first);
    tcase_add_test(tc, bar_and_blobs_cpu);
    tcase_add_test(tc, bar_and_blobs_gpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(merge_init_suite()); }
