/* Check suite for the lower triangular solve L X = B (linalg/trsm.h): the CPU twin and OpenBLAS
 * against naive forward substitution; on a GPU, every version of bench/experiments/trsm.cu (0:
 * the library's cuBLAS TRSM; 1: the blocked kernel, trsm_cuda_v1) against the CPU twin. Bound: relative error (2-norm) <= 1e-12 on a well-conditioned L (diagonal in [1, 2],
 * off-diagonal entries below 1/dim). The strict upper triangle of L is filled with NaN: it must
 * never be read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "linalg/trsm.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    int dim;
    size_t nrhs;
} shape;

static const shape SHAPES[] = {{1, 1}, {1, 5}, {5, 1}, {63, 65}, {64, 64}, {130, 1000}, {200, 77}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static double *make_lower(int dim, uint64_t seed)
{
    double *L = malloc(sizeof(double) * dim * dim);
    ck_assert(L);
    uint64_t s = seed;
    for (int i = 0; i < dim; i++)
        for (int j = 0; j < dim; j++)
            L[(size_t)i * dim + j] = j < i    ? (2 * tu_rand_uniform(&s) - 1) / dim
                                     : j == i ? 1.0 + tu_rand_uniform(&s)
                                              : TU_POISON_F64;
    return L;
}

static void naive(const double *L, int n, double *B, size_t m)
{
    for (size_t c = 0; c < m; c++)
        for (int i = 0; i < n; i++) {
            double s = B[(size_t)i * m + c];
            for (int k = 0; k < i; k++) s -= L[(size_t)i * n + k] * B[(size_t)k * m + c];
            B[(size_t)i * m + c] = s / L[(size_t)i * n + i];
        }
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    size_t nb = (size_t)s->dim * s->nrhs;
    double *L = make_lower(s->dim, 1100 + _i);
    double *B = malloc(sizeof(double) * nb), *ref = malloc(sizeof(double) * nb),
           *out = malloc(sizeof(double) * nb);
    tu_fill_uniform(B, nb, -1.0, 1.0, 1200 + _i);
    memcpy(ref, B, sizeof(double) * nb);
    naive(L, s->dim, ref, s->nrhs);
    for (int blas = 0; blas < 2; blas++) {
        memcpy(out, B, sizeof(double) * nb);
        gmm_status st = blas ? trsm_blas(L, s->dim, out, s->nrhs) : trsm_cpu(L, s->dim, out, s->nrhs);
        ck_assert_int_eq(st, GMM_OK);
        double e = tu_rel_error(out, ref, nb);
        ck_assert_msg(e <= BOUND, "%s %dx%zu: rel err %g", blas ? "trsm_blas" : "trsm_cpu", s->dim,
                      s->nrhs, e);
    }
    free(L), free(B), free(ref), free(out);
}
END_TEST

static void gpu_case(int dim, size_t nrhs, uint64_t seed)
{
    size_t nb = (size_t)dim * nrhs;
    double *L = make_lower(dim, seed), *d_L, *d_B;
    double *B = malloc(sizeof(double) * nb), *ref = malloc(sizeof(double) * nb),
           *out = malloc(sizeof(double) * nb);
    tu_fill_uniform(B, nb, -1.0, 1.0, seed + 1);
    memcpy(ref, B, sizeof(double) * nb);
    ck_assert_int_eq(trsm_cpu(L, dim, ref, nrhs), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_L, sizeof(double) * dim * dim), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_B, sizeof(double) * nb), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_L, L, sizeof(double) * dim * dim), GMM_OK);
    for (int v = 0; v < TRSM_N_VERSIONS; v++) {
        const char *who = trsm_version_name(v);
        ck_assert_int_eq(bench_gpu_upload(d_B, B, sizeof(double) * nb), GMM_OK);
        gmm_status st = trsm_version(v, d_L, dim, d_B, nrhs, bench_gpu_resources());
        ck_assert_msg(st == GMM_OK, "%s: %s", who, gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_sync(), GMM_OK);
        for (size_t k = 0; k < nb; k++) out[k] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_download(out, d_B, sizeof(double) * nb), GMM_OK);
        for (size_t k = 0; k < nb; k++) ck_assert_msg(!isnan(out[k]), "%s: NaN at %zu", who, k);
        double e = tu_rel_error(out, ref, nb);
        ck_assert_msg(e <= BOUND, "%s %dx%zu: rel err %g", who, dim, nrhs, e);
    }
    bench_gpu_free(d_L), bench_gpu_free(d_B);
    free(L), free(B), free(ref), free(out);
}

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    gpu_case(SHAPES[_i].dim, SHAPES[_i].nrhs, 1300 + _i);
}
END_TEST

START_TEST(gpu_gmm_shape)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    gpu_case(784, 3001, 1400);
}
END_TEST

/* A version number the experiments do not have is refused (see test_k_cholesky.c). */
START_TEST(unknown_version)
{
    double x[1] = {1.0};
    ck_assert_int_ne(trsm_version(TRSM_N_VERSIONS, x, 1, x, 1, NULL), GMM_OK);
    ck_assert_int_ne(trsm_version(-1, x, 1, x, 1, NULL), GMM_OK);
    ck_assert_str_eq(trsm_version_name(TRSM_N_VERSIONS), "?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_trsm");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, gpu_gmm_shape);
    tcase_add_test(tc, unknown_version);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
