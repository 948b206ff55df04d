/* Check suite for fits over several GPUs (models/fit/multi_gpu.h): 2 GPUs against 1 on a synthetic
 * U8 set whose row count does not divide by 2 (the lower bound to 1e-10 relative, the same
 * labels for every row, the means to 1e-10), the scores gathered in row order; and a rank that
 * fails on purpose (before its fit, and mid-fit after EM iteration 2) makes every rank return an
 * error naming the failed GPU, without hanging (each test runs in Check's forked child under a
 * timeout). The argument checks (more GPUs than present) run anywhere. Skips the device tests,
 * saying so, with fewer than 2 GPUs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/gpu_info.h"
#include "models/dist/comm_nccl.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/fit/multi_gpu.h"
#include "tests/testutil.h"

#define CHECK_OK TU_CHECK_OK

static void options_for(gmm_options *o, gmm_cov_type type, int K)
{
    gmm_options_default(o);
    o->n_components = K;
    o->covariance_type = type;
    o->max_iter = 12;
    o->tol = 0;
    o->seed = 5;
    o->reg_covar = 1e-4;
}

/* Whether the machine has 2 GPUs and the build NCCL (printed when not). Forks: CUDA is not
 * touched in the parent. */
static int two_gpus(void)
{
    if (!tu_gpu_available()) {
        printf("multi-GPU tests skipped: no GPU\n");
        return 0;
    }
    if (!gmm_nccl_available()) {
        printf("multi-GPU tests skipped: this build has no NCCL\n");
        return 0;
    }
    return 1;
}

static int gpu_count_or_skip(void)
{
    int n = gmm_gpu_count();
    if (n < 2) printf("multi-GPU comparison skipped: %d GPU%s (2 needed)\n", n, n == 1 ? "" : "s");
    return n;
}

/* 2 GPUs against 1, every covariance type, N = 4001 (rank 0 holds 2001 rows, rank 1 2000). */
START_TEST(test_two_gpus_match_one)
{
    if (gpu_count_or_skip() < 2) return;
    const int64_t N = 4001;
    const int d = 16, K = 5;
    uint8_t *X = tu_synthetic_bytes(N, d, K, 21);
    gmm_data_view v = {GMM_ELEM_U8, X, N, d, 0, N};
    const gmm_cov_type types[] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG, GMM_COV_SPHERICAL};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        gmm_options o;
        gmm_model m1, m2;
        gmm_fit_scores s1, s2;
        options_for(&o, types[t], K);
        CHECK_OK(gmm_fit_gpus(&v, 1, &o, &m1, &s1));
        CHECK_OK(gmm_fit_gpus(&v, 2, &o, &m2, &s2));
        double lb = tu_rel_error_1(m2.lower_bound, m1.lower_bound);
        double mu = tu_rel_error(m2.means, m1.means, (size_t)K * d);
        double ll = tu_rel_error(s2.log_likelihood, s1.log_likelihood, (size_t)N);
        int diff = 0;
        ck_assert_int_eq(s2.n_samples, N);
        for (int64_t i = 0; i < N; i++) diff += s1.labels[i] != s2.labels[i];
        printf("%s, 4001 x 16 U8, K = 5: 1 GPU lower bound %.15g, 2 GPUs %.15g (rel %.2e); "
               "means rel %.2e; per-row log-likelihoods rel %.2e; %d of 4001 labels differ; "
               "iterations %d vs %d\n",
               gmm_cov_type_name(types[t]), m1.lower_bound, m2.lower_bound, lb, mu, ll, diff,
               m1.n_iter, m2.n_iter);
        ck_assert_int_eq(m1.n_iter, m2.n_iter);
        ck_assert_msg(lb <= 1e-10, "lower bounds differ by %.3e", lb);
        ck_assert_msg(mu <= 1e-10, "means differ by %.3e", mu);
        ck_assert_msg(ll <= 1e-10, "per-row log-likelihoods differ by %.3e", ll);
        ck_assert_int_eq(diff, 0);
        gmm_model_free(&m1);
        gmm_model_free(&m2);
        gmm_fit_scores_free(&s1);
        gmm_fit_scores_free(&s2);
    }
    free(X);
}
END_TEST

/* Rank 1 fails (before its fit; after EM iteration 2): every rank returns an error, the call's
 * detail names GPU 1 and its message, and nothing hangs. */
START_TEST(test_failed_rank_stops_every_rank)
{
    if (gpu_count_or_skip() < 2) return;
    const int64_t N = 3001;
    const int d = 8, K = 3;
    uint8_t *X = tu_synthetic_bytes(N, d, K, 4);
    gmm_data_view v = {GMM_ELEM_U8, X, N, d, 0, N};
    for (int at = 0; at < 2; at++) {
        gmm_options o;
        gmm_model m;
        gmm_status ranks[2] = {GMM_OK, GMM_OK};
        gmm_multi_gpu_test t = {.fail_rank = 1, .fail_at = at, .rank_status = ranks};
        options_for(&o, GMM_COV_FULL, K);
        gmm_status st = gmm_fit_gpus_test(&v, 2, &o, &m, NULL, &t);
        const char *msg = gmm_error_message(st);
        printf("rank 1 failing %s: call %s (%s); rank 0 %s, rank 1 %s\n",
               at == 0 ? "before its fit" : "after EM iteration 2", gmm_strerror(st), msg,
               gmm_strerror(ranks[0]), gmm_strerror(ranks[1]));
        ck_assert_int_ne(st, GMM_OK);
        ck_assert_int_ne(ranks[0], GMM_OK);
        ck_assert_int_ne(ranks[1], GMM_OK);
        ck_assert_msg(strstr(msg, "GPU 1") != NULL, "the detail does not name GPU 1: %s", msg);
        ck_assert_msg(strstr(msg, "on purpose") != NULL, "the detail lacks the cause: %s", msg);
        gmm_model_free(&m);
    }
    free(X);
}
END_TEST

/* More GPUs than present, and a partial view: GMM_ERR_ARG with a detail. */
START_TEST(test_bad_arguments)
{
    uint8_t X[40] = {0};
    gmm_data_view v = {GMM_ELEM_U8, X, 10, 4, 0, 10};
    gmm_options o;
    gmm_model m;
    options_for(&o, GMM_COV_DIAG, 2);
    int have = gmm_gpu_count();
    gmm_status st = gmm_fit_gpus(&v, have + 1, &o, &m, NULL);
    printf("%d GPUs asked for with %d present: %s\n", have + 1, have, gmm_error_message(st));
    ck_assert_int_eq(st, GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(st), "present"));
    gmm_data_view part = v;
    part.n_rows = 5;
    st = gmm_fit_gpus(&part, 1, &o, &m, NULL);
    ck_assert_int_eq(st, GMM_ERR_ARG);
}
END_TEST

static Suite *gpu_multi_suite(int devices)
{
    Suite *s = suite_create("gpu_multi");
    TCase *tc = tcase_create("several GPUs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_bad_arguments);
    if (devices) {
        tcase_add_test(tc, test_two_gpus_match_one);
        tcase_add_test(tc, test_failed_rank_stops_every_rank);
    }
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    return tu_run_suite(gpu_multi_suite(two_gpus()));
}
