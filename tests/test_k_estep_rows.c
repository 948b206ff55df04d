/* Check suite for the E-step's row operation (kernels/estep_rows.h): the CPU twin (and its
 * second half, estep_rows_from_dist_cpu) against naive double loops, on random shapes in every
 * mode and on extreme rows (log-probabilities all near -1e300, differing by 1000, K = 1, d = 1),
 * and the projected mode reading a column-blocked product (full and tied, blocks of 1, 3, 16
 * and 112 columns, the last one narrower);
 * on a GPU, estep_rows_cuda and estep_rows_f32_cuda against the CPU twin on the same inputs,
 * outputs poisoned with NaN first, and estep_rows_from_dist_cuda against estep_rows_from_dist_cpu
 * (each value to 1e-12 relative, rows where the responsibilities underflow included).
 * Bound: relative error (2-norm) <= 1e-12 for log_resp and log p(x) (float64 sums of <= 784
 * terms in another order; the f32 entry converts Y exactly, so the same bound holds). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "kernels/estep_rows.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    size_t n;
    int k, d;
} shape;

/* Awkward shapes: 1 x 1 x 1, K = 1, d = 1, d = 32 and 33 (the lanes' tail), d = 64 and 65 (two
 * accumulators), K past the 4 warps of a block and past 32 (the log-sum-exp lanes), the GMM's
 * d = 784. */
static const shape SHAPES[] = {{1, 1, 1},    {37, 1, 5},    {300, 5, 1},  {65, 4, 32},
                               {66, 3, 33},  {40, 7, 64},   {41, 9, 65},  {129, 33, 2},
                               {50, 70, 3},  {513, 17, 131}, {64, 10, 784}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])
static const estep_rows_mode MODES[] = {ESTEP_ROWS_PROJECTED, ESTEP_ROWS_DIAG,
                                        ESTEP_ROWS_SPHERICAL};
static const char *MODE_NAMES[] = {"projected", "diag", "spherical"};

/* The inputs of one call: Y with ld_y = width + 3 (padding never read) and a component stride
 * of d for PROJECTED when full (width K d), 0 otherwise; col_block 0 (no blocks) unless a
 * blocked test sets it. */
typedef struct {
    estep_rows_mode mode;
    size_t n, ld_y, comp_stride, col_block;
    int k, d;
    double *Y, *centers, *scales, *log_const;
} inputs;

static void make(inputs *in, const shape *s, estep_rows_mode mode, int full, uint64_t seed)
{
    in->mode = mode;
    in->n = s->n;
    in->k = s->k;
    in->d = s->d;
    size_t width = mode == ESTEP_ROWS_PROJECTED && full ? (size_t)s->k * s->d : (size_t)s->d;
    in->comp_stride = mode == ESTEP_ROWS_PROJECTED && full ? (size_t)s->d : 0;
    in->ld_y = width + 3;
    in->col_block = 0;
    in->Y = malloc(sizeof(double) * s->n * in->ld_y);
    in->centers = malloc(sizeof(double) * s->k * s->d);
    in->scales = malloc(sizeof(double) * s->k * s->d);
    in->log_const = malloc(sizeof(double) * s->k);
    ck_assert(in->Y && in->centers && in->scales && in->log_const);
    tu_fill_uniform(in->Y, s->n * in->ld_y, -1.0, 2.0, seed);
    tu_fill_uniform(in->centers, (size_t)s->k * s->d, -1.0, 2.0, seed + 1);
    tu_fill_uniform(in->scales, (size_t)s->k * s->d, 0.5, 2.0, seed + 2);
    tu_fill_uniform(in->log_const, s->k, -50.0, 10.0, seed + 3);
}

static void release(inputs *in)
{
    free(in->Y), free(in->centers), free(in->scales), free(in->log_const);
}

/* Column of y_j of component k in a row (estep_rows.h's layouts, written out). */
static size_t column(const inputs *in, int k, int j)
{
    size_t B = in->col_block, d = (size_t)in->d;
    if (B == 0 || B >= d) return (size_t)k * in->comp_stride + (size_t)j;
    size_t j0 = (size_t)j - (size_t)j % B, w = d - j0 < B ? d - j0 : B;
    if (in->comp_stride == 0) return (size_t)j;
    return j0 * (size_t)in->k + (size_t)k * w + ((size_t)j - j0);
}

