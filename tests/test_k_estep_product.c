/* Check suite for the E-step product experiments (bench/experiments/estep_product.cu): on a GPU,
 * Y = X [U_1 .. U_K] by one DGEMM (version 0, the CUDA backend's call for one column block) and
 * by K DGEMMs (version 1, the mode that lost to it) against host dot products: relative error
 * <= 1e-12, every element written (the output is poisoned first), on awkward sizes (one row,
 * d = 1, K = 1, K = 17, N not a multiple of any block) and MNIST's d. Without a GPU only the
 * versions' names are checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    size_t n;
    int d, k;
} shape;

static const shape SHAPES[] = {{1, 1, 1}, {257, 7, 3}, {100, 33, 17}, {999, 1, 5}, {300, 784, 2}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

START_TEST(gpu_matches_host)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    const size_t n = s->n, d = s->d, W = (size_t)s->k * d;
    double *X = malloc(sizeof(double) * n * d), *U = malloc(sizeof(double) * d * W);
    double *ref = malloc(sizeof(double) * n * W), *out = malloc(sizeof(double) * n * W);
    double *d_X = NULL, *d_U = NULL, *d_Y = NULL;
    ck_assert(X && U && ref && out);
    tu_fill_uniform(X, n * d, -1.0, 2.0, 800 + _i);
    tu_fill_uniform(U, d * W, -1.0, 1.0, 900 + _i);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < W; j++) {
            double t = 0;
            for (size_t l = 0; l < d; l++) t += X[i * d + l] * U[l * W + j];
            ref[i * W + j] = t;
        }
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_X, sizeof(double) * n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_U, sizeof(double) * d * W), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_Y, sizeof(double) * n * W), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_U, U, sizeof(double) * d * W), GMM_OK);
    for (int v = 0; v < ESTEP_PRODUCT_N_VERSIONS; v++) {
        for (size_t q = 0; q < n * W; q++) out[q] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_upload(d_Y, out, sizeof(double) * n * W), GMM_OK);
        gmm_status st = estep_product_version(v, d_X, n, (int)d, s->k, d_U, d_Y,
                                              bench_gpu_resources());
        ck_assert_msg(st == GMM_OK, "%s: %s", estep_product_version_name(v),
                      gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_Y, sizeof(double) * n * W), GMM_OK);
        double e = tu_rel_error(out, ref, n * W);
        printf("%s: %zu x %zu by %zu x %zu: relative error %.2e\n", estep_product_version_name(v),
               n, d, d, W, e);
        ck_assert_msg(e <= BOUND, "%s %zux%zux%d: relative error %g",
                      estep_product_version_name(v), n, d, s->k, e);
    }
    bench_gpu_free(d_X), bench_gpu_free(d_U), bench_gpu_free(d_Y);
    free(X), free(U), free(ref), free(out);
}
END_TEST

START_TEST(names)
{
    ck_assert_str_ne(estep_product_version_name(0), estep_product_version_name(1));
    ck_assert_str_ne(estep_product_version_name(0), "?");
    ck_assert_str_ne(estep_product_version_name(1), "?");
    ck_assert_str_eq(estep_product_version_name(ESTEP_PRODUCT_N_VERSIONS), "?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_estep_product");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, names);
    tcase_add_loop_test(tc, gpu_matches_host, 0, N_SHAPES);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
