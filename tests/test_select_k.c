/* Check suite for choosing K (models/fit/select_k.h) and the --json summaries: the K range picks
 * the true K of a well separated synthetic mixture by BIC, the fits on one re-sized context
 * equal separate gmm_fit_scored calls, bad ranges are refused (library and command line), and
 * gmm-train's and gmm-predict's JSON parses and holds the numbers the text prints. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/core/em.h"
#include "models/core/score.h"
#include "models/fit/select_k.h"
#include "tests/testutil.h"

#define TRUE_K 4
#define DIM 5
#define N_SAMPLES 1600

/* TRUE_K components in DIM dimensions, means 8 apart on the axes, unit-ish covariances; then
 * N_SAMPLES drawn from it into X (malloc'd). */
static double *synthetic_mixture(gmm_cov_type fit_type)
{
    (void)fit_type;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_model_alloc(&m, TRUE_K, DIM, GMM_COV_DIAG), GMM_OK);
    for (int k = 0; k < TRUE_K; k++) {
        m.weights[k] = 1.0 / TRUE_K;
        for (int j = 0; j < DIM; j++) {
            m.means[k * DIM + j] = j == k ? 8.0 : 0.0;
            m.covariances[k * DIM + j] = 0.5 + 0.1 * j + 0.05 * k;
        }
    }
    ck_assert_int_eq(gmm_model_compute_precisions(&m), GMM_OK);
    double *X = malloc(sizeof(double) * N_SAMPLES * DIM);
    ck_assert_ptr_nonnull(X);
    ck_assert_int_eq(gmm_sample(&m, N_SAMPLES, 42, X, NULL), GMM_OK);
    gmm_model_free(&m);
    return X;
}

static gmm_options cpu_options(gmm_cov_type type)
{
    gmm_options o;
    gmm_options_default(&o);
    o.device = GMM_DEVICE_CPU;
    o.covariance_type = type;
    o.n_init = 2;
    o.seed = 3;
    return o;
}

static const gmm_cov_type all_types[4] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG,
                                          GMM_COV_SPHERICAL};

/* 1:8 on the 4-component mixture: BIC falls to K = 4 and rises after it. */
START_TEST(test_bic_picks_true_k)
{
    gmm_cov_type type = _i == 0 ? GMM_COV_FULL : GMM_COV_DIAG;
    double *X = synthetic_mixture(type);
    gmm_options o = cpu_options(type);
    gmm_k_range range = {.k_first = 1, .k_last = 8, .k_step = 1, .criterion = GMM_SELECT_BIC};
    gmm_k_result results[8];
    gmm_model model;
    gmm_fit_scores scores;
    int n_done = 0, chosen = -1;
    TU_CHECK_OK(gmm_fit_k_range(X, N_SAMPLES, DIM, &o, &range, results, &n_done, &chosen, &model,
                                &scores));
    ck_assert_int_eq(n_done, 8);
    ck_assert_int_eq(chosen, TRUE_K - 1);
    ck_assert_int_eq(results[chosen].n_components, TRUE_K);
    ck_assert_int_eq(model.n_components, TRUE_K);
    for (int i = 0; i < 8; i++) {
        ck_assert_int_eq(results[i].n_components, i + 1);
        if (i != chosen) ck_assert_double_gt(results[i].bic, results[chosen].bic);
        /* BIC and AIC as gmm_bic/gmm_aic define them */
        double pen = results[i].bic - results[i].aic;
        ck_assert_double_eq_tol(pen, results[i].n_parameters * (log((double)N_SAMPLES) - 2.0),
                                1e-6 * fabs(pen) + 1e-9);
    }
    /* the kept model's scores are its own */
    ck_assert_double_eq(scores.mean_log_likelihood, results[chosen].mean_log_likelihood);
    ck_assert_int_eq(scores.n_components, TRUE_K);
    gmm_model_free(&model);
    gmm_fit_scores_free(&scores);
    free(X);
}
END_TEST

/* The resident data changes nothing: each K of 1:6:2 equals gmm_fit_scored alone, on the CPU
 * (loop 0..3) and on the GPU (4..7, when there is one: the data uploaded once). */
