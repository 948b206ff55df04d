/* Check suite for the precision factors' log-determinants and the E-step constant
 * (linalg/log_det.h): the CPU twin against naive loops in every layout, with and without
 * weights, on random factors (upper triangular, diagonal in [0.05, 0.3]) and awkward sizes (K = 1,
 * d = 1, d = 784); the models/ wrapper gmm_log_det_cholesky gives the same bits; on a GPU,
 * log_det_cholesky_cuda against the CPU twin, outputs poisoned with NaN first.
 * Bound: relative error (2-norm) <= 1e-13 (sums of <= 784 logs; the device's log may differ
 * from the host's in the last bit). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "linalg/log_det.h"
#include "models/precisions.h"
#include "tests/testutil.h"

#define BOUND 1e-13

typedef struct {
    int k, d;
} shape;
static const shape SHAPES[] = {{1, 1}, {1, 5}, {7, 1}, {3, 33}, {130, 4}, {10, 784}, {2, 2100}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])
static const char *LAYOUT_NAMES[] = {"full", "tied", "diag", "spherical"};

static size_t factor_size(log_det_layout layout, int k, int d)
{
    switch (layout) {
    case LOG_DET_FULL: return (size_t)k * d * d;
    case LOG_DET_TIED: return (size_t)d * d;
    case LOG_DET_DIAG: return (size_t)k * d;
    case LOG_DET_SPHERICAL: break;
    }
    return (size_t)k;
}

/* Factors (upper triangular with a positive diagonal for full/tied) and weights summing to 1.
 * The entries lie in [0.05, 0.3], so every log and every term of the constant is negative: no
 * cancellation lets the last bit of a device log() show up as a large relative error. */
static void make(log_det_layout layout, const shape *s, uint64_t seed, double **prec, double **w)
{
    size_t n = factor_size(layout, s->k, s->d);
    *prec = malloc(sizeof(double) * n);
    *w = malloc(sizeof(double) * s->k);
    ck_assert(*prec && *w);
    tu_fill_uniform(*prec, n, 0.05, 0.3, seed);
    if (layout == LOG_DET_FULL || layout == LOG_DET_TIED)
        for (size_t m = 0; m < n / ((size_t)s->d * s->d); m++)
            for (int a = 0; a < s->d; a++)
                for (int b = 0; b < a; b++) (*prec)[m * s->d * s->d + (size_t)a * s->d + b] = 0;
    tu_fill_uniform(*w, s->k, 0.1, 1.0, seed + 1);
    double t = 0;
    for (int k = 0; k < s->k; k++) t += (*w)[k];
    for (int k = 0; k < s->k; k++) (*w)[k] /= t;
}

/* log det U_k from the definition (the log of each diagonal entry, added up), plus the
 * Gaussian's constant and log w_k when w is given. */
static void naive(log_det_layout layout, const shape *s, const double *prec, const double *w,
                  double *out)
{
    const int d = s->d;
    for (int k = 0; k < s->k; k++) {
        double ld = 0;
        for (int j = 0; j < d; j++) {
            double diag = layout == LOG_DET_FULL        ? prec[(size_t)k * d * d + (size_t)j * d + j]
                          : layout == LOG_DET_TIED      ? prec[(size_t)j * d + j]
                          : layout == LOG_DET_DIAG      ? prec[(size_t)k * d + j]
                                                        : prec[k];
            ld += log(diag);
        }
        out[k] = w ? ld + log(w[k]) - 0.5 * d * log(2 * M_PI) : ld;
    }
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

/* _i runs over shapes x layouts. */
START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i / 4];
    log_det_layout layout = (log_det_layout)(_i % 4);
    double *prec, *w, *out = malloc(sizeof(double) * s->k), *ref = malloc(sizeof(double) * s->k);
    make(layout, s, 100 + _i, &prec, &w);
    for (int with_w = 0; with_w < 2; with_w++) {
        naive(layout, s, prec, with_w ? w : NULL, ref);
        poison(out, s->k);
        ck_assert_int_eq(log_det_cholesky_cpu(layout, s->k, s->d, prec, with_w ? w : NULL, out),
                         GMM_OK);
        double e = tu_rel_error(out, ref, s->k);
        ck_assert_msg(e <= BOUND, "log_det_cholesky_cpu %s K %d d %d weights %d: rel err %g",
                      LAYOUT_NAMES[layout], s->k, s->d, with_w, e);
    }
    /* the models/ wrapper is the twin without weights */
    static const gmm_cov_type TYPES[] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG,
                                         GMM_COV_SPHERICAL};
    ck_assert_int_eq(gmm_log_det_layout(TYPES[layout]), layout);
    double *wrapped = malloc(sizeof(double) * s->k);
    ck_assert_int_eq(log_det_cholesky_cpu(layout, s->k, s->d, prec, NULL, out), GMM_OK);
    gmm_log_det_cholesky(TYPES[layout], s->k, s->d, prec, wrapped);
    ck_assert(memcmp(wrapped, out, sizeof(double) * s->k) == 0);
    free(prec), free(w), free(out), free(ref), free(wrapped);
}
END_TEST

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i / 4];
    log_det_layout layout = (log_det_layout)(_i % 4);
    size_t n = factor_size(layout, s->k, s->d);
    double *prec, *w, *out = malloc(sizeof(double) * s->k), *ref = malloc(sizeof(double) * s->k);
    double *d_prec = NULL, *d_w = NULL, *d_out = NULL;
    make(layout, s, 200 + _i, &prec, &w);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_prec, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_w, sizeof(double) * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_out, sizeof(double) * s->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_prec, prec, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_w, w, sizeof(double) * s->k), GMM_OK);
    for (int with_w = 0; with_w < 2; with_w++) {
        ck_assert_int_eq(log_det_cholesky_cpu(layout, s->k, s->d, prec, with_w ? w : NULL, ref),
                         GMM_OK);
        poison(out, s->k);
        ck_assert_int_eq(bench_gpu_upload(d_out, out, sizeof(double) * s->k), GMM_OK);
        gmm_status st =
            log_det_cholesky_cuda(layout, s->k, s->d, d_prec, with_w ? d_w : NULL, d_out, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_out, sizeof(double) * s->k), GMM_OK);
        double e = tu_rel_error(out, ref, s->k);
        ck_assert_msg(e <= BOUND, "log_det_cholesky_cuda %s K %d d %d weights %d: rel err %g",
                      LAYOUT_NAMES[layout], s->k, s->d, with_w, e);
    }
    bench_gpu_free(d_prec), bench_gpu_free(d_w), bench_gpu_free(d_out);
    free(prec), free(w), free(out), free(ref);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(log_det_cholesky_cpu(LOG_DET_FULL, 0, 1, &x, NULL, &x), GMM_ERR_ARG);
    ck_assert_int_eq(log_det_cholesky_cpu(LOG_DET_FULL, 1, 1, NULL, NULL, &x), GMM_ERR_ARG);
    ck_assert_int_eq(log_det_cholesky_cpu((log_det_layout)7, 1, 1, &x, NULL, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_log_det");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES * 4);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES * 4);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
