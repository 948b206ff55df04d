/* Check suite for the scorer (models/core/score.h's gmm_scorer, the CPU backend's set_rows): a
 * model's prepared parameters reused over batches of 1, 7, 300, 5 and 300 rows give, bit for
 * bit, what a fresh scoring context gives on the same rows (log p(x), responsibilities, labels),
 * for every covariance type and a variational model, a larger batch making it again; set_rows
 * refuses rows it cannot take and an M-step after it; the CUDA backend has no set_rows. */
#include <stdlib.h>
#include <string.h>

#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "tests/testutil.h"

#define N 900
#define D 6
#define K 3

static double *data(uint64_t seed)
{
    double *X = malloc(sizeof(double) * N * D);
    ck_assert(X != NULL);
    tu_fill_uniform(X, N * D, -1.0, 1.0, seed);
    for (int i = 0; i < N; i++) X[i * D + i % K] += 6.0 * (i % K); /* three blobs */
    return X;
}

static void fit(const double *X, gmm_cov_type type, int bayes, gmm_model *m)
{
    gmm_options o;
    gmm_options_default(&o);
    gmm_bayes_options b = {0};
    o.n_components = K;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    o.max_iter = 20;
    if (bayes) o.bayes = &b;
    TU_CHECK_OK(gmm_fit(X, N, D, &o, m));
}

/* The scorer's outputs on rows [r0, r0 + n) against a fresh context's, bit for bit. */
static void check_batch(gmm_scorer **s, const gmm_model *m, const double *X, int r0, int n)
{
    double *ll = malloc(sizeof(double) * n), *proba = malloc(sizeof(double) * n * K);
    double *ll0 = malloc(sizeof(double) * n), *proba0 = malloc(sizeof(double) * n * K);
    int *lab = malloc(sizeof(int) * n), *lab0 = malloc(sizeof(int) * n);
    tu_poison(ll, n), tu_poison(proba, (size_t)n * K);
    TU_CHECK_OK(gmm_scorer_score(s, m, X + (size_t)r0 * D, n, ll, proba, lab));
    TU_CHECK_OK(gmm_score_samples_on(m, X + (size_t)r0 * D, n, GMM_DEVICE_CPU, NULL, ll0, proba0,
                                     lab0));
    ck_assert_msg(memcmp(ll, ll0, sizeof(double) * n) == 0, "log p(x) of rows %d+%d differ", r0, n);
    ck_assert_msg(memcmp(proba, proba0, sizeof(double) * n * K) == 0, "responsibilities differ");
    ck_assert(memcmp(lab, lab0, sizeof(int) * n) == 0);
    /* the labels are the blobs' (up to renaming): the scores are not of stale rows */
    for (int i = 1; i < n; i++)
        if ((r0 + i) % K == r0 % K) ck_assert_int_eq(lab[i], lab[0]);
    free(ll), free(proba), free(ll0), free(proba0), free(lab), free(lab0);
}

START_TEST(batches_equal_fresh_contexts)
{
    double *X = data(3);
    for (int type = GMM_COV_FULL; type <= GMM_COV_SPHERICAL; type++)
        for (int bayes = 0; bayes < 2; bayes++) {
            gmm_model m = {0};
            fit(X, type, bayes, &m);
            gmm_scorer *s = NULL;
            check_batch(&s, &m, X, 0, 1);
            check_batch(&s, &m, X, 10, 7);   /* a larger batch: made again */
            check_batch(&s, &m, X, 100, 300);
            check_batch(&s, &m, X, 500, 5);  /* reused, fewer rows */
            check_batch(&s, &m, X, 600, 300);
            check_batch(&s, &m, X, 3, 1);
            gmm_scorer_free(s);
            gmm_model_free(&m);
        }
    free(X);
}
END_TEST

START_TEST(set_rows_refuses_what_it_cannot_take)
{
    double *X = data(4);
    gmm_model m = {0};
    fit(X, GMM_COV_TIED, 0, &m);
    gmm_backend_ctx *ctx = NULL;
    const gmm_backend *be = &gmm_backend_cpu;
    TU_CHECK_OK(gmm_backend_create_f64(be, &ctx, X, 100, D, K, GMM_COV_TIED, GMM_PRECISION_FP64,
                                       NULL, NULL));
    TU_CHECK_OK(be->set_params(ctx, &m));
    gmm_data_view more = gmm_data_view_f64(X, 101, D), other_dim = gmm_data_view_f64(X, 50, D - 1);
    ck_assert_int_eq(be->set_rows(ctx, &more), GMM_ERR_ARG);
    ck_assert_int_eq(be->set_rows(ctx, &other_dim), GMM_ERR_ARG);
    gmm_data_view fewer = gmm_data_view_f64(X + 200 * D, 40, D);
    TU_CHECK_OK(be->set_rows(ctx, &fewer));
    double mean;
    TU_CHECK_OK(be->e_step(ctx, &mean));
    gmm_mstep_report report = {0};
    ck_assert_int_eq(be->m_step(ctx, 1e-6, &report), GMM_ERR_ARG); /* X^T X is the old rows' */
    be->destroy(ctx);
    ck_assert_msg(gmm_backend_cuda_load(&be) != GMM_OK || be->set_rows == NULL,
                  "the CUDA backend has no set_rows: its scoring makes a context per call");
    gmm_model_free(&m);
    free(X);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scorer");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, batches_equal_fresh_contexts);
    tcase_add_test(tc, set_rows_refuses_what_it_cannot_take);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