START_TEST(test_range_equals_separate_fits)
{
    gmm_cov_type type = all_types[_i % 4];
    if (_i >= 4 && !tu_gpu_available()) return;
    double *X = synthetic_mixture(type);
    gmm_options o = cpu_options(type);
    if (_i >= 4) o.device = GMM_DEVICE_GPU;
    o.tuning.chunk_rows = 300; /* several chunks, re-sized with K */
    gmm_k_range range = {.k_first = 1, .k_last = 6, .k_step = 2, .criterion = GMM_SELECT_AIC};
    gmm_k_result results[3];
    gmm_model model;
    gmm_fit_scores scores;
    int n_done = 0, chosen = -1;
    TU_CHECK_OK(gmm_fit_k_range(X, N_SAMPLES, DIM, &o, &range, results, &n_done, &chosen, &model,
                                &scores));
    ck_assert_int_eq(n_done, 3);
    for (int i = 0; i < 3; i++) {
        gmm_options one = o;
        one.n_components = 1 + 2 * i;
        gmm_model alone;
        gmm_fit_scores alone_scores;
        TU_CHECK_OK(gmm_fit_scored(X, N_SAMPLES, DIM, &one, &alone, &alone_scores));
        ck_assert_int_eq(results[i].n_components, one.n_components);
        ck_assert_int_eq(results[i].n_iter, alone.n_iter);
        ck_assert_double_eq_tol(results[i].lower_bound, alone.lower_bound,
                                1e-12 * fabs(alone.lower_bound));
        ck_assert_double_eq_tol(results[i].mean_log_likelihood, alone_scores.mean_log_likelihood,
                                1e-12 * fabs(alone_scores.mean_log_likelihood));
        if (i == chosen) {
            ck_assert_double_le(tu_rel_error(model.means, alone.means,
                                             (size_t)alone.n_components * DIM), 1e-12);
            for (int64_t j = 0; j < N_SAMPLES; j++)
                ck_assert_int_eq(scores.labels[j], alone_scores.labels[j]);
        }
        gmm_model_free(&alone);
        gmm_fit_scores_free(&alone_scores);
    }
    gmm_model_free(&model);
    gmm_fit_scores_free(&scores);
    free(X);
}
END_TEST

START_TEST(test_bad_ranges_refused)
{
    struct {
        int a, b, step;
        const char *needle;
    } bad[] = {{0, 5, 1, "below 1"}, {5, 2, 1, "ends before"}, {1, 5, 0, "step"},
               {1, 5000, 1, "more than 1000"}, {1, 101, 1, "only 100 samples"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        gmm_k_range r = {.k_first = bad[i].a, .k_last = bad[i].b, .k_step = bad[i].step};
        ck_assert_int_eq(gmm_k_range_validate(&r, 100, NULL), GMM_ERR_ARG);
        ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), bad[i].needle));
    }
    gmm_k_range ok = {.k_first = 2, .k_last = 20, .k_step = 3};
    int n = 0;
    TU_CHECK_OK(gmm_k_range_validate(&ok, 100, &n));
    ck_assert_int_eq(n, 7); /* 2 5 8 11 14 17 20 */
    /* a range does not continue a given model */
    double *X = synthetic_mixture(GMM_COV_DIAG);
    gmm_options o = cpu_options(GMM_COV_DIAG);
    gmm_model start = {0}, model;
    gmm_fit_scores scores;
    gmm_k_result res[7];
    int n_done, chosen;
    o.init_model = &start;
    ck_assert_int_eq(gmm_fit_k_range(X, N_SAMPLES, DIM, &o, &ok, res, &n_done, &chosen, &model,
                                     &scores),
                     GMM_ERR_ARG);
    ck_assert_int_eq(chosen, -1);
    free(X);
}
END_TEST

static int stop_after_calls(void *user)
{
    int *calls = user;
    return ++*calls > 40;
}

