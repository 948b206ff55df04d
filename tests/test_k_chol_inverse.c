/* Check suite for the precision Cholesky factor (linalg/chol_inverse.h): U = R^{-1}, S = R^T R.
 * The CPU twin against the definition (U upper with a positive diagonal and U^T S U = I, which
 * only that U satisfies) and, on a GPU, chol_inverse_cuda against the CPU twin: relative error
 * <= 1e-12 on well-conditioned matrices, at sizes below, at and around its 64-wide blocks and
 * through four levels of splitting (784); on a covariance of rank 60 plus 1e-6 I (condition
 * ~1e6, the fit's kind) ten times the difference between LAPACK (potrf, then a TRSM against the
 * identity) and the CPU twin. The strict lower triangle must be exactly zero. A matrix that is not
 * positive definite gives GMM_ERR_CHOLESKY (CPU) or its info (GPU) with the order of the failing
 * leading minor, in the first block or a later one, while the batch's other matrices are right. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "linalg/chol_inverse.h"
#include "linalg/cholesky.h"
#include "linalg/trsm.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    int dim, batch;
} shape;

static const shape SHAPES[] = {{1, 1},   {2, 2},   {7, 3},   {63, 1},  {64, 1},  {65, 2},
                               {111, 2}, {113, 2}, {200, 3}, {257, 1}, {784, 3}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

/* max |U^T S U - I| for one matrix; also checks the triangle and the diagonal's sign. */
static double definition_error(const double *S, const double *U, int n)
{
    double *SU = malloc(sizeof(double) * n * n), worst = 0;
    ck_assert(SU);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i > j) ck_assert_msg(U[(size_t)i * n + j] == 0.0, "lower triangle not zero");
            if (i == j) ck_assert_msg(U[(size_t)i * n + i] > 0.0, "diagonal not positive");
            double s = 0;
            for (int k = 0; k <= j; k++) s += S[(size_t)i * n + k] * U[(size_t)k * n + j];
            SU[(size_t)i * n + j] = s;
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            for (int k = 0; k <= i; k++) s += U[(size_t)k * n + i] * SU[(size_t)k * n + j];
            double e = fabs(s - (i == j ? 1.0 : 0.0));
            if (e > worst) worst = e;
        }
    free(SU);
    return worst;
}

START_TEST(cpu_meets_definition)
{
    const shape *s = &SHAPES[_i];
    if (s->dim > 300) return; /* the O(d^3) check in plain loops: the GPU case covers 784 */
    size_t dd = (size_t)s->dim * s->dim;
    double *S = tu_make_spd(s->dim, s->batch, 100 + _i), *U = malloc(sizeof(double) * dd * s->batch);
    int orders[4] = {-1, -1, -1, -1};
    ck_assert_int_eq(chol_inverse_cpu(S, s->dim, s->batch, U, orders), GMM_OK);
    for (int b = 0; b < s->batch; b++) {
        ck_assert_int_eq(orders[b], 0);
        double e = definition_error(S + dd * b, U + dd * b, s->dim);
        ck_assert_msg(e <= 1e-12, "dim %d matrix %d: |U^T S U - I| = %g", s->dim, b, e);
    }
    free(S), free(U);
}
END_TEST

/* chol_inverse_cuda of S (batch matrices) against the CPU twin; in_place runs it on one array. */
static void gpu_against_cpu(const double *S, int dim, int batch, int in_place, double bound,
                            const char *what)
{
    size_t n = (size_t)dim * dim * batch;
    double *ref = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    double *d_S = NULL, *d_U = NULL, *d_work = NULL;
    int *d_info = NULL, info[4] = {-1, -1, -1, -1};
    ck_assert(ref && out && batch <= 4);
    ck_assert_int_eq(chol_inverse_cpu(S, dim, batch, ref, NULL), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_S, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_U, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_work, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_info, sizeof(int) * batch), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_S, S, sizeof(double) * n), GMM_OK);
    for (size_t k = 0; k < n; k++) out[k] = TU_POISON_F64; /* a poisoned result array */
    ck_assert_int_eq(bench_gpu_upload(d_U, out, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_work, out, sizeof(double) * n), GMM_OK);
    gmm_status st = chol_inverse_cuda(d_S, dim, batch, in_place ? d_S : d_U, d_work, d_info,
                                      bench_gpu_resources());
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(bench_gpu_download(out, in_place ? d_S : d_U, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_download(info, d_info, sizeof(int) * batch), GMM_OK);
    for (int b = 0; b < batch; b++) ck_assert_msg(info[b] == 0, "%s: info %d", what, info[b]);
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < dim; i++)
            for (int j = 0; j < i; j++)
                ck_assert_msg(out[(size_t)b * dim * dim + (size_t)i * dim + j] == 0.0,
                              "%s dim %d: lower triangle not zero at (%d, %d)", what, dim, i, j);
    double e = tu_rel_error(out, ref, n);
    printf("chol_inverse_cuda %s: dim %d batch %d%s: relative difference from the CPU %.2e\n",
           what, dim, batch, in_place ? " (in place)" : "", e);
    ck_assert_msg(e <= bound, "%s dim %d: relative difference %g", what, dim, e);
    bench_gpu_free(d_S), bench_gpu_free(d_U), bench_gpu_free(d_work), bench_gpu_free(d_info);
    free(ref), free(out);
}

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    double *S = tu_make_spd(s->dim, s->batch, 300 + _i);
    gpu_against_cpu(S, s->dim, s->batch, _i % 2, BOUND, "well-conditioned");
    free(S);
}
END_TEST

