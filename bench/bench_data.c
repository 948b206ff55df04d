/* gmm-bench experiments for the data-parallel operations: kNN, per-query distance histograms,
 * local entropy, transpose and 2-D convolution, at the sizes of ../shared/docs/benchmarks.md, and
 * the E-step's row operation at Fashion-MNIST's shape.
 * Each times the CPU twin on the host (all cores), the CUDA kernel (and cuBLAS for kNN; the kNN
 * kernel is the experiment knn_cuda_v1 of bench/experiments/, which lost to the cuBLAS path) on the
 * device with CUDA events (bench/bench_gpu.h), checks the GPU results against the CPU twin and
 * fills one row. Where the CPU twin would take minutes (kNN, histograms) it runs on a slice of the
 * queries and its time is scaled up to the full size, which the row's note says. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ops.h"
#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "kernels/conv2d.h"
#include "kernels/dist_hist.h"
#include "kernels/entropy.h"
#include "kernels/estep_rows.h"
#include "kernels/knn.h"
#include "kernels/transpose.h"

/* ---- shared pieces ---- */

/* The copy ceiling in GB/s, the figure of benchmarks.md when none was measured (no GPU). */
static double copy_gbps(const bench_config *config)
{
    return (config->copy_tbps > 0 ? config->copy_tbps : 2.98) * 1e3;
}

/* ---- kNN: m queries x n refs, d = 256, k = 20 ---- */

typedef struct {
    size_t m, n, d, k, m_cpu;
    float *Q, *R, *dist;
    int32_t *idx;
    float *d_Q, *d_R, *d_dist;
    int32_t *d_idx;
} knn_ctx;

static gmm_status knn_cpu_w(void *p)
{
    knn_ctx *c = p;
    return knn_cpu(c->Q, c->m_cpu, c->R, c->n, c->d, c->k, c->idx, c->dist);
}
static gmm_status knn_cuda_w(void *p)
{
    knn_ctx *c = p;
    return knn_cuda_v1(c->d_Q, c->m, c->d_R, c->n, c->d, c->k, c->d_idx, c->d_dist);
}
static gmm_status knn_lib_w(void *p)
{
    knn_ctx *c = p;
    return knn_cublas(c->d_Q, c->m, c->d_R, c->n, c->d, c->k, c->d_idx, c->d_dist,
                      bench_gpu_resources());
}

int bench_knn(const bench_config *config, bench_row *row)
{
    int rc = 0;
    knn_ctx c = {.m = bench_scaled(config, 32768, 256), .n = 32768, .d = 256, .k = 20};
    float *ref = NULL, *out = NULL;
    c.m_cpu = c.m < 2048 ? c.m : 2048;
    snprintf(row->size, sizeof row->size, "m=%zu n=%zu d=%zu k=%zu fp32", c.m, c.n, c.d, c.k);
    row->work = 2.0 * c.m * c.n * c.d; /* the GEMM form's flops */
    row->bytes_bound = 0;
    row->ceiling = config->fp32_gemm_tflops * 1e3;
    row->target_ms = 20.0 * c.m / 32768.0;
    c.Q = malloc(sizeof(float) * c.m * c.d);
    c.R = malloc(sizeof(float) * c.n * c.d);
    c.idx = malloc(sizeof(int32_t) * c.m * c.k);
    c.dist = malloc(sizeof(float) * c.m * c.k);
    ref = malloc(sizeof(float) * c.m_cpu * c.k);
    out = malloc(sizeof(float) * c.m * c.k);
    BENCH_CHECK_ALLOC(c.Q && c.R && c.idx && c.dist && ref && out);
    bench_fill_f(c.Q, c.m * c.d, 0.0f, 1.0f, 11);
    bench_fill_f(c.R, c.n * c.d, 0.0f, 1.0f, 12);
    /* the CPU twin on the first m_cpu queries: the reference for the check, and its time */
    {
        int reps = config->skip_cpu ? 1 : bench_cpu_repeats(config);
        double ms = bench_time_host(knn_cpu_w, NULL, &c, 0, reps);
        if (ms < 0) BENCH_CHECK(knn_cpu_w(&c));
        memcpy(ref, c.dist, sizeof(float) * c.m_cpu * c.k);
        if (!config->skip_cpu) {
            row->cpu_ms = ms * (double)c.m / (double)c.m_cpu;
            if (c.m_cpu < c.m) bench_note(row, "CPU twin on %zu queries, time x%.0f", c.m_cpu, (double)c.m / c.m_cpu);
        }
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_Q, sizeof(float) * c.m * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_R, sizeof(float) * c.n * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_idx, sizeof(int32_t) * c.m * c.k));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_dist, sizeof(float) * c.m * c.k));
    BENCH_CHECK(bench_gpu_upload(c.d_Q, c.Q, sizeof(float) * c.m * c.d));
    BENCH_CHECK(bench_gpu_upload(c.d_R, c.R, sizeof(float) * c.n * c.d));
    row->cuda_ms = bench_time_device(config, knn_cuda_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_dist, sizeof(float) * c.m * c.k));
    rc |= bench_judge(row, "CUDA dists", bench_rel_error_f(out, ref, c.m_cpu * c.k), 1e-5);
    row->lib_ms = bench_time_device(config, knn_lib_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_dist, sizeof(float) * c.m * c.k));
    rc |= bench_judge(row, "cuBLAS dists", bench_rel_error_f(out, ref, c.m_cpu * c.k), 1e-4);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, "lib = SGEMM + our k-select");
