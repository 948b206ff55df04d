/* Check suite for the CPU backend's E-step that leaves partial the pairs of no weight
 * (cpu_estep_dist_pruned_f64, models/backend/cpu/cpu_estep.h) against every pair in full
 * (cpu_estep_dist_f64): the kept pairs' distances to rounding, the others' a lower bound whose
 * log responsibility lies below -GMM_ESTEP_PRUNE_MARGIN and above the true one, the same
 * log p(x_i) and responsibilities to rounding, with the last E-step's candidates, with the
 * block-0 ones and with wrong ones; pairs dropped after block 0 and after later blocks both
 * occur, most of the late ones 64 to 800 below their row's best (the former margin of 800 formed
 * them in full); and a whole fit with the skipping equals one without it to rounding. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/estep_rows.h"
#include "models/backend/backend.h"
#include "models/backend/cpu/cpu_estep.h"
#include "models/core/em.h"
#include "tests/estep_pairs_data.h"
#include "tests/testutil.h"

#define N PAIRS_N
#define D PAIRS_D
#define K PAIRS_K

typedef struct {
    double *X, *U, *packed, *centers, *log_const;
} problem;

static problem make_problem(void)
{
    uint64_t s = 777;
    problem p;
    p.X = malloc(sizeof(double) * N * D);
    p.U = calloc((size_t)K * D * D, sizeof(double));
    p.packed = malloc(sizeof(double) * cpu_estep_packed_size(K, D));
    p.centers = malloc(sizeof(double) * K * D);
    p.log_const = malloc(sizeof(double) * K);
    double *means = malloc(sizeof(double) * K * D);
    ck_assert(p.X && p.U && p.packed && p.centers && p.log_const && means);
    for (int k = 0; k < K; k++) {
        double *U = p.U + (size_t)k * D * D, logdet = 0;
        for (int a = 0; a < D; a++) {
            U[a * D + a] = 1 + 0.05 * tu_rand_normal(&s);
            logdet += log(U[a * D + a]);
            for (int b = a + 1; b < D; b++) U[a * D + b] = 0.01 * tu_rand_normal(&s);
        }
        for (int j = 0; j < D; j++) means[k * D + j] = pairs_mean(k, j);
        p.log_const[k] = log(1.0 / K) + logdet - 0.5 * D * log(2 * M_PI);
    }
    pairs_data(p.X);
    cpu_estep_pack_f64(p.U, K, D, p.packed);
    cpu_estep_centers(means, p.U, K, K, D, 0, p.centers);
    free(means);
    return p;
}

static void free_problem(problem *p)
{
    free(p->X), free(p->U), free(p->packed), free(p->centers), free(p->log_const);
}

/* The squares of block 0 (columns [0, 112)) of (x_i - mu_k) U_k: y = x U_k - c_k. */
static double block0_distance(const problem *p, int i, int k)
{
    const double *x = p->X + (size_t)i * D, *U = p->U + (size_t)k * D * D;
    double s = 0;
    for (int l = 0; l < CPU_ESTEP_BLOCK; l++) {
        double y = 0;
        for (int j = 0; j <= l; j++) y += x[j] * U[j * D + l];
        y -= p->centers[k * D + l];
        s += y * y;
    }
    return s;
}

/* previous: how the candidates are named (0: none, 1: the true log responsibilities, 2: the
 * least likely component of each row, a wrong candidate). */
