/* Check suite for the Cholesky factorisation (linalg/cholesky.h): the CPU twin and LAPACKE
 * against a naive loop; on a GPU, every version of bench/experiments/cholesky.cu (0: the library's
 * cuSOLVER potrf and potrfBatched; 1: the blocked kernels, cholesky_cuda_v1) against the CPU
 * twin. Bound: relative error (2-norm) of L <= 1e-12 on well-conditioned matrices; the strict
 * upper triangle must be exactly zero. A matrix that is not positive definite must give
 * GMM_ERR_CHOLESKY and the order of the failing leading minor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "linalg/cholesky.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    int dim, batch;
} shape;

/* 1 x 1, around the 64-column panel (63, 64, 65), several panels with a ragged end, batches. */
static const shape SHAPES[] = {{1, 1}, {2, 1}, {63, 1}, {64, 1}, {65, 1}, {130, 1}, {200, 3}, {97, 5}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

/* Naive Cholesky (Cholesky-Banachiewicz), returns 0 or the failing order. */
static int naive(double *A, int n)
{
    for (int i = 0; i < n; i++) {
        for (int j = 0; j <= i; j++) {
            double s = A[(size_t)i * n + j];
            for (int k = 0; k < j; k++) s -= A[(size_t)i * n + k] * A[(size_t)j * n + k];
            if (i == j) {
                if (!(s > 0)) return i + 1;
                A[(size_t)i * n + i] = sqrt(s);
            } else {
                A[(size_t)i * n + j] = s / A[(size_t)j * n + j];
            }
        }
        for (int j = i + 1; j < n; j++) A[(size_t)i * n + j] = 0.0;
    }
    return 0;
}

/* Makes leading minor `order` (1-based) of matrix b fail: its pivot becomes -1. */
static void plant_failure(double *A, int dim, int b, int order)
{
    size_t dd = (size_t)dim * dim;
    double *L = malloc(sizeof(double) * dd);
    memcpy(L, A + dd * b, sizeof(double) * dd);
    ck_assert_int_eq(naive(L, dim), 0);
    int p = order - 1;
    double l = L[(size_t)p * dim + p];
    A[dd * b + (size_t)p * dim + p] -= l * l + 1.0;
    free(L);
}

static void assert_upper_zero(const double *A, int dim, int batch, const char *who)
{
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < dim; i++)
            for (int j = i + 1; j < dim; j++)
                ck_assert_msg(A[(size_t)b * dim * dim + (size_t)i * dim + j] == 0.0,
                              "%s: upper triangle not zeroed", who);
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    size_t n = (size_t)s->dim * s->dim * s->batch;
    double *A = tu_make_spd(s->dim, s->batch, 700 + _i);
    double *ref = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    memcpy(ref, A, sizeof(double) * n);
    for (int b = 0; b < s->batch; b++)
        ck_assert_int_eq(naive(ref + (size_t)b * s->dim * s->dim, s->dim), 0);
    for (int lapack = 0; lapack < 2; lapack++) {
        memcpy(out, A, sizeof(double) * n);
        int orders[8];
        memset(orders, 0x7f, sizeof orders);
        gmm_status st = lapack ? cholesky_blas(out, s->dim, s->batch, orders)
                               : cholesky_cpu(out, s->dim, s->batch, orders);
        ck_assert_int_eq(st, GMM_OK);
        for (int b = 0; b < s->batch; b++) ck_assert_int_eq(orders[b], 0);
        double e = tu_rel_error(out, ref, n);
        ck_assert_msg(e <= BOUND, "%s dim %d: rel err %g", lapack ? "blas" : "cpu", s->dim, e);
        assert_upper_zero(out, s->dim, s->batch, lapack ? "cholesky_blas" : "cholesky_cpu");
    }
    free(A), free(ref), free(out);
}
END_TEST

/* Failing orders 1, 37 (inside the first panel) and 100 (in a later panel) of a 150 x 150
 * matrix, the second of a batch of 3; the others must still factor. */
