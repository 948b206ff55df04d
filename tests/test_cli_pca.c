/* Check suite for gmm-train --pca / --whiten as a user runs them: the errors (--pca larger than
 * the image dimension or than the number of images, --whiten without --pca), and a tiny --pca
 * run whose saved model gmm-predict applies, giving the training run's assignments. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "models/io/model_io.h"
#include "tests/testutil.h"

#define FIX_N 400
#define FIX_SIDE 6

static const char *fixture_dir(void) { return tu_fixture_dir("fixture_pca", FIX_N, FIX_SIDE, 11, 1); }

START_TEST(test_pca_errors)
{
    const char *dir = fixture_dir();
    tu_expect_error("larger than the image dimension 36", "$B/gmm-train '%s' --pca 37 --device cpu", dir);
    tu_expect_error("--whiten needs --pca", "$B/gmm-train '%s' --whiten --device cpu", dir);
    tu_expect_error("--pca must be >= 1", "$B/gmm-train '%s' --pca 0", dir);
    tu_expect_error("expects an integer", "$B/gmm-train '%s' --pca x", dir);
    tu_expect_error("needs at least 30 images", "$B/gmm-train '%s' --pca 30 --limit 20 -k 2 --device cpu", dir);
    char *out = NULL;
    /* usage error (1) for the dimension, data error (2) for the images */
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' --pca 37 --device cpu", dir), 1);
    free(out);
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' --pca 30 --limit 20 -k 2 --device cpu", dir), 2);
    free(out);
}
END_TEST

START_TEST(test_pca_train_predict)
{
    const char *dir = fixture_dir();
    for (int whiten = 0; whiten < 2; whiten++) {
        char *out = NULL;
        int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu --pca 4 %s -o p.bin --png pm.png "
                       "--images pimg --seed 3 -q", dir, whiten ? "--whiten" : "");
        ck_assert_msg(rc == 0, "gmm-train --pca: %s", out);
        ck_assert_msg(strstr(out, "pca: the 4 axes of 36 explain ") != NULL, "%s", out);
        ck_assert_int_eq(strstr(out, "(whitened)") != NULL, whiten);
        /* unwhitened, the 4 axes keep the two kinds apart (whitened, the noise axes weigh
         * as much as the one that separates them, and seed 3 finds another optimum) */
        const char *acc = strstr(out, "accuracy ");
        ck_assert_ptr_nonnull(acc);
        char train_acc[64];
        snprintf(train_acc, sizeof train_acc, "%.40s", acc);
        if (!whiten) ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
        free(out);
        /* the pictures are in pixel space: 6 x 6 tiles */
        int w = 0, h = 0;
        free(tu_read_png_rgb(tu_tmp_path("pm.png"), &w, &h));
        ck_assert_int_gt(w, 2 * FIX_SIDE);
        struct stat sb;
        ck_assert_int_eq(stat(tu_tmp_path("pimg/samples.png"), &sb), 0);
        ck_assert_int_eq(stat(tu_tmp_path("pimg/typical.png"), &sb), 0);
        gmm_model m = {0};
        ck_assert_int_eq(gmm_model_load(tu_tmp_path("p.bin"), &m), GMM_OK);
        ck_assert_int_eq(m.dim, 4);
        ck_assert_ptr_nonnull(gmm_space_pca(m.space));
        ck_assert_int_eq(gmm_space_pca(m.space)->input_dim, 36);
        ck_assert_int_eq(gmm_space_pca(m.space)->whiten, whiten);
        ck_assert_int_eq(m.image_rows * m.image_cols, 36);
        gmm_model_free(&m);
        /* predicting the training split with the saved model scores as the training run */
        rc = tu_sh(&out, "$B/gmm-predict p.bin '%s/train-images-idx3-ubyte.gz' --device cpu --out pa.csv", dir);
        ck_assert_msg(rc == 0, "gmm-predict: %s", out);
        ck_assert_ptr_nonnull(strstr(out, "projected every image on the model's 4 PCA axes"));
        ck_assert_msg(strstr(out, train_acc) != NULL, "training '%s', predict: %s", train_acc, out);
        free(out);
        rc = tu_sh(&out, "$B/gmm-predict p.bin --device cpu --diagnostics pdiag");
        ck_assert_msg(rc == 0, "gmm-predict --diagnostics: %s", out);
        ck_assert_msg(strstr(out, "chi-square(4)") != NULL, "%s", out);
        free(out);
    }
}
END_TEST

/* The confusion-matrix block of a program's output (its rows: the assignments per component
 * against the labels), copied into buf. */
static void confusion_block(const char *out, char *buf, size_t size)
{
    const char *at = strstr(out, "confusion matrix");
    ck_assert_ptr_nonnull(at);
    const char *end = at;
    for (const char *line = strstr(at, "\nk="); line && strncmp(line, "\nk=", 3) == 0;
         line = strchr(line + 1, '\n'))
        end = strchr(line + 1, '\n') ? strchr(line + 1, '\n') : line + strlen(line);
    ck_assert_ptr_ne(end, at);
    ck_assert_uint_lt((size_t)(end - at), size);
    memcpy(buf, at, (size_t)(end - at));
    buf[end - at] = '\0';
}

/* gmm-train's own assignments and gmm-predict's of the saved model on the same images are the
 * same (the same confusion matrix, component by component), on a fit with more components than
 * classes, where a different projection would move images between them. */
START_TEST(test_pca_predict_equals_training)
{
    const char *dir = fixture_dir();
    char *out = NULL, train[4096], predict[4096];
    int rc = tu_sh(&out, "$B/gmm-train '%s/train-images-idx3-ubyte.gz' -k 5 --device cpu --pca 6 "
                   "--whiten -o q.bin --png '' --seed 1 -q", dir);
    ck_assert_msg(rc == 0, "%s", out);
    confusion_block(out, train, sizeof train);
    free(out);
    rc = tu_sh(&out, "$B/gmm-predict q.bin '%s/train-images-idx3-ubyte.gz' --device cpu", dir);
    ck_assert_msg(rc == 0, "%s", out);
    confusion_block(out, predict, sizeof predict);
    free(out);
    ck_assert_msg(strstr(train, "k=4") != NULL, "%s", train);
    ck_assert_str_eq(train, predict);
}
END_TEST

static Suite *cli_pca_suite(void)
{
    Suite *s = suite_create("cli_pca");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_pca_errors);
    tcase_add_test(tc, test_pca_train_predict);
    tcase_add_test(tc, test_pca_predict_equals_training);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cli_pca_suite()); }
