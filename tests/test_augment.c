/* Check suite for infiMNIST-style data (data/augment.h, data/idx_writer.h, gmm-augment): the
 * deformation against a direct double-precision reference, the identity and pure-shift cases,
 * reproducibility across pieces and threads, the streaming IDX writer's promises, and the
 * program end to end (output loads, same seed same bytes, bad options). */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/dataset.h"
#include "data/idx.h"
#include "data/idx_writer.h"
#include "data/augment.h"
#include "kernels/rng.h"
#include "tests/testutil.h"

enum { ROWS = 12, COLS = 10, N_ORIG = 7 };

static void make_originals(uint8_t *px, uint8_t *labels)
{
    uint64_t s = 5;
    for (int i = 0; i < N_ORIG * ROWS * COLS; i++) px[i] = (uint8_t)(tu_rand_u64(&s) & 0xff);
    for (int i = 0; i < N_ORIG; i++) labels[i] = (uint8_t)(i % 3);
}

static int reflect_ref(int i, int n)
{
    while (i < 0 || i >= n) i = i < 0 ? -i - 1 : 2 * n - 1 - i;
    return i;
}

static double px_ref(const uint8_t *src, int y, int x)
{
    return (y < 0 || y >= ROWS || x < 0 || x >= COLS) ? 0.0 : src[y * COLS + x];
}

/* The deformation written out directly in double precision: the same draws, a 2-D smoothing
 * sum, bilinear interpolation. */
static void deform_ref(const uint8_t *src, const gmm_augment_params *p, uint64_t seed,
                       uint64_t index, double *out)
{
    const int n = ROWS * COLS, r = (int)ceil(3 * p->sigma);
    double u[2][ROWS * COLS], d[2][ROWS * COLS];
    gmm_rng rng;
    gmm_rng_seed(&rng, seed ^ (0x9E3779B97F4A7C15ull * (index + 1)));
    for (int f = 0; f < 2; f++)
        for (int i = 0; i < n; i++) u[f][i] = 2 * gmm_rng_uniform(&rng) - 1;
    const int span = 2 * p->max_shift + 1;
    const int sx = (int)gmm_rng_below(&rng, span) - p->max_shift;
    const int sy = (int)gmm_rng_below(&rng, span) - p->max_shift;
    double norm = 0;
    for (int t = -r; t <= r; t++) norm += exp(-0.5 * t * t / (p->sigma * p->sigma));
    for (int f = 0; f < 2; f++)
        for (int y = 0; y < ROWS; y++)
            for (int x = 0; x < COLS; x++) {
                double s = 0;
                for (int a = -r; a <= r; a++)
                    for (int b = -r; b <= r; b++)
                        s += exp(-0.5 * (a * a + b * b) / (p->sigma * p->sigma)) / (norm * norm) *
                             u[f][reflect_ref(y + a, ROWS) * COLS + reflect_ref(x + b, COLS)];
                d[f][y * COLS + x] = s;
            }
    for (int y = 0; y < ROWS; y++)
        for (int x = 0; x < COLS; x++) {
            const double qy = y - sy + p->alpha * d[1][y * COLS + x];
            const double qx = x - sx + p->alpha * d[0][y * COLS + x];
            const int y0 = (int)floor(qy), x0 = (int)floor(qx);
            const double wy = qy - y0, wx = qx - x0;
            out[y * COLS + x] =
                (1 - wy) * ((1 - wx) * px_ref(src, y0, x0) + wx * px_ref(src, y0, x0 + 1)) +
                wy * ((1 - wx) * px_ref(src, y0 + 1, x0) + wx * px_ref(src, y0 + 1, x0 + 1));
        }
}

START_TEST(test_deformation_matches_reference)
{
    uint8_t orig[N_ORIG * ROWS * COLS], labels[N_ORIG], img[ROWS * COLS];
    make_originals(orig, labels);
    gmm_augment_params p;
    gmm_augment_params_default(&p);
    p.sigma = 2.0;
    p.alpha = 20.0;
    float *work = malloc(gmm_augment_work_floats(ROWS, COLS) * sizeof *work);
    int changed = 0;
    for (uint64_t index = 0; index < 20; index++) {
        const uint8_t *src = orig + (index % N_ORIG) * ROWS * COLS;
        double ref[ROWS * COLS];
        deform_ref(src, &p, 42, index, ref);
        gmm_augment_image(src, ROWS, COLS, &p, 42, index, work, img);
        for (int i = 0; i < ROWS * COLS; i++) {
            const double want = ref[i] < 0 ? 0 : ref[i] > 255 ? 255 : ref[i];
            /* float32 sums against double: the rounded byte may differ by one on a half */
            ck_assert_msg(fabs(img[i] - want) <= 0.51 + 1e-3, "index %llu pixel %d: %d, want %.3f",
                          (unsigned long long)index, i, img[i], want);
            changed += img[i] != src[i];
        }
    }
    ck_assert_int_gt(changed, 20 * ROWS * COLS / 2); /* a real deformation, not a copy */
    free(work);
}
END_TEST