static void check_against_all_pairs(int previous)
{
    problem p = make_problem();
    double *work = malloc(sizeof(double) * N * K * D), *ref = malloc(sizeof(double) * N * K),
           *got = malloc(sizeof(double) * N * K), *ll_ref = malloc(sizeof(double) * N),
           *ll_got = malloc(sizeof(double) * N), *dist_ref = malloc(sizeof(double) * N * K);
    ck_assert(work && ref && got && ll_ref && ll_got && dist_ref);
    cpu_estep_dist_f64(p.X, N, D, K, K, p.packed, p.centers, work, ref);
    memcpy(dist_ref, ref, sizeof(double) * N * K);
    TU_CHECK_OK(estep_rows_from_dist_cpu(p.log_const, N, K, ref, ll_ref)); /* -> log_resp */
    if (previous == 1) memcpy(got, ref, sizeof(double) * N * K);
    if (previous == 2)
        for (int i = 0; i < N; i++)
            for (int k = 0; k < K; k++) got[i * K + k] = -ref[i * K + k];
    TU_CHECK_OK(cpu_estep_dist_pruned_f64(p.X, N, D, K, p.packed, p.centers, p.log_const,
                                          previous ? got : NULL, work, got));
    /* a kept pair's distance is the same sum of the same squares, the GEMM's products of a
     * gathered submatrix possibly rounded otherwise (OpenBLAS's kernels vary with the shape) */
    int kept = 0, dropped = 0, dropped_late = 0, dropped_within_800 = 0;
    for (int i = 0; i < N; i++)
        for (int k = 0; k < K; k++) {
            double full = dist_ref[i * K + k], partial = got[i * K + k];
            if (fabs(partial - full) <= 1e-12 * full) {
                kept++;
                continue;
            }
            /* a lower bound, of a pair of no weight: log resp < -margin */
            ck_assert_msg(partial < full, "pair (%d, %d): %.17g > %.17g", i, k, partial, full);
            ck_assert_msg(ref[i * K + k] < -GMM_ESTEP_PRUNE_MARGIN,
                          "pair (%d, %d) of log resp %g left partial", i, k, ref[i * K + k]);
            dropped++;
            if (partial > block0_distance(&p, i, k) * (1 + 1e-12)) dropped_late++;
            if (ref[i * K + k] > -800) dropped_within_800++;
        }
    TU_CHECK_OK(estep_rows_from_dist_cpu(p.log_const, N, K, got, ll_got));
    for (int i = 0; i < N; i++) {
        ck_assert_msg(fabs(ll_got[i] - ll_ref[i]) <= 1e-12 * fabs(ll_ref[i]),
                      "row %d: log p %.17g against %.17g", i, ll_got[i], ll_ref[i]);
        for (int k = 0; k < K; k++) {
            /* to rounding, or left: below -margin, above the truth */
            double a = got[i * K + k], b = ref[i * K + k];
            if (fabs(a - b) > 1e-9 * fabs(b) + 1e-9)
                ck_assert_msg(a < -GMM_ESTEP_PRUNE_MARGIN && a > b, "row %d: %g against %g", i,
                              a, b);
        }
    }
    /* components 2 and 3 are far from the others' rows: most of their pairs are dropped, some
     * after block 0, some (3's, about 744 below) only after a later block; 0 and 1 overlap and
     * are never dropped.
     * (A wrong candidate, the least likely component, bounds log p(x_i) too loosely for that:
     * there the results are only checked.) */
    if (previous != 2)
        ck_assert_msg(dropped > N * K / 3, "only %d of %d pairs dropped", dropped, N * K);
    if (previous != 2)
        ck_assert_msg(dropped_late > N / 10, "only %d pairs dropped after block 0", dropped_late);
    if (previous != 2)
        ck_assert_msg(dropped_within_800 > N / 10, "only %d pairs within 800 dropped",
                      dropped_within_800);
    ck_assert_int_ge(kept, N * 3 / 2); /* clusters 0 and 1 keep both, 2 and 3 themselves */
    free(work), free(ref), free(got), free(ll_ref), free(ll_got), free(dist_ref);
    free_problem(&p);
}

START_TEST(test_pruned_without_candidates) { check_against_all_pairs(0); }
END_TEST

START_TEST(test_pruned_with_previous_responsibilities) { check_against_all_pairs(1); }
END_TEST

START_TEST(test_pruned_with_wrong_candidates) { check_against_all_pairs(2); }
END_TEST

/* A whole fit (the backend skips by default) equals one with tuning.estep_all_pairs. */
START_TEST(test_fit_equals_all_pairs) { pairs_fits_agree(GMM_DEVICE_CPU); }
END_TEST

static Suite *cpu_estep_pruned_suite(void)
{
    Suite *s = suite_create("cpu_estep_pruned");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_pruned_without_candidates);
    tcase_add_test(tc, test_pruned_with_previous_responsibilities);
    tcase_add_test(tc, test_pruned_with_wrong_candidates);
    tcase_add_test(tc, test_fit_equals_all_pairs);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cpu_estep_pruned_suite()); }
