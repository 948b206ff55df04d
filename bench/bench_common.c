/* Shared helpers of gmm-bench (see bench.h and bench_ops.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ops.h"
#include "bench/bench_gpu.h"
#include "kernels/clock.h"
#include "kernels/gpu_info.h"

double bench_now_ms(void) { return 1e3 * gmm_clock_seconds(); }

int bench_load_images(const char *who, const char *dir, int limit, dataset *ds, float **X)
{
    *X = NULL;
    memset(ds, 0, sizeof *ds);
    gmm_status st = dataset_load(dir, DATASET_TRAIN, ds);
    if (st != GMM_OK) {
        fprintf(stderr, "gmm-bench %s: %s\n", who, gmm_error_message(st));
        return 1;
    }
    if (limit > 0) dataset_truncate(ds, limit);
    const size_t count = (size_t)ds->n_samples * (size_t)(ds->rows * ds->cols);
    if (!(*X = malloc(sizeof(float) * (count ? count : 1)))) {
        fprintf(stderr, "gmm-bench %s: out of memory for %s\n", who, dir);
        dataset_free(ds);
        return 1;
    }
    for (size_t i = 0; i < count; i++) (*X)[i] = ds->pixels[i] / 255.0f;
    return 0;
}

int bench_data_dirs(const char *who, const char **dirs, int n_dirs)
{
    if (!n_dirs) {
        const char *m = getenv("MNIST_DIR"), *f = getenv("FASHION_MNIST_DIR");
        if (m && *m) dirs[n_dirs++] = m;
        if (f && *f) dirs[n_dirs++] = f;
    }
    if (!n_dirs)
        fprintf(stderr, "gmm-bench %s: give --data DIR (or set MNIST_DIR / FASHION_MNIST_DIR)\n",
                who);
    return n_dirs;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *values, int n)
{
    if (n <= 0) return -1;
    qsort(values, (size_t)n, sizeof(double), cmp_double);
    return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

void bench_row_init(bench_row *row, const char *op)
{
    memset(row, 0, sizeof *row);
    snprintf(row->op, sizeof row->op, "%s", op);
    row->cpu_ms = row->cuda_ms = row->lib_ms = -1;
    row->max_rel_err = -1;
}

int bench_have_gpu(void)
{
    static int cached = -1;
    if (cached < 0) cached = gmm_cuda_built() && gmm_gpu_count() > 0;
    return cached;
}

int bench_cpu_repeats(const bench_config *config)
{
    return config->repeats < 3 ? (config->repeats > 0 ? config->repeats : 1) : 3;
}

double bench_time_host(bench_host_work fn, bench_host_work before, void *ctx, int warmup,
                       int repeats)
{
    double times[64];
    if (repeats > 64) repeats = 64;
    if (repeats < 1) repeats = 1;
    for (int i = 0; i < warmup; i++) {
        if (before && before(ctx) != GMM_OK) return -1;
        if (fn(ctx) != GMM_OK) return -1;
    }
    for (int i = 0; i < repeats; i++) {
        if (before && before(ctx) != GMM_OK) return -1;
        double t0 = bench_now_ms();
        if (fn(ctx) != GMM_OK) return -1;
        times[i] = bench_now_ms() - t0;
    }
    return bench_median(times, repeats);
}

double bench_time_device(const bench_config *config, bench_device_work fn,
                         bench_device_work before, void *ctx)
{
    int repeats = config->repeats > 0 ? config->repeats : 1;
    if (repeats > 1000) repeats = 1000;
    double *times = malloc(sizeof(double) * (size_t)repeats);
    if (!times) return -1;
    double result = -1;
    if (bench_gpu_time(fn, before, ctx, config->warmup, repeats, times) == GMM_OK)
        result = bench_median(times, repeats);
    free(times);
    return result;
}

size_t bench_scaled(const bench_config *config, size_t full, size_t minimum)
{
    double s = config->scale > 0 ? config->scale : 1.0;
    size_t n = (size_t)llround((double)full * s);
    return n < minimum ? minimum : n;
}

void bench_note(bench_row *row, const char *fmt, ...)
{
    size_t len = strlen(row->note);
    if (len + 3 >= sizeof row->note) return;
    if (len) {
        strcat(row->note, "; ");
        len += 2;
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->note + len, sizeof row->note - len, fmt, ap);
    va_end(ap);
}

double bench_rel_error(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

double bench_rel_error_f(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) return INFINITY;
        double d = (double)a[i] - b[i];
        num += d * d;
        den += (double)b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

int bench_judge(bench_row *row, const char *what, double err, double bound)
{
    if (err > row->max_rel_err) row->max_rel_err = err;
    if (!(err <= bound)) {
        bench_note(row, "%s rel err %.2e > %.0e", what, err, bound);
        return 1;
    }
    return 0;
}

uint64_t bench_rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double bench_rng_uniform(uint64_t *state) { return (bench_rng_next(state) >> 11) * 0x1.0p-53; }

/* Blocks of 4096 values, each from its own stream: the same data on any number of threads. */
void bench_fill(double *x, size_t n, double lo, double hi, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < (n + 4095) / 4096; b++) {
        uint64_t s = seed ^ (b * 0x632be59bd9b4e019ull);
        size_t end = (b + 1) * 4096 < n ? (b + 1) * 4096 : n;
        for (size_t i = b * 4096; i < end; i++) x[i] = lo + (hi - lo) * bench_rng_uniform(&s);
    }
}

void bench_fill_f(float *x, size_t n, float lo, float hi, uint64_t seed)
{
#pragma omp parallel for schedule(static)
    for (size_t b = 0; b < (n + 4095) / 4096; b++) {
        uint64_t s = seed ^ (b * 0x632be59bd9b4e019ull);
        size_t end = (b + 1) * 4096 < n ? (b + 1) * 4096 : n;
        for (size_t i = b * 4096; i < end; i++)
            x[i] = (float)(lo + (hi - lo) * bench_rng_uniform(&s));
    }
}

void bench_fill_spd(double *A, int dim, int batch, uint64_t seed)
{
    for (int b = 0; b < batch; b++) {
        double *M = A + (size_t)b * dim * dim;
        uint64_t s = seed + (uint64_t)b;
        for (int i = 0; i < dim; i++)
            for (int j = 0; j <= i; j++) {
                double v = i == j ? dim + 1.0 + bench_rng_uniform(&s) : 2 * bench_rng_uniform(&s) - 1;
                M[(size_t)i * dim + j] = M[(size_t)j * dim + i] = v;
            }
    }
}
