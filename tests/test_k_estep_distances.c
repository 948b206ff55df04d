/* Check suite for the E-step distance experiments (bench/experiments/estep_distances.cu): on a
 * GPU, s_ik = ||x_i U_k - b_k||^2 by the CUDA backend's blocked DGEMMs and row kernel (version 0)
 * and by one DMMA kernel (version 1, the fused one that lost to it) against the host's float64
 * sums: relative error <= 1e-12, every entry written (the output is poisoned first), on awkward
 * sizes (one row, K = 1, d below a column tile, d not a multiple of the tiles, N not a multiple
 * of the row tiles) and MNIST's d; an odd d is refused by version 1 with GMM_ERR_UNSUPPORTED,
 * as is a GPU below compute capability 9.0 (then the test says so). Without a GPU only the
 * versions' names and the workspace sizes are checked. */
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

static const shape SHAPES[] = {{1, 8, 1},    {257, 16, 3},   {130, 34, 17},
                               {999, 112, 5}, {300, 226, 2}, {300, 784, 2}, {65, 7, 2}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

START_TEST(gpu_matches_host)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    const size_t n = s->n, d = (size_t)s->d, K = (size_t)s->k;
    double *X = malloc(sizeof(double) * n * d), *U = calloc(K * d * d, sizeof(double));
    double *b = malloc(sizeof(double) * K * d), *ref = malloc(sizeof(double) * n * K);
    double *out = malloc(sizeof(double) * n * K), *row = malloc(sizeof(double) * d);
    double *d_X = NULL, *d_U = NULL, *d_b = NULL, *d_dist = NULL;
    void *d_work = NULL;
    size_t work = estep_distances_work_bytes(0, n, (int)d, (int)K);
    if (estep_distances_work_bytes(1, n, (int)d, (int)K) > work)
        work = estep_distances_work_bytes(1, n, (int)d, (int)K);
    ck_assert(X && U && b && ref && out && row);
    tu_fill_uniform(X, n * d, 0.0, 1.0, 700 + _i);
    tu_fill_uniform(b, K * d, -1.0, 1.0, 710 + _i);
    for (size_t k = 0; k < K; k++)
        for (size_t j = 0; j < d; j++) {
            tu_fill_uniform(row, d - j, -0.1, 0.1, 720 + 1000 * _i + k * d + j);
            for (size_t l = j; l < d; l++) U[k * d * d + j * d + l] = row[l - j];
            U[k * d * d + j * d + j] += 2.0;
        }
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < K; k++) {
            double t = 0;
            for (size_t l = 0; l < d; l++) {
                double y = 0;
                for (size_t j = 0; j <= l; j++) y += X[i * d + j] * U[k * d * d + j * d + l];
                t += (y - b[k * d + l]) * (y - b[k * d + l]);
            }
            ref[i * K + k] = t;
        }
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_X, sizeof(double) * n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_U, sizeof(double) * K * d * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_b, sizeof(double) * K * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_dist, sizeof(double) * n * K), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_work, work), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_U, U, sizeof(double) * K * d * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_b, b, sizeof(double) * K * d), GMM_OK);
    for (int v = 0; v < ESTEP_DISTANCES_N_VERSIONS; v++) {
        for (size_t q = 0; q < n * K; q++) out[q] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_upload(d_dist, out, sizeof(double) * n * K), GMM_OK);
        gmm_status st = estep_distances_version(v, d_X, n, (int)d, (int)K, d_U, d_b, d_dist,
                                                d_work, work, bench_gpu_resources());
        if (v == 1 && st == GMM_ERR_UNSUPPORTED) {
            printf("%s: d = %zu: refused (%s)\n", estep_distances_version_name(v), d,
                   gmm_error_message(st));
            ck_assert_msg(d % 2 == 1 || strstr(gmm_error_message(st), "compute capability"),
                          "refused an even d: %s", gmm_error_message(st));
            continue;
        }
        ck_assert_msg(v == 0 || d % 2 == 0, "%s accepted an odd d", estep_distances_version_name(v));
        ck_assert_msg(st == GMM_OK, "%s: %s", estep_distances_version_name(v),
                      gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_dist, sizeof(double) * n * K), GMM_OK);
        double e = tu_rel_error(out, ref, n * K);
        printf("%s: N = %zu, d = %zu, K = %zu: relative error %.2e\n",
               estep_distances_version_name(v), n, d, K, e);
        ck_assert_msg(e <= BOUND, "%s %zux%zu K = %zu: relative error %g",
                      estep_distances_version_name(v), n, d, K, e);
    }
    bench_gpu_free(d_X), bench_gpu_free(d_U), bench_gpu_free(d_b), bench_gpu_free(d_dist);
    bench_gpu_free(d_work);
    free(X), free(U), free(b), free(ref), free(out), free(row);
}
END_TEST

START_TEST(names_and_sizes)
{
    ck_assert_str_eq(estep_distances_version_name(0), "estep_blocked_gemms");
    ck_assert_str_eq(estep_distances_version_name(1), "estep_fused_dmma");
    ck_assert_str_eq(estep_distances_version_name(ESTEP_DISTANCES_N_VERSIONS), "?");
    /* version 0: the packed factors and the product; version 1: 7 column tiles of partial sums
     * at d = 784 */
    ck_assert_uint_eq(estep_distances_work_bytes(0, 100, 784, 10),
                      sizeof(double) * (10 * 784 * 784 + 100 * 10 * 784));
    ck_assert_uint_eq(estep_distances_work_bytes(1, 100, 784, 10), sizeof(double) * 100 * 10 * 7);
    ck_assert_uint_eq(estep_distances_work_bytes(1, 100, 113, 10), sizeof(double) * 100 * 10 * 2);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_estep_distances");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, names_and_sizes);
    tcase_add_loop_test(tc, gpu_matches_host, 0, N_SHAPES);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
