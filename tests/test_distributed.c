/* Check suite for data views and distributed fits on the CPU backend: a fit of image bytes (a
 * U8 view, converted chunk by chunk) equals the fit of the same values as a float64 matrix, also
 * when a tiny memory budget makes the chunks a few rows; a fit of data split over 2 and 3 ranks
 * (threads of this process, models/dist/comm_threads.h; 601 rows do not divide) gives the one-rank
 * lower bound to 1e-10, the same labels and the same means, also from a k-means on a sample of
 * the rows; k-means++ over ranks draws the same seeds; and a rank that fails ends every rank with
 * its message instead of a hang. */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/dist/comm_threads.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/backend/cpu/kmeans.h"
#include "tests/testutil.h"

enum { N = 601, D = 12, K = 4 };

/* Four blobs of bytes in D dimensions. */
static uint8_t *make_bytes(uint64_t seed)
{
    uint8_t *x = malloc((size_t)N * D);
    uint64_t s = seed;
    for (int i = 0; i < N; i++) {
        int c = i % K;
        for (int j = 0; j < D; j++) {
            double v = 60 + 30 * c + ((j + c) % 3) * 15 + 30 * tu_rand_normal(&s);
            x[(size_t)i * D + j] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        }
    }
    return x;
}

static gmm_options base_options(gmm_cov_type type)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = K;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    o.max_iter = 30;
    o.seed = 7;
    o.reg_covar = 1e-4;
    o.tol = 1e-7;
    return o;
}

static const gmm_cov_type types[] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG,
                                     GMM_COV_SPHERICAL};

/* The U8 view against the float64 matrix of the same values, with and without a tiny budget. */
START_TEST(test_view_equals_matrix)
{
    uint8_t *bytes = make_bytes(3);
    double *X = malloc(sizeof(double) * N * D);
    for (size_t i = 0; i < (size_t)N * D; i++) X[i] = bytes[i] / 255.0;
    const gmm_data_view u8 = {.elem = GMM_ELEM_U8, .rows = bytes, .n_rows = N, .dim = D,
                              .first_row = 0, .n_total = N};
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        gmm_options o = base_options(types[t]);
        gmm_model ref = {0}, m = {0}, s = {0};
        gmm_fit_scores ref_scores = {0}, sc = {0};
        ck_assert_int_eq(gmm_fit_scored(X, N, D, &o, &ref, &ref_scores), GMM_OK);
        ck_assert_int_eq(gmm_fit_view(&u8, &o, &m, &sc), GMM_OK);
        gmm_options tiny = o;
        tiny.tuning.memory_budget = 4096; /* chunks of a few rows */
        gmm_fit_scores ss = {0};
        ck_assert_int_eq(gmm_fit_view(&u8, &tiny, &s, &ss), GMM_OK);
        double e1 = tu_rel_error_1(m.lower_bound, ref.lower_bound);
        double e2 = tu_rel_error_1(s.lower_bound, ref.lower_bound);
        double e3 = tu_rel_error(s.means, ref.means, (size_t)K * D);
        printf("%-9s U8 view vs float64: lower bound %.3g, budget 4 KiB: %.3g (means %.3g), "
               "%d iterations\n", gmm_cov_type_name(types[t]), e1, e2, e3, ref.n_iter);
        ck_assert_msg(e1 <= 1e-12 && e2 <= 1e-12 && e3 <= 1e-12, "%s: views differ",
                      gmm_cov_type_name(types[t]));
        ck_assert_int_eq(m.n_iter, ref.n_iter);
        ck_assert_int_eq(memcmp(ss.labels, ref_scores.labels, sizeof(int) * N), 0);
        ck_assert_int_eq(memcmp(sc.labels, ref_scores.labels, sizeof(int) * N), 0);
        gmm_model_free(&ref);
        gmm_model_free(&m);
        gmm_model_free(&s);
        gmm_fit_scores_free(&ref_scores);
        gmm_fit_scores_free(&sc);
        gmm_fit_scores_free(&ss);
    }
    /* inits that need the whole float64 matrix are refused for a U8 view, with a reason */
    gmm_options o = base_options(GMM_COV_FULL);
    o.init = GMM_INIT_RANDOM;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit_view(&u8, &o, &m, NULL), GMM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_UNSUPPORTED), "--init kmeans"));
    free(bytes);
    free(X);
}
END_TEST

