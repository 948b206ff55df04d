/* Check suite for the programs as a user runs them: gmm-train and gmm-predict on a small IDX
 * fixture (model, PNG, CSV written; predictions of the saved model; the blur the model records),
 * and every bad input ending in a one-line error and a non-zero exit code, never a crash. */
#include <math.h>
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
    return tu_fixture_dir("fixture", FIX_N, FIX_SIDE, 11, 1);
}

START_TEST(test_train_then_predict)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu -o m.bin --png means.png --seed 3", dir);
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
    rc = tu_sh(&out, "$B/gmm-predict m.bin --out a.csv --proba --device cpu");
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
    rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu -o m2.bin --png '' --seed 3 -q", dir);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_null(strstr(out, "iter    1"));
    free(out);
    rc = tu_sh(&out, "cmp m.bin m2.bin");
    ck_assert_msg(rc == 0, "same seed, different model files: %s", out);
    free(out);
}
END_TEST

/* --timings (also under -q) says where the run's time went: its EM iterations are the model's,
 * and its parts are numbers that add up to no more than the whole. */
START_TEST(test_timings_line)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu -o t.bin --png '' --seed 3 -q "
                   "--timings --tol 0 --max-iter 4", dir);
    ck_assert_msg(rc == 0, "$B/gmm-train: %s", out);
    const char *line = strstr(out, "timings: data read ");
    ck_assert_msg(line != NULL, "no timings line in: %s", out);
    ck_assert_ptr_null(strstr(line, "device started")); /* --device cpu starts no device */
    double read = -1, ready = -1, setup = -1, init = -1, em = -1, ms = -1, scores = -1, rest = -1,
           total = -1;
    int iters = -1;
    int n = sscanf(line, "timings: data read %lf s, data ready %lf s; fit: set-up %lf s, "
                         "initialisation %lf s, EM %lf s (%d iterations, %lf ms each), final "
                         "scores %lf s, other %lf s;", &read, &ready, &setup, &init, &em, &iters,
                   &ms, &scores, &rest);
    ck_assert_msg(n == 9, "unexpected timings line (%d fields): %s", n, line);
    ck_assert_ptr_null(strstr(line, "device released")); /* nor releases one */
    const char *all = strstr(line, "beside them; ");
    ck_assert_ptr_nonnull(all);
    ck_assert_int_eq(sscanf(all, "beside them; %lf s in all", &total), 1);
    ck_assert_int_eq(iters, 4);
    ck_assert(read >= 0 && ready >= read && setup >= 0 && init >= 0 && em >= 0 && scores >= 0 &&
              rest >= 0);
    ck_assert(ready + setup + init + em + scores + rest <= total + 0.01);
    free(out);
}
END_TEST

