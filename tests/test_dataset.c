/* Check suite for data/dataset: finding a split's files in a directory (raw, .gz, dotted names)
 * or beside an image file, label/image agreement, clear errors, truncation and scaling. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/dataset.h"
#include "data/idx.h"
#include "tests/testutil.h"

#define ROWS 4
#define COLS 3

static char *make_dir(const char *name)
{
    char *d = strdup(tu_tmp_path(name));
    ck_assert_int_eq(mkdir(d, 0755), 0);
    return d;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* Writes n images whose pixels encode (seed, index) and n labels i % 10 (labels_name may be NULL). */
static void write_split(const char *dir, const char *images_name, const char *labels_name, int n,
                        int seed)
{
    uint8_t *pix = malloc((size_t)n * ROWS * COLS);
    for (int i = 0; i < n * ROWS * COLS; i++) pix[i] = (uint8_t)(i * 7 + seed);
    uint8_t *lab = malloc((size_t)n);
    for (int i = 0; i < n; i++) lab[i] = (uint8_t)(i % 10);
    char *ip = join(dir, images_name);
    size_t len = strlen(images_name);
    int gz = len > 3 && strcmp(images_name + len - 3, ".gz") == 0;
    ck_assert_int_eq(idx_write_images(ip, pix, n, ROWS, COLS, gz), GMM_OK);
    if (labels_name) {
        char *lp = join(dir, labels_name);
        len = strlen(labels_name);
        gz = len > 3 && strcmp(labels_name + len - 3, ".gz") == 0;
        ck_assert_int_eq(idx_write_labels(lp, lab, n, gz), GMM_OK);
        free(lp);
    }
    free(ip);
    free(pix);
    free(lab);
}

static void check_loaded(const dataset *ds, int n, int seed, int with_labels)
{
    ck_assert_int_eq(ds->n_samples, n);
    ck_assert_int_eq(ds->rows, ROWS);
    ck_assert_int_eq(ds->cols, COLS);
    ck_assert_ptr_nonnull(ds->pixels);
    for (int i = 0; i < n * ROWS * COLS; i++) ck_assert_int_eq(ds->pixels[i], (uint8_t)(i * 7 + seed));
    if (with_labels) {
        ck_assert_ptr_nonnull(ds->labels);
        ck_assert(ds->labels_path[0] != '\0');
        for (int i = 0; i < n; i++) ck_assert_int_eq(ds->labels[i], i % 10);
    } else {
        ck_assert_ptr_null(ds->labels);
        ck_assert_str_eq(ds->labels_path, "");
    }
}