done:
    bench_gpu_free(c.d_Q);
    bench_gpu_free(c.d_R);
    bench_gpu_free(c.d_idx);
    bench_gpu_free(c.d_dist);
    free(c.Q), free(c.R), free(c.idx), free(c.dist), free(ref), free(out);
    return rc;
}

/* ---- kNN on the CPU: knn_cpu_blas (GEMM form) against knn_cpu, self-kNN at MNIST's shape ---- */

typedef struct {
    size_t n, d, k, m_cpu;
    float *X, *dist;
    int32_t *idx;
} knn_self_ctx;

static gmm_status knn_self_cpu_w(void *p)
{
    knn_self_ctx *c = p;
    return knn_cpu(c->X, c->m_cpu, c->X, c->n, c->d, c->k, c->idx, c->dist);
}
static gmm_status knn_self_blas_w(void *p)
{
    knn_self_ctx *c = p;
    return knn_cpu_blas(c->X, c->n, c->X, c->n, c->d, c->k, c->idx, c->dist);
}

int bench_knn_cpu_blas(const bench_config *config, bench_row *row)
{
    int rc = 0;
    knn_self_ctx c = {.n = bench_scaled(config, 19690, 512), .d = 784, .k = 15};
    float *ref = NULL;
    int32_t *ref_idx = NULL;
    c.m_cpu = c.n < 1024 ? c.n : 1024;
    snprintf(row->size, sizeof row->size, "self n=%zu d=%zu k=%zu fp32", c.n, c.d, c.k);
    row->work = 2.0 * c.n * c.n * c.d; /* the full product (the self-kNN computes about half) */
    row->ceiling = 0;
    c.X = malloc(sizeof(float) * c.n * c.d);
    c.idx = malloc(sizeof(int32_t) * c.n * c.k);
    c.dist = malloc(sizeof(float) * c.n * c.k);
    ref = malloc(sizeof(float) * c.m_cpu * c.k);
    ref_idx = malloc(sizeof(int32_t) * c.m_cpu * c.k);
    BENCH_CHECK_ALLOC(c.X && c.idx && c.dist && ref && ref_idx);
    bench_fill_f(c.X, c.n * c.d, 0.0f, 1.0f, 13);
    int reps = bench_cpu_repeats(config);
    /* knn_cpu on the first m_cpu queries (all n references): the reference, and its time */
    double cpu_ms = config->skip_cpu ? -1 : bench_time_host(knn_self_cpu_w, NULL, &c, 0, 1);
    if (cpu_ms < 0) BENCH_CHECK(knn_self_cpu_w(&c));
    memcpy(ref, c.dist, sizeof(float) * c.m_cpu * c.k);
    memcpy(ref_idx, c.idx, sizeof(int32_t) * c.m_cpu * c.k);
    double ms = bench_time_host(knn_self_blas_w, NULL, &c, 0, reps);
    if (ms < 0) BENCH_CHECK(knn_self_blas_w(&c));
    row->cpu_ms = ms;
    size_t moved = 0;
    for (size_t i = 0; i < c.m_cpu * c.k; i++) moved += c.idx[i] != ref_idx[i];
    rc |= bench_judge(row, "vs knn_cpu", bench_rel_error_f(c.dist, ref, c.m_cpu * c.k), 0.0);
    if (moved) {
        bench_note(row, "%zu indices differ from knn_cpu", moved);
        rc = 1;
    }
    if (cpu_ms > 0)
        bench_note(row, "knn_cpu %.0f ms (%zu queries, x%.1f), %.1fx slower",
                   cpu_ms * c.n / c.m_cpu, c.m_cpu, (double)c.n / c.m_cpu,
                   cpu_ms * c.n / c.m_cpu / ms);
done:
    free(c.X), free(c.idx), free(c.dist), free(ref), free(ref_idx);
    return rc;
}

