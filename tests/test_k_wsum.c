/* Check suite for the weighted column sums (kernels/wsum.h): the CPU twin against a naive loop,
 * plain (the means) and centred (the diagonal variances, + reg); on a GPU, wsum_cuda on float64
 * and float32 data against the CPU twin (on the same rounded data), with the partial buffer both
 * large and as small as allowed (one slab).
 * Bound: relative error <= 1e-12 (float64 sums of <= 2049 terms, summed in another order). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_gpu.h"
#include "kernels/wsum.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    size_t n;
    int k, d;
} shape;

/* one row, d = 1, K = 1, K past one 8-component slice, d past one 128-thread block */
static const shape SHAPES[] = {{1, 1, 1},    {37, 1, 1},    {300, 5, 1},  {513, 17, 131},
                               {2049, 10, 783}, {1000, 3, 784}, {129, 9, 2}, {777, 8, 129}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static void make(const shape *s, double **R, double **X, double **C, double **div, uint64_t seed)
{
    *R = malloc(sizeof(double) * s->n * s->k);
    *X = malloc(sizeof(double) * s->n * s->d);
    *C = malloc(sizeof(double) * s->k * s->d);
    *div = malloc(sizeof(double) * s->k);
    ck_assert(*R && *X && *C && *div);
    tu_fill_uniform(*R, s->n * s->k, 0.0, 1.0, seed);
    tu_fill_uniform(*X, s->n * s->d, -1.0, 2.0, seed + 1);
    tu_fill_uniform(*C, (size_t)s->k * s->d, 0.0, 1.0, seed + 2);
    tu_fill_uniform(*div, s->k, 0.5, 100.0, seed + 3);
}

static void naive(const shape *s, const double *R, const double *X, const double *C,
                  const double *div, double add, double *out)
{
    for (int k = 0; k < s->k; k++)
        for (int j = 0; j < s->d; j++) {
            double t = 0;
            for (size_t i = 0; i < s->n; i++) {
                double x = X[i * s->d + j];
                double f = C ? (x - C[(size_t)k * s->d + j]) * (x - C[(size_t)k * s->d + j]) : x;
                t += R[i * s->k + k] * f;
            }
            out[(size_t)k * s->d + j] = t / div[k] + (C ? add : 0.0);
        }
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    double *R, *X, *C, *div;
    make(s, &R, &X, &C, &div, 700 + _i);
    size_t m = (size_t)s->k * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    for (int centred = 0; centred < 2; centred++) {
        naive(s, R, X, centred ? C : NULL, div, 1e-3, ref);
        for (size_t q = 0; q < m; q++) out[q] = TU_POISON_F64;
        ck_assert_int_eq(wsum_cpu(X, s->n, s->d, R, s->k, centred ? C : NULL, div, 1e-3, out),
                         GMM_OK);
        double e = tu_rel_error(out, ref, m);
        ck_assert_msg(e <= BOUND, "wsum_cpu centred=%d %zux%dx%d: rel err %g", centred, s->n,
                      s->k, s->d, e);
    }
    free(R), free(X), free(C), free(div), free(ref), free(out);
}
END_TEST

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    double *R, *X, *C, *div;
    make(s, &R, &X, &C, &div, 800 + _i);
    const size_t m = (size_t)s->k * s->d, nx = s->n * s->d, big = 256 * m;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    double *Xr = malloc(sizeof(double) * nx);
    float *Xf = malloc(sizeof(float) * nx);
    for (size_t q = 0; q < nx; q++) Xr[q] = Xf[q] = (float)X[q];
    void *d_R, *d_X, *d_Xf, *d_C, *d_div, *d_part, *d_out;
    ck_assert_int_eq(bench_gpu_alloc(&d_R, sizeof(double) * s->n * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_X, sizeof(double) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_Xf, sizeof(float) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_C, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_div, sizeof(double) * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_part, sizeof(double) * big), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_out, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_R, R, sizeof(double) * s->n * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_Xf, Xf, sizeof(float) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_C, C, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_div, div, sizeof(double) * s->k), GMM_OK);
    for (int v = 0; v < 8; v++) {
        const int centred = v & 1, single = (v >> 1) & 1, small = (v >> 2) & 1;
        ck_assert_int_eq(wsum_cpu(single ? Xr : X, s->n, s->d, R, s->k, centred ? C : NULL, div,
                                  1e-3, ref), GMM_OK);
        for (size_t q = 0; q < m; q++) out[q] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_upload(d_out, out, sizeof(double) * m), GMM_OK);
        gmm_status st = wsum_cuda(single ? d_Xf : d_X, single ? GMM_ELEM_F32 : GMM_ELEM_F64, s->n,
                                  s->d, (const double *)d_R, s->k,
                                  centred ? (const double *)d_C : NULL, (const double *)d_div,
                                  1e-3, (double *)d_part, small ? m : big, (double *)d_out, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_out, sizeof(double) * m), GMM_OK);
        double e = tu_rel_error(out, ref, m);
        ck_assert_msg(e <= BOUND, "wsum_cuda centred=%d single=%d small=%d %zux%dx%d: rel err %g",
                      centred, single, small, s->n, s->k, s->d, e);
    }
    bench_gpu_free(d_R), bench_gpu_free(d_X), bench_gpu_free(d_Xf), bench_gpu_free(d_C);
    bench_gpu_free(d_div), bench_gpu_free(d_part), bench_gpu_free(d_out);
    free(R), free(X), free(C), free(div), free(ref), free(out), free(Xr), free(Xf);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(wsum_cpu(NULL, 1, 1, &x, 1, NULL, &x, 0, &x), GMM_ERR_ARG);
    ck_assert_int_eq(wsum_cpu(&x, 1, 0, &x, 1, NULL, &x, 0, &x), GMM_ERR_ARG);
    ck_assert_int_eq(wsum_cpu(&x, 1, 1, &x, 1, NULL, NULL, 0, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_wsum");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