START_TEST(test_identity_and_shift)
{
    uint8_t orig[N_ORIG * ROWS * COLS], labels[N_ORIG], img[ROWS * COLS];
    make_originals(orig, labels);
    gmm_augment_params p = {.alpha = 0, .sigma = 4, .max_shift = 0};
    float *work = malloc(gmm_augment_work_floats(ROWS, COLS) * sizeof *work);
    gmm_augment_image(orig, ROWS, COLS, &p, 1, 3, work, img);
    ck_assert_int_eq(memcmp(img, orig, sizeof img), 0);

    /* alpha 0, shift 1: the image moved by one of the nine offsets, zeros coming in */
    p.max_shift = 1;
    int seen[3][3] = {{0}};
    for (uint64_t index = 0; index < 60; index++) {
        gmm_augment_image(orig, ROWS, COLS, &p, 9, index, work, img);
        int matched = 0;
        for (int sy = -1; sy <= 1 && !matched; sy++)
            for (int sx = -1; sx <= 1 && !matched; sx++) {
                int ok = 1;
                for (int y = 0; y < ROWS && ok; y++)
                    for (int x = 0; x < COLS && ok; x++)
                        ok = img[y * COLS + x] == (uint8_t)px_ref(orig, y - sy, x - sx);
                if (ok) {
                    matched = 1;
                    seen[sy + 1][sx + 1]++;
                }
            }
        ck_assert_msg(matched, "index %llu is not a shift of the original", (unsigned long long)index);
    }
    for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) ck_assert_msg(seen[a][b] > 0, "shift (%d, %d) never drawn", a - 1, b - 1);
    free(work);
}
END_TEST

START_TEST(test_batch_reproducible)
{
    uint8_t orig[N_ORIG * ROWS * COLS], labels[N_ORIG];
    make_originals(orig, labels);
    gmm_augment_params p;
    gmm_augment_params_default(&p);
    enum { TOTAL = 50 };
    uint8_t *whole = malloc(TOTAL * ROWS * COLS), *pieces = malloc(TOTAL * ROWS * COLS);
    uint8_t whole_l[TOTAL], pieces_l[TOTAL];
    omp_set_num_threads(1);
    TU_CHECK_OK(gmm_augment_batch(orig, labels, N_ORIG, ROWS, COLS, &p, 7, 1, 0, TOTAL, whole,
                                  whole_l));
    omp_set_num_threads(3);
    for (int first = 0; first < TOTAL; first += 13) {
        const int n = TOTAL - first < 13 ? TOTAL - first : 13;
        TU_CHECK_OK(gmm_augment_batch(orig, labels, N_ORIG, ROWS, COLS, &p, 7, 1, first, n,
                                      pieces + first * ROWS * COLS, pieces_l + first));
    }
    ck_assert_int_eq(memcmp(whole, pieces, TOTAL * ROWS * COLS), 0);
    ck_assert_int_eq(memcmp(whole_l, pieces_l, TOTAL), 0);
    for (int i = 0; i < TOTAL; i++) ck_assert_int_eq(whole_l[i], labels[i % N_ORIG]);
    /* the originals first, then deformations */
    ck_assert_int_eq(memcmp(whole, orig, sizeof orig), 0);
    ck_assert_int_ne(memcmp(whole + N_ORIG * ROWS * COLS, orig, sizeof orig), 0);
    /* without originals image 0 is deformed; another seed gives other images */
    TU_CHECK_OK(gmm_augment_batch(orig, labels, N_ORIG, ROWS, COLS, &p, 7, 0, 0, TOTAL, pieces,
                                  pieces_l));
    ck_assert_int_ne(memcmp(pieces, orig, ROWS * COLS), 0);
    ck_assert_int_eq(memcmp(pieces + N_ORIG * ROWS * COLS, whole + N_ORIG * ROWS * COLS,
                            (TOTAL - N_ORIG) * ROWS * COLS), 0);
    TU_CHECK_OK(gmm_augment_batch(orig, labels, N_ORIG, ROWS, COLS, &p, 8, 1, 0, TOTAL, pieces,
                                  pieces_l));
    ck_assert_int_ne(memcmp(pieces + N_ORIG * ROWS * COLS, whole + N_ORIG * ROWS * COLS,
                            (TOTAL - N_ORIG) * ROWS * COLS), 0);
    /* bad parameters */
    p.sigma = 0.1;
    ck_assert_int_eq(gmm_augment_batch(orig, labels, N_ORIG, ROWS, COLS, &p, 7, 1, 0, 1, pieces,
                                       pieces_l), GMM_ERR_ARG);
    free(whole);
    free(pieces);
}
END_TEST