/* The definition, written out: lp[i, k], then max, sum of exp, log, differences. */
static void naive(const inputs *in, double *log_resp, double *lpn)
{
    const int K = in->k, d = in->d;
    double *lp = malloc(sizeof(double) * K);
    ck_assert(lp != NULL);
    for (size_t i = 0; i < in->n; i++) {
        for (int k = 0; k < K; k++) {
            double s = 0;
            for (int j = 0; j < d; j++) {
                double y = in->Y[i * in->ld_y + column(in, k, j)];
                double c = in->centers[(size_t)k * d + j];
                if (in->mode == ESTEP_ROWS_DIAG) {
                    double p = in->scales[(size_t)k * d + j];
                    s += (y - c) * p * ((y - c) * p);
                } else {
                    s += (y - c) * (y - c);
                }
            }
            if (in->mode == ESTEP_ROWS_SPHERICAL) s = s * (in->scales[k] * in->scales[k]);
            lp[k] = in->log_const[k] - s / 2;
        }
        double mx = -INFINITY;
        for (int k = 0; k < K; k++) mx = fmax(mx, lp[k]);
        double sum = 0;
        for (int k = 0; k < K; k++) sum += exp(lp[k] - mx);
        lpn[i] = mx + log(sum);
        for (int k = 0; k < K; k++) log_resp[i * K + k] = lp[k] - lpn[i];
    }
    free(lp);
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

static gmm_status run_cpu(const inputs *in, double *log_resp, double *lpn)
{
    return estep_rows_cpu(in->mode, in->Y, in->ld_y, in->comp_stride, in->col_block, in->centers,
                          in->mode == ESTEP_ROWS_PROJECTED ? NULL : in->scales, in->log_const,
                          in->n, in->k, in->d, log_resp, lpn);
}

static void expect_close(const char *what, const inputs *in, const double *lr, const double *ref_lr,
                         const double *lpn, const double *ref_lpn)
{
    size_t m = in->n * in->k;
    double e1 = tu_rel_error(lr, ref_lr, m), e2 = tu_rel_error(lpn, ref_lpn, in->n);
    ck_assert_msg(e1 <= BOUND && e2 <= BOUND,
                  "%s %s %zux%dx%d (stride %zu): log_resp rel err %g, log p(x) rel err %g", what,
                  MODE_NAMES[in->mode], in->n, in->k, in->d, in->comp_stride, e1, e2);
}

/* One call's outputs and their reference, n x k and n values each. */
typedef struct {
    double *lr, *lpn, *ref, *ref_lpn;
} outputs;

static void outputs_alloc(outputs *o, const inputs *in)
{
    size_t m = in->n * in->k;
    o->ref = malloc(sizeof(double) * m), o->ref_lpn = malloc(sizeof(double) * in->n);
    o->lr = malloc(sizeof(double) * m), o->lpn = malloc(sizeof(double) * in->n);
    ck_assert(o->ref && o->ref_lpn && o->lr && o->lpn);
}

static void outputs_free(outputs *o) { free(o->ref), free(o->ref_lpn), free(o->lr), free(o->lpn); }

/* estep_rows_cpu on in (outputs poisoned first) against the naive loops. */
static void cpu_against_naive(const inputs *in, const char *what, outputs *o)
{
    outputs_alloc(o, in);
    naive(in, o->ref, o->ref_lpn);
    poison(o->lr, in->n * in->k), poison(o->lpn, in->n);
    ck_assert_int_eq(run_cpu(in, o->lr, o->lpn), GMM_OK);
    expect_close(what, in, o->lr, o->ref, o->lpn, o->ref_lpn);
}

/* _i runs over shapes x modes x {tied-like, full-like} (the stride only matters for PROJECTED). */
START_TEST(cpu_matches_naive)
{
    const shape *s = &SHAPES[_i / 6];
    estep_rows_mode mode = MODES[(_i / 2) % 3];
    inputs in;
    outputs o;
    make(&in, s, mode, _i % 2, 100 + _i);
    cpu_against_naive(&in, "estep_rows_cpu", &o);
    /* each row's responsibilities sum to 1 */
    for (size_t i = 0; i < in.n; i++) {
        double t = 0;
        for (int k = 0; k < in.k; k++) t += exp(o.lr[i * in.k + k]);
        ck_assert_msg(fabs(t - 1) <= 1e-12, "row %zu: sum of responsibilities %.17g", i, t);
    }
    outputs_free(&o);
    release(&in);
}
END_TEST

/* The second half alone: squared distances from the naive loop, then the normalisation. */
START_TEST(from_dist_matches_naive)
{
    const shape *s = &SHAPES[_i];
    inputs in;
    make(&in, s, ESTEP_ROWS_PROJECTED, 0, 300 + _i);
    size_t m = in.n * in.k;
    double *ref = malloc(sizeof(double) * m), *ref_lpn = malloc(sizeof(double) * in.n);
    double *dist = malloc(sizeof(double) * m), *lpn = malloc(sizeof(double) * in.n);
    naive(&in, ref, ref_lpn);
    for (size_t i = 0; i < in.n; i++)
        for (int k = 0; k < in.k; k++) {
            double t = 0;
            for (int j = 0; j < in.d; j++) {
                double u = in.Y[i * in.ld_y + j] - in.centers[(size_t)k * in.d + j];
                t += u * u;
            }
            dist[i * in.k + k] = t;
        }
    poison(lpn, in.n);
    ck_assert_int_eq(estep_rows_from_dist_cpu(in.log_const, in.n, in.k, dist, lpn), GMM_OK);
    expect_close("estep_rows_from_dist_cpu", &in, dist, ref, lpn, ref_lpn);
    free(ref), free(ref_lpn), free(dist), free(lpn);
    release(&in);
}
END_TEST

/* Extreme rows, K = 3, d = 2, every center the same and Y = that center (s = 0, so
 * lp = log_const):
 *   0: all lp = -1e300: finite, log p(x) = -1e300 (log 3 is below its rounding), log_resp 0;
 *   1: lp = 0, -1000, -2000: exp(-1000) underflows, log_resp = lp exactly, log p(x) = 0;
 *   2: lp = -1e300, 0, -1e300: the far ones vanish, log p(x) = 0. */
static const double EXTREME_CONST[][3] = {
    {-1e300, -1e300, -1e300}, {0, -1000, -2000}, {-1e300, 0, -1e300}};
static const double EXTREME_LR[][3] = {{0, 0, 0}, {0, -1000, -2000}, {-1e300, 0, -1e300}};
static const double EXTREME_LPN[] = {-1e300, 0, 0};

typedef gmm_status (*rows_fn)(const inputs *in, double *log_resp, double *lpn);

static void check_extremes(const char *what, rows_fn fn)
{
    for (int c = 0; c < 3; c++)
        for (int m = 0; m < 3; m++) {
            shape s = {4, 3, 2};
            inputs in;
            make(&in, &s, MODES[m], 1, 500 + c);
            for (int k = 0; k < in.k; k++)
                for (int j = 0; j < in.d; j++) {
                    in.centers[k * in.d + j] = in.centers[j];
                    for (size_t i = 0; i < in.n; i++)
                        in.Y[i * in.ld_y + k * in.comp_stride + j] = in.centers[j];
                }
            memcpy(in.log_const, EXTREME_CONST[c], sizeof EXTREME_CONST[c]);
            double lr[12], lpn[4];
            poison(lr, 12), poison(lpn, 4);
            ck_assert_int_eq(fn(&in, lr, lpn), GMM_OK);
            for (size_t i = 0; i < in.n; i++) {
                ck_assert_msg(isfinite(lpn[i]) && lpn[i] == EXTREME_LPN[c],
                              "%s %s case %d row %zu: log p(x) %.17g", what, MODE_NAMES[m], c, i,
                              lpn[i]);
                for (int k = 0; k < 3; k++)
                    ck_assert_msg(lr[i * 3 + k] == EXTREME_LR[c][k],
                                  "%s %s case %d row %zu: log_resp[%d] %.17g", what,
                                  MODE_NAMES[m], c, i, k, lr[i * 3 + k]);
            }
            release(&in);
        }
}

START_TEST(cpu_extremes) { check_extremes("estep_rows_cpu", run_cpu); }
END_TEST

/* K = 1: log_resp is exactly 0 and log p(x) the log-probability itself. */
START_TEST(cpu_one_component)
{
    shape s = {20, 1, 7};
    inputs in;
    make(&in, &s, ESTEP_ROWS_DIAG, 0, 600);
    double lr[20], lpn[20], ref[20], ref_lpn[20];
    naive(&in, ref, ref_lpn);
    ck_assert_int_eq(run_cpu(&in, lr, lpn), GMM_OK);
    for (int i = 0; i < 20; i++) {
        ck_assert(lr[i] == 0.0);
        ck_assert_double_eq_tol(lpn[i], ref_lpn[i], 1e-12 * fabs(ref_lpn[i]));
    }
    release(&in);
}
END_TEST

/* The column-blocked layouts: _i over BLOCKED_SHAPES x blocks x {tied, full}. */
static const shape BLOCKED_SHAPES[] = {{33, 3, 7}, {70, 10, 784}};
static const size_t BLOCKS[] = {1, 3, 16, 112};
#define N_BLOCKED (int)(2 * 4 * 2)

static void make_blocked(inputs *in, int i, uint64_t seed)
{
    make(in, &BLOCKED_SHAPES[i / 8], ESTEP_ROWS_PROJECTED, i % 2, seed);
    in->col_block = BLOCKS[(i / 2) % 4];
}

START_TEST(cpu_blocked_matches_naive)
{
    inputs in;
    outputs o;
    make_blocked(&in, _i, 900 + _i);
    cpu_against_naive(&in, "estep_rows_cpu (blocked)", &o);
    /* the blocked layout differs from the plain one: reading it plainly gives other numbers */
    if (in.col_block < (size_t)in.d && in.comp_stride) {
        in.col_block = 0;
        ck_assert_int_eq(run_cpu(&in, o.lr, o.lpn), GMM_OK);
        ck_assert(tu_rel_error(o.lpn, o.ref_lpn, in.n) > 1e-6);
    }
    outputs_free(&o);
    release(&in);
}
END_TEST

/* ---- the GPU versions ----------------------------------------------------------------- */

/* Runs estep_rows_cuda (f32 = 0) or estep_rows_f32_cuda on in (whose Y must then hold float
 * values), poisoned outputs uploaded first. */
static gmm_status run_gpu(const inputs *in, int f32, double *log_resp, double *lpn)
{
    size_t m = in->n * in->k, ny = in->n * in->ld_y;
    void *d_Y = NULL;
    double *d_c = NULL, *d_p = NULL, *d_lc = NULL, *d_lr = NULL, *d_lpn = NULL;
    float *Yf = malloc(sizeof(float) * ny);
    ck_assert(Yf != NULL);
    for (size_t i = 0; i < ny; i++) Yf[i] = (float)in->Y[i];
    ck_assert_int_eq(bench_gpu_alloc(&d_Y, (f32 ? sizeof(float) : sizeof(double)) * ny), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_c, sizeof(double) * in->k * in->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_p, sizeof(double) * in->k * in->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_lc, sizeof(double) * in->k), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_lr, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_lpn, sizeof(double) * in->n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_Y, f32 ? (const void *)Yf : (const void *)in->Y,
                                      (f32 ? sizeof(float) : sizeof(double)) * ny),
                     GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_c, in->centers, sizeof(double) * in->k * in->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_p, in->scales, sizeof(double) * in->k * in->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_lc, in->log_const, sizeof(double) * in->k), GMM_OK);
    poison(log_resp, m), poison(lpn, in->n);
    ck_assert_int_eq(bench_gpu_upload(d_lr, log_resp, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_lpn, lpn, sizeof(double) * in->n), GMM_OK);
    const double *p = in->mode == ESTEP_ROWS_PROJECTED ? NULL : d_p;
    gmm_status st =
        f32 ? estep_rows_f32_cuda(in->mode, d_Y, in->ld_y, in->comp_stride, in->col_block, d_c,
                                  p, d_lc, in->n, in->k, in->d, d_lr, d_lpn, NULL)
            : estep_rows_cuda(in->mode, d_Y, in->ld_y, in->comp_stride, in->col_block, d_c, p,
                              d_lc, in->n, in->k, in->d, d_lr, d_lpn, NULL);
    if (st == GMM_OK) st = bench_gpu_sync();
    if (st == GMM_OK) st = bench_gpu_download(log_resp, d_lr, sizeof(double) * m);
    if (st == GMM_OK) st = bench_gpu_download(lpn, d_lpn, sizeof(double) * in->n);
    bench_gpu_free(d_Y), bench_gpu_free(d_c), bench_gpu_free(d_p), bench_gpu_free(d_lc);
    bench_gpu_free(d_lr), bench_gpu_free(d_lpn);
    free(Yf);
    return st;
}

