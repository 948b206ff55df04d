/* Check suite for the fixed-order reductions (kernels/reduce.h): the CPU twins against naive
 * loops (bit for bit: both sum in index order) and against a compensated sum; on a GPU,
 * reduce_sum_cuda and reduce_cols_cuda against the CPU twins, outputs poisoned with NaN first,
 * and twice on the same input to the same bits (the order depends only on the size).
 * Bounds: relative error <= 1e-13 against the compensated sum, <= 1e-12 between the two versions
 * (float64 sums of up to 10^6 terms of one sign: the index-order sum's error grows with n). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "kernels/reduce.h"
#include "tests/testutil.h"

#define BOUND 1e-13
#define GPU_BOUND 1e-12

/* Sizes around the 256-thread blocks and the 256-partial cap: 1, one block, a block and one,
 * the cap's 65536 and one more, a grid-strided 10^6, and n = 0. */
static const size_t SUM_SIZES[] = {1, 255, 256, 257, 65536, 65537, 1000000, 0};
#define N_SUM_SIZES (int)(sizeof SUM_SIZES / sizeof SUM_SIZES[0])

typedef struct {
    size_t n;
    int cols;
} shape;
static const shape COL_SHAPES[] = {{1, 1}, {1000, 1}, {7, 300}, {257, 10}, {60000, 10}, {0, 3}};
#define N_COL_SHAPES (int)(sizeof COL_SHAPES / sizeof COL_SHAPES[0])

/* Values like log p(x_i): one sign, a spread of magnitudes (-1000 to -500, or 0.5 to 1.5). */
static double *make(size_t n, uint64_t seed)
{
    double *x = malloc(sizeof(double) * (n ? n : 1));
    ck_assert(x != NULL);
    if (seed % 2)
        tu_fill_uniform(x, n, -1000.0, -500.0, seed);
    else
        tu_fill_uniform(x, n, 0.5, 1.5, seed);
    return x;
}

/* Kahan-Babuska (Neumaier) sum: a reference more accurate than either version. */
static double accurate_sum(const double *x, size_t n, size_t stride)
{
    double s = 0, c = 0;
    for (size_t i = 0; i < n; i++) {
        double v = x[i * stride], t = s + v;
        c += fabs(s) >= fabs(v) ? (s - t) + v : (v - t) + s;
        s = t;
    }
    return s + c;
}


START_TEST(sum_cpu_matches_naive)
{
    size_t n = SUM_SIZES[_i];
    double *x = make(n, 10 + _i);
    for (int scaled = 0; scaled < 2; scaled++) {
        double scale = scaled ? 1.0 / (double)(n ? n : 1) : 1.0, out = TU_POISON_F64;
        ck_assert_int_eq(reduce_sum_cpu(x, n, scale, &out), GMM_OK);
        double naive = 0;
        for (size_t i = 0; i < n; i++) naive += x[i];
        naive *= scale;
        /* the same order as the loop: the same bits */
        ck_assert_msg(memcmp(&out, &naive, sizeof out) == 0, "n %zu: %.17g != %.17g", n, out,
                      naive);
        double ref = accurate_sum(x, n, 1) * scale;
        if (n == 0)
            ck_assert(out == 0.0);
        else
            ck_assert_msg(tu_rel_error_1(out, ref) <= BOUND, "n %zu: rel err %g", n, tu_rel_error_1(out, ref));
    }
    free(x);
}
END_TEST

START_TEST(cols_cpu_matches_naive)
{
    const shape *s = &COL_SHAPES[_i];
    double *x = make(s->n * s->cols, 20 + _i);
    double *out = malloc(sizeof(double) * s->cols), *naive = malloc(sizeof(double) * s->cols);
    for (int j = 0; j < s->cols; j++) out[j] = TU_POISON_F64;
    ck_assert_int_eq(reduce_cols_cpu(x, s->n, s->cols, out), GMM_OK);
    for (int j = 0; j < s->cols; j++) {
        naive[j] = 0;
        for (size_t i = 0; i < s->n; i++) naive[j] += x[i * s->cols + j];
        ck_assert_msg(memcmp(&out[j], &naive[j], sizeof(double)) == 0, "%zux%d col %d", s->n,
                      s->cols, j);
        double ref = accurate_sum(x + j, s->n, s->cols);
        if (s->n > 0) ck_assert_msg(tu_rel_error_1(out[j], ref) <= BOUND, "col %d: rel err %g", j, tu_rel_error_1(out[j], ref));
    }
    free(x), free(out), free(naive);
}
END_TEST

