/* Check suite for the means product C = R^T X (kernels/matmul.h): the CPU twin and OpenBLAS path
 * against a naive loop; on a GPU, the CUDA kernel and cuBLAS against the CPU twin.
 * Bound: relative error (2-norm) <= 1e-12 for every version (float64 sums of <= 2049 terms). */
#include <dirent.h>
#include <unistd.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "kernels/blas_cpu.h"
#include "kernels/matmul.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    size_t n;
    int k, d;
} shape;

/* Awkward shapes: 1 x 1, one row, one column, not multiples of any tile, K past one 16-slice,
 * odd d (the scalar-load path), and the GMM's d = 784. */
static const shape SHAPES[] = {{1, 1, 1},   {1, 3, 5},     {37, 1, 1},    {300, 5, 1},
                               {513, 17, 131}, {2049, 10, 783}, {1000, 10, 784}, {129, 33, 2}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static void naive(const double *R, const double *X, size_t n, int k, int d, double *C)
{
    for (int a = 0; a < k; a++)
        for (int j = 0; j < d; j++) {
            double s = 0;
            for (size_t i = 0; i < n; i++) s += R[i * k + a] * X[i * d + j];
            C[(size_t)a * d + j] = s;
        }
}

static void make(const shape *s, double **R, double **X, uint64_t seed)
{
    *R = malloc(sizeof(double) * s->n * s->k);
    *X = malloc(sizeof(double) * s->n * s->d);
    ck_assert(*R && *X);
    tu_fill_uniform(*R, s->n * s->k, 0.01, 1.0, seed);
    tu_fill_uniform(*X, s->n * s->d, -1.0, 2.0, seed + 1);
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    double *R, *X;
    make(s, &R, &X, 100 + _i);
    size_t m = (size_t)s->k * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    naive(R, X, s->n, s->k, s->d, ref);
    poison(out, m);
    ck_assert_int_eq(matmul_cpu(R, X, s->n, s->k, s->d, out), GMM_OK);
    double e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "matmul_cpu %zux%dx%d: rel err %g", s->n, s->k, s->d, e);
    poison(out, m);
    ck_assert_int_eq(matmul_blas(R, X, s->n, s->k, s->d, out), GMM_OK);
    e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= BOUND, "matmul_blas %zux%dx%d: rel err %g", s->n, s->k, s->d, e);
    free(R), free(X), free(ref), free(out);
}
END_TEST

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    double *R, *X, *d_R, *d_X, *d_C;
    make(s, &R, &X, 200 + _i);
    size_t m = (size_t)s->k * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    ck_assert_int_eq(matmul_cpu(R, X, s->n, s->k, s->d, ref), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_R, sizeof(double) * s->n * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_X, sizeof(double) * s->n * s->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_C, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_R, R, sizeof(double) * s->n * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * s->n * s->d), GMM_OK);
    for (int lib = 0; lib < 2; lib++) {
        poison(out, m);
        ck_assert_int_eq(bench_gpu_upload(d_C, out, sizeof(double) * m), GMM_OK);
        gmm_status st = lib ? matmul_cublas(d_R, d_X, s->n, s->k, s->d, d_C, bench_gpu_resources())
                            : matmul_cuda(d_R, d_X, s->n, s->k, s->d, d_C, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_C, sizeof(double) * m), GMM_OK);
        double e = tu_rel_error(out, ref, m);
        ck_assert_msg(e <= BOUND, "%s %zux%dx%d: rel err %g", lib ? "matmul_cublas" : "matmul_cuda",
                      s->n, s->k, s->d, e);
    }
    bench_gpu_free(d_R), bench_gpu_free(d_X), bench_gpu_free(d_C);
    free(R), free(X), free(ref), free(out);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(matmul_cpu(NULL, &x, 1, 1, 1, &x), GMM_ERR_ARG);
    ck_assert_int_eq(matmul_cpu(&x, &x, 1, 0, 1, &x), GMM_ERR_ARG);
}
END_TEST

static int thread_count(void);

/* The task count once exiting threads have left /proc/self/task (a thread that returned may
 * linger there a moment after the join): polled for at most about a second. */
static int settled_thread_count(int want)
{
    int n = thread_count();
    for (int i = 0; i < 100 && n != want; i++) {
        usleep(10000);
        n = thread_count();
    }
    return n;
}

static int thread_count(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    while (d && (e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    if (d) closedir(d);
    return n;
}

/* A GPU run ends OpenBLAS's worker threads at its start (la_blas_threads_release): the threads
 * the DGEMM started are gone (exactly: when this process was one thread before it, as in a
 * forked test), a DGEMM afterwards gives the same bits as before, and the pool comes back as
 * it was; twice is harmless. */
START_TEST(blas_threads_release_keeps_results)
{
    const int n = 256;
    double *a = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n * n);
    double *c0 = malloc(sizeof(double) * n * n), *c1 = malloc(sizeof(double) * n * n);
    tu_fill_uniform(a, (size_t)n * n, -1.0, 1.0, 71);
    tu_fill_uniform(b, (size_t)n * n, -1.0, 1.0, 72);
    const int alone = thread_count() == 1;
    la_dgemm(false, false, n, n, n, 1.0, a, n, b, n, 0.0, c0, n);
    const int with_pool = thread_count();
    for (int round = 0; round < 2; round++) {
        la_blas_threads_release();
        if (alone) ck_assert_int_eq(settled_thread_count(1), 1);
        ck_assert_int_le(thread_count(), with_pool);
        la_dgemm(false, false, n, n, n, 1.0, a, n, b, n, 0.0, c1, n);
        ck_assert_mem_eq(c0, c1, sizeof(double) * n * n);
        ck_assert_int_eq(thread_count(), with_pool);
    }
    free(a);
    free(b);
    free(c0);
    free(c1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_matmul");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, bad_arguments);
    tcase_add_test(tc, blas_threads_release_keeps_results);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
