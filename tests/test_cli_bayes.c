/* Check suite for gmm-train --bayesian and gmm-predict on a variational model: on images of two
 * kinds with an upper bound of 6 components the summary says how many keep weight (the two
 * kinds', not 6) and the JSON agrees; gmm-predict scores the model without BIC; the options'
 * misuses are usage errors and a maximum-likelihood start model is refused. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/testutil.h"

/* The number before " of K components keep weight" in out, or -1. */
static int kept_in(const char *out)
{
    const char *p = strstr(out, "components keep weight");
    if (!p) return -1;
    while (p > out && p[-1] != ':') p--; /* "...): N of K components" */
    return atoi(p);
}

START_TEST(test_train_keeps_the_components_the_data_needs)
{
    char *out = NULL;
    const char *dir = tu_fixture_dir("bayes2", 300, 8, 11, 0);
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 6 --bayesian --weight-concentration 1e-3 "
                   "--covariance diag --device cpu --png means.png -o bayes.bin --json "
                   "bayes.json", dir);
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_msg(strstr(out, "dirichlet_process weight prior"), "%s", out);
    int kept = kept_in(out);
    ck_assert_msg(kept == 2, "two kinds of image, %d components kept:\n%s", kept, out);
    ck_assert_msg(strstr(out, "accuracy 1.0000"), "%s", out);
    ck_assert_msg(!strstr(out, "BIC"), "a variational summary has no BIC:\n%s", out);
    free(out);
    char *json = NULL;
    ck_assert_int_eq(tu_sh(&json, "cat bayes.json"), 0);
    ck_assert_msg(strstr(json, "\"bayesian\": true"), "%s", json);
    ck_assert_msg(strstr(json, "\"components_kept\": 2"), "%s", json);
    ck_assert_msg(strstr(json, "\"weight_prior\": \"dirichlet_process\""), "%s", json);
    ck_assert_msg(!strstr(json, "\"bic\""), "%s", json);
    free(json);

    rc = tu_sh(&out, "$B/gmm-predict bayes.bin '%s' --device cpu", dir);
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_msg(strstr(out, "posterior's expected parameters"), "%s", out);
    ck_assert_msg(strstr(out, "accuracy 1.0000"), "%s", out);
    ck_assert_msg(!strstr(out, "BIC"), "%s", out);
    free(out);

    /* the Dirichlet distribution prior too, and the model file says which */
    rc = tu_sh(&out, "$B/gmm-train '%s' -k 4 --bayesian --weight-prior dirichlet_distribution "
               "--covariance spherical --device cpu --png '' -o dd.bin", dir);
    ck_assert_msg(rc == 0 && strstr(out, "dirichlet_distribution weight prior"), "%s", out);
    free(out);
}
END_TEST

START_TEST(test_misuse)
{
    const char *dir = tu_fixture_dir("bayes2", 300, 8, 11, 0);
    tu_expect_error("--weight-prior must be dirichlet_process or dirichlet_distribution",
                    "$B/gmm-train '%s' --bayesian --weight-prior sticks", dir);
    tu_expect_error("belong to --bayesian",
                    "$B/gmm-train '%s' --weight-prior dirichlet_distribution", dir);
    tu_expect_error("belong to --bayesian", "$B/gmm-train '%s' --weight-concentration 0.1", dir);
    tu_expect_error("--weight-concentration", "$B/gmm-train '%s' --bayesian "
                    "--weight-concentration 0", dir);
    tu_expect_error("upper bound, not a range", "$B/gmm-train '%s' --bayesian -k 2:4", dir);
    tu_expect_error("not over --gpus", "$B/gmm-train '%s' --bayesian --gpus 2", dir);
    /* a variational fit cannot continue a maximum-likelihood model */
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --covariance diag --device cpu --png '' "
                   "-o ml.bin && $B/gmm-train '%s' -k 2 --covariance diag --device cpu --png '' "
                   "--bayesian --init-from ml.bin -o b.bin", dir, dir);
    ck_assert_msg(rc == 2, "rc %d: %s", rc, out);
    ck_assert_msg(strstr(out, "maximum-likelihood"), "%s", out);
    free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cli_bayes");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_train_keeps_the_components_the_data_needs);
    tcase_add_test(tc, test_misuse);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
