/* Check suite for the option and message findings: numeric options bounded to what the
 * model file holds (--reg-covar 1e101 fitted and wrote a model no loader takes), integer options
 * that say their real range, gmm-augment's -n bounded by the IDX reader's limits, the image
 * shape (not only the pixel count) checked against a model, --json written from the final scores
 * with --images / --diagnostics and always valid UTF-8, and the messages that pointed the wrong
 * way (--init-from of a spectral model, a relative data path, a FIFO or /dev/zero as the training
 * images). The programs run from the temporary directory (tu_sh). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/idx.h"
#include "include/gmm/gmm.h"
#include "models/options.h"
#include "tests/testutil.h"

/* A small labelled 28 x 28 set in the temporary directory, named name (train and t10k). */
static const char *small_set(const char *name)
{
    return tu_fixture_dir(name, 300, 28, 30, 0);
}

static int file_exists(const char *name)
{
    struct stat sb;
    return stat(tu_tmp_path(name), &sb) == 0;
}

/* Runs the command (tu_sh), checks its exit code and that needle is in its output. */
static void expect_exit(int code, const char *needle, const char *fmt, const char *arg)
{
    char *out = NULL;
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, arg);
    int rc = tu_sh(&out, "%s", cmd);
    ck_assert_msg(rc == code, "exit %d (want %d) for %s:\n%s", rc, code, cmd, out);
    ck_assert_msg(strstr(out, needle) != NULL, "'%s' not in the output of %s:\n%s", needle, cmd,
                  out);
    ck_assert_msg(!strstr(out, "runtime error") && !strstr(out, "AddressSanitizer"), "%s", out);
    free(out);
}

/* ---- class 4: options bounded to what the model file holds ------------------------------- */

START_TEST(test_stored_options_bounded)
{
    const char *dir = small_set("bounds");
    /* the case: fitted, exit 0, a model every loader refuses; now a usage error and no
     * model written */
    expect_exit(1, "--reg-covar must be between 0 and 1e+50",
                "$B/gmm-train '%s' --reg-covar 1e101 -o big.bin --png '' -q --device cpu", dir);
    ck_assert(!file_exists("big.bin"));
    expect_exit(1, "--tol must be between 0 and 1e+100",
                "$B/gmm-train '%s' --tol 1e101 -o big.bin --png '' -q --device cpu", dir);
    expect_exit(1, "--reg-covar must be between 0 and 1e+50",
                "$B/gmm-train '%s' --reg-covar 1e400 --png '' -q", dir);
    expect_exit(1, "--blur must be 0 (none) or in [0.01, 100]", "$B/gmm-train '%s' --blur 101",
                dir);
    ck_assert(!file_exists("big.bin"));
    /* the largest accepted value gives a model that gmm-predict loads */
    expect_exit(0, "model written to edge.bin",
                "$B/gmm-train '%s' -k 2 --max-iter 2 --reg-covar 1e50 --tol 1e100 -o edge.bin "
                "--png '' -q --device cpu",
                dir);
    expect_exit(0, "mean log-likelihood", "$B/gmm-predict edge.bin '%s' --device cpu", dir);

    /* the library refuses them too, for the C API and the Python module */
    gmm_options o;
    gmm_options_default(&o);
    o.reg_covar = 1e51;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 4), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "reg_covar=1e+51"));
    o.reg_covar = GMM_REG_COVAR_MAX;
    o.tol = 2e100;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 4), GMM_ERR_ARG);
    o.tol = GMM_TOL_MAX;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 4), GMM_OK);
    gmm_params *p = NULL;
    ck_assert_int_eq(gmm_params_new(&p), 0);
    ck_assert_int_ne(gmm_params_set_double(p, "reg_covar", 1e101), 0);
    ck_assert_msg(strstr(gmm_last_error(), "reg_covar=1e+101 must be at most 1e+50"), "%s",
                  gmm_last_error());
    ck_assert_int_ne(gmm_params_set_double(p, "tol", 1e101), 0);
    ck_assert_int_eq(gmm_params_set_double(p, "reg_covar", 1e-3), 0);
    gmm_params_free(p);
}
END_TEST

/* ---- class 6: integer options say their real range ---------------------------------------- */

