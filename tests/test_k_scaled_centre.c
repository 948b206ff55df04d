/* Check suite for the scaled centring (kernels/scaled_centre.h): the CPU twin against a naive
 * loop, with a strided weight column (wcov's use) and the responsibilities (the M-step's); on a
 * GPU, scaled_centre_cuda in its four storage-type combinations against the CPU twin.
 * Bounds: 1e-15 relative in float64 (the same sqrt and subtraction), 1e-6 with a float32 result;
 * float32 data is compared with the CPU twin on the same rounded data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_gpu.h"
#include "kernels/scaled_centre.h"
#include "tests/testutil.h"

typedef struct {
    size_t n;
    int k, d;
    size_t stride; /* weight stride (>= k) */
} shape;

static const shape SHAPES[] = {{1, 1, 1, 1},     {37, 1, 1, 3},      {300, 3, 1, 3},
                               {257, 4, 5, 4},   {513, 1, 131, 5},   {1237, 3, 784, 3},
                               {999, 10, 64, 10}, {100, 17, 3, 17}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static void make(const shape *s, double **W, double **X, double **M, uint64_t seed)
{
    *W = malloc(sizeof(double) * s->n * s->stride);
    *X = malloc(sizeof(double) * s->n * s->d);
    *M = malloc(sizeof(double) * s->k * s->d);
    ck_assert(*W && *X && *M);
    tu_fill_uniform(*W, s->n * s->stride, 0.0, 1.0, seed);
    tu_fill_uniform(*X, s->n * s->d, -1.0, 2.0, seed + 1);
    tu_fill_uniform(*M, (size_t)s->k * s->d, 0.0, 1.0, seed + 2);
    (*W)[0] = 0.0; /* a zero weight gives an exact zero row */
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    double *W, *X, *M;
    make(s, &W, &X, &M, 500 + _i);
    size_t m = s->n * s->k * s->d;
    double *ref = malloc(sizeof(double) * m), *out = malloc(sizeof(double) * m);
    for (int k = 0; k < s->k; k++)
        for (size_t i = 0; i < s->n; i++)
            for (int j = 0; j < s->d; j++)
                ref[((size_t)k * s->n + i) * s->d + j] =
                    sqrt(W[i * s->stride + k]) * (X[i * s->d + j] - M[(size_t)k * s->d + j]);
    for (size_t q = 0; q < m; q++) out[q] = TU_POISON_F64;
    ck_assert_int_eq(scaled_centre_cpu(X, s->n, s->d, W, s->stride, s->k, M, out), GMM_OK);
    double e = tu_rel_error(out, ref, m);
    ck_assert_msg(e <= 1e-15, "scaled_centre_cpu %zux%dx%d: rel err %g", s->n, s->k, s->d, e);
    free(W), free(X), free(M), free(ref), free(out);
}
END_TEST

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i];
    double *W, *X, *M;
    make(s, &W, &X, &M, 600 + _i);
    const size_t m = s->n * s->k * s->d, nx = s->n * s->d;
    double *ref = malloc(sizeof(double) * m), *reff = malloc(sizeof(double) * m);
    double *out = malloc(sizeof(double) * m), *Xr = malloc(sizeof(double) * nx);
    float *Xf = malloc(sizeof(float) * nx), *outf = malloc(sizeof(float) * m);
    for (size_t q = 0; q < nx; q++) Xr[q] = Xf[q] = (float)X[q];
    ck_assert_int_eq(scaled_centre_cpu(X, s->n, s->d, W, s->stride, s->k, M, ref), GMM_OK);
    ck_assert_int_eq(scaled_centre_cpu(Xr, s->n, s->d, W, s->stride, s->k, M, reff), GMM_OK);
    void *d_W, *d_X, *d_Xf, *d_M, *d_O;
    ck_assert_int_eq(bench_gpu_alloc(&d_W, sizeof(double) * s->n * s->stride), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_X, sizeof(double) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_Xf, sizeof(float) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_M, sizeof(double) * s->k * s->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_O, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_W, W, sizeof(double) * s->n * s->stride), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_Xf, Xf, sizeof(float) * nx), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_M, M, sizeof(double) * s->k * s->d), GMM_OK);
    for (int v = 0; v < 4; v++) {
        const gmm_elem xe = (v & 1) ? GMM_ELEM_F32 : GMM_ELEM_F64;
        const gmm_elem oe = (v & 2) ? GMM_ELEM_F32 : GMM_ELEM_F64;
        for (size_t q = 0; q < m; q++) out[q] = TU_POISON_F64, outf[q] = NAN;
        ck_assert_int_eq(bench_gpu_upload(d_O, oe == GMM_ELEM_F32 ? (void *)outf : (void *)out,
                                          (oe == GMM_ELEM_F32 ? sizeof(float) : sizeof(double)) *
                                              m),
                         GMM_OK);
        gmm_status st = scaled_centre_cuda(xe == GMM_ELEM_F32 ? d_Xf : d_X, xe, s->n, s->d, d_W,
                                           s->stride, s->k, d_M, d_O, oe, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        if (oe == GMM_ELEM_F32) {
            ck_assert_int_eq(bench_gpu_download(outf, d_O, sizeof(float) * m), GMM_OK);
            for (size_t q = 0; q < m; q++) out[q] = outf[q];
        } else {
            ck_assert_int_eq(bench_gpu_download(out, d_O, sizeof(double) * m), GMM_OK);
        }
        double e = tu_rel_error(out, xe == GMM_ELEM_F32 ? reff : ref, m);
        ck_assert_msg(e <= (oe == GMM_ELEM_F32 ? 1e-6 : 1e-15),
                      "scaled_centre_cuda variant %d %zux%dx%d: rel err %g", v, s->n, s->k, s->d,
                      e);
    }
    bench_gpu_free(d_W), bench_gpu_free(d_X), bench_gpu_free(d_Xf), bench_gpu_free(d_M);
    bench_gpu_free(d_O);
    free(W), free(X), free(M), free(ref), free(reff), free(out), free(Xr), free(Xf), free(outf);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(scaled_centre_cpu(NULL, 1, 1, &x, 1, 1, &x, &x), GMM_ERR_ARG);
    ck_assert_int_eq(scaled_centre_cpu(&x, 1, 0, &x, 1, 1, &x, &x), GMM_ERR_ARG);
    ck_assert_int_eq(scaled_centre_cpu(&x, 1, 1, &x, 0, 1, &x, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_scaled_centre");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