START_TEST(test_help_lists_options)
{
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train --help"), 0);
    const char *opts[] = {"-k", "--covariance", "--max-iter", "--tol", "--reg-covar", "--init",
                          "--n-init", "--seed", "--limit", "--device", "--precision", "-o",
                          "--png", "--quiet", "--timings", "--checkpoint", "--init-from"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        ck_assert_msg(strstr(out, opts[i]) != NULL, "--help lacks %s", opts[i]);
    free(out);
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-predict --help"), 0);
    ck_assert_ptr_nonnull(strstr(out, "--out"));
    ck_assert_ptr_nonnull(strstr(out, "--proba"));
    free(out);
}
END_TEST

/* --version on every program: "PROGRAM X.Y.Z" on stdout, exit 0, the same version everywhere
 * (the Makefile's SO_VERSION), and --help names the option. */
START_TEST(test_version)
{
    const char *programs[] = {"gmm-train", "gmm-predict", "gmm-bench", "gmm-augment",
                              "gmm-download-mnist"};
    char first[64] = "";
    for (size_t i = 0; i < sizeof programs / sizeof *programs; i++) {
        char *out = NULL;
        ck_assert_int_eq(tu_sh(&out, "$B/%s --version 2>/dev/null", programs[i]), 0);
        size_t len = strlen(programs[i]);
        ck_assert_msg(!strncmp(out, programs[i], len) && out[len] == ' ',
                      "%s --version printed '%s'", programs[i], out);
        const char *version = out + len + 1;
        int major, minor, patch, used = 0;
        ck_assert_msg(sscanf(version, "%d.%d.%d%n", &major, &minor, &patch, &used) == 3 &&
                          !strcmp(version + used, "\n"),
                      "%s --version printed '%s', not 'NAME X.Y.Z'", programs[i], out);
        if (!*first) snprintf(first, sizeof first, "%s", version);
        ck_assert_msg(!strcmp(first, version), "%s --version: %s, another program: %s",
                      programs[i], version, first);
        free(out);
        ck_assert_int_eq(tu_sh(&out, "$B/%s --help", programs[i]), 0);
        ck_assert_msg(strstr(out, "--version") != NULL, "%s --help lacks --version", programs[i]);
        free(out);
    }
}
END_TEST

START_TEST(test_bad_options)
{
    const char *dir = fixture_dir();
    tu_expect_error("unknown option", "$B/gmm-train '%s' --frobnicate", dir);
    tu_expect_error("-k must be >= 1", "$B/gmm-train '%s' -k 0", dir);
    tu_expect_error("expects an integer", "$B/gmm-train '%s' -k abc", dir);
    tu_expect_error("n_samples", "$B/gmm-train '%s' -k 401 --device cpu", dir);
    tu_expect_error("--tol must be >= 0", "$B/gmm-train '%s' --tol -1", dir);
    tu_expect_error("expects a size in bytes", "$B/gmm-train '%s' --device-memory 12Q", dir);
    tu_expect_error("between 1 byte", "$B/gmm-train '%s' --device-memory 0", dir);
    tu_expect_error("--gpus must be", "$B/gmm-train '%s' --gpus 0", dir);
    tu_expect_error("contradict", "$B/gmm-train '%s' --gpus 2 --device cpu", dir);
    if (!tu_gpu_available())
        tu_expect_error("this host has 0 GPUs", "$B/gmm-train '%s' --gpus 1", dir);
    tu_expect_error("--pca needs all the data in one process", "$B/gmm-train '%s' --gpus 1 --pca 4",
                    dir);
    tu_expect_error("expects a number", "$B/gmm-train '%s' --reg-covar nan", dir);
    tu_expect_error("--covariance must be", "$B/gmm-train '%s' --covariance round", dir);
    tu_expect_error("--init must be", "$B/gmm-train '%s' --init magic", dir);
    tu_expect_error("--device must be", "$B/gmm-train '%s' --device tpu", dir);
    tu_expect_error("--max-iter must be", "$B/gmm-train '%s' --max-iter 0", dir);
    tu_expect_error("needs a value", "$B/gmm-train '%s' -k", dir);
    tu_expect_error("missing the data", "$B/gmm-train");
    tu_expect_error("/no/such/dir", "$B/gmm-train /no/such/dir");
    tu_expect_error("missing the model", "$B/gmm-predict");
    tu_expect_error("--proba needs --out", "$B/gmm-predict m.bin --proba");
}
END_TEST

START_TEST(test_gpu_requested_without_gpu)
{
    if (tu_gpu_available()) {
        printf("no-GPU error path skipped: a GPU is present\n");
        return;
    }
    char *out;
    tu_expect_error("--device gpu", "$B/gmm-train '%s' -k 2 --device gpu -o g.bin", fixture_dir());
    /* auto falls back to the CPU and says so */
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 -o auto.bin --png '' -q", fixture_dir());
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "CPU backend"));
    free(out);
}
END_TEST

/* --device cpu never starts CUDA: not for the fit, the kNN initialisation, the diagnostics, the
 * pictures or the blur (the programs report whether the CUDA driver opened a GPU device); and on
 * a GPU machine the same run with --device gpu does load it, so the check can tell. */
