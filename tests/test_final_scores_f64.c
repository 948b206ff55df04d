/* Check suite for a fit's final scores in float64 whatever its precision (the backend table's
 * e_step_f64, run by em.c for the scores a fit hands on): on the CPU backend an fp32 fit's
 * log-likelihoods, responsibilities, labels and mean equal gmm_score_samples of its final model
 * in float64 (float64 rows and image bytes), the operation leaves the context's float32 factors
 * as they were, and on an fp64 context it is e_step to the bit. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/convert.h"
#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "tests/testutil.h"

/* d = 150 > CPU_ESTEP_BLOCK: the triangle-blocked product's two column blocks. */
#define N 2000
#define D 150
#define K 4

/* K clusters of N / K points (row i in cluster i % K): means 6 apart along a few axes, unit
 * noise with a little correlation between neighbouring coordinates. */
static double *make_data(void)
{
    uint64_t s = 777;
    double *X = malloc(sizeof(double) * N * D);
    ck_assert_ptr_nonnull(X);
    for (int i = 0; i < N; i++) {
        double prev = 0;
        for (int j = 0; j < D; j++) {
            double z = tu_rand_normal(&s);
            X[(size_t)i * D + j] = 6.0 * (j % K == i % K) + z + 0.3 * prev;
            prev = z;
        }
    }
    return X;
}

static void options_for(gmm_options *o, gmm_cov_type type, gmm_precision precision)
{
    gmm_options_default(o);
    o->n_components = K;
    o->covariance_type = type;
    o->device = GMM_DEVICE_CPU;
    o->precision = precision;
    o->reg_covar = 1e-4;
    o->tol = 1e-4;
    o->max_iter = 20;
}

/* The scores a fit handed on against gmm_score_samples of its model on X (float64, the CPU):
 * log p(x_i) and the responsibilities within tol relative, the same labels, the mean the mean
 * of the log-likelihoods. */
static void check_scores_are_f64(const gmm_model *m, const gmm_fit_scores *fs, const double *X,
                                 double tol, const char *what)
{
    double *ll = malloc(sizeof(double) * N), *proba = malloc(sizeof(double) * N * K);
    int *labels = malloc(sizeof(int) * N);
    ck_assert(ll && proba && labels);
    TU_CHECK_OK(gmm_score_samples(m, X, N, GMM_DEVICE_CPU, ll, proba, labels));
    double ll_err = tu_rel_error(fs->log_likelihood, ll, N);
    double p_err = tu_rel_error(fs->proba, proba, (size_t)N * K);
    double mean = 0;
    for (int i = 0; i < N; i++) mean += ll[i];
    mean /= N;
    double mean_err = tu_rel_error_1(fs->mean_log_likelihood, mean);
    printf("%s: handed-on scores against float64 scoring: log p %.2e, proba %.2e, mean %.2e\n",
           what, ll_err, p_err, mean_err);
    ck_assert_msg(ll_err <= tol, "%s: log-likelihoods %.3g from float64 scoring", what, ll_err);
    ck_assert_msg(p_err <= tol, "%s: responsibilities %.3g from float64 scoring", what, p_err);
    ck_assert_msg(mean_err <= tol, "%s: mean %.3g from float64 scoring", what, mean_err);
    for (int i = 0; i < N; i++) ck_assert_int_eq(fs->labels[i], labels[i]);
    free(ll);
    free(proba);
    free(labels);
}

static void check_fp32_fit(gmm_cov_type type)
{
    double *X = make_data();
    gmm_options o;
    options_for(&o, type, GMM_PRECISION_FP32);
    gmm_model m = {0};
    gmm_fit_scores fs = {0};
    TU_CHECK_OK(gmm_fit_scored(X, N, D, &o, &m, &fs));
    check_scores_are_f64(&m, &fs, X, 1e-12, gmm_cov_type_name(type));
    gmm_fit_scores_free(&fs);
    gmm_model_free(&m);
    free(X);
}

START_TEST(test_fp32_full_scores_are_f64) { check_fp32_fit(GMM_COV_FULL); }
END_TEST

START_TEST(test_fp32_tied_scores_are_f64) { check_fp32_fit(GMM_COV_TIED); }
END_TEST

/* A fit of image bytes (a U8 view, converted chunk by chunk; the fp32 context's float32 copy is
 * byte / 255 rounded) hands on the scores of its model on byte / 255 in float64. */
