/* Check suite for gmm-train --space spectral and --init spectral as a user runs them, on a small
 * fixture of two kinds of images: the spectral fit finds them, its model (with the spectral
 * space) is saved and gmm-predict embeds the test split through it with the same accuracy; the
 * pictures are in pixel space; --init spectral starts a pixel-space fit; the errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/io/model_io.h"
#include "tests/testutil.h"

#define FIX_N 400
#define FIX_SIDE 6

static const char *fixture_dir(void)
{
    return tu_fixture_dir("fixture_spectral", FIX_N, FIX_SIDE, 11, 1);
}

START_TEST(test_spectral_errors)
{
    const char *dir = fixture_dir();
    tu_expect_error("--space must be pixels, umap or spectral", "$B/gmm-train '%s' --space tangent", dir);
    tu_expect_error("not combined", "$B/gmm-train '%s' --space spectral --pca 3", dir);
    tu_expect_error("--spectral-dims must be", "$B/gmm-train '%s' --space spectral --spectral-dims 0", dir);
    tu_expect_error("at least 2", "$B/gmm-train '%s' --space spectral --knn-neighbors 1", dir);
    tu_expect_error("already in the embedding", "$B/gmm-train '%s' --space spectral --init spectral", dir);
    tu_expect_error("dimensions need more than", "$B/gmm-train '%s' --space spectral --spectral-dims 500 -k 2 --device cpu", dir);
    tu_expect_error("init=spectral", "$B/gmm-train '%s' --init spectral --spectral-dims 500 -k 2 --device cpu", dir);
}
END_TEST

START_TEST(test_spectral_train_predict)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu --space spectral --spectral-dims 3 "
                   "--knn-neighbors 8 -o s.bin --png sm.png --images simg --diagnostics sdiag "
                   "--seed 3", dir);
    ck_assert_msg(rc == 0, "gmm-train --space spectral: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "spectral space: the 3 leading eigenvectors of the "
                                      "8-nearest-neighbour graph of 400 images"));
    ck_assert_ptr_nonnull(strstr(out, "space: the 3-dimensional spectral embedding of the "
                                      "8-nearest-neighbour graph of the 400 training images"));
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    free(out);
    gmm_model m = {0};
    TU_CHECK_OK(gmm_model_load(tu_tmp_path("s.bin"), &m));
    ck_assert_ptr_nonnull(gmm_space_spectral(m.space));
    ck_assert_int_eq(m.dim, 3);
    ck_assert_int_eq(gmm_space_spectral(m.space)->n_train, FIX_N);
    ck_assert_int_eq(gmm_space_spectral(m.space)->n_neighbors, 8);
    ck_assert_int_eq(gmm_model_input_dim(&m), FIX_SIDE * FIX_SIDE);
    gmm_model_free(&m);
    /* pictures in pixel space: a 6 x 6 tile per component */
    int w, h;
    free(tu_read_png_rgb(tu_tmp_path("simg/samples.png"), &w, &h));
    ck_assert_int_gt(w, 6 * FIX_SIDE);
    free(tu_read_png_rgb(tu_tmp_path("sdiag/outliers.png"), &w, &h));
    free(tu_read_png_rgb(tu_tmp_path("sm.png"), &w, &h));

    rc = tu_sh(&out, "$B/gmm-predict s.bin --device cpu");
    ck_assert_msg(rc == 0, "gmm-predict: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "embedded every image in the model's 3-dimensional "
                                      "spectral space"));
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    free(out);

    rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu --init spectral --spectral-dims 3 "
               "--knn-neighbors 8 -o i.bin --png '' --seed 3", dir);
    ck_assert_msg(rc == 0, "gmm-train --init spectral: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "init=spectral: a 3-dimensional embedding"));
    ck_assert_ptr_nonnull(strstr(out, "init=spectral"));
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    free(out);
    TU_CHECK_OK(gmm_model_load(tu_tmp_path("i.bin"), &m));
    ck_assert_ptr_null(gmm_space_spectral(m.space));
    ck_assert_int_eq(m.dim, FIX_SIDE * FIX_SIDE);
    ck_assert_int_eq(m.init, GMM_INIT_SPECTRAL);
    gmm_model_free(&m);
}
END_TEST

static Suite *cli_spectral_suite(void)
{
    Suite *s = suite_create("cli_spectral");
    TCase *tc = tcase_create("cli_spectral");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_spectral_errors);
    tcase_add_test(tc, test_spectral_train_predict);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cli_spectral_suite()); }
