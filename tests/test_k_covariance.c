/* Check suite for the covariance of centred data (kernels/covariance.h): the CPU twin and the
 * OpenBLAS path against a naive loop; on a GPU, the CUDA kernel (float64 tensor cores) and cuBLAS
 * SYRK against the CPU twin. Bound: relative error (2-norm) <= 1e-12; the result must also be
 * exactly symmetric. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_gpu.h"
#include "kernels/covariance.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    size_t n;
    int d;
} shape;

/* 1 x 1, one row, one column, past-a-tile sizes, odd d (scalar loads), even d past the GPU's
 * 112-column tiles (its cp.async path), the GMM's d = 784. */
static const shape SHAPES[] = {{1, 1},   {1, 5},    {17, 1},    {333, 65},  {257, 131},
                               {70, 2},  {600, 784}, {1001, 226}, {40, 120}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static double *make(const shape *s, uint64_t seed)
{
    double *X = malloc(sizeof(double) * s->n * s->d);
    ck_assert(X);
    tu_fill_uniform(X, s->n * s->d, -1.0, 3.0, seed);
    /* Centre the columns (the function's contract), unless a single row (then centring gives
     * zeros, which this suite never tests on). */
    if (s->n > 1)
        for (int j = 0; j < s->d; j++) {
            double m = 0;
            for (size_t i = 0; i < s->n; i++) m += X[i * s->d + j];
            m /= (double)s->n;
            for (size_t i = 0; i < s->n; i++) X[i * s->d + j] -= m;
        }
    return X;
}

static void naive(const double *X, size_t n, int d, double *C)
{
    double div = n > 1 ? (double)(n - 1) : 1.0;
    for (int a = 0; a < d; a++)
        for (int b = 0; b < d; b++) {
            double s = 0;
            for (size_t i = 0; i < n; i++) s += X[i * d + a] * X[i * d + b];
            C[(size_t)a * d + b] = s / div;
        }
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

static void assert_symmetric(const double *C, int d, const char *who)
{
    for (int a = 0; a < d; a++)
        for (int b = 0; b < a; b++)
            ck_assert_msg(C[(size_t)a * d + b] == C[(size_t)b * d + a], "%s: not symmetric at %d,%d",
                          who, a, b);
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    double *X = make(s, 300 + _i);
    size_t m = (size_t)s->d * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    naive(X, s->n, s->d, ref);
    poison(out, m);
    ck_assert_int_eq(covariance_cpu(X, s->n, s->d, out), GMM_OK);
    double e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "covariance_cpu %zux%d: rel err %g", s->n, s->d, e);
    assert_symmetric(out, s->d, "covariance_cpu");
    poison(out, m);
    ck_assert_int_eq(covariance_blas(X, s->n, s->d, out), GMM_OK);
    e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "covariance_blas %zux%d: rel err %g", s->n, s->d, e);
    free(X), free(ref), free(out);
}
END_TEST

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    double *X = make(s, 400 + _i), *d_X, *d_C;
    size_t m = (size_t)s->d * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    ck_assert_int_eq(covariance_cpu(X, s->n, s->d, ref), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_X, sizeof(double) * s->n * s->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_C, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * s->n * s->d), GMM_OK);
    for (int lib = 0; lib < 2; lib++) {
        poison(out, m);
        ck_assert_int_eq(bench_gpu_upload(d_C, out, sizeof(double) * m), GMM_OK);
        gmm_status st = lib ? covariance_cublas(d_X, s->n, s->d, d_C, bench_gpu_resources())
                            : covariance_cuda(d_X, s->n, s->d, d_C, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_C, sizeof(double) * m), GMM_OK);
        const char *who = lib ? "covariance_cublas" : "covariance_cuda";
        double e = tu_rel_error(out, ref, m);
        ck_assert_msg(e <= BOUND, "%s %zux%d: rel err %g", who, s->n, s->d, e);
        assert_symmetric(out, s->d, who);
    }
    bench_gpu_free(d_X), bench_gpu_free(d_C);
    free(X), free(ref), free(out);
}
END_TEST

/* A larger GMM-shaped case on the GPU only (many row slabs summed with atomics). */
START_TEST(gpu_large)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    shape s = {20011, 784};
    double *X = make(&s, 77), *d_X, *d_C;
    size_t m = (size_t)s.d * s.d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    ck_assert_int_eq(covariance_blas(X, s.n, s.d, ref), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_X, sizeof(double) * s.n * s.d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_C, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * s.n * s.d), GMM_OK);
    poison(out, m);
    ck_assert_int_eq(bench_gpu_upload(d_C, out, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(covariance_cuda(d_X, s.n, s.d, d_C, NULL), GMM_OK);
    ck_assert_int_eq(bench_gpu_download(out, d_C, sizeof(double) * m), GMM_OK);
    double e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "covariance_cuda 20011x784 vs OpenBLAS: rel err %g", e);
    bench_gpu_free(d_X), bench_gpu_free(d_C);
    free(X), free(ref), free(out);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_covariance");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, gpu_large);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