START_TEST(test_device_cpu_never_starts_cuda)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out,
                   "GMM_REPORT_CUDA=1 $B/gmm-train '%s' -k 2 --device cpu --init knn "
                   "--diagnostics cpu_diag --images cpu_img --blur 1 -o cpu.bin --png cpu.png -q",
                   dir);
    ck_assert_msg(rc == 0, "gmm-train --device cpu: %s", out);
    ck_assert_msg(strstr(out, "gmm-train: CUDA started: no") != NULL,
                  "gmm-train --device cpu started CUDA:\n%s", out);
    free(out);
    rc = tu_sh(&out,
               "GMM_REPORT_CUDA=1 $B/gmm-predict cpu.bin --device cpu --diagnostics cpu_pdiag "
               "--images cpu_pimg");
    ck_assert_msg(rc == 0, "gmm-predict --device cpu: %s", out);
    ck_assert_msg(strstr(out, "gmm-predict: CUDA started: no") != NULL,
                  "gmm-predict --device cpu started CUDA:\n%s", out);
    free(out);
    if (!tu_gpu_available()) {
        printf("--device gpu counterpart skipped: no GPU\n");
        return;
    }
    rc = tu_sh(&out,
               "GMM_REPORT_CUDA=1 $B/gmm-train '%s' -k 2 --device gpu --init knn "
               "--diagnostics gpu_diag --images gpu_img --blur 1 -o gpu.bin --png '' -q",
               dir);
    ck_assert_msg(rc == 0, "gmm-train --device gpu: %s", out);
    ck_assert_msg(strstr(out, "gmm-train: CUDA started: yes") != NULL,
                  "the CUDA check cannot see a GPU run:\n%s", out);
    free(out);
}
END_TEST

/* A run that may start CUDA sets CUDA_DEVICE_MAX_CONNECTIONS=4 before CUDA's first call (its
 * context and release are quicker with fewer hardware queues), unless the user set it; -v shows
 * the value the device was started with. */
START_TEST(test_cuda_connections_default)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out, "env -u CUDA_DEVICE_MAX_CONNECTIONS $B/gmm-train '%s' -k 2 -v -o cn.bin "
                   "--png '' --max-iter 2", dir);
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_msg(strstr(out, "device started in") && strstr(out, "(CUDA_DEVICE_MAX_CONNECTIONS 4)"),
                  "no connections default in:\n%s", out);
    free(out);
    rc = tu_sh(&out, "CUDA_DEVICE_MAX_CONNECTIONS=8 $B/gmm-train '%s' -k 2 -v -o cn.bin --png '' "
               "--max-iter 2", dir);
    ck_assert_msg(rc == 0, "%s", out);
    ck_assert_msg(strstr(out, "(CUDA_DEVICE_MAX_CONNECTIONS 8)") != NULL,
                  "the user's value was not kept:\n%s", out);
    free(out);
}
END_TEST

static double printed_lower_bound(const char *out)
{
    const char *p = strstr(out, "converged in");
    double lb = 0;
    ck_assert_msg(p && (p = strstr(p, "lower bound ")) && sscanf(p, "lower bound %lf", &lb) == 1,
                  "no lower bound in:\n%s", out);
    return lb;
}

static char *line_with(const char *out, const char *what)
{
    const char *p = strstr(out, what);
    ck_assert_msg(p != NULL, "no '%s' in:\n%s", what, out);
    return strndup(p, strcspn(p, "\n"));
}

/* On a GPU, gmm-train fits the image bytes themselves (uploaded as bytes and converted on the
 * device) when nothing needs a float64 copy on the host: the same fit as the CPU backend's on
 * the float64 matrix (the lower bound to its printed digits, the same summary), and under tf32
 * the copy is still made for the float64 rescoring of the summary. */