/* ---- distance histograms: 1,000,000 refs x 10,000 queries, d = 128, 5000 bins ---- */

typedef struct {
    size_t q, n, d, bins, q_cpu;
    float *Q, *R;
    uint32_t *H;
    float *d_Q, *d_R, *d_min, *d_max;
    uint32_t *d_H;
} hist_ctx;

static gmm_status hist_cpu_w(void *p)
{
    hist_ctx *c = p;
    return dist_hist_cpu(c->Q, c->q_cpu, c->R, c->n, c->d, c->bins, c->H, NULL, NULL);
}
static gmm_status hist_cuda_w(void *p)
{
    hist_ctx *c = p;
    return dist_hist_cuda(c->d_Q, c->q, c->d_R, c->n, c->d, c->bins, c->d_H, c->d_min, c->d_max);
}

int bench_histogram(const bench_config *config, bench_row *row)
{
    int rc = 0;
    hist_ctx c = {.q = bench_scaled(config, 10000, 100), .n = 1000000, .d = 128, .bins = 5000};
    uint32_t *out = NULL;
    c.q_cpu = c.q < 100 ? c.q : 100;
    snprintf(row->size, sizeof row->size, "%zu refs x %zu queries d=%zu %zu bins", c.n, c.q, c.d, c.bins);
    row->work = 2.0 * c.q * c.n * c.d; /* one pass of distances; the kernel makes two */
    row->bytes_bound = 0;
    row->ceiling = config->fp32_gemm_tflops * 1e3;
    row->target_ms = 1000.0 * c.q / 10000.0;
    c.Q = malloc(sizeof(float) * c.q * c.d);
    c.R = malloc(sizeof(float) * c.n * c.d);
    c.H = malloc(sizeof(uint32_t) * c.q_cpu * c.bins);
    out = malloc(sizeof(uint32_t) * c.q * c.bins);
    BENCH_CHECK_ALLOC(c.Q && c.R && c.H && out);
    bench_fill_f(c.Q, c.q * c.d, 0.0f, 1.0f, 21);
    bench_fill_f(c.R, c.n * c.d, 0.0f, 1.0f, 22);
    {
        double ms = bench_time_host(hist_cpu_w, NULL, &c, 0, 1);
        if (ms < 0) BENCH_CHECK(hist_cpu_w(&c));
        if (!config->skip_cpu) {
            row->cpu_ms = ms * (double)c.q / (double)c.q_cpu;
            bench_note(row, "CPU twin on %zu queries, time x%.0f", c.q_cpu, (double)c.q / c.q_cpu);
        }
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_Q, sizeof(float) * c.q * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_R, sizeof(float) * c.n * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_H, sizeof(uint32_t) * c.q * c.bins));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_min, sizeof(float) * c.q));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_max, sizeof(float) * c.q));
    BENCH_CHECK(bench_gpu_upload(c.d_Q, c.Q, sizeof(float) * c.q * c.d));
    BENCH_CHECK(bench_gpu_upload(c.d_R, c.R, sizeof(float) * c.n * c.d));
    row->cuda_ms = bench_time_device(config, hist_cuda_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_H, sizeof(uint32_t) * c.q * c.bins));
    {
        /* counts moved across a bin edge by rounding, over all counts; each histogram sums to N */
        double moved = 0, total = 0;
        for (size_t i = 0; i < c.q_cpu; i++) {
            uint64_t sum = 0;
            for (size_t b = 0; b < c.bins; b++) {
                double a = out[i * c.bins + b], r = c.H[i * c.bins + b];
                moved += fabs(a - r);
                total += r;
                sum += out[i * c.bins + b];
            }
            if (sum != c.n) {
                bench_note(row, "query %zu histogram sums to %llu", i, (unsigned long long)sum);
                rc = 1;
            }
        }
        /* bound: float32 distances summed in another order move ~1e-6 x dist, a few tenths of
         * a percent of the counts at 5000 bins over the queries' ranges */
        rc |= bench_judge(row, "histogram L1", moved / total, 1e-2);
    }
    if (row->cuda_ms < 0) rc = 1;
    bench_note(row, "rate: 1 pass; kernel does 2");