START_TEST(test_fp32_bytes_scores_are_f64)
{
    uint8_t *bytes = tu_synthetic_bytes(N, D, K, 99);
    double *X = malloc(sizeof(double) * N * D);
    ck_assert_ptr_nonnull(X);
    TU_CHECK_OK(convert_rows_cpu(bytes, GMM_ELEM_U8, (size_t)N * D, X, GMM_ELEM_F64));
    gmm_options o;
    options_for(&o, GMM_COV_FULL, GMM_PRECISION_FP32);
    o.tuning.chunk_rows = 300; /* several chunks, the last one short */
    const gmm_data_view view = {.elem = GMM_ELEM_U8, .rows = bytes, .n_rows = N, .dim = D,
                                .first_row = 0, .n_total = N};
    gmm_model m = {0};
    gmm_fit_scores fs = {0};
    TU_CHECK_OK(gmm_fit_view(&view, &o, &m, &fs));
    check_scores_are_f64(&m, &fs, X, 1e-12, "full, image bytes");
    gmm_fit_scores_free(&fs);
    gmm_model_free(&m);
    free(X);
    free(bytes);
}
END_TEST

/* The table's operation itself: on an fp32 context e_step_f64 differs from e_step (a float32
 * product did run there) and the e_step after it gives e_step's bits again (the float32 factors
 * were left alone); on an fp64 context e_step_f64 is e_step to the bit. */
START_TEST(test_operation_leaves_context)
{
    double *X = make_data();
    gmm_options o;
    options_for(&o, GMM_COV_FULL, GMM_PRECISION_FP64);
    gmm_model m = {0};
    TU_CHECK_OK(gmm_fit(X, N, D, &o, &m));
    const gmm_backend *be = &gmm_backend_cpu;
    double *ll[3];
    for (int t = 0; t < 3; t++) ck_assert_ptr_nonnull(ll[t] = malloc(sizeof(double) * N));
    for (int p = 0; p < 2; p++) {
        const gmm_precision precision = p ? GMM_PRECISION_FP32 : GMM_PRECISION_FP64;
        gmm_backend_ctx *ctx = NULL;
        double mean[3];
        TU_CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, D, K, GMM_COV_FULL, precision, NULL,
                                           NULL));
        TU_CHECK_OK(be->set_params(ctx, &m));
        TU_CHECK_OK(be->e_step(ctx, &mean[0]));
        TU_CHECK_OK(be->get_estep(ctx, ll[0], NULL));
        TU_CHECK_OK(be->e_step_f64(ctx, &mean[1]));
        TU_CHECK_OK(be->get_estep(ctx, ll[1], NULL));
        TU_CHECK_OK(be->e_step(ctx, &mean[2]));
        TU_CHECK_OK(be->get_estep(ctx, ll[2], NULL));
        be->destroy(ctx);
        ck_assert_int_eq(memcmp(ll[0], ll[2], sizeof(double) * N), 0);
        ck_assert(mean[0] == mean[2]);
        if (p) {
            ck_assert_msg(memcmp(ll[0], ll[1], sizeof(double) * N) != 0,
                          "fp32 context: e_step gave float64's bits");
        } else {
            ck_assert_int_eq(memcmp(ll[0], ll[1], sizeof(double) * N), 0);
            ck_assert(mean[0] == mean[1]);
        }
    }
    for (int t = 0; t < 3; t++) free(ll[t]);
    gmm_model_free(&m);
    free(X);
}
END_TEST

/* An fp64 fit's scores: what they always were, float64 scoring of its model. */
START_TEST(test_fp64_scores_unchanged)
{
    double *X = make_data();
    gmm_options o;
    options_for(&o, GMM_COV_FULL, GMM_PRECISION_FP64);
    gmm_model m = {0};
    gmm_fit_scores fs = {0};
    TU_CHECK_OK(gmm_fit_scored(X, N, D, &o, &m, &fs));
    check_scores_are_f64(&m, &fs, X, 1e-12, "fp64 full");
    gmm_fit_scores_free(&fs);
    gmm_model_free(&m);
    free(X);
}
END_TEST

static Suite *final_scores_suite(void)
{
    Suite *s = suite_create("final_scores_f64");
    TCase *tc = tcase_create("cpu");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_fp32_full_scores_are_f64);
    tcase_add_test(tc, test_fp32_tied_scores_are_f64);
    tcase_add_test(tc, test_fp32_bytes_scores_are_f64);
    tcase_add_test(tc, test_operation_leaves_context);
    tcase_add_test(tc, test_fp64_scores_unchanged);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(final_scores_suite()); }
