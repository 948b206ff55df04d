/* Check suite for the weighted covariance (kernels/wcov.h): the CPU twin and the OpenBLAS path
 * against a naive loop; on a GPU, the CUDA kernel and the sqrt(w)-scaled cuBLAS SYRK path against
 * the CPU twin. Bound: relative error (2-norm) <= 1e-12; exactly symmetric results. Weights are
 * read with a stride (a column of a responsibility matrix); negative weights are exact in the CPU
 * twin and the CUDA kernel and refused by the OpenBLAS path. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_gpu.h"
#include "kernels/wcov.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    size_t n;
    int d;
    size_t stride;
} shape;

/* ... even d past the GPU's 112-column tiles (its cp.async path) and d = 784 */
static const shape SHAPES[] = {{1, 1, 1},     {1, 5, 3},  {17, 1, 1},     {333, 65, 10},
                               {257, 131, 1}, {70, 2, 4}, {600, 784, 10}, {1001, 226, 1},
                               {40, 120, 3}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

typedef struct {
    double *X, *w, *mu;
} data;

static data make(const shape *s, uint64_t seed, int negative)
{
    data D;
    D.X = malloc(sizeof(double) * s->n * s->d);
    D.w = malloc(sizeof(double) * s->n * s->stride);
    D.mu = malloc(sizeof(double) * s->d);
    ck_assert(D.X && D.w && D.mu);
    tu_fill_uniform(D.X, s->n * s->d, 0.0, 1.0, seed);
    tu_fill_uniform(D.w, s->n * s->stride, negative ? -0.5 : 0.0, 1.0, seed + 1);
    tu_fill_uniform(D.mu, s->d, 0.2, 0.6, seed + 2);
    if (negative) D.w[0] = 2.0; /* keep the weight sum away from zero */
    return D;
}

static void release(data *D) { free(D->X), free(D->w), free(D->mu); }

static void naive(const data *D, const shape *s, double *C)
{
    double sw = 0;
    for (size_t i = 0; i < s->n; i++) sw += D->w[i * s->stride];
    for (int a = 0; a < s->d; a++)
        for (int b = 0; b < s->d; b++) {
            double acc = 0;
            for (size_t i = 0; i < s->n; i++)
                acc += D->w[i * s->stride] * (D->X[i * s->d + a] - D->mu[a]) *
                       (D->X[i * s->d + b] - D->mu[b]);
            C[(size_t)a * s->d + b] = acc / (sw + 10 * DBL_EPSILON);
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
            ck_assert_msg(C[(size_t)a * d + b] == C[(size_t)b * d + a], "%s: not symmetric", who);
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    data D = make(s, 500 + _i, 0);
    size_t m = (size_t)s->d * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    naive(&D, s, ref);
    poison(out, m);
    ck_assert_int_eq(wcov_cpu(D.X, s->n, s->d, D.w, s->stride, D.mu, out), GMM_OK);
    double e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "wcov_cpu %zux%d: rel err %g", s->n, s->d, e);
    assert_symmetric(out, s->d, "wcov_cpu");
    poison(out, m);
    ck_assert_int_eq(wcov_blas(D.X, s->n, s->d, D.w, s->stride, D.mu, out), GMM_OK);
    e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "wcov_blas %zux%d: rel err %g", s->n, s->d, e);
    release(&D), free(ref), free(out);
}
END_TEST

START_TEST(cpu_negative_weights)
{
    shape s = {200, 37, 2};
    data D = make(&s, 42, 1);
    size_t m = (size_t)s.d * s.d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    naive(&D, &s, ref);
    ck_assert_int_eq(wcov_cpu(D.X, s.n, s.d, D.w, s.stride, D.mu, out), GMM_OK);
    ck_assert(tu_rel_error(out, ref, m) <= BOUND);
    ck_assert_int_eq(wcov_blas(D.X, s.n, s.d, D.w, s.stride, D.mu, out), GMM_ERR_ARG);
    release(&D), free(ref), free(out);
}
END_TEST

static void gpu_case(const shape *s, uint64_t seed, int negative)
{
    data D = make(s, seed, negative);
    size_t m = (size_t)s->d * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    double *d_X, *d_w, *d_mu, *d_C;
    ck_assert_int_eq(wcov_cpu(D.X, s->n, s->d, D.w, s->stride, D.mu, ref), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_X, sizeof(double) * s->n * s->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_w, sizeof(double) * s->n * s->stride), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_mu, sizeof(double) * s->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_C, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, D.X, sizeof(double) * s->n * s->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_w, D.w, sizeof(double) * s->n * s->stride), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_mu, D.mu, sizeof(double) * s->d), GMM_OK);
    for (int lib = 0; lib < (negative ? 1 : 2); lib++) {
        poison(out, m);
        ck_assert_int_eq(bench_gpu_upload(d_C, out, sizeof(double) * m), GMM_OK);
        gmm_status st = lib ? wcov_cublas(d_X, s->n, s->d, d_w, s->stride, d_mu, d_C, bench_gpu_resources())
                            : wcov_cuda(d_X, s->n, s->d, d_w, s->stride, d_mu, d_C, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_C, sizeof(double) * m), GMM_OK);
        const char *who = lib ? "wcov_cublas" : "wcov_cuda";
        double e = tu_rel_error(out, ref, m);
        ck_assert_msg(e <= BOUND, "%s %zux%d stride %zu: rel err %g", who, s->n, s->d, s->stride, e);
        assert_symmetric(out, s->d, who);
    }
    bench_gpu_free(d_X), bench_gpu_free(d_w), bench_gpu_free(d_mu), bench_gpu_free(d_C);
    release(&D), free(ref), free(out);
}

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    gpu_case(&SHAPES[_i], 600 + _i, 0);
}
END_TEST

START_TEST(gpu_negative_and_large)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    shape small = {200, 37, 2};
    gpu_case(&small, 43, 1);
    shape large = {12007, 784, 10};
    gpu_case(&large, 44, 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_wcov");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_test(tc, cpu_negative_weights);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, gpu_negative_and_large);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