START_TEST(sum_gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    size_t n = SUM_SIZES[_i];
    double *x = make(n, 30 + _i), *d_x = NULL, *d_partial = NULL, *d_out = NULL;
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_x, sizeof(double) * (n ? n : 1)), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_partial, sizeof(double) * REDUCE_SUM_MAX_PARTIALS),
                     GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_out, sizeof(double)), GMM_OK);
    if (n) ck_assert_int_eq(bench_gpu_upload(d_x, x, sizeof(double) * n), GMM_OK);
    double scale = 1.0 / (double)(n ? n : 1), ref, first = 0;
    ck_assert_int_eq(reduce_sum_cpu(x, n, scale, &ref), GMM_OK);
    const double exact = accurate_sum(x, n, 1) * scale;
    for (int rep = 0; rep < 2; rep++) {
        double out = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_upload(d_out, &out, sizeof out), GMM_OK);
        gmm_status st = reduce_sum_cuda(d_x, n, scale, d_partial, d_out, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(&out, d_out, sizeof out), GMM_OK);
        if (n == 0)
            ck_assert(out == 0.0);
        else
            ck_assert_msg(tu_rel_error_1(out, ref) <= GPU_BOUND && tu_rel_error_1(out, exact) <= BOUND,
                          "reduce_sum_cuda n %zu: %.17g vs %.17g (compensated %.17g)", n, out,
                          ref, exact);
        if (rep == 0) first = out;
        else ck_assert_msg(memcmp(&out, &first, sizeof out) == 0, "n %zu: not repeatable", n);
    }
    bench_gpu_free(d_x), bench_gpu_free(d_partial), bench_gpu_free(d_out);
    free(x);
}
END_TEST

START_TEST(cols_gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &COL_SHAPES[_i];
    size_t m = s->n * s->cols;
    double *x = make(m, 40 + _i), *d_x = NULL, *d_out = NULL;
    double *ref = malloc(sizeof(double) * s->cols), *out = malloc(sizeof(double) * s->cols),
           *first = malloc(sizeof(double) * s->cols);
    ck_assert_int_eq(reduce_cols_cpu(x, s->n, s->cols, ref), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_x, sizeof(double) * (m ? m : 1)), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_out, sizeof(double) * s->cols), GMM_OK);
    if (m) ck_assert_int_eq(bench_gpu_upload(d_x, x, sizeof(double) * m), GMM_OK);
    for (int rep = 0; rep < 2; rep++) {
        for (int j = 0; j < s->cols; j++) out[j] = TU_POISON_F64;
        ck_assert_int_eq(bench_gpu_upload(d_out, out, sizeof(double) * s->cols), GMM_OK);
        gmm_status st = reduce_cols_cuda(d_x, s->n, s->cols, d_out, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        ck_assert_int_eq(bench_gpu_download(out, d_out, sizeof(double) * s->cols), GMM_OK);
        if (s->n == 0) {
            for (int j = 0; j < s->cols; j++) ck_assert(out[j] == 0.0);
        } else {
            double e = tu_rel_error(out, ref, s->cols);
            ck_assert_msg(e <= GPU_BOUND, "reduce_cols_cuda %zux%d: rel err %g", s->n, s->cols, e);
        }
        if (rep == 0) memcpy(first, out, sizeof(double) * s->cols);
        else ck_assert_msg(memcmp(out, first, sizeof(double) * s->cols) == 0, "not repeatable");
    }
    bench_gpu_free(d_x), bench_gpu_free(d_out);
    free(x), free(ref), free(out), free(first);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(reduce_sum_cpu(NULL, 1, 1.0, &x), GMM_ERR_ARG);
    ck_assert_int_eq(reduce_sum_cpu(&x, 1, 1.0, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(reduce_cols_cpu(&x, 1, 0, &x), GMM_ERR_ARG);
    ck_assert_int_eq(reduce_cols_cpu(NULL, 1, 1, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_reduce");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, sum_cpu_matches_naive, 0, N_SUM_SIZES);
    tcase_add_loop_test(tc, cols_cpu_matches_naive, 0, N_COL_SHAPES);
    tcase_add_loop_test(tc, sum_gpu_matches_cpu, 0, N_SUM_SIZES);
    tcase_add_loop_test(tc, cols_gpu_matches_cpu, 0, N_COL_SHAPES);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
