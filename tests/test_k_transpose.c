/* Check suite for kernels/transpose.h: the CPU twin against the naive double loop, and on a GPU
 * the CUDA kernel against the CPU twin. A transpose moves values without arithmetic: both must
 * match exactly (tolerance 0), on sizes that are not multiples of the tiles, some of them
 * multiples of 4. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kernels/transpose.h"
#include "tests/testutil.h"

static const size_t sizes[][2] = {{1, 1}, {1, 77}, {77, 1}, {33, 65}, {64, 32}, {1000, 999},
                                  /* multiples of 4, not of the tile */
                                  {4, 4}, {4, 8}, {68, 132}, {1000, 1004}};

static void run(int gpu)
{
    for (size_t t = 0; t < sizeof sizes / sizeof sizes[0]; t++) {
        size_t rows = sizes[t][0], cols = sizes[t][1];
        float *in = malloc(sizeof(float) * rows * cols), *out = malloc(sizeof(float) * rows * cols);
        tu_fill_uniform_f(in, rows * cols, -3.0f, 5.0f, 7 + t);
        for (size_t i = 0; i < rows * cols; i++) out[i] = NAN;
        gmm_status st = gpu ? transpose_cuda_host(in, rows, cols, out) : transpose_cpu(in, rows, cols, out);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        size_t wrong = 0, first = 0;
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++)
                if (!(out[j * rows + i] == in[i * cols + j]) && !wrong++) first = i * cols + j;
        ck_assert_msg(wrong == 0, "%zu x %zu: %zu cells differ, the first at input (%zu, %zu)",
                      rows, cols, wrong, first / cols, first % cols);
        free(in), free(out);
    }
}

START_TEST(test_cpu_vs_naive)
{
    run(0);
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

static Suite *transpose_suite(void)
{
    Suite *s = suite_create("k_transpose");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_cpu_vs_naive);
    tcase_add_test(tc, test_gpu_vs_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(transpose_suite()); }
