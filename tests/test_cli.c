/* Check suite for the programs as a user runs them: gmm-train and gmm-predict on a small IDX
 * fixture (model, PNG, CSV written; predictions of the saved model; the blur the model records),
 * and every bad input ending in a one-line error and a non-zero exit code, never a crash. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "data/idx.h"
#include "kernels/gpu_info.h"
#include "tests/testutil.h"

#define FIX_N 400
#define FIX_SIDE 6

/* A directory with train-* and t10k-* splits of two kinds of 6 x 6 images (left or right half
 * bright, with noise), labelled 0 and 1. */
static const char *fixture_dir(void)
{
    static char dir[512];
    if (dir[0]) return dir;
    snprintf(dir, sizeof dir, "%s", tu_tmp_path("fixture"));
    mkdir(dir, 0755);
    uint8_t *px = malloc(FIX_N * FIX_SIDE * FIX_SIDE), lab[FIX_N];
    uint64_t s = 11;
    for (int split = 0; split < 2; split++) {
        for (int i = 0; i < FIX_N; i++) {
            lab[i] = (uint8_t)(i % 2);
            for (int r = 0; r < FIX_SIDE; r++)
                for (int c = 0; c < FIX_SIDE; c++) {
                    int bright = (c < FIX_SIDE / 2) == (lab[i] == 0);
                    double v = (bright ? 180 : 40) + 60 * (tu_rand_uniform(&s) - 0.5);
                    px[(i * FIX_SIDE + r) * FIX_SIDE + c] = (uint8_t)v;
                }
        }
        char p[600];
        const char *pre = split ? "t10k" : "train";
        snprintf(p, sizeof p, "%s/%s-images-idx3-ubyte.gz", dir, pre);
        ck_assert_int_eq(idx_write_images(p, px, FIX_N, FIX_SIDE, FIX_SIDE, 1), GMM_OK);
        snprintf(p, sizeof p, "%s/%s-labels-idx1-ubyte", dir, pre);
        ck_assert_int_eq(idx_write_labels(p, lab, FIX_N, 0), GMM_OK);
    }
    free(px);
    return dir;
}

/* Runs a shell command in the test's temporary directory; returns its exit code and keeps its
 * output. Programs are called as $B/gmm-...: B is the programs' directory. */
static int vrun(char **out, const char *fmt, va_list ap)
{
    char args[3000], cmd[3600];
    vsnprintf(args, sizeof args, fmt, ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && B='%s' && %s", tu_tmp_path(""), tu_bin_dir(), args);
    return tu_run(cmd, out);
}

static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vrun(out, fmt, ap);
    va_end(ap);
    return rc;
}

/* Runs the command and checks it failed cleanly: a non-zero exit (not a signal), an
 * "error: " line containing needle, no sanitizer report. */