START_TEST(test_gpu_fit_on_bytes_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("test_gpu_fit_on_bytes_matches_cpu: skipped (no GPU)\n");
        return;
    }
    const char *dir = fixture_dir();
    char *cpu = NULL, *gpu = NULL, *tf32 = NULL;
    int rc = tu_sh(&cpu, "$B/gmm-train '%s' -k 2 --device cpu --seed 5 -o c.bin --png '' -q", dir);
    ck_assert_msg(rc == 0, "%s", cpu);
    rc = tu_sh(&gpu, "$B/gmm-train '%s' -k 2 --device gpu --seed 5 -o g.bin --png '' -q", dir);
    ck_assert_msg(rc == 0, "%s", gpu);
    double lb_cpu = printed_lower_bound(cpu), lb_gpu = printed_lower_bound(gpu);
    ck_assert_msg(fabs(lb_cpu - lb_gpu) <= 1e-6 * (1 + fabs(lb_cpu)),
                  "lower bound CPU %.6f, GPU on bytes %.6f", lb_cpu, lb_gpu);
    char *acc_cpu = line_with(cpu, "accuracy"), *acc_gpu = line_with(gpu, "accuracy");
    ck_assert_str_eq(acc_gpu, acc_cpu);
    free(acc_cpu);
    free(acc_gpu);
    rc = tu_sh(&tf32, "$B/gmm-train '%s' -k 2 --device gpu --precision tf32 --seed 5 -o t.bin "
               "--png '' -q", dir);
    ck_assert_msg(rc == 0 && strstr(tf32, "accuracy 1.0000"), "%s", tf32);
    free(cpu);
    free(gpu);
    free(tf32);
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
    tu_expect_error("magic", "$B/gmm-train junk-images-idx3-ubyte");
    /* truncated: the header promises 10 images of 28 x 28 */
    uint8_t head[16 + 100] = {0, 0, 8, 3, 0, 0, 0, 10, 0, 0, 0, 28, 0, 0, 0, 28};
    for (int i = 16; i < 116; i++) head[i] = (uint8_t)i;
    write_bytes(tu_tmp_path("short-images-idx3-ubyte"), head, sizeof head);
    tu_expect_error("short-images-idx3-ubyte", "$B/gmm-train short-images-idx3-ubyte");
    /* an empty directory */
    mkdir(tu_tmp_path("empty"), 0755);
    tu_expect_error("train-images", "$B/gmm-train empty");
}
END_TEST

START_TEST(test_bad_model_files)
{
    const char *dir = fixture_dir();
    char *out;
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu -o good.bin --png '' -q", dir), 0);
    free(out);
    tu_expect_error("missing.bin", "$B/gmm-predict missing.bin");
    /* truncated */
    ck_assert_int_eq(tu_sh(&out, "head -c 100 good.bin > cut.bin"), 0);
    free(out);
    tu_expect_error("truncated", "$B/gmm-predict cut.bin '%s'", dir);
    /* a flipped byte in the parameters: checksum */
    ck_assert_int_eq(tu_sh(&out, "cp good.bin flip.bin && printf '\\x55' | dd of=flip.bin bs=1 seek=200 conv=notrunc status=none"), 0);
    free(out);
    tu_expect_error("checksum", "$B/gmm-predict flip.bin '%s'", dir);
    /* not a model at all */
    tu_expect_error("not a gmm model", "$B/gmm-predict '%s/train-labels-idx1-ubyte'", dir);
    /* a model of other image sizes */
    write_bytes(tu_tmp_path("other"), "", 0);
    mkdir(tu_tmp_path("other-dir"), 0755);
    uint8_t px[3 * 4 * 4];
    for (int i = 0; i < 48; i++) px[i] = (uint8_t)(i * 5 + 1);
    ck_assert_int_eq(idx_write_images(tu_tmp_path("other-dir/t10k-images-idx3-ubyte"), px, 3, 4, 4, 0), GMM_OK);
    tu_expect_error("model expects 36", "$B/gmm-predict good.bin other-dir");
}
END_TEST