START_TEST(test_integer_ranges)
{
    const char *dir = small_set("ranges");
    static const char *const too_large[] = {"-k", "--max-iter", "--n-init", "--limit",
                                            "--checkpoint", "--pca"};
    char fmt[256];
    for (size_t i = 0; i < sizeof too_large / sizeof too_large[0]; i++) {
        char needle[128];
        snprintf(needle, sizeof needle, "%s must be between 1 and 2147483647, got 2147483648",
                 too_large[i]);
        snprintf(fmt, sizeof fmt, "$B/gmm-train '%%s' %s 2147483648", too_large[i]);
        expect_exit(1, needle, fmt, dir);
    }
    expect_exit(1, "--knn-sample must be between 2 and 2147483647",
                "$B/gmm-train '%s' --knn-sample 99999999999", dir);
    expect_exit(1, "--kmeans-sample must be between 1 and 9223372036854775807",
                "$B/gmm-train '%s' --kmeans-sample 99999999999999999999", dir);
    expect_exit(1, "--kmeans-sample 5 is fewer images than the 10 components of -k",
                "$B/gmm-train '%s' --kmeans-sample 5", dir);
    expect_exit(1, "--kmeans-sample must be >= 1, got 0", "$B/gmm-train '%s' --kmeans-sample 0",
                dir);
    expect_exit(1, "--kmeans-passes must be between 1 and 2147483647",
                "$B/gmm-train '%s' --kmeans-passes 2147483648", dir);
    /* past the 64-bit range: a range, not "expects an integer" */
    expect_exit(1, "--seed must be between 0 and 9223372036854775807",
                "$B/gmm-train '%s' --seed 99999999999999999999", dir);
    expect_exit(1, "--limit must be between 1 and 2147483647",
                "$B/gmm-predict model.bin '%s' --limit 2147483648", dir);
    expect_exit(1, "--max-shift must be between 0 and 8",
                "$B/gmm-augment '%s' out -n 5 --max-shift 99999999999999999999", dir);
    /* below the range, the lower bound, as before */
    expect_exit(1, "-k must be >= 1, got 0", "$B/gmm-train '%s' -k 0", dir);
}
END_TEST

/* ---- class 2: gmm-augment's -n against the reader's limits -------------------------------- */

START_TEST(test_augment_count_bounded)
{
    const char *dir = small_set("augment-in");
    /* the issue's -n: above the count the reader takes */
    expect_exit(1, "-n must be between 1 and 2147483647 (the images an IDX file may hold), got 4294967295",
                "$B/gmm-augment '%s' aug-out -n 4294967295 -q", dir);
    /* 2^33 / 784 = 10956549 images of 28 x 28 fit; one more is refused before anything is made */
    expect_exit(1, "at most 10956549 images of 28 x 28",
                "$B/gmm-augment '%s' aug-out -n 10956550 -q", dir);
    ck_assert(!file_exists("aug-out"));
    expect_exit(1, "--alpha must be between 0 and 1000",
                "$B/gmm-augment '%s' aug-out -n 5 --alpha 1e101", dir);
    expect_exit(0, "wrote 400 images", "$B/gmm-augment '%s' aug-out -n 400 -q --png ''", dir);
}
END_TEST

/* ---- class 4: the image shape, not only the pixel count ----------------------------------- */

/* dir/NAME-images-idx3-ubyte of the first n images of src reshaped to rows x cols (the same
 * bytes), with the labels beside them. */
static void write_reshaped(const char *src_dir, const char *dir, const char *split, int n,
                           int rows, int cols)
{
    char path[2048];
    idx_array images = {0}, labels = {0};
    /* raw or gzip'ed: the reader tells them apart by their bytes */
    snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte", src_dir, split);
    if (access(path, F_OK) != 0)
        snprintf(path, sizeof path, "%s/%s-images-idx3-ubyte.gz", src_dir, split);
    ck_assert_int_eq(idx_read_images(path, &images), GMM_OK);
    snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte", src_dir, split);
    if (access(path, F_OK) != 0)
        snprintf(path, sizeof path, "%s/%s-labels-idx1-ubyte.gz", src_dir, split);
    ck_assert_int_eq(idx_read_labels(path, &labels), GMM_OK);
    ck_assert_int_eq(images.rows * images.cols, rows * cols);
    ck_assert_int_ge(images.n_items, n);
    mkdir(tu_tmp_path(dir), 0755);
    char out[2048];
    snprintf(out, sizeof out, "%s/%s-images-idx3-ubyte", tu_tmp_path(dir), split);
    ck_assert_int_eq(idx_write_images(out, images.data, n, rows, cols, 0), GMM_OK);
    snprintf(out, sizeof out, "%s/%s-labels-idx1-ubyte", tu_tmp_path(dir), split);
    ck_assert_int_eq(idx_write_labels(out, labels.data, n, 0), GMM_OK);
    idx_free(&images);
    idx_free(&labels);
}