/* A covariance as the fit makes them: 60 rows in 160 dimensions (rank <= 60), + 1e-6 I. */
START_TEST(gpu_covariance_like)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const int dim = 160, rows = 60, batch = 2;
    size_t dd = (size_t)dim * dim;
    double *S = calloc(dd * batch, sizeof(double)), *X = malloc(sizeof(double) * rows * dim);
    for (int b = 0; b < batch; b++) {
        tu_fill_uniform(X, (size_t)rows * dim, 0.0, 1.0, 500 + b);
        for (int i = 0; i < dim; i++)
            for (int j = 0; j < dim; j++) {
                double s = 0;
                for (int r = 0; r < rows; r++) s += X[r * dim + i] * X[r * dim + j];
                S[dd * b + (size_t)i * dim + j] = s / rows + (i == j ? 1e-6 : 0.0);
            }
    }
    /* the rounding at this conditioning: LAPACK's potrf and a TRSM against the identity (which
     * give L^{-1} = U^T) against the CPU twin; the GPU may differ by at most ten times that */
    double *L = malloc(sizeof(double) * dd * batch), *U = malloc(sizeof(double) * dd * batch);
    double *twin = malloc(sizeof(double) * dd * batch);
    ck_assert(L && U && twin);
    memcpy(L, S, sizeof(double) * dd * batch);
    ck_assert_int_eq(cholesky_blas(L, dim, batch, NULL), GMM_OK);
    ck_assert_int_eq(chol_inverse_cpu(S, dim, batch, twin, NULL), GMM_OK);
    for (int b = 0; b < batch; b++) {
        double *Ub = U + dd * b;
        for (int i = 0; i < dim; i++)
            for (int j = 0; j < dim; j++) Ub[(size_t)i * dim + j] = i == j;
        ck_assert_int_eq(trsm_blas(L + dd * b, dim, Ub, (size_t)dim), GMM_OK);
        for (int i = 0; i < dim; i++) /* transpose in place */
            for (int j = i + 1; j < dim; j++) {
                double t = Ub[(size_t)i * dim + j];
                Ub[(size_t)i * dim + j] = Ub[(size_t)j * dim + i];
                Ub[(size_t)j * dim + i] = t;
            }
    }
    double lapack = tu_rel_error(U, twin, dd * batch);
    printf("LAPACK potrf + TRSM against the CPU twin, rank 60 + 1e-6 I: %.2e\n", lapack);
    ck_assert(lapack < 1e-6);
    gpu_against_cpu(S, dim, batch, 0, 10 * lapack + 1e-13, "covariance of rank 60 + 1e-6 I");
    free(S), free(X), free(L), free(U), free(twin);
}
END_TEST

/* Makes leading minor `order` (1-based) of matrix b fail: S[p][p] loses more than the
 * pivot it would have had (computed by the CPU twin on the leading block). */