static void expect_error(const char *needle, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void expect_error(const char *needle, const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vrun(&out, fmt, ap);
    va_end(ap);
    ck_assert_msg(rc > 0 && rc < 128, "expected a clean non-zero exit, got %d: %s", rc, out);
    ck_assert_msg(strstr(out, "error: ") != NULL, "no error line in: %s", out);
    ck_assert_msg(strstr(out, needle) != NULL, "'%s' not in: %s", needle, out);
    ck_assert_msg(strstr(out, "Sanitizer") == NULL && strstr(out, "runtime error") == NULL,
                  "sanitizer report: %s", out);
    free(out);
}

START_TEST(test_train_then_predict)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = run(&out, "$B/gmm-train '%s' -k 2 --device cpu -o m.bin --png means.png --seed 3", dir);
    ck_assert_msg(rc == 0, "$B/gmm-train: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "iter    1"));
    ck_assert_ptr_nonnull(strstr(out, "converged in"));
    ck_assert_ptr_nonnull(strstr(out, "BIC"));
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    free(out);
    struct stat sb;
    ck_assert_int_eq(stat(tu_tmp_path("means.png"), &sb), 0);
    ck_assert_int_gt(sb.st_size, 100);

    /* without a data argument: the test split of the training directory */
    rc = run(&out, "$B/gmm-predict m.bin --out a.csv --proba --device cpu");
    ck_assert_msg(rc == 0, "$B/gmm-predict: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "N = 400"));
    ck_assert_ptr_nonnull(strstr(out, "mean log-likelihood"));
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    ck_assert_ptr_nonnull(strstr(out, "confusion matrix"));
    free(out);
    FILE *f = fopen(tu_tmp_path("a.csv"), "r");
    ck_assert_ptr_nonnull(f);
    char line[256];
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    ck_assert_str_eq(line, "index,component,label,p_0,p_1\n");
    int lines = 0;
    while (fgets(line, sizeof line, f)) lines++;
    fclose(f);
    ck_assert_int_eq(lines, FIX_N);

    /* --quiet drops the per-iteration lines; the same seed gives the same model bytes */
    rc = run(&out, "$B/gmm-train '%s' -k 2 --device cpu -o m2.bin --png '' --seed 3 -q", dir);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_null(strstr(out, "iter    1"));
    free(out);
    rc = run(&out, "cmp m.bin m2.bin");
    ck_assert_msg(rc == 0, "same seed, different model files: %s", out);
    free(out);
}
END_TEST

START_TEST(test_help_lists_options)
{
    char *out = NULL;
    ck_assert_int_eq(run(&out, "$B/gmm-train --help"), 0);
    const char *opts[] = {"-k", "--covariance", "--max-iter", "--tol", "--reg-covar", "--init",
                          "--n-init", "--seed", "--limit", "--device", "--precision", "-o",
                          "--png", "--quiet"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        ck_assert_msg(strstr(out, opts[i]) != NULL, "--help lacks %s", opts[i]);
    free(out);
    ck_assert_int_eq(run(&out, "$B/gmm-predict --help"), 0);
    ck_assert_ptr_nonnull(strstr(out, "--out"));
    ck_assert_ptr_nonnull(strstr(out, "--proba"));
    free(out);
}
END_TEST

START_TEST(test_bad_options)
{
    const char *dir = fixture_dir();
    expect_error("unknown option", "$B/gmm-train '%s' --frobnicate", dir);
    expect_error("-k must be >= 1", "$B/gmm-train '%s' -k 0", dir);
    expect_error("expects an integer", "$B/gmm-train '%s' -k abc", dir);
    expect_error("n_samples", "$B/gmm-train '%s' -k 401 --device cpu", dir);
    expect_error("--tol must be >= 0", "$B/gmm-train '%s' --tol -1", dir);
    expect_error("expects a number", "$B/gmm-train '%s' --reg-covar nan", dir);
    expect_error("--covariance must be", "$B/gmm-train '%s' --covariance round", dir);
    expect_error("--init must be", "$B/gmm-train '%s' --init magic", dir);
    expect_error("--device must be", "$B/gmm-train '%s' --device tpu", dir);
    expect_error("--max-iter must be", "$B/gmm-train '%s' --max-iter 0", dir);
    expect_error("needs a value", "$B/gmm-train '%s' -k", dir);
    expect_error("missing the data", "$B/gmm-train");
    expect_error("/no/such/dir", "$B/gmm-train /no/such/dir");
    expect_error("missing the model", "$B/gmm-predict");
    expect_error("--proba needs --out", "$B/gmm-predict m.bin --proba");
}
END_TEST

START_TEST(test_gpu_requested_without_gpu)
{
    if (tu_gpu_available()) {
        printf("no-GPU error path skipped: a GPU is present\n");
        return;
    }
    char *out;
    expect_error("--device gpu", "$B/gmm-train '%s' -k 2 --device gpu -o g.bin", fixture_dir());
    /* auto falls back to the CPU and says so */
    int rc = run(&out, "$B/gmm-train '%s' -k 2 -o auto.bin --png '' -q", fixture_dir());
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "CPU backend"));
    free(out);
}
END_TEST

static void write_bytes(const char *path, const void *bytes, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    fclose(f);
}

START_TEST(test_bad_data_files)
{
    /* wrong magic */
    uint8_t junk[64] = {0x12, 0x34, 0x56, 0x78, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 2};
    write_bytes(tu_tmp_path("junk-images-idx3-ubyte"), junk, 20);
    expect_error("magic", "$B/gmm-train junk-images-idx3-ubyte");
    /* truncated: the header promises 10 images of 28 x 28 */
    uint8_t head[16 + 100] = {0, 0, 8, 3, 0, 0, 0, 10, 0, 0, 0, 28, 0, 0, 0, 28};
    for (int i = 16; i < 116; i++) head[i] = (uint8_t)i;
    write_bytes(tu_tmp_path("short-images-idx3-ubyte"), head, sizeof head);
    expect_error("short-images-idx3-ubyte", "$B/gmm-train short-images-idx3-ubyte");
    /* an empty directory */
    mkdir(tu_tmp_path("empty"), 0755);
    expect_error("train-images", "$B/gmm-train empty");
}
END_TEST

START_TEST(test_bad_model_files)
{
    const char *dir = fixture_dir();
    char *out;
    ck_assert_int_eq(run(&out, "$B/gmm-train '%s' -k 2 --device cpu -o good.bin --png '' -q", dir), 0);
    free(out);
    expect_error("missing.bin", "$B/gmm-predict missing.bin");
    /* truncated */
    ck_assert_int_eq(run(&out, "head -c 100 good.bin > cut.bin"), 0);
    free(out);
    expect_error("truncated", "$B/gmm-predict cut.bin '%s'", dir);
    /* a flipped byte in the parameters: checksum */
    ck_assert_int_eq(run(&out, "cp good.bin flip.bin && printf '\\x55' | dd of=flip.bin bs=1 seek=200 conv=notrunc status=none"), 0);
    free(out);
    expect_error("checksum", "$B/gmm-predict flip.bin '%s'", dir);
    /* not a model at all */
    expect_error("not a gmm model", "$B/gmm-predict '%s/train-labels-idx1-ubyte'", dir);
    /* a model of other image sizes */
    write_bytes(tu_tmp_path("other"), "", 0);
    mkdir(tu_tmp_path("other-dir"), 0755);
    uint8_t px[3 * 4 * 4];
    for (int i = 0; i < 48; i++) px[i] = (uint8_t)(i * 5 + 1);
    ck_assert_int_eq(idx_write_images(tu_tmp_path("other-dir/t10k-images-idx3-ubyte"), px, 3, 4, 4, 0), GMM_OK);
    expect_error("model expects 36", "$B/gmm-predict good.bin other-dir");
}
END_TEST

/* The line of out that starts with prefix (up to its newline), or "" when none does. */
static const char *line_of(const char *out, const char *prefix, char *line, size_t len)
{
    const char *p = strstr(out, prefix);
    line[0] = '\0';
    if (p) snprintf(line, len, "%.*s", (int)strcspn(p, "\n"), p);
    return line;
}

/* gmm-train --blur records the blur in the model; gmm-predict applies it without being told
 * (the same predictions as an explicit --blur on a model that records none, as before version 2
 * of the file), says so, and refuses a --blur that contradicts it. */
START_TEST(test_blur_recorded_in_model)
{
    const char *dir = fixture_dir();
    char *out = NULL, ref_ll[200], ll[200], plain_ll[200];
    int rc = run(&out, "$B/gmm-train '%s' -k 2 --device cpu --blur 1.0 -o blur.bin --png '' -q", dir);
    ck_assert_msg(rc == 0, "gmm-train --blur: %s", out);
    free(out);
    /* the same model with its blur sigma (bytes 96..103) zeroed: one that records no blur */
    size_t size;
    FILE *f = fopen(tu_tmp_path("blur.bin"), "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char *buf = malloc(1 << 20);
    size = fread(buf, 1, 1 << 20, f);
    fclose(f);
    ck_assert(size > 108 && size < (1 << 20));
    double sigma;
    memcpy(&sigma, buf + 96, sizeof sigma);
    ck_assert(sigma == 1.0);
    memset(buf + 96, 0, 8);
    uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)(size - 4));
    for (int i = 0; i < 4; i++) buf[size - 4 + i] = (unsigned char)(crc >> (8 * i));
    f = fopen(tu_tmp_path("noblur.bin"), "wb");
    ck_assert_uint_eq(fwrite(buf, 1, size, f), size);
    fclose(f);
    free(buf);

    /* the reference: an explicit --blur on the model that records none (with a notice) */
    rc = run(&out, "$B/gmm-predict noblur.bin --blur 1.0 --device cpu --out ref.csv --proba");
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "records no blur"));
    line_of(out, "mean log-likelihood", ref_ll, sizeof ref_ll);
    free(out);
    /* the model's own blur, applied without --blur, and said */
    rc = run(&out, "$B/gmm-predict blur.bin --device cpu --out auto.csv --proba");
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "sigma 1 (recorded in the model)"));
    line_of(out, "mean log-likelihood", ll, sizeof ll);
    ck_assert_str_eq(ll, ref_ll);
    free(out);
    ck_assert_int_eq(run(&out, "cmp ref.csv auto.csv"), 0);
    free(out);
    /* the blur matters here: without it the log-likelihood differs */
    rc = run(&out, "$B/gmm-predict noblur.bin --device cpu");
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_null(strstr(out, "blurred"));
    line_of(out, "mean log-likelihood", plain_ll, sizeof plain_ll);
    ck_assert_str_ne(plain_ll, ref_ll);
    free(out);
    /* repeating the model's blur is fine; contradicting it is an error */
    rc = run(&out, "$B/gmm-predict blur.bin --blur 1 --device cpu");
    ck_assert_msg(rc == 0, "%s", out);
    line_of(out, "mean log-likelihood", ll, sizeof ll);
    ck_assert_str_eq(ll, ref_ll);
    free(out);
    expect_error("contradicts the model, which was trained with --blur 1",
                 "$B/gmm-predict blur.bin --blur 2 --device cpu");
}
END_TEST

START_TEST(test_download_without_network)
{
    /* There is no network where the tests run: the download must fail fast and clearly and
     * leave no partial files. (With a network this check is skipped.) */
    char *out;
    int rc = run(&out, "timeout 120 $B/gmm-download-mnist dl");
    if (rc == 0) {
        printf("download succeeded: a network is present, no-network path not tested\n");
        free(out);
        return;
    }
    ck_assert_int_ne(rc, 124); /* did not hang */
    ck_assert_ptr_nonnull(strstr(out, "could not download"));
    free(out);
    ck_assert_int_ne(run(&out, "ls dl/*.part 2>/dev/null | grep -q ."), 0);
    free(out);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_train_then_predict);
    tcase_add_test(tc, test_help_lists_options);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_gpu_requested_without_gpu);
    tcase_add_test(tc, test_bad_data_files);
    tcase_add_test(tc, test_bad_model_files);
    tcase_add_test(tc, test_blur_recorded_in_model);
    tcase_add_test(tc, test_download_without_network);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cli_suite()); }