/* An interrupt keeps the chosen of the fits finished before it. */
START_TEST(test_interrupt_keeps_finished)
{
    double *X = synthetic_mixture(GMM_COV_DIAG);
    gmm_options o = cpu_options(GMM_COV_DIAG);
    o.n_init = 1;
    o.tol = 0; /* every fit runs max_iter iterations */
    o.max_iter = 15;
    int calls = 0;
    o.should_stop = stop_after_calls;
    o.user = &calls;
    gmm_k_range range = {.k_first = 1, .k_last = 5, .k_step = 1};
    gmm_k_result res[5];
    gmm_model model;
    gmm_fit_scores scores;
    int n_done = 0, chosen = -1;
    ck_assert_int_eq(gmm_fit_k_range(X, N_SAMPLES, DIM, &o, &range, res, &n_done, &chosen, &model,
                                     &scores),
                     GMM_INTERRUPTED);
    ck_assert_int_eq(n_done, 2); /* 15 + 15 asked, the third fit stops at its 11th */
    ck_assert_int_ge(chosen, 0);
    ck_assert_int_eq(model.n_components, res[chosen].n_components);
    ck_assert_int_eq(model.n_iter, 15);
    gmm_model_free(&model);
    gmm_fit_scores_free(&scores);
    free(X);
}
END_TEST

/* ---- the programs ------------------------------------------------------------------------ */

static const char *fixture(void) { return tu_fixture_dir("ksel", 240, 8, 5, 0); }

/* The number after `key` in text (the first occurrence). */
static double number_after(const char *text, const char *key)
{
    const char *p = strstr(text, key);
    ck_assert_msg(p != NULL, "'%s' not in the output:\n%s", key, text);
    return strtod(p + strlen(key), NULL);
}

/* A value of the JSON file, printed by python3 with repr. */
static double json_value(const char *file, const char *expr)
{
    char *out = NULL;
    int rc = tu_sh(&out, "python3 -m json.tool %s > /dev/null && python3 -c "
                   "\"import json; d = json.load(open('%s')); print(repr(float(%s)))\"",
                   file, file, expr);
    ck_assert_msg(rc == 0, "python3 on %s: %s", file, out ? out : "");
    double v = strtod(out, NULL);
    free(out);
    return v;
}

START_TEST(test_train_json_matches_text)
{
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 1:4 --covariance diag --device cpu --png '' "
                   "--bic-png kbic.png -o k.bin --json train.json", fixture());
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "chosen: K="));
    ck_assert_ptr_nonnull(strstr(out, "test loglik")); /* the fixture has a test split */
    double lb = number_after(out, "); lower bound ");
    double mean = number_after(out, "training data: mean log-likelihood ");
    int k_chosen = (int)number_after(out, "chosen: K=");
    ck_assert_double_eq_tol(json_value("train.json", "d['model']['lower_bound']"), lb, 5e-7);
    ck_assert_double_eq_tol(json_value("train.json", "d['model']['mean_log_likelihood']"), mean,
                            5e-7);
    ck_assert_int_eq((int)json_value("train.json", "d['k_selection']['chosen_k']"), k_chosen);
    ck_assert_int_eq((int)json_value("train.json", "len(d['k_selection']['table'])"), 4);
    double acc = number_after(out, "accuracy ");
    ck_assert_double_eq_tol(json_value("train.json", "d['metrics']['accuracy']"), acc, 5e-5);
    /* one iteration record per EM iteration of every K, the last one's bound the table's */
    ck_assert_double_eq(
        json_value("train.json", "[r for r in d['iterations'] if r['k'] == 4][-1]['lower_bound']"),
        json_value("train.json", "d['k_selection']['table'][3]['lower_bound']"));
    int w = 0, h = 0;
    free(tu_read_png_rgb(tu_tmp_path("kbic.png"), &w, &h));
    ck_assert_int_gt(w, 0);
    free(out);
    out = NULL;
    rc = tu_sh(&out, "$B/gmm-predict k.bin '%s' --device cpu --json predict.json", fixture());
    ck_assert_msg(rc == 0, "%s", out);
    mean = number_after(out, "mean log-likelihood ");
    ck_assert_double_eq_tol(json_value("predict.json", "d['mean_log_likelihood']"), mean, 5e-7);
    ck_assert_double_eq(json_value("predict.json", "sum(d['component_counts'])"), 240);
    ck_assert_double_eq_tol(json_value("predict.json", "d['metrics']['nmi']"),
                            number_after(out, "NMI "), 5e-5);
    free(out);
}
END_TEST