done:
    bench_gpu_free(c.d_Q);
    bench_gpu_free(c.d_R);
    bench_gpu_free(c.d_H);
    bench_gpu_free(c.d_min);
    bench_gpu_free(c.d_max);
    free(c.Q), free(c.R), free(c.H), free(out);
    return rc;
}

/* ---- local entropy 2560 x 2560 ---- */

typedef struct {
    size_t rows, cols;
    uint8_t *L, *d_L;
    float *E, *d_E;
} ent_ctx;

static gmm_status ent_cpu_w(void *p)
{
    ent_ctx *c = p;
    return entropy_cpu(c->L, c->rows, c->cols, c->E);
}
static gmm_status ent_cuda_w(void *p)
{
    ent_ctx *c = p;
    return entropy_cuda(c->d_L, c->rows, c->cols, c->d_E);
}

int bench_entropy(const bench_config *config, bench_row *row)
{
    int rc = 0;
    ent_ctx c = {.rows = bench_scaled(config, 2560, 16), .cols = 2560};
    const size_t n = c.rows * c.cols;
    float *out = NULL;
    snprintf(row->size, sizeof row->size, "%zux%zu u8 -> f32, 5x5", c.rows, c.cols);
    row->work = (double)n * (sizeof(uint8_t) + sizeof(float));
    row->bytes_bound = 1;
    row->ceiling = copy_gbps(config);
    row->target_ms = 0.1 * c.rows / 2560.0;
    c.L = malloc(n);
    c.E = malloc(sizeof(float) * n);
    out = malloc(sizeof(float) * n);
    BENCH_CHECK_ALLOC(c.L && c.E && out);
    {
        uint64_t s = 31;
        for (size_t i = 0; i < n; i++) c.L[i] = (uint8_t)(bench_rng_next(&s) % 16);
    }
    {
        double ms = bench_time_host(ent_cpu_w, NULL, &c, 1, bench_cpu_repeats(config));
        if (ms < 0) BENCH_CHECK(ent_cpu_w(&c));
        if (!config->skip_cpu) row->cpu_ms = ms;
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_L, n));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_E, sizeof(float) * n));
    BENCH_CHECK(bench_gpu_upload(c.d_L, c.L, n));
    row->cuda_ms = bench_time_device(config, ent_cuda_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_E, sizeof(float) * n));
    rc |= bench_judge(row, "CUDA", bench_rel_error_f(out, c.E, n), 1e-6);
    if (row->cuda_ms < 0) rc = 1;
    bench_note(row, "33 MB fits in L2");
done:
    bench_gpu_free(c.d_L);
    bench_gpu_free(c.d_E);
    free(c.L), free(c.E), free(out);
    return rc;
}

/* ---- transpose 10000 x 10000 fp32 ---- */

typedef struct {
    size_t rows, cols;
    float *A, *T, *d_A, *d_T;
} tr_ctx;

static gmm_status tr_cpu_w(void *p)
{
    tr_ctx *c = p;
    return transpose_cpu(c->A, c->rows, c->cols, c->T);
}
static gmm_status tr_cuda_w(void *p)
{
    tr_ctx *c = p;
    return transpose_cuda(c->d_A, c->rows, c->cols, c->d_T);
}