typedef struct {
    gmm_comm *comm;
    const uint8_t *bytes;
    gmm_options options;
    int fail;             /* this rank is given an impossible view */
    int seeds_only;       /* k-means++ seeds instead of a fit */
    int64_t seeds[K];
    gmm_model model;
    gmm_fit_scores scores;
    gmm_status status;
    char message[512];
} rank_job;

static void *run_rank(void *arg)
{
    rank_job *j = arg;
    int64_t first, count;
    gmm_comm_row_range(N, j->comm->rank, j->comm->size, &first, &count);
    gmm_data_view v = {.elem = GMM_ELEM_U8, .rows = j->bytes + first * D, .n_rows = count,
                       .dim = D, .first_row = first, .n_total = N};
    if (j->fail) v.n_rows = 0; /* gmm_data_view_check refuses it */
    if (j->seeds_only) {
        gmm_rng rng;
        double centers[K * D];
        gmm_rng_seed(&rng, j->options.seed);
        j->status = gmm_kmeans_plusplus_view(&v, j->comm, K, &rng, j->seeds, centers);
        return NULL;
    }
    j->options.comm = j->comm;
    j->status = gmm_fit_view(&v, &j->options, &j->model, &j->scores);
    if (j->status != GMM_OK) {
        snprintf(j->message, sizeof j->message, "%s", gmm_error_message(j->status));
        gmm_comm_abort(j->comm, j->status);
    }
    return NULL;
}

/* Runs the fit on `size` thread ranks; labels (N) gathered in row order. */
static void fit_on_ranks(int size, const uint8_t *bytes, const gmm_options *o, int failing_rank,
                         int seeds_only, rank_job *jobs, int *labels)
{
    gmm_comm_threads *group = NULL;
    ck_assert_int_eq(gmm_comm_threads_create(size, &group), GMM_OK);
    pthread_t th[4];
    for (int r = 0; r < size; r++) {
        jobs[r] = (rank_job){.comm = gmm_comm_threads_rank(group, r), .bytes = bytes,
                             .options = *o, .fail = r == failing_rank,
                             .seeds_only = seeds_only};
        ck_assert_int_eq(pthread_create(&th[r], NULL, run_rank, &jobs[r]), 0);
    }
    for (int r = 0; r < size; r++) pthread_join(th[r], NULL);
    for (int r = 0; labels && r < size; r++) {
        int64_t first, count;
        gmm_comm_row_range(N, r, size, &first, &count);
        ck_assert_int_eq(jobs[r].status, GMM_OK);
        memcpy(labels + first, jobs[r].scores.labels, sizeof(int) * count);
    }
    gmm_comm_threads_destroy(group);
}

static void free_jobs(rank_job *jobs, int size)
{
    for (int r = 0; r < size; r++) {
        gmm_model_free(&jobs[r].model);
        gmm_fit_scores_free(&jobs[r].scores);
    }
}