/* estep_rows_cuda, then estep_rows_f32_cuda on in's Y rounded to float (so that the twin sees
 * exactly what the f32 kernel reads), each against the CPU twin on the same inputs. */
static void gpu_against_cpu(inputs *in, const char *suffix)
{
    outputs o;
    char what[64];
    outputs_alloc(&o, in);
    for (int f32 = 0; f32 < 2; f32++) {
        if (f32)
            for (size_t i = 0; i < in->n * in->ld_y; i++) in->Y[i] = (float)in->Y[i];
        ck_assert_int_eq(run_cpu(in, o.ref, o.ref_lpn), GMM_OK);
        gmm_status st = run_gpu(in, f32, o.lr, o.lpn);
        ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
        snprintf(what, sizeof what, "%s%s", f32 ? "estep_rows_f32_cuda" : "estep_rows_cuda",
                 suffix);
        expect_close(what, in, o.lr, o.ref, o.lpn, o.ref_lpn);
    }
    outputs_free(&o);
}

static gmm_status run_gpu_f64(const inputs *in, double *lr, double *lpn)
{
    return run_gpu(in, 0, lr, lpn);
}

START_TEST(gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const shape *s = &SHAPES[_i / 6];
    inputs in;
    make(&in, s, MODES[(_i / 2) % 3], _i % 2, 700 + _i);
    gpu_against_cpu(&in, "");
    release(&in);
}
END_TEST