int bench_transpose(const bench_config *config, bench_row *row)
{
    int rc = 0;
    tr_ctx c = {.rows = bench_scaled(config, 10000, 32), .cols = 10000};
    const size_t n = c.rows * c.cols;
    float *out = NULL;
    snprintf(row->size, sizeof row->size, "%zux%zu fp32", c.rows, c.cols);
    row->work = 2.0 * sizeof(float) * n;
    row->bytes_bound = 1;
    row->ceiling = copy_gbps(config);
    row->target_ms = row->work / (0.8 * row->ceiling * 1e9) * 1e3; /* >= 80% of the copy */
    c.A = malloc(sizeof(float) * n);
    c.T = malloc(sizeof(float) * n);
    out = malloc(sizeof(float) * n);
    BENCH_CHECK_ALLOC(c.A && c.T && out);
    bench_fill_f(c.A, n, -1.0f, 1.0f, 41);
    {
        double ms = bench_time_host(tr_cpu_w, NULL, &c, 1, bench_cpu_repeats(config));
        if (ms < 0) BENCH_CHECK(tr_cpu_w(&c));
        if (!config->skip_cpu) row->cpu_ms = ms;
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_A, sizeof(float) * n));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_T, sizeof(float) * n));
    BENCH_CHECK(bench_gpu_upload(c.d_A, c.A, sizeof(float) * n));
    row->cuda_ms = bench_time_device(config, tr_cuda_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_T, sizeof(float) * n));
    rc |= bench_judge(row, "CUDA", bench_rel_error_f(out, c.T, n), 0.0);
    if (row->cuda_ms < 0) rc = 1;
done:
    bench_gpu_free(c.d_A);
    bench_gpu_free(c.d_T);
    free(c.A), free(c.T), free(out);
    return rc;
}

/* ---- 2-D convolution 10000 x 10000, 3 x 3, int32 ---- */

typedef struct {
    size_t rows, cols;
    int32_t *A, *B, *d_A, *d_B, filter[9];
} conv_ctx;

static gmm_status conv_cpu_w(void *p)
{
    conv_ctx *c = p;
    return conv2d_i32_cpu(c->A, c->rows, c->cols, c->filter, 3, c->B);
}
static gmm_status conv_cuda_w(void *p)
{
    conv_ctx *c = p;
    return conv2d_i32_cuda(c->d_A, c->rows, c->cols, c->filter, 3, c->d_B);
}

int bench_conv2d(const bench_config *config, bench_row *row)
{
    int rc = 0;
    conv_ctx c = {.rows = bench_scaled(config, 10000, 16), .cols = 10000,
                  .filter = {1, -2, 3, -4, 5, -6, 7, -8, 9}};
    const size_t n = c.rows * c.cols, on = (c.rows - 2) * (c.cols - 2);
    int32_t *out = NULL;
    snprintf(row->size, sizeof row->size, "%zux%zu 3x3 int32", c.rows, c.cols);
    row->work = (double)sizeof(int32_t) * (n + on);
    row->bytes_bound = 1;
    row->ceiling = copy_gbps(config);
    row->target_ms = row->work / (0.7 * row->ceiling * 1e9) * 1e3; /* >= 70% of the copy */
    c.A = malloc(sizeof(int32_t) * n);
    c.B = malloc(sizeof(int32_t) * on);
    out = malloc(sizeof(int32_t) * on);
    BENCH_CHECK_ALLOC(c.A && c.B && out);
    {
        uint64_t s = 51;
        for (size_t i = 0; i < n; i++) c.A[i] = (int32_t)(bench_rng_next(&s) % 2001) - 1000;
    }
    {
        double ms = bench_time_host(conv_cpu_w, NULL, &c, 1, bench_cpu_repeats(config));
        if (ms < 0) BENCH_CHECK(conv_cpu_w(&c));
        if (!config->skip_cpu) row->cpu_ms = ms;
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_A, sizeof(int32_t) * n));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_B, sizeof(int32_t) * on));
    BENCH_CHECK(bench_gpu_upload(c.d_A, c.A, sizeof(int32_t) * n));
    row->cuda_ms = bench_time_device(config, conv_cuda_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_B, sizeof(int32_t) * on));
    {
        size_t wrong = 0;
        for (size_t i = 0; i < on; i++) wrong += out[i] != c.B[i];
        row->max_rel_err = (double)wrong / on;
        if (wrong) {
            bench_note(row, "%zu int32 outputs differ", wrong);
            rc = 1;
        }
    }
    if (row->cuda_ms < 0) rc = 1;
    bench_note(row, "no cuDNN here: no lib column");