START_TEST(test_dir_raw)
{
    char *d = make_dir("raw");
    write_split(d, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", 12, 1);
    write_split(d, "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte", 5, 2);
    dataset ds;
    gmm_status st = dataset_load(d, DATASET_TRAIN, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 12, 1, 1);
    ck_assert_ptr_nonnull(strstr(ds.images_path, "train-images-idx3-ubyte"));
    ck_assert_ptr_nonnull(strstr(ds.labels_path, "train-labels-idx1-ubyte"));
    dataset_free(&ds);
    st = dataset_load(d, DATASET_TEST, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 5, 2, 1);
    ck_assert_ptr_nonnull(strstr(ds.images_path, "t10k-images-idx3-ubyte"));
    dataset_free(&ds);
    dataset_free(&ds); /* twice is harmless */
    dataset_free(NULL);
    free(d);
}
END_TEST

START_TEST(test_dir_gzip)
{
    char *d = make_dir("gz");
    write_split(d, "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz", 9, 3);
    write_split(d, "t10k-images-idx3-ubyte.gz", NULL, 4, 4); /* test split without labels */
    /* A trailing slash on the directory must not matter. */
    char *slash = join(d, "");
    dataset ds;
    gmm_status st = dataset_load(slash, DATASET_TRAIN, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 9, 3, 1);
    ck_assert_ptr_nonnull(strstr(ds.labels_path, "train-labels-idx1-ubyte.gz"));
    dataset_free(&ds);
    st = dataset_load(d, DATASET_TEST, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 4, 4, 0);
    dataset_free(&ds);
    free(slash);
    free(d);
}
END_TEST

START_TEST(test_dir_dotted_names)
{
    char *d = make_dir("dotted");
    write_split(d, "train-images.idx3-ubyte", "train-labels.idx1-ubyte", 6, 5);
    dataset ds;
    gmm_status st = dataset_load(d, DATASET_TRAIN, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 6, 5, 1);
    ck_assert_ptr_nonnull(strstr(ds.labels_path, "train-labels.idx1-ubyte"));
    dataset_free(&ds);
    free(d);
}
END_TEST

START_TEST(test_single_file)
{
    char *d = make_dir("single");
    /* Compressed images, raw labels: the other compression is found too. */
    write_split(d, "mine-images-idx3-ubyte.gz", "mine-labels-idx1-ubyte", 7, 6);
    write_split(d, "other.idx", NULL, 3, 7);
    char *ip = join(d, "mine-images-idx3-ubyte.gz"), *op = join(d, "other.idx");
    dataset ds;
    gmm_status st = dataset_load(ip, DATASET_TEST /* ignored for a file */, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 7, 6, 1);
    ck_assert_str_eq(ds.images_path, ip);
    ck_assert_ptr_nonnull(strstr(ds.labels_path, "mine-labels-idx1-ubyte"));
    dataset_free(&ds);
    st = dataset_load(op, DATASET_TRAIN, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_loaded(&ds, 3, 7, 0);
    dataset_free(&ds);
    free(ip);
    free(op);
    free(d);
}
END_TEST

START_TEST(test_label_count_mismatch)
{
    char *d = make_dir("mismatch");
    write_split(d, "train-images-idx3-ubyte", NULL, 8, 1);
    uint8_t lab[5] = {0};
    char *lp = join(d, "train-labels-idx1-ubyte.gz");
    ck_assert_int_eq(idx_write_labels(lp, lab, 5, 1), GMM_OK);
    dataset ds;
    ck_assert_int_eq(dataset_load(d, DATASET_TRAIN, &ds), GMM_ERR_FORMAT);
    const char *msg = gmm_error_message(GMM_ERR_FORMAT);
    ck_assert_msg(strstr(msg, "train-labels-idx1-ubyte.gz") && strstr(msg, "train-images-idx3-ubyte"),
                  "detail should name both files: %s", msg);
    ck_assert_msg(strstr(msg, "5 labels") && strstr(msg, "8 images"), "%s", msg);
    ck_assert_ptr_null(ds.pixels);
    ck_assert_ptr_null(ds.labels);
    ck_assert_int_eq(ds.n_samples, 0);
    /* A malformed label file is an error too, not silently "no labels". */
    FILE *f = fopen(lp, "wb");
    fputs("garbage", f);
    fclose(f);
    ck_assert_int_eq(dataset_load(d, DATASET_TRAIN, &ds), GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), lp));
    free(lp);
    free(d);
}
END_TEST

START_TEST(test_missing_dir)
{
    char *d = strdup(tu_tmp_path("no-such-dir"));
    dataset ds;
    ck_assert_int_eq(dataset_load(d, DATASET_TRAIN, &ds), GMM_ERR_IO);
    const char *msg = gmm_error_message(GMM_ERR_IO);
    ck_assert_msg(strstr(msg, d) && strstr(msg, "no such file or directory"), "%s", msg);
    ck_assert_ptr_null(ds.pixels);
    free(d);
}
END_TEST

