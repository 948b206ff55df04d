/* Check suite for the component masses and mixture weights (kernels/mixture_weights.h): the CPU
 * twin against a naive loop (to the bit: the same order), on a GPU mixture_weights_cuda against
 * the CPU twin. Bound: relative error <= 1e-13 for N_k, their sum and the weights. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_gpu.h"
#include "kernels/mixture_weights.h"
#include "tests/testutil.h"

typedef struct {
    size_t n;
    int k;
} shape;

static const shape SHAPES[] = {{1, 1}, {37, 1}, {255, 3}, {257, 4}, {60000, 10}, {1000, 100}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

START_TEST(cpu_and_gpu)
{
    const shape *s = &SHAPES[_i];
    const int K = s->k;
    double *R = malloc(sizeof(double) * s->n * K);
    double *nk = malloc(sizeof(double) * (K + 1)), *w = malloc(sizeof(double) * K);
    double *ref = malloc(sizeof(double) * (K + 1)), *rw = malloc(sizeof(double) * K);
    tu_fill_uniform(R, s->n * K, 0.0, 1.0, 900 + _i);
    if (K > 1)
        for (size_t i = 0; i < s->n; i++) R[i * K + K - 1] = 0.0; /* an empty component */
    double total = 0;
    for (int k = 0; k < K; k++) {
        double t = 0;
        for (size_t i = 0; i < s->n; i++) t += R[i * K + k];
        ref[k] = t + 10 * DBL_EPSILON;
        total += ref[k];
    }
    ref[K] = total;
    for (int k = 0; k < K; k++) rw[k] = ref[k] / total;
    for (int k = 0; k <= K; k++) nk[k] = TU_POISON_F64;
    ck_assert_int_eq(mixture_weights_cpu(R, s->n, K, nk, w), GMM_OK);
    for (int k = 0; k <= K; k++) ck_assert(nk[k] == ref[k]);
    for (int k = 0; k < K; k++) ck_assert(w[k] == rw[k]);

    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
    } else {
        void *d_R, *d_nk, *d_w;
        ck_assert_int_eq(bench_gpu_alloc(&d_R, sizeof(double) * s->n * K), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc(&d_nk, sizeof(double) * (K + 1)), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc(&d_w, sizeof(double) * K), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_R, R, sizeof(double) * s->n * K), GMM_OK);
        for (int k = 0; k <= K; k++) nk[k] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_upload(d_nk, nk, sizeof(double) * (K + 1)), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_w, nk, sizeof(double) * K), GMM_OK);
        gmm_status st = mixture_weights_cuda(d_R, s->n, K, d_nk, d_w, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(nk, d_nk, sizeof(double) * (K + 1)), GMM_OK);
        ck_assert_int_eq(bench_gpu_download(w, d_w, sizeof(double) * K), GMM_OK);
        double e1 = tu_rel_error(nk, ref, K + 1), e2 = tu_rel_error(w, rw, K);
        ck_assert_msg(e1 <= 1e-13 && e2 <= 1e-13, "mixture_weights_cuda n=%zu K=%d: %g %g", s->n,
                      K, e1, e2);
        bench_gpu_free(d_R), bench_gpu_free(d_nk), bench_gpu_free(d_w);
    }
    free(R), free(nk), free(w), free(ref), free(rw);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(mixture_weights_cpu(NULL, 1, 1, &x, &x), GMM_ERR_ARG);
    ck_assert_int_eq(mixture_weights_cpu(&x, 1, 0, &x, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_mixture_weights");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_and_gpu, 0, N_SHAPES);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
