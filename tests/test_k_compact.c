/* Check suite for the row compaction (kernels/compact.h) and the product of the packed blocks
 * (wcov_packed_cpu, kernels/wcov.h): the CPU twins against naive loops; on a GPU,
 * compact_rows_cuda against its CPU twin, and every version of the M-step's products of the
 * packed blocks (bench/experiments/cov_product.cu: 0 is the CUDA backend's cov_product.cuh, the
 * others the products that lost to it) against wcov_packed_cpu.
 * Bounds: the K + 1 bounds exactly; packed rows to 1e-15 relative in float64 (the same sqrt and
 * subtraction) and 1e-6 in float32; the products to 1e-12. Awkward cases: a component with no kept
 * row, every row kept, weights exactly at 1e-20 (left out), K = 1, d = 1, N not a multiple of any
 * block, odd d (the WMMA path), float32 data. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "kernels/compact.h"
#include "kernels/wcov.h"
#include "tests/testutil.h"

typedef struct {
    size_t n;
    int k, d;
    int pattern; /* 0: nearly hard, last component empty; 1: every row kept; 2: mixed */
} shape;

static const shape SHAPES[] = {{1, 1, 1, 1},      {37, 1, 1, 2},     {300, 3, 1, 0},
                               {257, 4, 5, 0},    {513, 2, 131, 1},  {1237, 5, 784, 0},
                               {999, 10, 64, 2},  {100, 17, 3, 0}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

static void make(const shape *s, double **W, double **X, double **M, uint64_t seed)
{
    *W = malloc(sizeof(double) * s->n * s->k);
    *X = malloc(sizeof(double) * s->n * s->d);
    *M = malloc(sizeof(double) * s->k * s->d);
    ck_assert(*W && *X && *M);
    tu_fill_uniform(*X, s->n * s->d, -1.0, 2.0, seed);
    tu_fill_uniform(*M, (size_t)s->k * s->d, 0.0, 1.0, seed + 1);
    uint64_t st = seed + 2;
    for (size_t i = 0; i < s->n; i++)
        for (int k = 0; k < s->k; k++) {
            double u = tu_rand_uniform(&st), w;
            if (s->pattern == 1)
                w = 0.01 + u;
            else if (s->pattern == 0 && s->k > 1 && k == s->k - 1)
                w = u < 0.5 ? 1e-20 : 1e-25; /* the empty component: nothing above 1e-20 */
            else if (s->pattern == 0)
                w = k == (int)(i % (s->k > 1 ? s->k - 1 : 1))
                        ? 0.5 + u : (u < 0.3 ? 1e-25 : u < 0.5 ? 1e-20 : u < 0.7 ? 0.0 : 1e-19);
            else
                w = u < 0.4 ? 1e-30 : u < 0.5 ? 1e-20 : u;
            (*W)[i * s->k + k] = w;
        }
}

/* The specification written out again: component by component, rows in order. */
static int naive_compact(const shape *s, const double *W, const double *X, const double *M,
                         double *packed, int *bounds)
{
    int p = 0;
    for (int k = 0; k < s->k; k++) {
        bounds[k] = p;
        for (size_t i = 0; i < s->n; i++) {
            double w = W[i * s->k + k];
            if (w <= 1e-20) continue;
            for (int j = 0; j < s->d; j++)
                packed[(size_t)p * s->d + j] =
                    sqrt(w) * (X[i * s->d + j] - M[(size_t)k * s->d + j]);
            p++;
        }
    }
    bounds[s->k] = p;
    return p;
}

static void naive_product(const double *A, int rows, int d, double *out)
{
    for (int a = 0; a < d; a++)
        for (int b = 0; b <= a; b++) {
            double t = 0;
            for (int i = 0; i < rows; i++) t += A[(size_t)i * d + a] * A[(size_t)i * d + b];
            out[(size_t)a * d + b] = t;
        }
}

static double lower_error(const double *a, const double *b, int d)
{
    double num = 0, den = 0;
    for (int r = 0; r < d; r++)
        for (int c = 0; c <= r; c++) {
            double x = a[(size_t)r * d + c], y = b[(size_t)r * d + c];
            if (!isfinite(x)) return INFINITY;
            num += (x - y) * (x - y);
            den += y * y;
        }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i];
    double *W, *X, *M;
    make(s, &W, &X, &M, 300 + _i);
    size_t cap = s->n * s->k * s->d;
    double *ref = malloc(sizeof(double) * cap), *out = malloc(sizeof(double) * cap);
    int *rb = malloc(sizeof(int) * (s->k + 1)), *ob = malloc(sizeof(int) * (s->k + 1));
    int total = naive_compact(s, W, X, M, ref, rb);
    poison(out, cap);
    ck_assert_int_eq(compact_rows_cpu(X, s->n, s->d, W, s->k, s->k, M, out, ob), GMM_OK);
    for (int k = 0; k <= s->k; k++) ck_assert_int_eq(ob[k], rb[k]);
    if (s->pattern == 1) ck_assert_int_eq(total, (int)(s->n * s->k));
    if (s->pattern == 0 && s->k > 1) ck_assert_int_eq(rb[s->k] - rb[s->k - 1], 0);
    if (total > 0) {
        double e = tu_rel_error(out, ref, (size_t)total * s->d);
        ck_assert_msg(e <= 1e-15, "compact_rows_cpu %zux%dx%d: rel err %g", s->n, s->k, s->d, e);
    }
    /* the products of the packed blocks */
    double *pr = malloc(sizeof(double) * s->d * s->d), *po = malloc(sizeof(double) * s->d * s->d);
    for (int k = 0; k < s->k; k++) {
        const double *Ak = ref + (size_t)rb[k] * s->d;
        int rows = rb[k + 1] - rb[k];
        naive_product(Ak, rows, s->d, pr);
        poison(po, (size_t)s->d * s->d);
        ck_assert_int_eq(wcov_packed_cpu(Ak, rows, s->d, 0, po), GMM_OK);
        double e = lower_error(po, pr, s->d);
        ck_assert_msg(e <= 1e-12, "wcov_packed_cpu k=%d: rel err %g", k, e);
        /* accumulating the same block twice doubles it */
        ck_assert_int_eq(wcov_packed_cpu(Ak, rows, s->d, 1, po), GMM_OK);
        for (size_t q = 0; q < (size_t)s->d * s->d; q++) pr[q] *= 2;
        e = lower_error(po, pr, s->d);
        ck_assert_msg(e <= 1e-12, "wcov_packed_cpu accumulate k=%d: rel err %g", k, e);
    }
    free(pr), free(po);
    free(W), free(X), free(M), free(ref), free(out), free(rb), free(ob);
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
    make(s, &W, &X, &M, 400 + _i);
    const size_t cap = s->n * s->k * s->d, K = s->k, d = s->d;
    double *ref = malloc(sizeof(double) * cap), *out = malloc(sizeof(double) * cap);
    float *Xf = malloc(sizeof(float) * s->n * d), *outf = malloc(sizeof(float) * cap);
    double *Xr = malloc(sizeof(double) * s->n * d), *reff = malloc(sizeof(double) * cap);
    int *rb = malloc(sizeof(int) * (K + 1)), *ob = malloc(sizeof(int) * (K + 1));
    for (size_t q = 0; q < s->n * d; q++) Xr[q] = Xf[q] = (float)X[q];
    ck_assert_int_eq(compact_rows_cpu(X, s->n, d, W, K, K, M, ref, rb), GMM_OK);
    ck_assert_int_eq(compact_rows_cpu(Xr, s->n, d, W, K, K, M, reff, ob), GMM_OK);
    const int total = rb[K];

    void *d_W, *d_X, *d_Xf, *d_M, *d_P, *d_ws, *d_C;
    size_t ws = 0;
    /* a workspace for more rows than are used, as the backend's is for its last chunk */
    ck_assert_int_eq(compact_rows_workspace_bytes(s->n + 5, s->k, &ws), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_W, sizeof(double) * s->n * K), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_X, sizeof(double) * s->n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_Xf, sizeof(float) * s->n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_M, sizeof(double) * K * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_P, sizeof(double) * cap), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_ws, ws), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc(&d_C, sizeof(double) * K * d * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_W, W, sizeof(double) * s->n * K), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_X, X, sizeof(double) * s->n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_Xf, Xf, sizeof(float) * s->n * d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_M, M, sizeof(double) * K * d), GMM_OK);

    for (int v = 0; v < 3; v++) { /* f64 -> f64, f32 -> f64, f32 -> f32 */
        const gmm_elem xe = v == 0 ? GMM_ELEM_F64 : GMM_ELEM_F32;
        const gmm_elem pe = v == 2 ? GMM_ELEM_F32 : GMM_ELEM_F64;
        const size_t es = pe == GMM_ELEM_F32 ? sizeof(float) : sizeof(double);
        poison(out, cap);
        for (size_t q = 0; q < cap; q++) outf[q] = NAN;
        ck_assert_int_eq(bench_gpu_upload(d_P, pe == GMM_ELEM_F32 ? (void *)outf : (void *)out,
                                          es * cap), GMM_OK);
        for (size_t k = 0; k <= K; k++) ob[k] = -7;
        gmm_status st = compact_rows_cuda(v == 0 ? d_X : d_Xf, xe, s->n, d, d_W, K, K, d_M, d_P,
                                          pe, d_ws, ws, ob, NULL);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        for (size_t k = 0; k <= K; k++)
            ck_assert_msg(ob[k] == rb[k], "variant %d bound %zu: %d, CPU %d", v, k, ob[k], rb[k]);
        if (total == 0) continue;
        double e;
        if (pe == GMM_ELEM_F32) {
            ck_assert_int_eq(bench_gpu_download(outf, d_P, sizeof(float) * total * d), GMM_OK);
            for (size_t q = 0; q < (size_t)total * d; q++) out[q] = outf[q];
            e = tu_rel_error(out, reff, (size_t)total * d);
        } else {
            ck_assert_int_eq(bench_gpu_download(out, d_P, sizeof(double) * total * d), GMM_OK);
            e = tu_rel_error(out, v == 0 ? ref : reff, (size_t)total * d);
        }
        ck_assert_msg(e <= (pe == GMM_ELEM_F32 ? 1e-6 : 1e-15),
                      "compact_rows_cuda variant %d %zux%zux%zu: rel err %g", v, s->n, K, d, e);
    }

    /* every version's products of all the packed blocks at once (float64, block k on lane
     * k % min(K, 12) as in the M-step; K = 17 puts two blocks on some lanes), fresh and
     * accumulated, against the CPU twin; an empty block must come out zero */
    ck_assert_int_eq(bench_gpu_upload(d_P, ref, sizeof(double) * (total > 0 ? total : 1) * d),
                     GMM_OK);
    double *pr = calloc(K * d * d, sizeof(double)), *po = malloc(sizeof(double) * K * d * d);
    ck_assert(pr && po);
    for (size_t k = 0; k < K; k++)
        ck_assert_int_eq(wcov_packed_cpu(ref + (size_t)rb[k] * d, rb[k + 1] - rb[k], d, 0,
                                         pr + k * d * d), GMM_OK);
    for (int v = 0; v < COV_PRODUCT_N_VERSIONS; v++)
        for (int accumulate = 0; accumulate < 2; accumulate++) {
            if (!accumulate) {
                poison(po, K * d * d);
                ck_assert_int_eq(bench_gpu_upload(d_C, po, sizeof(double) * K * d * d), GMM_OK);
            }
            gmm_status st = cov_product_version(v, (const double *)d_P, (int)d, rb, (int)K,
                                                accumulate, (double *)d_C, bench_gpu_resources());
            ck_assert_msg(st == GMM_OK, "%s: %s", cov_product_version_name(v),
                          gmm_error_message(st));
            ck_assert_int_eq(bench_gpu_download(po, d_C, sizeof(double) * K * d * d), GMM_OK);
            for (size_t k = 0; k < K; k++) {
                /* accumulating onto the fresh products doubles them */
                for (size_t q = 0; q < d * d && accumulate; q++) pr[k * d * d + q] *= 2;
                double e = lower_error(po + k * d * d, pr + k * d * d, (int)d);
                for (size_t q = 0; q < d * d && accumulate; q++) pr[k * d * d + q] /= 2;
                ck_assert_msg(e <= 1e-12, "%s%s k=%zu rows=%d d=%zu: rel err %g",
                              cov_product_version_name(v), accumulate ? " accumulate" : "", k,
                              rb[k + 1] - rb[k], d, e);
            }
        }
    free(pr), free(po);
    bench_gpu_free(d_W), bench_gpu_free(d_X), bench_gpu_free(d_Xf), bench_gpu_free(d_M);
    bench_gpu_free(d_P), bench_gpu_free(d_ws), bench_gpu_free(d_C);
    free(W), free(X), free(M), free(ref), free(out), free(Xf), free(outf), free(Xr), free(reff);
    free(rb), free(ob);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    int b[2];
    ck_assert_int_eq(compact_rows_cpu(NULL, 1, 1, &x, 1, 1, &x, &x, b), GMM_ERR_ARG);
    ck_assert_int_eq(compact_rows_cpu(&x, 1, 0, &x, 1, 1, &x, &x, b), GMM_ERR_ARG);
    ck_assert_int_eq(compact_rows_cpu(&x, 1, 1, &x, 1, 0, &x, &x, b), GMM_ERR_ARG);
    ck_assert_int_eq(wcov_packed_cpu(NULL, 1, 1, 0, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_compact");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
