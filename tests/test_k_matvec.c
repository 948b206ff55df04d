/* Check suite for the matrix-vector product (kernels/matvec.h), float32 and float64: the CPU twins
 * and OpenBLAS against a naive float64 loop; on a GPU, the float32 CUDA kernel and cuBLAS SGEMV,
 * and every float64 version of bench/experiments/matvec.cu (0: the library's cuBLAS DGEMV; 1: the
 * hand-written kernel, matvec_f64_cuda_v1), against the CPU twin. Bounds (relative error, 2-norm): float64 1e-12; float32 1e-5 (float32 sums of up to
 * 4099 terms, about sqrt(n) * 6e-8). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "kernels/matvec.h"
#include "tests/testutil.h"

typedef struct {
    size_t rows, cols;
} shape;

/* 1 x 1, one row, one column, not multiples of 4 (scalar loads), multiples (16-byte loads). */
static const shape SHAPES[] = {{1, 1}, {1, 1000}, {1000, 1}, {333, 517}, {1000, 1024}, {7, 4099}, {10, 2}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static void naive(const double *A, const double *x, size_t m, size_t n, double *y)
{
    for (size_t i = 0; i < m; i++) {
        double s = 0;
        for (size_t j = 0; j < n; j++) s += A[i * n + j] * x[j];
        y[i] = s;
    }
}

static void check_f64(const shape *s, uint64_t seed, int gpu)
{
    double *A = malloc(sizeof(double) * s->rows * s->cols), *x = malloc(sizeof(double) * s->cols);
    double *ref = malloc(sizeof(double) * s->rows), *y = malloc(sizeof(double) * s->rows);
    tu_fill_uniform(A, s->rows * s->cols, -1.0, 1.0, seed);
    tu_fill_uniform(x, s->cols, 0.5, 1.5, seed + 1);
    double *d_A = NULL, *d_x = NULL, *d_y = NULL;
    if (gpu) {
        ck_assert_int_eq(matvec_f64_cpu(A, s->rows, s->cols, x, ref), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_A, sizeof(double) * s->rows * s->cols), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_x, sizeof(double) * s->cols), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_y, sizeof(double) * s->rows), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_A, A, sizeof(double) * s->rows * s->cols), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_x, x, sizeof(double) * s->cols), GMM_OK);
    } else {
        naive(A, x, s->rows, s->cols, ref);
    }
    for (int v = 0; v < (gpu ? MATVEC_F64_N_VERSIONS : 2); v++) {
        for (size_t i = 0; i < s->rows; i++) y[i] = TU_POISON_F64;
        gmm_status st;
        if (gpu) {
            ck_assert_int_eq(bench_gpu_upload(d_y, y, sizeof(double) * s->rows), GMM_OK);
            st = matvec_f64_version(v, d_A, s->rows, s->cols, d_x, d_y, bench_gpu_resources());
            ck_assert_msg(st == GMM_OK, "%s: %s", matvec_f64_version_name(v), gmm_error_message(st));
            ck_assert_int_eq(bench_gpu_download(y, d_y, sizeof(double) * s->rows), GMM_OK);
            for (size_t i = 0; i < s->rows; i++)
                ck_assert_msg(!isnan(y[i]), "%s: row %zu not written", matvec_f64_version_name(v), i);
        } else {
            st = v ? matvec_f64_blas(A, s->rows, s->cols, x, y) : matvec_f64_cpu(A, s->rows, s->cols, x, y);
            ck_assert_int_eq(st, GMM_OK);
        }
        double e = tu_rel_error(y, ref, s->rows);
        ck_assert_msg(e <= 1e-12, "f64 %s version %d %zux%zu: rel err %g", gpu ? "gpu" : "cpu", v,
                      s->rows, s->cols, e);
    }
    bench_gpu_free(d_A), bench_gpu_free(d_x), bench_gpu_free(d_y);
    free(A), free(x), free(ref), free(y);
}