static void plant_failure(double *S, int dim, int b, int order)
{
    size_t dd = (size_t)dim * dim;
    int p = order - 1;
    double pivot = S[dd * b + (size_t)p * dim + p];
    if (p > 0) {
        /* pivot_p = S[p][p] - s^T S11^{-1} s with S11 the leading p x p block: through U11 */
        double *S11 = malloc(sizeof(double) * p * p), *U11 = malloc(sizeof(double) * p * p);
        for (int i = 0; i < p; i++)
            for (int j = 0; j < p; j++) S11[i * p + j] = S[dd * b + (size_t)i * dim + j];
        ck_assert_int_eq(chol_inverse_cpu(S11, p, 1, U11, NULL), GMM_OK);
        for (int j = 0; j < p; j++) { /* (U11^T s)_j */
            double v = 0;
            for (int i = 0; i <= j; i++) v += U11[i * p + j] * S[dd * b + (size_t)i * dim + p];
            pivot -= v * v;
        }
        free(S11), free(U11);
    }
    S[dd * b + (size_t)p * dim + p] -= pivot + 1.0;
}

/* Orders 1, 37, 100 and 150 (the last) of the second of three 150 x 150 matrices (blocks of 37
 * and 38 on the GPU: 37, 100 and 150 lie in its second, third and fourth); order 700 of
 * 784 x 784 (the GPU's fifteenth block of 49). */
static const struct {
    int dim, order;
} FAILURES[] = {{150, 1}, {150, 37}, {150, 100}, {150, 150}, {784, 700}};

static void not_spd_case(int gpu, int which)
{
    const int dim = FAILURES[which].dim, order = FAILURES[which].order, batch = 3;
    size_t dd = (size_t)dim * dim, n = dd * batch;
    double *S = tu_make_spd(dim, batch, 900 + which), *ref = malloc(sizeof(double) * n);
    double *out = malloc(sizeof(double) * n);
    ck_assert_int_eq(chol_inverse_cpu(S, dim, batch, ref, NULL), GMM_OK);
    plant_failure(S, dim, 1, order);
    int orders[3] = {-1, -1, -1};
    if (!gpu) {
        if (dim > 300) goto done;
        gmm_status st = chol_inverse_cpu(S, dim, batch, out, orders);
        ck_assert_int_eq(st, GMM_ERR_CHOLESKY);
        ck_assert_msg(strstr(gmm_error_message(st), "matrix 1 of 3"), "%s", gmm_error_message(st));
    } else {
        double *d_S = NULL, *d_U = NULL, *d_work = NULL;
        int *d_info = NULL;
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_S, sizeof(double) * n), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_U, sizeof(double) * n), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_work, sizeof(double) * n), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_info, sizeof(int) * batch), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_S, S, sizeof(double) * n), GMM_OK);
        ck_assert_int_eq(chol_inverse_cuda(d_S, dim, batch, d_U, d_work, d_info,
                                           bench_gpu_resources()),
                         GMM_OK);
        ck_assert_int_eq(bench_gpu_download(out, d_U, sizeof(double) * n), GMM_OK);
        ck_assert_int_eq(bench_gpu_download(orders, d_info, sizeof(int) * batch), GMM_OK);
        bench_gpu_free(d_S), bench_gpu_free(d_U), bench_gpu_free(d_work), bench_gpu_free(d_info);
    }
    printf("%s: dim %d, failure planted at order %d: orders %d %d %d\n",
           gpu ? "chol_inverse_cuda" : "chol_inverse_cpu", dim, order, orders[0], orders[1],
           orders[2]);
    ck_assert_int_eq(orders[0], 0);
    ck_assert_int_eq(orders[1], order);
    ck_assert_int_eq(orders[2], 0);
    ck_assert(tu_rel_error(out, ref, dd) <= BOUND);
    ck_assert(tu_rel_error(out + 2 * dd, ref + 2 * dd, dd) <= BOUND);
done:
    free(S), free(ref), free(out);
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

START_TEST(bad_arguments)
{
    double S[1] = {1.0}, U[1];
    ck_assert_int_eq(chol_inverse_cpu(NULL, 1, 1, U, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(chol_inverse_cpu(S, 0, 1, U, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(chol_inverse_cpu(S, 1, 0, U, NULL), GMM_ERR_ARG);
    ck_assert_int_ne(chol_inverse_cuda(NULL, 1, 1, U, U, NULL, NULL), GMM_OK);
    ck_assert_int_eq(chol_inverse_cpu(S, 1, 1, U, NULL), GMM_OK);
    ck_assert(fabs(U[0] - 1.0) == 0.0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_chol_inverse");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, cpu_meets_definition, 0, N_SHAPES);
    tcase_add_loop_test(tc, cpu_not_spd, 0, 5);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, gpu_covariance_like);
    tcase_add_loop_test(tc, gpu_not_spd, 0, 5);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