done:
    bench_gpu_free(c.d_A);
    bench_gpu_free(c.d_B);
    free(c.A), free(c.B), free(out);
    return rc;
}

/* ---- the E-step's row operation: 60000 rows of the product [X U_1 .. X U_10], d = 784 ---- */

typedef struct {
    size_t n;
    int K, d;
    double *Y, *b, *cst, *lr, *lpn, *d_Y, *d_b, *d_cst, *d_lr, *d_lpn;
} rows_ctx;

static gmm_status rows_cpu_w(void *p)
{
    rows_ctx *c = p;
    return estep_rows_cpu(ESTEP_ROWS_PROJECTED, c->Y, (size_t)c->K * c->d, (size_t)c->d, 0,
                          c->b, NULL, c->cst, c->n, c->K, c->d, c->lr, c->lpn);
}
static gmm_status rows_cuda_w(void *p)
{
    rows_ctx *c = p;
    return estep_rows_cuda(ESTEP_ROWS_PROJECTED, c->d_Y, (size_t)c->K * c->d, (size_t)c->d,
                           0, c->d_b, NULL, c->d_cst, c->n, c->K, c->d, c->d_lr, c->d_lpn, NULL);
}

int bench_estep_rows(const bench_config *config, bench_row *row)
{
    int rc = 0;
    rows_ctx c = {.n = bench_scaled(config, 60000, 64), .K = 10, .d = 784};
    const size_t w = (size_t)c.K * c.d, ny = c.n * w;
    double *out = NULL;
    snprintf(row->size, sizeof row->size, "%zux%zu fp64", c.n, w);
    row->work = sizeof(double) * ((double)ny + (double)c.n * (c.K + 1)); /* read Y, write */
    row->bytes_bound = 1;
    row->ceiling = copy_gbps(config);
    row->target_ms = row->work / (0.8 * row->ceiling * 1e9) * 1e3; /* >= 80% of the copy */
    c.Y = malloc(sizeof(double) * ny);
    c.b = malloc(sizeof(double) * w);
    c.cst = malloc(sizeof(double) * c.K);
    c.lr = malloc(sizeof(double) * c.n * c.K);
    c.lpn = malloc(sizeof(double) * c.n);
    out = malloc(sizeof(double) * c.n);
    BENCH_CHECK_ALLOC(c.Y && c.b && c.cst && c.lr && c.lpn && out);
    bench_fill(c.Y, ny, -2.0, 2.0, 61);
    bench_fill(c.b, w, -1.0, 1.0, 62);
    bench_fill(c.cst, (size_t)c.K, -50.0, 50.0, 63);
    {
        double ms = bench_time_host(rows_cpu_w, NULL, &c, 1, bench_cpu_repeats(config));
        if (ms < 0) BENCH_CHECK(rows_cpu_w(&c));
        if (!config->skip_cpu) row->cpu_ms = ms;
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_Y, sizeof(double) * ny));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_b, sizeof(double) * w));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_cst, sizeof(double) * c.K));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_lr, sizeof(double) * c.n * c.K));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_lpn, sizeof(double) * c.n));
    BENCH_CHECK(bench_gpu_upload(c.d_Y, c.Y, sizeof(double) * ny));
    BENCH_CHECK(bench_gpu_upload(c.d_b, c.b, sizeof(double) * w));
    BENCH_CHECK(bench_gpu_upload(c.d_cst, c.cst, sizeof(double) * c.K));
    row->cuda_ms = bench_time_device(config, rows_cuda_w, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_lpn, sizeof(double) * c.n));
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, c.lpn, c.n), 1e-12);
    if (row->cuda_ms < 0) rc = 1;
done:
    bench_gpu_free(c.d_Y);
    bench_gpu_free(c.d_b);
    bench_gpu_free(c.d_cst);
    bench_gpu_free(c.d_lr);
    bench_gpu_free(c.d_lpn);
    free(c.Y), free(c.b), free(c.cst), free(c.lr), free(c.lpn), free(out);
    return rc;
}
