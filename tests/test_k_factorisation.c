/* Check suite for the factorisation experiments (bench/experiments/factorisation.cu): on a GPU,
 * every version (0: chol_inverse_cuda, what the CUDA backend runs; 1-6: the cuSOLVER potrf +
 * TRSM/trtri modes that lost to it) against the CPU twin chol_inverse_cpu: relative error
 * <= 1e-12 on well-conditioned matrices, the strict lower triangle exactly zero, at sizes around
 * the 64-wide blocks, at 784 and with more matrices than the 12 lanes. Version 6 (version 5's
 * calls captured into a CUDA graph) replays them exactly: equal to version 5 to 1e-12 over
 * several replays and after another version grew the lanes' workspaces (a capture again), and
 * under sync debugging (no graph). A matrix that is not positive definite gives
 * GMM_ERR_CHOLESKY and the order of its failing leading minor, the others 0, in every version.
 * Without a GPU only the versions' names are checked. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "kernels/gpu_info.h"
#include "linalg/chol_inverse.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    int dim, n_mats;
} shape;

/* d = 1, around the 64-wide blocks, more matrices than lanes (14 > 12), MNIST's d */
static const shape SHAPES[] = {{1, 1}, {7, 3}, {64, 2}, {65, 5}, {130, 14}, {784, 3}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

typedef struct {
    int dim, n_mats;
    size_t n;
    double *S, *ref, *out;
    double *d_S, *d_U;
    factorisation_plan *plan;
} fixture;

static void fixture_make(fixture *f, int dim, int n_mats, uint64_t seed)
{
    memset(f, 0, sizeof *f);
    f->dim = dim;
    f->n_mats = n_mats;
    f->n = (size_t)dim * dim * n_mats;
    f->S = tu_make_spd(dim, n_mats, seed);
    f->ref = malloc(sizeof(double) * f->n);
    f->out = malloc(sizeof(double) * f->n);
    ck_assert(f->S && f->ref && f->out);
    ck_assert_int_eq(chol_inverse_cpu(f->S, dim, n_mats, f->ref, NULL), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&f->d_S, sizeof(double) * f->n), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&f->d_U, sizeof(double) * f->n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(f->d_S, f->S, sizeof(double) * f->n), GMM_OK);
    gmm_status st = factorisation_plan_create(&f->plan, f->d_S, f->d_U, dim, n_mats,
                                              bench_gpu_resources());
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
}

static void fixture_free(fixture *f)
{
    factorisation_plan_free(f->plan);
    bench_gpu_free(f->d_S);
    bench_gpu_free(f->d_U);
    free(f->S), free(f->ref), free(f->out);
}

/* Runs version v into the poisoned d_U, expects success and every order 0; result in f->out. */
static void run_version(fixture *f, int v)
{
    int *orders = malloc(sizeof(int) * f->n_mats);
    ck_assert(orders);
    for (size_t k = 0; k < f->n; k++) f->out[k] = TU_POISON_F64;
    ck_assert_int_eq(bench_gpu_upload(f->d_U, f->out, sizeof(double) * f->n), GMM_OK);
    for (int m = 0; m < f->n_mats; m++) orders[m] = -1;
    gmm_status st = factorisation_version(v, f->plan, orders);
    ck_assert_msg(st == GMM_OK, "%s: %s", factorisation_version_name(v), gmm_error_message(st));
    for (int m = 0; m < f->n_mats; m++)
        ck_assert_msg(orders[m] == 0, "%s matrix %d: order %d", factorisation_version_name(v), m,
                      orders[m]);
    ck_assert_int_eq(bench_gpu_download(f->out, f->d_U, sizeof(double) * f->n), GMM_OK);
    free(orders);
}

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    const int d = s->dim;
    fixture f;
    fixture_make(&f, d, s->n_mats, 200 + _i);
    for (int v = 0; v < FACTORISATION_N_VERSIONS; v++) {
        run_version(&f, v);
        for (int m = 0; m < f.n_mats; m++)
            for (int i = 0; i < d; i++)
                for (int j = 0; j < i; j++)
                    ck_assert_msg(f.out[(size_t)m * d * d + (size_t)i * d + j] == 0.0,
                                  "%s dim %d: lower triangle not zero at (%d, %d)",
                                  factorisation_version_name(v), d, i, j);
        double e = tu_rel_error(f.out, f.ref, f.n);
        printf("%s: dim %d, %d matrices: relative difference from the CPU %.2e\n",
               factorisation_version_name(v), d, f.n_mats, e);
        ck_assert_msg(e <= BOUND, "%s dim %d: relative difference %g",
                      factorisation_version_name(v), d, e);
    }
    fixture_free(&f);
}
END_TEST