START_TEST(test_ranks_equal_one)
{
    uint8_t *bytes = make_bytes(11);
    int *one = malloc(sizeof(int) * N), *many = malloc(sizeof(int) * N);
    for (size_t t = 0; t < sizeof types / sizeof types[0]; t++) {
        gmm_options o = base_options(types[t]);
        rank_job single[1], jobs[3];
        fit_on_ranks(1, bytes, &o, -1, 0, single, one);
        for (int size = 2; size <= 3; size++) {
            fit_on_ranks(size, bytes, &o, -1, 0, jobs, many);
            double e = tu_rel_error_1(jobs[0].model.lower_bound, single[0].model.lower_bound);
            double em = tu_rel_error(jobs[0].model.means, single[0].model.means, (size_t)K * D);
            printf("%-9s %d ranks vs 1: lower bound %.3g, means %.3g, %d iterations\n",
                   gmm_cov_type_name(types[t]), size, e, em, jobs[0].model.n_iter);
            ck_assert_msg(e <= 1e-10 && em <= 1e-10, "%s, %d ranks: the fit differs",
                          gmm_cov_type_name(types[t]), size);
            ck_assert_int_eq(memcmp(one, many, sizeof(int) * N), 0);
            for (int r = 1; r < size; r++) { /* every rank holds the same model, to the bit */
                ck_assert(jobs[r].model.lower_bound == jobs[0].model.lower_bound);
                ck_assert_int_eq(memcmp(jobs[r].model.means, jobs[0].model.means,
                                        sizeof(double) * K * D), 0);
            }
            free_jobs(jobs, size);
        }
        free_jobs(single, 1);
    }
    free(bytes);
    free(one);
    free(many);
}
END_TEST

/* The k-means on a sample (models/core/init_kmeans.h: 150 of the 601 rows, each rank gathering
 * its share) gives the one-rank fit on 2 and 3 ranks, with the default single pass over every
 * row (_i == 0) and with 10; with 10 passes, on these blobs, the optimum of the fit started from
 * the k-means of every row (one pass from so small a sample reaches another here: 7.7154 against
 * 7.7609). */
START_TEST(test_sampled_kmeans_ranks_equal_one)
{
    uint8_t *bytes = make_bytes(13);
    int *one = malloc(sizeof(int) * N), *many = malloc(sizeof(int) * N);
    gmm_options o = base_options(GMM_COV_FULL), all_rows = o;
    o.kmeans_sample_size = 150;
    o.kmeans_full_passes = _i == 0 ? 0 : 10;
    all_rows.kmeans_sample_size = -1;
    rank_job single[1], every[1], jobs[3];
    fit_on_ranks(1, bytes, &o, -1, 0, single, one);
    fit_on_ranks(1, bytes, &all_rows, -1, 0, every, NULL);
    double e_all = tu_rel_error_1(single[0].model.lower_bound, every[0].model.lower_bound);
    printf("sampled k-means (%s) vs every row's: lower bound %.3g (%.9f, %.9f)\n",
           _i == 0 ? "the default pass" : "10 passes", e_all, single[0].model.lower_bound, every[0].model.lower_bound);
    if (_i == 1) ck_assert_msg(e_all <= 1e-9, "the sampled start reached another optimum");
    for (int size = 2; size <= 3; size++) {
        fit_on_ranks(size, bytes, &o, -1, 0, jobs, many);
        double e = tu_rel_error_1(jobs[0].model.lower_bound, single[0].model.lower_bound);
        double em = tu_rel_error(jobs[0].model.means, single[0].model.means, (size_t)K * D);
        printf("sampled k-means, %d ranks vs 1: lower bound %.3g, means %.3g\n", size, e, em);
        ck_assert_msg(e <= 1e-10 && em <= 1e-10, "%d ranks: the sampled fit differs", size);
        ck_assert_int_eq(memcmp(one, many, sizeof(int) * N), 0);
        free_jobs(jobs, size);
    }
    free_jobs(single, 1);
    free_jobs(every, 1);
    free(bytes);
    free(one);
    free(many);
}
END_TEST

/* options.scores_without_proba: no responsibilities handed on, the same labels (read from the
 * context in slabs) and log-likelihoods as a fit that hands them on, on 1 and 3 ranks. */