START_TEST(gpu_blocked_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    inputs in;
    make_blocked(&in, _i, 950 + _i);
    gpu_against_cpu(&in, " (blocked)");
    release(&in);
}
END_TEST

START_TEST(gpu_extremes)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    check_extremes("estep_rows_cuda", run_gpu_f64);
}
END_TEST

/* estep_rows_from_dist_cuda against the CPU twin: distances of every size, rows where one
 * component is nearer by thousands (responsibilities of exactly 0 elsewhere), K = 1, 3, 10. */
START_TEST(gpu_from_dist_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    static const int KS[3] = {1, 3, 10};
    const int K = KS[_i];
    const size_t n = 777, m = n * K;
    uint64_t s = 900 + _i;
    double *dist = malloc(sizeof(double) * m), *ref = malloc(sizeof(double) * m),
           *got = malloc(sizeof(double) * m), *lc = malloc(sizeof(double) * K),
           *ref_lpn = malloc(sizeof(double) * n), *lpn = malloc(sizeof(double) * n);
    ck_assert(dist && ref && got && lc && ref_lpn && lpn);
    for (int k = 0; k < K; k++) lc[k] = 100 * tu_rand_uniform(&s) - 50;
    for (size_t i = 0; i < m; i++)
        dist[i] = (i / K) % 3 == 0 ? 5000 * tu_rand_uniform(&s) : 20 * tu_rand_uniform(&s);
    memcpy(ref, dist, sizeof(double) * m);
    TU_CHECK_OK(estep_rows_from_dist_cpu(lc, n, K, ref, ref_lpn));
    double *d_lc = NULL, *d_x = NULL, *d_lpn = NULL;
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_lc, sizeof(double) * K), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_x, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_lpn, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_lc, lc, sizeof(double) * K), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_x, dist, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(estep_rows_from_dist_cuda(d_lc, n, K, d_x, d_lpn, NULL), GMM_OK);
    ck_assert_int_eq(bench_gpu_sync(), GMM_OK);
    ck_assert_int_eq(bench_gpu_download(got, d_x, sizeof(double) * m), GMM_OK);
    ck_assert_int_eq(bench_gpu_download(lpn, d_lpn, sizeof(double) * n), GMM_OK);
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(fabs(lpn[i] - ref_lpn[i]) <= 1e-12 * fabs(ref_lpn[i]) + 1e-12,
                      "row %zu: log p %.17g against %.17g", i, lpn[i], ref_lpn[i]);
        for (int k = 0; k < K; k++)
            ck_assert_msg(fabs(got[i * K + k] - ref[i * K + k]) <=
                              1e-12 * fabs(ref[i * K + k]) + 1e-12,
                          "row %zu, component %d: %.17g against %.17g", i, k, got[i * K + k],
                          ref[i * K + k]);
    }
    ck_assert_int_eq(estep_rows_from_dist_cuda(NULL, n, K, d_x, d_lpn, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(estep_rows_from_dist_cuda(d_lc, 0, K, d_x, d_lpn, NULL), GMM_OK);
    bench_gpu_free(d_lc), bench_gpu_free(d_x), bench_gpu_free(d_lpn);
    free(dist), free(ref), free(got), free(lc), free(ref_lpn), free(lpn);
}
END_TEST

START_TEST(gpu_refusals)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    double *d = NULL;
    ck_assert_int_eq(bench_gpu_alloc((void **)&d, sizeof(double) * 8), GMM_OK);
    ck_assert_int_eq(estep_rows_cuda(ESTEP_ROWS_PROJECTED, d, 1, 0, 0, d, NULL, d, 1,
                                     ESTEP_ROWS_MAX_COMPONENTS + 1, 1, d, d, NULL),
                     GMM_ERR_UNSUPPORTED);
    ck_assert_int_eq(estep_rows_cuda(ESTEP_ROWS_DIAG, d, 1, 0, 0, d, NULL, d, 1, 1, 1, d, d, NULL),
                     GMM_ERR_ARG);
    /* no rows: nothing to do */
    ck_assert_int_eq(
        estep_rows_cuda(ESTEP_ROWS_PROJECTED, d, 1, 0, 0, d, NULL, d, 0, 1, 1, d, d, NULL), GMM_OK);
    /* column blocks with a stride other than 0 or dim */
    ck_assert_int_eq(
        estep_rows_cuda(ESTEP_ROWS_PROJECTED, d, 8, 3, 2, d, NULL, d, 1, 2, 4, d, d, NULL),
        GMM_ERR_ARG);
    bench_gpu_free(d);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    ck_assert_int_eq(
        estep_rows_cpu(ESTEP_ROWS_PROJECTED, NULL, 1, 0, 0, &x, NULL, &x, 1, 1, 1, &x, &x),
        GMM_ERR_ARG);
    double y[8] = {0}, lr[2], lpn[1];
    ck_assert_int_eq(estep_rows_cpu(ESTEP_ROWS_PROJECTED, y, 8, 3, 2, y, NULL, y, 1, 2, 4, lr, lpn),
                     GMM_ERR_ARG);
    ck_assert_int_eq(estep_rows_cpu(ESTEP_ROWS_DIAG, &x, 1, 0, 0, &x, NULL, &x, 1, 1, 1, &x, &x),
                     GMM_ERR_ARG);
    ck_assert_int_eq(estep_rows_cpu(ESTEP_ROWS_SPHERICAL, &x, 1, 0, 0, &x, &x, &x, 1, 0, 1, &x, &x),
                     GMM_ERR_ARG);
    ck_assert_int_eq(estep_rows_from_dist_cpu(&x, 1, 0, &x, &x), GMM_ERR_ARG);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_estep_rows");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_matches_naive, 0, N_SHAPES * 6);
    tcase_add_loop_test(tc, from_dist_matches_naive, 0, N_SHAPES);
    tcase_add_test(tc, cpu_extremes);
    tcase_add_test(tc, cpu_one_component);
    tcase_add_loop_test(tc, cpu_blocked_matches_naive, 0, N_BLOCKED);
    tcase_add_loop_test(tc, gpu_matches_cpu, 0, N_SHAPES * 6);
    tcase_add_loop_test(tc, gpu_blocked_matches_cpu, 0, N_BLOCKED);
    tcase_add_test(tc, gpu_extremes);
    tcase_add_loop_test(tc, gpu_from_dist_matches_cpu, 0, 3);
    tcase_add_test(tc, gpu_refusals);
    tcase_add_test(tc, bad_arguments);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