START_TEST(test_image_shape_checked)
{
    /* 14 x 56 images made from MNIST's 28 x 28 (the same 784 bytes each), or from the fixture */
    const char *src = tu_mnist_dir() ? tu_mnist_dir() : small_set("shape-src");
    write_reshaped(src, "wide", "train", 300, 14, 56);
    write_reshaped(src, "wide", "t10k", 100, 14, 56);
    expect_exit(0, "model written to wide.bin",
                "$B/gmm-train %s -k 2 --max-iter 3 -o wide.bin --png '' -q --device cpu", "wide");
    /* predicted on 28 x 28 images: bad data (exit 2), both shapes named */
    expect_exit(2, "has 28 x 28 images but the model expects 784 values of 14 x 56 images",
                "$B/gmm-predict wide.bin '%s' --limit 50 --device cpu", src);
    /* continued on 28 x 28 images */
    expect_exit(2, "the model is for 784 features (14 x 56 images), the data has 28 x 28 images",
                "$B/gmm-train '%s' --limit 300 --init-from wide.bin -o cont.bin --png '' -q "
                "--device cpu", src);
    ck_assert(!file_exists("cont.bin"));
    /* its own shape still works */
    expect_exit(0, "mean log-likelihood", "$B/gmm-predict wide.bin %s --device cpu", "wide");
}
END_TEST

/* ---- class 4: --json from the final scores, valid UTF-8 ------------------------------------ */

/* Compares two JSON summaries with python3 (decoded strictly as UTF-8): keys n, the mean
 * log-likelihood, BIC and the component counts. */
static void expect_same_summary(const char *a, const char *b, const char *n_key)
{
    char script[2048];
    snprintf(script, sizeof script,
             "python3 -c \"import json,sys\n"
             "a = json.loads(open('%s', 'rb').read().decode('utf-8', 'strict'))\n"
             "b = json.loads(open('%s', 'rb').read().decode('utf-8', 'strict'))\n"
             "def pick(d):\n"
             "    m = d.get('model', d)\n"
             "    return (d['data']['%s'], m.get('mean_log_likelihood', d.get('mean_log_likelihood')),"
             " m.get('bic', d.get('bic')), d['component_counts'])\n"
             "pa, pb = pick(a), pick(b)\n"
             "print(pa)\n"
             "assert pa[0] > 0 and pa[1] != 0 and pa[2] is not None and sum(pa[3]) == pa[0], pa\n"
             "assert pa == pb, (pa, pb)\n"
             "print('same')\"",
             a, b, n_key);
    char *out = NULL;
    int rc = tu_sh(&out, "%s", script);
    ck_assert_msg(rc == 0 && strstr(out, "same"), "%s vs %s:\n%s", a, b, out);
    free(out);
}

START_TEST(test_json_with_pictures)
{
    const char *dir = small_set("json-set");
    expect_exit(0, "summary written to only.json",
                "$B/gmm-train '%s' -k 2 --max-iter 3 -o j.bin --png '' -q --device cpu "
                "--json only.json", dir);
    /* the issue: exit 2 after writing everything, and n = 0, BIC null, counts 0 in the JSON */
    expect_exit(0, "summary written to all.json",
                "$B/gmm-train '%s' -k 2 --max-iter 3 -o j.bin --png '' -q --device cpu "
                "--json all.json --images imgs --diagnostics diag", dir);
    expect_same_summary("only.json", "all.json", "n");
    expect_exit(0, "summary written to ponly.json",
                "$B/gmm-predict j.bin '%s' --device cpu --json ponly.json", dir);
    expect_exit(0, "summary written to pall.json",
                "$B/gmm-predict j.bin '%s' --device cpu --json pall.json --images pimgs "
                "--diagnostics pdiag", dir);
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "python3 -c \"import json; d = json.load(open('pall.json')); "
                                 "print(sorted(d.keys()))\""),
                     0);
    free(out);
}
END_TEST