/* Version 6 against version 5 (the same calls): captured, replayed, captured again after
 * version 4 (trtri) asked the lanes for more workspace, and with the graph off. */
START_TEST(gpu_graph_replays_lanes)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    fixture f;
    fixture_make(&f, s->dim, s->n_mats, 400 + _i);
    double *lanes = malloc(sizeof(double) * f.n);
    ck_assert(lanes);
    run_version(&f, 5);
    memcpy(lanes, f.out, sizeof(double) * f.n);
    static const char *const steps[] = {"captured", "replayed", "replayed again",
                                        "after version 4", "without the graph"};
    for (int step = 0; step < 5; step++) {
        if (step == 3) run_version(&f, 4);
        if (step == 4) gmm_cuda_set_sync_debug(1);
        run_version(&f, 6);
        if (step == 4) gmm_cuda_set_sync_debug(0);
        double e = tu_rel_error(f.out, lanes, f.n);
        printf("lanes_graph_trsm %s: dim %d, %d matrices: relative difference from "
               "lanes_potrf_trsm %.2e\n",
               steps[step], s->dim, s->n_mats, e);
        ck_assert_msg(e <= BOUND, "graph %s: differs from the lanes' calls by %g", steps[step], e);
    }
    free(lanes);
    fixture_free(&f);
}
END_TEST

/* Makes leading minor `order` (1-based) of matrix b fail, as test_k_chol_inverse.c does: S[p][p]
 * loses more than the pivot it would have had. */
static void plant_failure(double *S, int dim, int b, int order)
{
    size_t dd = (size_t)dim * dim;
    int p = order - 1;
    double pivot = S[dd * b + (size_t)p * dim + p];
    if (p > 0) {
        double *S11 = malloc(sizeof(double) * p * p), *U11 = malloc(sizeof(double) * p * p);
        ck_assert(S11 && U11);
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++) S11[i * p + j] = S[dd * b + (size_t)i * dim + j];
        ck_assert_int_eq(chol_inverse_cpu(S11, p, 1, U11, NULL), GMM_OK);
        for (int j = 0; j < p; j++) {
            double v = 0;
            for (int i = 0; i <= j; i++) v += U11[i * p + j] * S[dd * b + (size_t)i * dim + p];
            pivot -= v * v;
        }
        free(S11), free(U11);
    }
    S[dd * b + (size_t)p * dim + p] -= pivot + 1.0;
}

/* The second of three 150 x 150 matrices fails at order 1, 37 or 150. */
START_TEST(gpu_not_spd)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    static const int ORDERS[] = {1, 37, 150};
    const int dim = 150, order = ORDERS[_i];
    fixture f;
    fixture_make(&f, dim, 3, 600 + _i);
    plant_failure(f.S, dim, 1, order);
    ck_assert_int_eq(bench_gpu_upload(f.d_S, f.S, sizeof(double) * f.n), GMM_OK);
    for (int v = 0; v < FACTORISATION_N_VERSIONS; v++) {
        int orders[3] = {-1, -1, -1};
        gmm_error_clear();
        gmm_status st = factorisation_version(v, f.plan, orders);
        printf("%s, order %d planted: %s\n", factorisation_version_name(v), order,
               gmm_error_message(st));
        ck_assert_msg(st == GMM_ERR_CHOLESKY, "%s: status %d for a matrix that is not positive "
                      "definite", factorisation_version_name(v), st);
        ck_assert_msg(strstr(gmm_error_message(st), "matrix 1"), "%s: %s",
                      factorisation_version_name(v), gmm_error_message(st));
        ck_assert_msg(orders[1] == order, "%s: order %d, planted %d",
                      factorisation_version_name(v), orders[1], order);
        ck_assert_msg(orders[0] == 0 && orders[2] == 0, "%s: orders %d and %d for the others",
                      factorisation_version_name(v), orders[0], orders[2]);
    }
    fixture_free(&f);
}
END_TEST

/* Every version has a name of its own (the gmm-bench rows and the messages use them). */
START_TEST(names)
{
    for (int v = 0; v < FACTORISATION_N_VERSIONS; v++) {
        ck_assert_str_ne(factorisation_version_name(v), "?");
        for (int w = 0; w < v; w++)
            ck_assert_str_ne(factorisation_version_name(v), factorisation_version_name(w));
    }
    ck_assert_str_eq(factorisation_version_name(FACTORISATION_N_VERSIONS), "?");
    ck_assert_str_eq(factorisation_version_name(-1), "?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_factorisation");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, names);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_graph_replays_lanes, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_not_spd, 0, 3);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
