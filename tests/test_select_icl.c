/* Check suite for choosing K by ICL (models/fit/select_k.h, gmm-train --select icl): each K's
 * ICL is its BIC plus twice the entropy of the responsibilities, the entropy computed here from
 * the model's own scoring of the data (gmm_score_samples' proba), never below the BIC; the
 * lowest ICL is chosen; on two overlapping clusters beside a third, BIC splits the pair and ICL
 * does not; and gmm-train prints and writes it (table, JSON). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/core/em.h"
#include "models/core/score.h"
#include "models/fit/select_k.h"
#include "tests/testutil.h"

enum { N = 1200, DIM = 2, K_LAST = 6 };

/* Three clusters of N(0, 0.7^2 I): two overlapping ones, (0, 0) and (2.3, 0), and one far off at
 * (10, 10). */
static double *overlapping_pair(void)
{
    double *X = malloc(sizeof(double) * N * DIM);
    ck_assert_ptr_nonnull(X);
    static const double centres[3][DIM] = {{0, 0}, {2.3, 0}, {10, 10}};
    uint64_t seed = 42;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < DIM; j++)
            X[i * DIM + j] = centres[i % 3][j] + 0.7 * tu_rand_normal(&seed);
    return X;
}

typedef struct {
    const double *X;
    double expected_icl[K_LAST];
    int seen;
} icl_check;

/* gmm_k_result_fn: the ICL expected from the model's own responsibilities on the data */
static gmm_status expect_icl(void *user, const gmm_k_result *r, const gmm_model *model,
                             const gmm_fit_scores *scores)
{
    icl_check *c = user;
    int K = r->n_components;
    double *proba = malloc(sizeof(double) * N * K);
    ck_assert_ptr_nonnull(proba);
    ck_assert_int_eq(gmm_score_samples(model, c->X, N, GMM_DEVICE_CPU, NULL, proba, NULL),
                     GMM_OK);
    double entropy = 0;
    for (int i = 0; i < N * K; i++)
        if (proba[i] > 0) entropy -= proba[i] * log(proba[i]);
    c->expected_icl[c->seen++] = r->bic + 2 * entropy;
    free(proba);
    return GMM_OK;
}

START_TEST(test_icl_is_bic_plus_twice_the_entropy)
{
    double *X = overlapping_pair();
    gmm_options o;
    gmm_options_default(&o);
    o.device = GMM_DEVICE_CPU;
    o.n_init = 2;
    o.seed = 3;
    icl_check check = {.X = X};
    gmm_k_range range = {.k_first = 1, .k_last = K_LAST, .k_step = 1,
                         .criterion = GMM_SELECT_ICL, .on_result = expect_icl, .user = &check};
    gmm_k_result res[K_LAST];
    gmm_model model;
    gmm_fit_scores scores;
    int n_done = 0, chosen = -1;
    TU_CHECK_OK(gmm_fit_k_range(X, N, DIM, &o, &range, res, &n_done, &chosen, &model, &scores));
    ck_assert_int_eq(n_done, K_LAST);
    ck_assert_int_eq(check.seen, K_LAST);
    int lowest_bic = 0, lowest_icl = 0;
    for (int i = 0; i < K_LAST; i++) {
        ck_assert_double_ge(res[i].icl, res[i].bic);
        ck_assert_double_le(fabs(res[i].icl - check.expected_icl[i]),
                            1e-9 * fabs(check.expected_icl[i]));
        ck_assert_double_le(fabs(res[i].icl - (res[i].bic + 2 * res[i].entropy)),
                            1e-12 * fabs(res[i].icl));
        if (res[i].bic < res[lowest_bic].bic) lowest_bic = i;
        if (res[i].icl < res[lowest_icl].icl) lowest_icl = i;
    }
    ck_assert_double_eq(res[0].entropy, 0); /* one component: every r_i1 = 1 */
    ck_assert_double_gt(res[1].entropy, 0);
    ck_assert_int_eq(chosen, lowest_icl);
    ck_assert_int_eq(model.n_components, res[chosen].n_components);
    /* BIC models the pair's density with two components; ICL counts their overlap against them
     * and keeps the pair as one cluster */
    ck_assert_int_eq(res[lowest_bic].n_components, 3);
    ck_assert_int_eq(res[lowest_icl].n_components, 2);
    gmm_model_free(&model);
    gmm_fit_scores_free(&scores);
    free(X);
}
END_TEST