/* Runs gmm-predict with args on the CPU and checks that it succeeded and that its output holds
 * want (when not NULL), or says nothing of a blur (when NULL); copies its "mean log-likelihood"
 * line into ll (LL_LEN bytes). */
#define LL_LEN 200
static void predict_ll(const char *args, const char *want, char *ll)
{
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-predict %s --device cpu", args);
    ck_assert_msg(rc == 0, "gmm-predict %s: %s", args, out);
    if (want) ck_assert_msg(strstr(out, want) != NULL, "'%s' not in: %s", want, out);
    else ck_assert_msg(strstr(out, "blur") == NULL, "a blur in: %s", out);
    const char *p = strstr(out, "mean log-likelihood");
    ck_assert_ptr_nonnull(p);
    snprintf(ll, LL_LEN, "%.*s", (int)strcspn(p, "\n"), p);
    free(out);
}

/* gmm-train --blur records the blur in the model; gmm-predict applies it without being told
 * (the same predictions as an explicit --blur on a model that records none, as before version 2
 * of the file), says so, and refuses a --blur that contradicts it. */
START_TEST(test_blur_recorded_in_model)
{
    const char *dir = fixture_dir();
    char *out = NULL, ref_ll[LL_LEN], ll[LL_LEN], plain_ll[LL_LEN];
    int rc = tu_sh(&out, "$B/gmm-train '%s' -k 2 --device cpu --blur 1.0 -o blur.bin --png '' -q", dir);
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
    predict_ll("noblur.bin --blur 1.0 --out ref.csv --proba", "records no blur", ref_ll);
    /* the model's own blur, applied without --blur, and said */
    predict_ll("blur.bin --out auto.csv --proba", "sigma 1 (recorded in the model)", ll);
    ck_assert_str_eq(ll, ref_ll);
    ck_assert_int_eq(tu_sh(&out, "cmp ref.csv auto.csv"), 0);
    free(out);
    /* the blur matters here: without it the log-likelihood differs */
    predict_ll("noblur.bin", NULL, plain_ll);
    ck_assert_str_ne(plain_ll, ref_ll);
    /* repeating the model's blur is fine; contradicting it is an error */
    predict_ll("blur.bin --blur 1", "recorded in the model", ll);
    ck_assert_str_eq(ll, ref_ll);
    tu_expect_error("contradicts the model, which was trained with --blur 1",
                    "$B/gmm-predict blur.bin --blur 2 --device cpu");
}
END_TEST

START_TEST(test_download_without_network)
{
    /* There is no network where the tests run: the download must fail fast and clearly and
     * leave no partial files. (With a network this check is skipped.) */
    char *out;
    int rc = tu_sh(&out, "timeout 120 $B/gmm-download-mnist dl");
    if (rc == 0) {
        printf("download succeeded: a network is present, no-network path not tested\n");
        free(out);
        return;
    }
    ck_assert_int_ne(rc, 124); /* did not hang */
    ck_assert_ptr_nonnull(strstr(out, "could not download"));
    free(out);
    ck_assert_int_ne(tu_sh(&out, "ls dl/*.part 2>/dev/null | grep -q ."), 0);
    free(out);
}
END_TEST

static Suite *cli_suite(void)
{
    Suite *s = suite_create("cli");
    TCase *tc = tcase_create("programs");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_train_then_predict);
    tcase_add_test(tc, test_gpu_fit_on_bytes_matches_cpu);
    tcase_add_test(tc, test_help_lists_options);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_timings_line);
    tcase_add_test(tc, test_bad_options);
    tcase_add_test(tc, test_gpu_requested_without_gpu);
    tcase_add_test(tc, test_device_cpu_never_starts_cuda);
    tcase_add_test(tc, test_cuda_connections_default);
    tcase_add_test(tc, test_bad_data_files);
    tcase_add_test(tc, test_bad_model_files);
    tcase_add_test(tc, test_blur_recorded_in_model);
    tcase_add_test(tc, test_download_without_network);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cli_suite()); }