START_TEST(test_idx_writer)
{
    const char *path = tu_tmp_path("w-images");
    uint8_t px[5 * 4 * 3];
    for (int i = 0; i < 60; i++) px[i] = (uint8_t)(i * 3);
    idx_writer w;
    TU_CHECK_OK(idx_writer_open(&w, path, 3, 5, 4, 3));
    TU_CHECK_OK(idx_writer_append(&w, px, 2));
    TU_CHECK_OK(idx_writer_append(&w, px + 24, 3));
    ck_assert_int_eq(idx_writer_append(&w, px, 1), GMM_ERR_ARG); /* more than promised */
    struct stat sb;
    ck_assert_int_ne(stat(path, &sb), 0); /* not there before it is complete */

    TU_CHECK_OK(idx_writer_open(&w, path, 3, 5, 4, 3));
    TU_CHECK_OK(idx_writer_append(&w, px, 2));
    TU_CHECK_OK(idx_writer_append(&w, px + 24, 3));
    TU_CHECK_OK(idx_writer_close(&w));
    idx_array a = {0};
    TU_CHECK_OK(idx_read_images(path, &a));
    ck_assert_int_eq(a.n_items, 5);
    ck_assert_int_eq(a.rows, 4);
    ck_assert_int_eq(a.cols, 3);
    ck_assert_int_eq(memcmp(a.data, px, 60), 0);
    idx_free(&a);

    /* fewer items than promised: an error, and neither the file nor the partial one left */
    const char *short_path = tu_tmp_path("w-short");
    TU_CHECK_OK(idx_writer_open(&w, short_path, 1, 10, 1, 1));
    TU_CHECK_OK(idx_writer_append(&w, px, 9));
    ck_assert_int_eq(idx_writer_close(&w), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "9 items written of the 10"));
    ck_assert_int_ne(stat(short_path, &sb), 0);
    /* nor its temporary file (".w-short.XXXXXX", data/file_write.h) */
    char *left = NULL;
    ck_assert_int_eq(tu_sh(&left, "ls -a | grep -c '^\\.w-short\\.' || true"), 0);
    ck_assert_int_eq(atoi(left), 0);
    free(left);
    ck_assert_int_eq(idx_writer_open(&w, "/no/such/dir/x", 1, 1, 1, 1), GMM_ERR_IO);
    ck_assert_int_eq(idx_writer_open(&w, short_path, 2, 1, 1, 1), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_program)
{
    const char *in = tu_fixture_dir("augfix", 40, 8, 3, 1);
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-augment '%s' a1 -n 250 --seed 4 --batch 64", in);
    ck_assert_msg(rc == 0, "gmm-augment: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "wrote 250 images and labels"));
    ck_assert_ptr_nonnull(strstr(out, "test split copied"));
    free(out);
    rc = tu_sh(&out, "$B/gmm-augment '%s' a2 -n 250 --seed 4 --batch 7 -q --png ''", in);
    ck_assert_msg(rc == 0, "gmm-augment: %s", out);
    free(out);
    rc = tu_sh(&out, "cmp a1/train-images-idx3-ubyte a2/train-images-idx3-ubyte && "
                     "cmp a1/train-labels-idx1-ubyte a2/train-labels-idx1-ubyte && "
                     "test -s a1/augment.png && test ! -e a2/augment.png");
    ck_assert_msg(rc == 0, "same seed, other batch size: %s", out);
    free(out);

    dataset ds = {0}, orig = {0};
    TU_CHECK_OK(dataset_load(tu_tmp_path("a1"), DATASET_TRAIN, &ds));
    TU_CHECK_OK(dataset_load(in, DATASET_TRAIN, &orig));
    ck_assert_int_eq(ds.n_samples, 250);
    ck_assert_int_eq(memcmp(ds.pixels, orig.pixels, 40 * 64), 0);
    for (int i = 0; i < 250; i++) ck_assert_int_eq(ds.labels[i], orig.labels[i % 40]);
    dataset_free(&ds);
    dataset_free(&orig);

    /* the output is a data set the programs take */
    rc = tu_sh(&out, "$B/gmm-train a1 -k 2 --device cpu -q -o a1.bin --png '' && "
                     "$B/gmm-predict a1.bin --device cpu");
    ck_assert_msg(rc == 0, "fit on the augmented set: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "N = 40"));
    free(out);

    tu_expect_error("-n N is required", "$B/gmm-augment '%s' a3", in);
    tu_expect_error("-n must be between 1 and", "$B/gmm-augment '%s' a3 -n 0", in);
    tu_expect_error("must not be IN_DIR", "$B/gmm-augment '%s' '%s' -n 5", in, in);
    tu_expect_error("--sigma must be", "$B/gmm-augment '%s' a3 -n 5 --sigma 0.1", in);
    tu_expect_error("--max-shift must be", "$B/gmm-augment '%s' a3 -n 5 --max-shift 9", in);
    tu_expect_error("needs IN_DIR and OUT_DIR", "$B/gmm-augment '%s' -n 5", in);
    tu_expect_error("/no/such", "$B/gmm-augment /no/such a3 -n 5");
}
END_TEST

static Suite *augment_suite(void)
{
    Suite *s = suite_create("augment");
    TCase *tc = tcase_create("augment");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_deformation_matches_reference);
    tcase_add_test(tc, test_identity_and_shift);
    tcase_add_test(tc, test_batch_reproducible);
    tcase_add_test(tc, test_idx_writer);
    tcase_add_test(tc, test_program);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(augment_suite()); }
