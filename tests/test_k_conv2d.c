/* Check suite for kernels/conv2d.h: the CPU twins against naive loops (int32: 64-bit sums reduced
 * modulo 2^32, exact; float32: double sums, relative error <= 1e-6), argument checks, and on a
 * GPU the CUDA kernels against the CPU twins: int32 exactly, float32 to 1e-6 relative (it repeats
 * the CPU's operations in order, unfused, so in practice exactly). Filters 3 x 3 and 5 x 5;
 * sizes where the output is 1 x 1, one row, one column, and not a multiple of the tiles. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/conv2d.h"
#include "tests/testutil.h"

/* the last four have rows of a multiple of 4 (the GPU's 16-byte path), not of its 512 columns */
static const size_t sizes[][2] = {{5, 5}, {5, 100}, {100, 5}, {37, 41}, {300, 257},
                                  {5, 8}, {21, 12}, {40, 516}, {1003, 1000}};

static void run(int gpu)
{
    for (int fs = 3; fs <= 5; fs += 2)
        for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
            size_t rows = sizes[t][0], cols = sizes[t][1];
            if (fs == 3 && t == 0) rows = cols = 3;
            size_t orows = rows - fs + 1, ocols = cols - fs + 1, n = rows * cols, on = orows * ocols;
            int32_t *ii = malloc(sizeof(int32_t) * n), *io = malloc(sizeof(int32_t) * on),
                    *iref = malloc(sizeof(int32_t) * on), ifilt[25];
            float *fi = malloc(sizeof(float) * n), *fo = malloc(sizeof(float) * on),
                  *fref = malloc(sizeof(float) * on), ffilt[25];
            double *dref = malloc(sizeof(double) * on);
            uint64_t s = 31 + t;
            for (size_t i = 0; i < n; i++) {
                /* every 7th value large, so that the int32 sums wrap */
                ii[i] = (int32_t)(tu_rand_u64(&s) % 2001) - 1000;
                if (i % 7 == 0) ii[i] = (int32_t)(tu_rand_u64(&s) & 0x7fffffff);
            }
            for (int i = 0; i < fs * fs; i++) ifilt[i] = (int32_t)(tu_rand_u64(&s) % 21) - 10;
            tu_fill_uniform_f(fi, n, -2.0f, 3.0f, 41 + t);
            tu_fill_uniform_f(ffilt, (size_t)(fs * fs), -1.0f, 1.0f, 51 + t);
            for (size_t i = 0; i < orows; i++)
                for (size_t j = 0; j < ocols; j++) {
                    uint64_t acc = 0;
                    double dacc = 0;
                    for (int a = 0; a < fs; a++)
                        for (int b = 0; b < fs; b++) {
                            acc += (uint64_t)((int64_t)ii[(i + a) * cols + j + b] * ifilt[a * fs + b]);
                            dacc += (double)fi[(i + a) * cols + j + b] * ffilt[a * fs + b];
                        }
                    iref[i * ocols + j] = (int32_t)(uint32_t)acc;
                    dref[i * ocols + j] = dacc;
                }
            if (gpu) { /* against the CPU twins */
                ck_assert_int_eq(conv2d_i32_cpu(ii, rows, cols, ifilt, fs, iref), GMM_OK);
                ck_assert_int_eq(conv2d_f32_cpu(fi, rows, cols, ffilt, fs, fref), GMM_OK);
            } else {
                for (size_t i = 0; i < on; i++) fref[i] = (float)dref[i];
            }
            memset(io, 0xAB, sizeof(int32_t) * on);
            for (size_t i = 0; i < on; i++) fo[i] = NAN;
            gmm_status st = gpu ? conv2d_i32_cuda_host(ii, rows, cols, ifilt, fs, io)
                                : conv2d_i32_cpu(ii, rows, cols, ifilt, fs, io);
            ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
            st = gpu ? conv2d_f32_cuda_host(fi, rows, cols, ffilt, fs, fo)
                     : conv2d_f32_cpu(fi, rows, cols, ffilt, fs, fo);
            ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
            for (size_t i = 0; i < on; i++)
                ck_assert_msg(io[i] == iref[i], "K=%d %zu x %zu: int32 output %zu: %d vs %d", fs,
                              rows, cols, i, io[i], iref[i]);
            double err = tu_rel_error_f(fo, fref, on);
            ck_assert_msg(err <= 1e-6, "K=%d %zu x %zu: float32 relative error %g", fs, rows, cols, err);
            free(ii), free(io), free(iref), free(fi), free(fo), free(fref), free(dref);
        }
}

START_TEST(test_cpu_vs_naive)
{
    run(0);
}
END_TEST

START_TEST(test_bad_args)
{
    int32_t in[16] = {1}, out[16], filt[25] = {1};
    ck_assert_int_eq(conv2d_i32_cpu(in, 2, 8, filt, 3, out), GMM_ERR_ARG); /* fewer rows than K */
    ck_assert_int_eq(conv2d_i32_cpu(in, 4, 4, filt, 4, out), GMM_ERR_ARG); /* K = 4 */
    ck_assert_int_eq(conv2d_i32_cpu(in, 4, 4, NULL, 3, out), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_gpu_vs_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    run(1);
}
END_TEST

static Suite *conv2d_suite(void)
{
    Suite *s = suite_create("k_conv2d");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cpu_vs_naive);
    tcase_add_test(tc, test_bad_args);
    tcase_add_test(tc, test_gpu_vs_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(conv2d_suite()); }
