/* Check suite for kernels/entropy.h: the CPU twin against a naive double-precision
 * -sum p log p over the cropped window, hand-computed windows, a constant image (exactly 0), and
 * on a GPU the CUDA kernel against the CPU twin. Tolerance: 1e-5 absolute against the naive loop;
 * the GPU repeats the CPU's float operations in the same order, so it must agree to 1e-6. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/entropy.h"
#include "tests/testutil.h"

static double entropy_naive(const uint8_t *v, size_t rows, size_t cols, size_t i, size_t j)
{
    int count[16] = {0}, total = 0;
    for (long a = (long)i - 2; a <= (long)i + 2; a++)
        for (long b = (long)j - 2; b <= (long)j + 2; b++)
            if (a >= 0 && a < (long)rows && b >= 0 && b < (long)cols) {
                count[v[a * cols + b]]++;
                total++;
            }
    double h = 0;
    for (int c = 0; c < 16; c++)
        if (count[c]) {
            double p = (double)count[c] / total;
            h -= p * log(p);
        }
    return h;
}

static uint8_t *random_levels(size_t n, uint64_t seed)
{
    uint8_t *v = malloc(n ? n : 1);
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) v[i] = (uint8_t)(tu_rand_u64(&s) % 16);
    return v;
}

static const size_t sizes[][2] = {{1, 1}, {1, 100}, {100, 1}, {2, 2}, {37, 45}, {70, 33}, {257, 300}};

START_TEST(test_cpu_vs_naive)
{
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        size_t rows = sizes[t][0], cols = sizes[t][1];
        uint8_t *v = random_levels(rows * cols, 10 + t);
        float *h = malloc(sizeof(float) * rows * cols);
        for (size_t i = 0; i < rows * cols; i++) h[i] = NAN;
        ck_assert_int_eq(entropy_cpu(v, rows, cols, h), GMM_OK);
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                ck_assert_double_eq_tol(h[i * cols + j], entropy_naive(v, rows, cols, i, j), 1e-5);
        free(v), free(h);
    }
}
END_TEST

/* A 5 x 5 image holding i % 16 at cell i: the centre sees all 25 cells, values 0..8 twice and
 * 9..15 once: H = -(9 (2/25) ln(2/25) + 7 (1/25) ln(1/25)). The corner (0, 0) sees the 3 x 3
 * block {0,1,2,5,6,7,10,11,12}, all distinct: ln 9. Cell (0, 2) sees rows 0..2, all 5 columns:
 * values 0..14 once each, ln 15. */
static void check_known(int gpu)
{
    uint8_t v[25];
    float h[25];
    for (int i = 0; i < 25; i++) v[i] = (uint8_t)(i % 16);
    for (int i = 0; i < 25; i++) h[i] = NAN;
    gmm_status st = gpu ? entropy_cuda_host(v, 5, 5, h) : entropy_cpu(v, 5, 5, h);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    double centre = -(9 * (2.0 / 25) * log(2.0 / 25) + 7 * (1.0 / 25) * log(1.0 / 25));
    ck_assert_double_eq_tol(h[12], centre, 1e-6);
    ck_assert_double_eq_tol(h[0], log(9.0), 1e-6);
    ck_assert_double_eq_tol(h[2], log(15.0), 1e-6);
    /* constant image: exactly 0 everywhere, borders included */
    uint8_t c[7 * 9];
    float hc[7 * 9];
    memset(c, 13, sizeof c);
    for (int i = 0; i < 63; i++) hc[i] = NAN;
    st = gpu ? entropy_cuda_host(c, 7, 9, hc) : entropy_cpu(c, 7, 9, hc);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    for (int i = 0; i < 63; i++) ck_assert_msg(hc[i] == 0.0f, "cell %d: %g", i, hc[i]);
    /* out-of-range levels are refused */
    v[7] = 16;
    ck_assert_int_eq(gpu ? entropy_cuda_host(v, 5, 5, h) : entropy_cpu(v, 5, 5, h), GMM_ERR_ARG);
}

START_TEST(test_cpu_known)
{
    check_known(0);
}
END_TEST

START_TEST(test_gpu_vs_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    check_known(1);
    static const size_t gpu_sizes[][2] = {{1, 1}, {1, 100}, {100, 1}, {2, 2}, {37, 45}, {70, 33},
                                          {257, 300}, {1000, 1001}};
    for (size_t t = 0; t < sizeof gpu_sizes / sizeof gpu_sizes[0]; t++) {
        size_t rows = gpu_sizes[t][0], cols = gpu_sizes[t][1];
        uint8_t *v = random_levels(rows * cols, 90 + t);
        float *h = malloc(sizeof(float) * rows * cols), *ref = malloc(sizeof(float) * rows * cols);
        ck_assert_int_eq(entropy_cpu(v, rows, cols, ref), GMM_OK);
        ck_assert_int_eq(entropy_cuda_host(v, rows, cols, h), GMM_OK);
        double worst = 0;
        for (size_t i = 0; i < rows * cols; i++) {
            ck_assert_msg(isfinite(h[i]), "cell %zu not written (%zu x %zu)", i, rows, cols);
            worst = fmax(worst, fabs((double)h[i] - ref[i]));
        }
        ck_assert_msg(worst <= 1e-6, "%zu x %zu: max abs difference %g", rows, cols, worst);
        free(v), free(h), free(ref);
    }
}
END_TEST

static Suite *entropy_suite(void)
{
    Suite *s = suite_create("k_entropy");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cpu_vs_naive);
    tcase_add_test(tc, test_cpu_known);
    tcase_add_test(tc, test_gpu_vs_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(entropy_suite()); }