static void check_f32(const shape *s, uint64_t seed, int gpu)
{
    float *A = malloc(sizeof(float) * s->rows * s->cols), *x = malloc(sizeof(float) * s->cols);
    float *y = malloc(sizeof(float) * s->rows), *cpu = malloc(sizeof(float) * s->rows);
    double *Ad = malloc(sizeof(double) * s->rows * s->cols), *xd = malloc(sizeof(double) * s->cols);
    double *ref = malloc(sizeof(double) * s->rows), *yd = malloc(sizeof(double) * s->rows);
    tu_fill_uniform_f(A, s->rows * s->cols, -1.0f, 1.0f, seed);
    tu_fill_uniform_f(x, s->cols, 0.5f, 1.5f, seed + 1);
    for (size_t i = 0; i < s->rows * s->cols; i++) Ad[i] = A[i];
    for (size_t j = 0; j < s->cols; j++) xd[j] = x[j];
    float *d_A = NULL, *d_x = NULL, *d_y = NULL;
    if (gpu) {
        ck_assert_int_eq(matvec_f32_cpu(A, s->rows, s->cols, x, cpu), GMM_OK);
        for (size_t i = 0; i < s->rows; i++) ref[i] = cpu[i];
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_A, sizeof(float) * s->rows * s->cols), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_x, sizeof(float) * s->cols), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_y, sizeof(float) * s->rows), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_A, A, sizeof(float) * s->rows * s->cols), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_x, x, sizeof(float) * s->cols), GMM_OK);
    } else {
        naive(Ad, xd, s->rows, s->cols, ref);
    }
    for (int v = 0; v < 2; v++) {
        for (size_t i = 0; i < s->rows; i++) y[i] = __builtin_nanf("");
        gmm_status st;
        if (gpu) {
            ck_assert_int_eq(bench_gpu_upload(d_y, y, sizeof(float) * s->rows), GMM_OK);
            st = v ? matvec_f32_cublas(d_A, s->rows, s->cols, d_x, d_y, bench_gpu_resources())
                   : matvec_f32_cuda(d_A, s->rows, s->cols, d_x, d_y, NULL);
            ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
            ck_assert_int_eq(bench_gpu_download(y, d_y, sizeof(float) * s->rows), GMM_OK);
        } else {
            st = v ? matvec_f32_blas(A, s->rows, s->cols, x, y) : matvec_f32_cpu(A, s->rows, s->cols, x, y);
            ck_assert_int_eq(st, GMM_OK);
        }
        for (size_t i = 0; i < s->rows; i++) yd[i] = isfinite(y[i]) ? y[i] : NAN;
        double e = tu_rel_error(yd, ref, s->rows);
        ck_assert_msg(e <= 1e-5, "f32 %s version %d %zux%zu: rel err %g", gpu ? "gpu" : "cpu", v,
                      s->rows, s->cols, e);
    }
    bench_gpu_free(d_A), bench_gpu_free(d_x), bench_gpu_free(d_y);
    free(A), free(x), free(y), free(cpu), free(Ad), free(xd), free(ref), free(yd);
}

START_TEST(cpu_matches_naive)
{
    check_f64(&SHAPES[_i], 1500 + _i, 0);
    check_f32(&SHAPES[_i], 1600 + _i, 0);
}
END_TEST

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    check_f64(&SHAPES[_i], 1700 + _i, 1);
    check_f32(&SHAPES[_i], 1800 + _i, 1);
}
END_TEST

/* A version number the experiments do not have is refused (see test_k_cholesky.c). */
START_TEST(unknown_version)
{
    double x[1] = {1.0}, y[1];
    ck_assert_int_ne(matvec_f64_version(MATVEC_F64_N_VERSIONS, x, 1, 1, x, y, NULL), GMM_OK);
    ck_assert_int_ne(matvec_f64_version(-1, x, 1, 1, x, y, NULL), GMM_OK);
    ck_assert_str_eq(matvec_f64_version_name(MATVEC_F64_N_VERSIONS), "?");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_matvec");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, unknown_version);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