static void not_spd_case(int gpu, int which)
{
    const int dim = 150, batch = 3;
    const int orders_to_plant[] = {1, 37, 100};
    size_t dd = (size_t)dim * dim, n = dd * batch;
    double *A = tu_make_spd(dim, batch, 900);
    double *ref = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n), *d_A = NULL;
    memcpy(ref, A, sizeof(double) * n);
    for (int b = 0; b < batch; b++) naive(ref + dd * b, dim);
    int order = orders_to_plant[which];
    plant_failure(A, dim, 1, order);
    if (gpu) {
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_A, sizeof(double) * n), GMM_OK);
    }
    for (int v = 0; v < (gpu ? CHOLESKY_N_VERSIONS : 2); v++) {
        for (int single = 0; single < 2; single++) {
            int orders[3] = {-1, -1, -1};
            const int nb = single ? 1 : batch;
            double *base = single ? out + dd : out; /* single: only the failing matrix */
            memcpy(out, A, sizeof(double) * n);
            gmm_status st;
            const char *who;
            if (gpu) {
                ck_assert_int_eq(bench_gpu_upload(d_A, base, sizeof(double) * dd * nb), GMM_OK);
                st = cholesky_version(v, d_A, dim, nb, orders, bench_gpu_resources());
                ck_assert_int_eq(bench_gpu_download(base, d_A, sizeof(double) * dd * nb), GMM_OK);
                who = cholesky_version_name(v);
            } else {
                st = v ? cholesky_blas(base, dim, nb, orders) : cholesky_cpu(base, dim, nb, orders);
                who = v ? "cholesky_blas" : "cholesky_cpu";
            }
            ck_assert_msg(st == GMM_ERR_CHOLESKY, "%s: status %d for a non-SPD matrix", who, st);
            if (single) {
                ck_assert_msg(orders[0] == order, "%s: order %d, expected %d", who, orders[0], order);
            } else {
                ck_assert_msg(orders[1] == order, "%s: order %d, expected %d", who, orders[1], order);
                ck_assert_int_eq(orders[0], 0);
                ck_assert_int_eq(orders[2], 0);
                ck_assert(tu_rel_error(out, ref, dd) <= BOUND);
                ck_assert(tu_rel_error(out + 2 * dd, ref + 2 * dd, dd) <= BOUND);
            }
        }
    }
    bench_gpu_free(d_A);
    free(A), free(ref), free(out);
}

START_TEST(cpu_not_spd) { not_spd_case(0, _i); }
END_TEST

START_TEST(gpu_not_spd)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    not_spd_case(1, _i);
}
END_TEST

static void gpu_case(int dim, int batch, uint64_t seed)
{
    size_t n = (size_t)dim * dim * batch;
    double *A = tu_make_spd(dim, batch, seed), *d_A;
    double *ref = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    memcpy(ref, A, sizeof(double) * n);
    ck_assert_int_eq(cholesky_cpu(ref, dim, batch, NULL), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_A, sizeof(double) * n), GMM_OK);
    for (int v = 0; v < CHOLESKY_N_VERSIONS; v++) {
        const char *who = cholesky_version_name(v);
        ck_assert_int_eq(bench_gpu_upload(d_A, A, sizeof(double) * n), GMM_OK);
        int orders[16];
        for (int b = 0; b < 16; b++) orders[b] = -1;
        gmm_status st = cholesky_version(v, d_A, dim, batch, orders, bench_gpu_resources());
        ck_assert_msg(st == GMM_OK, "%s: %s", who, gmm_error_message(st));
        for (int b = 0; b < batch; b++) ck_assert_msg(orders[b] == 0, "%s: order %d", who, orders[b]);
        for (size_t k = 0; k < n; k++) out[k] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_download(out, d_A, sizeof(double) * n), GMM_OK);
        for (size_t k = 0; k < n; k++) ck_assert_msg(!isnan(out[k]), "%s: NaN at %zu", who, k);
        double e = tu_rel_error(out, ref, n);
        ck_assert_msg(e <= BOUND, "%s dim %d batch %d: rel err %g", who, dim, batch, e);
        assert_upper_zero(out, dim, batch, who);
    }
    bench_gpu_free(d_A);
    free(A), free(ref), free(out);
}

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    gpu_case(SHAPES[_i].dim, SHAPES[_i].batch, 800 + _i);
}
END_TEST

START_TEST(gpu_gmm_shape)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    gpu_case(784, 10, 1000);
}
END_TEST

/* A version number the experiments do not have is refused (GMM_ERR_ARG; without CUDA every
 * version answers GMM_ERR_NO_DEVICE); nothing is touched, so a host pointer is safe here. */
START_TEST(unknown_version)
{
    double A[1] = {1.0};
    ck_assert_int_ne(cholesky_version(CHOLESKY_N_VERSIONS, A, 1, 1, NULL, NULL), GMM_OK);
    ck_assert_int_ne(cholesky_version(-1, A, 1, 1, NULL, NULL), GMM_OK);
    ck_assert_str_eq(cholesky_version_name(CHOLESKY_N_VERSIONS), "?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_cholesky");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, cpu_not_spd, 0, 3);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_not_spd, 0, 3);
    tcase_add_test(tc, gpu_gmm_shape);
    tcase_add_test(tc, unknown_version);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