START_TEST(test_scores_without_proba)
{
    uint8_t *bytes = make_bytes(17);
    int *with = malloc(sizeof(int) * N), *without = malloc(sizeof(int) * N);
    gmm_options o = base_options(GMM_COV_FULL), lean = o;
    lean.scores_without_proba = 1;
    for (int size = 1; size <= 3; size += 2) {
        rank_job a[3], b[3];
        fit_on_ranks(size, bytes, &o, -1, 0, a, with);
        fit_on_ranks(size, bytes, &lean, -1, 0, b, without);
        for (int r = 0; r < size; r++) {
            ck_assert_ptr_nonnull(a[r].scores.proba);
            ck_assert_ptr_null(b[r].scores.proba);
            ck_assert_int_eq(memcmp(a[r].scores.log_likelihood, b[r].scores.log_likelihood,
                                    sizeof(double) * (size_t)a[r].scores.n_samples), 0);
        }
        ck_assert_int_eq(memcmp(with, without, sizeof(int) * N), 0);
        ck_assert(a[0].model.lower_bound == b[0].model.lower_bound);
        free_jobs(a, size);
        free_jobs(b, size);
    }
    free(bytes);
    free(with);
    free(without);
}
END_TEST

/* k-means++ over 3 ranks draws the one-rank seeds (the same rng calls). */
START_TEST(test_kmeans_plusplus_over_ranks)
{
    uint8_t *bytes = make_bytes(5);
    gmm_data_view whole = {.elem = GMM_ELEM_U8, .rows = bytes, .n_rows = N, .dim = D,
                           .first_row = 0, .n_total = N};
    int64_t ref[K];
    double centers[K * D];
    gmm_rng rng;
    gmm_rng_seed(&rng, 99);
    ck_assert_int_eq(gmm_kmeans_plusplus_view(&whole, NULL, K, &rng, ref, centers), GMM_OK);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < D; j++)
            ck_assert(centers[k * D + j] == bytes[ref[k] * D + j] / 255.0);
    for (int size = 2; size <= 3; size++) {
        gmm_options o = base_options(GMM_COV_FULL);
        o.seed = 99;
        rank_job jobs[3];
        fit_on_ranks(size, bytes, &o, -1, 1, jobs, NULL);
        for (int r = 0; r < size; r++) {
            ck_assert_int_eq(jobs[r].status, GMM_OK);
            for (int k = 0; k < K; k++) ck_assert_int_eq(jobs[r].seeds[k], ref[k]);
        }
        printf("k-means++ on %d ranks: the one-rank seeds %lld %lld %lld %lld\n", size,
               (long long)ref[0], (long long)ref[1], (long long)ref[2], (long long)ref[3]);
    }
    free(bytes);
}
END_TEST

/* Rank 1 of 3 fails at once: ranks 0 and 2, already waiting in a collective, end with its
 * message. */
START_TEST(test_failed_rank_ends_all)
{
    uint8_t *bytes = make_bytes(13);
    gmm_options o = base_options(GMM_COV_FULL);
    rank_job jobs[3];
    fit_on_ranks(3, bytes, &o, 1, 0, jobs, NULL);
    for (int r = 0; r < 3; r++) {
        printf("rank %d: %s\n", r, jobs[r].status == GMM_OK ? "ok" : jobs[r].message);
        ck_assert_int_ne(jobs[r].status, GMM_OK);
    }
    ck_assert_ptr_nonnull(strstr(jobs[0].message, "rank 1 failed"));
    ck_assert_ptr_nonnull(strstr(jobs[2].message, "rank 1 failed"));
    ck_assert_ptr_nonnull(strstr(jobs[1].message, "rows"));
    free_jobs(jobs, 3);
    free(bytes);
}
END_TEST

static Suite *distributed_suite(void)
{
    Suite *s = suite_create("distributed");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_view_equals_matrix);
    tcase_add_test(tc, test_ranks_equal_one);
    tcase_add_loop_test(tc, test_sampled_kmeans_ranks_equal_one, 0, 2);
    tcase_add_test(tc, test_scores_without_proba);
    tcase_add_test(tc, test_kmeans_plusplus_over_ranks);
    tcase_add_test(tc, test_failed_rank_ends_all);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(distributed_suite()); }