START_TEST(test_train_single_k_json)
{
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --covariance spherical --device cpu --png '' "
                   "-o one.bin --json one.json --n-init 2", fixture());
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_null(strstr(out, "chosen:"));
    ck_assert_double_eq(json_value("one.json", "d['options']['n_components']"), 2);
    ck_assert_double_eq(json_value("one.json", "d['k_selection'] is None if 'k_selection' "
                                       "in d else 1"), 1);
    ck_assert_double_eq(json_value("one.json", "max(r['init'] for r in d['iterations'])"), 2);
    ck_assert_double_eq_tol(json_value("one.json", "d['model']['lower_bound']"),
                            number_after(out, "); lower bound "), 5e-7);
    free(out);
}
END_TEST

/* Names with quotes, backslashes and control characters come back intact through the JSON. */
START_TEST(test_json_string_escaping)
{
    char *out = NULL;
    int rc = tu_sh(&out, "d=$(printf 'we\\\\ird \\\"dir\\t\\001x') && mkdir -p \"$d\" && "
                   "cp '%s'/* \"$d\"/ && $B/gmm-train \"$d\" -k 2 --covariance diag --device cpu "
                   "-q --png '' -o esc.bin --json esc.json && python3 -c \"import json, sys; "
                   "d = json.load(open('esc.json')); "
                   "sys.exit(0 if d['options']['data'] == sys.argv[1] else 1)\" \"$d\"",
                   fixture());
    ck_assert_msg(rc == 0, "%s", out ? out : "");
    free(out);
}
END_TEST

START_TEST(test_bad_range_usage_errors)
{
    const char *d = fixture();
    tu_expect_error("ends before", "$B/gmm-train '%s' -k 5:2", d);
    tu_expect_error("below 1", "$B/gmm-train '%s' -k 0:3", d);
    tu_expect_error("step", "$B/gmm-train '%s' -k 1:4:0", d);
    tu_expect_error("more than 1000", "$B/gmm-train '%s' -k 1:100000", d);
    tu_expect_error("A:B or A:B:STEP", "$B/gmm-train '%s' -k 1:2:3:4", d);
    tu_expect_error("A:B or A:B:STEP", "$B/gmm-train '%s' -k 1:", d);
    tu_expect_error("expects an integer", "$B/gmm-train '%s' -k 1:x", d);
    tu_expect_error("only 240 samples", "$B/gmm-train '%s' -k 2:241 --device cpu", d);
    tu_expect_error("--select must be bic, aic or icl", "$B/gmm-train '%s' -k 1:3 --select xyz", d);
    tu_expect_error("--init-from", "$B/gmm-train '%s' -k 1:3 --init-from m.bin", d);
    tu_expect_error("--checkpoint", "$B/gmm-train '%s' -k 1:3 --checkpoint 2", d);
    tu_expect_error("--json", "$B/gmm-train '%s' --json ''", d);
    tu_expect_error("cannot write", "$B/gmm-train '%s' -k 2 --device cpu --png '' -o x.bin "
                    "--json /nonexistent-dir/s.json", d);
}
END_TEST

static Suite *select_k_suite(void)
{
    Suite *s = suite_create("select_k");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, test_bic_picks_true_k, 0, 2);
    tcase_add_loop_test(tc, test_range_equals_separate_fits, 0, 8);
    tcase_add_test(tc, test_bad_ranges_refused);
    tcase_add_test(tc, test_interrupt_keeps_finished);
    tcase_add_test(tc, test_train_json_matches_text);
    tcase_add_test(tc, test_train_single_k_json);
    tcase_add_test(tc, test_json_string_escaping);
    tcase_add_test(tc, test_bad_range_usage_errors);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(select_k_suite()); }