START_TEST(test_json_utf8_always)
{
    /* a data directory whose name has the byte 0xff (not UTF-8): the JSON stays valid */
    const char *dir = small_set("utf8-src");
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "mkdir -p \"$(printf 'bad\\377dir')\" && cp '%s'/* "
                                 "\"$(printf 'bad\\377dir')\"/", dir), 0);
    free(out);
    expect_exit(0, "summary written to u.json",
                "$B/gmm-train \"$(printf 'bad\\377dir')\" -k 2 --max-iter 2 -o u.bin --png '' -q "
                "--device cpu --json u.json%s", "");
    int rc = tu_sh(&out, "python3 -c \"import json\n"
                         "d = json.loads(open('u.json', 'rb').read().decode('utf-8', 'strict'))\n"
                         "p = d['options']['data']\n"
                         "assert p == 'bad\\ufffddir', repr(p)\n"
                         "print('valid', repr(p))\"");
    ck_assert_msg(rc == 0 && strstr(out, "valid"), "%s", out);
    free(out);
    /* a well-formed UTF-8 name passes through as it is */
    ck_assert_int_eq(tu_sh(&out, "mkdir -p 'dónnées' && cp '%s'/* 'dónnées'/", dir), 0);
    free(out);
    expect_exit(0, "summary written to v.json",
                "$B/gmm-train 'dónnées' -k 2 --max-iter 2 -o v.bin --png '' -q --device cpu "
                "--json v.json%s", "");
    rc = tu_sh(&out, "grep -c 'dónnées' v.json");
    ck_assert_msg(rc == 0, "%s", out);
    free(out);
}
END_TEST

/* ---- class 6: messages that point the right way -------------------------------------------- */

START_TEST(test_init_from_feature_space_model)
{
    const char *dir = small_set("space-set");
    expect_exit(0, "model written to spectral.bin",
                "$B/gmm-train '%s' --space spectral -k 2 --max-iter 3 -o spectral.bin --png '' "
                "-q --device cpu", dir);
    /* was: "model is for 10 features (28 x 28 images), the data has 28 x 28 images" */
    expect_exit(2, "the model was fitted in a spectral space of 10 dimensions",
                "$B/gmm-train '%s' --init-from spectral.bin -o c.bin --png '' -q --device cpu",
                dir);
    expect_exit(2, "continues a pixel-space model only",
                "$B/gmm-train '%s' --init-from spectral.bin -o c.bin --png '' -q --device cpu",
                dir);
    ck_assert(!file_exists("c.bin"));
}
END_TEST

START_TEST(test_relative_data_path_message)
{
    small_set("rel-set"); /* tu_tmp_path("rel-set"): named relative to the temporary directory */
    expect_exit(0, "model written to rel.bin",
                "$B/gmm-train %s -k 2 --max-iter 2 -o rel.bin --png '' -q --device cpu", "rel-set");
    /* from the directory training ran in, the recorded path leads to the test split */
    expect_exit(0, "mean log-likelihood", "$B/gmm-predict rel.bin --device cpu%s", "");
    /* from elsewhere: the recorded path named, and why it does not lead anywhere */
    expect_exit(1, "records its training data as 'rel-set', a path relative to the directory "
                   "gmm-train ran in, not found from here",
                "mkdir -p elsewhere && cd elsewhere && $B/gmm-predict ../rel.bin --device cpu%s",
                "");
}
END_TEST

START_TEST(test_special_train_images_named)
{
    mkdir(tu_tmp_path("fifo-set"), 0755);
    ck_assert_int_eq(mkfifo(tu_tmp_path("fifo-set/train-images-idx3-ubyte"), 0600), 0);
    expect_exit(2, "train-images-idx3-ubyte is a FIFO (named pipe), not a regular file",
                "timeout 20 $B/gmm-train %s --device cpu", "fifo-set");
    mkdir(tu_tmp_path("zero-set"), 0755);
    ck_assert_int_eq(symlink("/dev/zero", tu_tmp_path("zero-set/train-images-idx3-ubyte.gz")), 0);
    expect_exit(2, "train-images-idx3-ubyte.gz is a symbolic link to a character device",
                "timeout 20 $B/gmm-train %s --device cpu", "zero-set");
    mkdir(tu_tmp_path("dangling-set"), 0755);
    ck_assert_int_eq(symlink("nowhere", tu_tmp_path("dangling-set/train-images-idx3-ubyte")), 0);
    expect_exit(2, "train-images-idx3-ubyte is a symbolic link that leads nowhere",
                "timeout 20 $B/gmm-train %s --device cpu", "dangling-set");
    /* an empty directory still lists the names looked for */
    mkdir(tu_tmp_path("empty-set"), 0755);
    expect_exit(2, "no training images found (looked for", "$B/gmm-train %s --device cpu",
                "empty-set");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile_options");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_stored_options_bounded);
    tcase_add_test(tc, test_integer_ranges);
    tcase_add_test(tc, test_augment_count_bounded);
    tcase_add_test(tc, test_image_shape_checked);
    tcase_add_test(tc, test_json_with_pictures);
    tcase_add_test(tc, test_json_utf8_always);
    tcase_add_test(tc, test_init_from_feature_space_model);
    tcase_add_test(tc, test_relative_data_path_message);
    tcase_add_test(tc, test_special_train_images_named);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