START_TEST(test_dir_without_files)
{
    char *d = make_dir("empty");
    write_split(d, "train-images-idx3-ubyte", NULL, 2, 1); /* train only */
    dataset ds;
    ck_assert_int_eq(dataset_load(d, DATASET_TEST, &ds), GMM_ERR_IO);
    const char *msg = gmm_error_message(GMM_ERR_IO);
    ck_assert_msg(strstr(msg, d) && strstr(msg, "t10k-images-idx3-ubyte,") &&
                      strstr(msg, "t10k-images-idx3-ubyte.gz") &&
                      strstr(msg, "t10k-images.idx3-ubyte"),
                  "detail should list the names looked for: %s", msg);
    ck_assert_ptr_null(ds.pixels);
    free(d);
}
END_TEST

START_TEST(test_truncate)
{
    char *d = make_dir("trunc");
    write_split(d, "train-images-idx3-ubyte", "train-labels-idx1-ubyte", 10, 9);
    dataset ds;
    ck_assert_int_eq(dataset_load(d, DATASET_TRAIN, &ds), GMM_OK);
    dataset_truncate(&ds, 0);
    ck_assert_int_eq(ds.n_samples, 10);
    dataset_truncate(&ds, 10);
    ck_assert_int_eq(ds.n_samples, 10);
    dataset_truncate(&ds, 99);
    ck_assert_int_eq(ds.n_samples, 10);
    dataset_truncate(&ds, 4);
    check_loaded(&ds, 4, 9, 1);
    dataset_truncate(NULL, 3);
    dataset_free(&ds);
    free(d);
}
END_TEST

START_TEST(test_to_double)
{
    char *d = make_dir("double");
    write_split(d, "train-images-idx3-ubyte", NULL, 50, 0); /* i*7 covers all of 0..255 */
    dataset ds;
    ck_assert_int_eq(dataset_load(d, DATASET_TRAIN, &ds), GMM_OK);
    double *x = NULL;
    ck_assert_int_eq(dataset_to_double(&ds, &x), GMM_OK);
    ck_assert_ptr_nonnull(x);
    int saw0 = 0, saw1 = 0;
    for (int i = 0; i < ds.n_samples * ROWS * COLS; i++) {
        ck_assert(x[i] >= 0.0 && x[i] <= 1.0);
        ck_assert(x[i] == ds.pixels[i] / 255.0);
        saw0 |= x[i] == 0.0;
        saw1 |= x[i] == 1.0;
    }
    ck_assert(saw0 && saw1);
    free(x);
    dataset empty = {0};
    ck_assert_int_eq(dataset_to_double(&empty, &x), GMM_ERR_ARG);
    ck_assert_ptr_null(x);
    dataset_free(&ds);
    free(d);
}
END_TEST

START_TEST(test_real_mnist)
{
    const char *dir = tu_mnist_dir();
    if (!dir) {
        printf("test_real_mnist: skipped (set GMM_TEST_MNIST_DIR to the MNIST directory)\n");
        return;
    }
    dataset ds;
    gmm_status st = dataset_load(dir, DATASET_TRAIN, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(ds.n_samples, 19690);
    ck_assert_int_eq(ds.rows, 28);
    ck_assert_int_eq(ds.cols, 28);
    ck_assert_ptr_nonnull(ds.labels);
    ck_assert_int_eq(ds.labels[0], 5);
    dataset_free(&ds);
    st = dataset_load(dir, DATASET_TEST, &ds);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(ds.n_samples, 10000);
    ck_assert_ptr_nonnull(ds.labels);
    ck_assert_int_eq(ds.labels[0], 7); /* the first test digit is a 7 */
    dataset_free(&ds);
}
END_TEST

static Suite *dataset_suite(void)
{
    Suite *s = suite_create("dataset");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_dir_raw);
    tcase_add_test(tc, test_dir_gzip);
    tcase_add_test(tc, test_dir_dotted_names);
    tcase_add_test(tc, test_single_file);
    tcase_add_test(tc, test_label_count_mismatch);
    tcase_add_test(tc, test_missing_dir);
    tcase_add_test(tc, test_dir_without_files);
    tcase_add_test(tc, test_truncate);
    tcase_add_test(tc, test_to_double);
    tcase_add_test(tc, test_real_mnist);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(dataset_suite()); }