START_TEST(test_criterion_names)
{
    gmm_k_criterion c = GMM_SELECT_BIC;
    ck_assert_int_eq(gmm_k_criterion_parse("icl", &c), 0);
    ck_assert_int_eq(c, GMM_SELECT_ICL);
    ck_assert_str_eq(gmm_k_criterion_name(GMM_SELECT_ICL), "icl");
    ck_assert_int_eq(gmm_k_criterion_parse("ICL", &c), -1);
    double onehot[4] = {1, 0, 0, 1}, half[4] = {0.5, 0.5, 0.5, 0.5};
    ck_assert_double_eq(gmm_resp_entropy(onehot, 2, 2), 0);
    ck_assert_double_eq_tol(gmm_resp_entropy(half, 2, 2), 2 * log(2.0), 1e-15);
}
END_TEST

/* A value of the JSON file, printed by python3 with repr. */
static double json_value(const char *file, const char *expr)
{
    char *out = NULL;
    int rc = tu_sh(&out, "python3 -c \"import json; d = json.load(open('%s')); "
                   "print(repr(float(%s)))\"", file, expr);
    ck_assert_msg(rc == 0, "python3 on %s: %s", file, out ? out : "");
    double v = strtod(out, NULL);
    free(out);
    return v;
}

START_TEST(test_train_selects_by_icl)
{
    char *out = NULL;
    const char *dir = tu_fixture_dir("kicl", 240, 8, 5, 0);
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 1:4 --select icl --covariance diag --device cpu "
                   "--png '' --bic-png icl.png -o icl.bin --json icl.json", dir);
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_msg(strstr(out, "keeping the lowest ICL"), "%s", out);
    ck_assert_msg(strstr(out, "ICL"), "%s", out);
    const char *chosen = strstr(out, "chosen: K=");
    ck_assert_msg(chosen && strstr(chosen, "the lowest ICL ("), "%s", out);
    int k_chosen = atoi(chosen + strlen("chosen: K="));
    ck_assert_double_eq(json_value("icl.json", "d['k_selection']['criterion'] == 'icl'"), 1);
    ck_assert_double_eq(json_value("icl.json", "d['options']['k_range']['select'] == 'icl'"), 1);
    ck_assert_int_eq((int)json_value("icl.json", "d['k_selection']['chosen_k']"), k_chosen);
    ck_assert_int_eq((int)json_value("icl.json", "min(d['k_selection']['table'], "
                                                 "key=lambda r: r['icl'])['k']"), k_chosen);
    ck_assert_double_eq(json_value("icl.json", "all(r['icl'] >= r['bic'] and abs(r['icl'] - "
                                               "r['bic'] - 2 * r['entropy']) <= 1e-9 * "
                                               "abs(r['icl']) for r in "
                                               "d['k_selection']['table'])"), 1);
    int w = 0, h = 0;
    free(tu_read_png_rgb(tu_tmp_path("icl.png"), &w, &h));
    ck_assert_int_gt(w, 0);
    free(out);
    tu_expect_error("--select must be bic, aic or icl", "$B/gmm-train '%s' -k 1:3 --select x",
                    dir);
}
END_TEST

static Suite *select_icl_suite(void)
{
    Suite *s = suite_create("select_icl");
    TCase *tc = tcase_create("icl");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_icl_is_bic_plus_twice_the_entropy);
    tcase_add_test(tc, test_criterion_names);
    tcase_add_test(tc, test_train_selects_by_icl);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(select_icl_suite()); }
