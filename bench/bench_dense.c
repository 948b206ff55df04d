/* gmm-bench experiments for the dense operations: the means product, covariance, weighted
 * covariance, Cholesky (single and batched), triangular solve and matrix-vector product. Each
 * times the CPU twin on the host, the CUDA kernel and the library path on the device, checks both
 * GPU results against the CPU twin (or against each other with --no-cpu), and fills one row.
 * The CUDA kernels of Cholesky, the triangular solve and the float64 matrix-vector product lost
 * to the library and are experiments now (bench/experiments/: cholesky_cuda_v1, trsm_cuda_v1,
 * matvec_f64_cuda_v1); their rows time those versions as before. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ops.h"
#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "kernels/covariance.h"
#include "kernels/matmul.h"
#include "kernels/matvec.h"
#include "kernels/wcov.h"
#include "linalg/cholesky.h"
#include "linalg/trsm.h"

/* ---- matmul: C = R^T X ---- */

typedef struct {
    size_t n;
    int k, d;
    double *R, *X, *C;
    double *d_R, *d_X, *d_C;
} mm_ctx;

static gmm_status mm_cpu(void *p)
{
    mm_ctx *c = p;
    return matmul_cpu(c->R, c->X, c->n, c->k, c->d, c->C);
}
static gmm_status mm_cuda(void *p)
{
    mm_ctx *c = p;
    return matmul_cuda(c->d_R, c->d_X, c->n, c->k, c->d, c->d_C, NULL);
}
static gmm_status mm_lib(void *p)
{
    mm_ctx *c = p;
    return matmul_cublas(c->d_R, c->d_X, c->n, c->k, c->d, c->d_C, bench_gpu_resources());
}

int bench_matmul(const bench_config *config, bench_row *row)
{
    int rc = 0;
    mm_ctx c = {.n = bench_scaled(config, 60000, 100), .k = 10, .d = 784};
    double *ref = NULL, *out = NULL;
    snprintf(row->size, sizeof row->size, "%dx%zu * %zux%d fp64", c.k, c.n, c.n, c.d);
    row->work = 8.0 * ((double)c.n * c.d + (double)c.n * c.k + (double)c.k * c.d);
    row->bytes_bound = 1;
    row->ceiling = config->copy_tbps * 1e3;
    row->target_ms = 0.16 * config->scale;
    c.R = malloc(sizeof(double) * c.n * c.k);
    c.X = malloc(sizeof(double) * c.n * c.d);
    c.C = malloc(sizeof(double) * c.k * c.d);
    ref = malloc(sizeof(double) * c.k * c.d);
    out = malloc(sizeof(double) * c.k * c.d);
    BENCH_CHECK_ALLOC(c.R && c.X && c.C && ref && out);
    bench_fill(c.R, c.n * c.k, 0.0, 1.0, 1);
    bench_fill(c.X, c.n * c.d, 0.0, 1.0, 2);
    BENCH_CHECK(matmul_blas(c.R, c.X, c.n, c.k, c.d, ref));
    if (!config->skip_cpu) {
        row->cpu_ms = bench_time_host(mm_cpu, NULL, &c, 1, bench_cpu_repeats(config));
        if (bench_judge(row, "CPU twin vs OpenBLAS", bench_rel_error(c.C, ref, (size_t)c.k * c.d), 1e-12)) rc = 1;
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_R, sizeof(double) * c.n * c.k));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_X, sizeof(double) * c.n * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_C, sizeof(double) * c.k * c.d));
    BENCH_CHECK(bench_gpu_upload(c.d_R, c.R, sizeof(double) * c.n * c.k));
    BENCH_CHECK(bench_gpu_upload(c.d_X, c.X, sizeof(double) * c.n * c.d));
    row->cuda_ms = bench_time_device(config, mm_cuda, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_C, sizeof(double) * c.k * c.d));
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, ref, (size_t)c.k * c.d), 1e-12);
    row->lib_ms = bench_time_device(config, mm_lib, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_C, sizeof(double) * c.k * c.d));
    rc |= bench_judge(row, "cuBLAS", bench_rel_error(out, ref, (size_t)c.k * c.d), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
done:
    bench_gpu_free(c.d_R);
    bench_gpu_free(c.d_X);
    bench_gpu_free(c.d_C);
    free(c.R);
    free(c.X);
    free(c.C);
    free(ref);
    free(out);
    return rc;
}

/* ---- covariance and weighted covariance ---- */

typedef struct {
    size_t n;
    int d;
    double *X, *w, *mu, *C;
    double *d_X, *d_w, *d_mu, *d_C;
} cov_ctx;

static gmm_status cov_cpu(void *p)
{
    cov_ctx *c = p;
    return covariance_cpu(c->X, c->n, c->d, c->C);
}
static gmm_status cov_cuda(void *p)
{
    cov_ctx *c = p;
    return covariance_cuda(c->d_X, c->n, c->d, c->d_C, NULL);
}
static gmm_status cov_lib(void *p)
{
    cov_ctx *c = p;
    return covariance_cublas(c->d_X, c->n, c->d, c->d_C, bench_gpu_resources());
}
static gmm_status wcov_cpu_w(void *p)
{
    cov_ctx *c = p;
    return wcov_cpu(c->X, c->n, c->d, c->w, 1, c->mu, c->C);
}
static gmm_status wcov_cuda_w(void *p)
{
    cov_ctx *c = p;
    return wcov_cuda(c->d_X, c->n, c->d, c->d_w, 1, c->d_mu, c->d_C, NULL);
}
static gmm_status wcov_lib_w(void *p)
{
    cov_ctx *c = p;
    return wcov_cublas(c->d_X, c->n, c->d, c->d_w, 1, c->d_mu, c->d_C, bench_gpu_resources());
}

static int bench_cov_common(const bench_config *config, bench_row *row, int weighted)
{
    int rc = 0;
    cov_ctx c = {.n = bench_scaled(config, 60000, 100), .d = 784};
    size_t dd = (size_t)c.d * c.d;
    double *ref = NULL, *out = NULL;
    snprintf(row->size, sizeof row->size, "%zux%d fp64", c.n, c.d);
    row->work = (double)c.n * c.d * (c.d + 1); /* the lower triangle, 2 flops per product */
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    row->target_ms = 1.0 * config->scale;
    c.X = malloc(sizeof(double) * c.n * c.d);
    c.w = malloc(sizeof(double) * c.n);
    c.mu = calloc((size_t)c.d, sizeof(double));
    c.C = malloc(sizeof(double) * dd);
    ref = malloc(sizeof(double) * dd);
    out = malloc(sizeof(double) * dd);
    BENCH_CHECK_ALLOC(c.X && c.w && c.mu && c.C && ref && out);
    bench_fill(c.X, c.n * c.d, 0.0, 1.0, 3);
    bench_fill(c.w, c.n, 0.0, 1.0, 4);
    for (size_t i = 0; i < c.n; i++)
        for (int j = 0; j < c.d; j++) c.mu[j] += c.X[i * c.d + j];
    for (int j = 0; j < c.d; j++) c.mu[j] /= (double)c.n;
    if (!weighted) /* covariance takes centred data */
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < c.n; i++)
            for (int j = 0; j < c.d; j++) c.X[i * c.d + j] -= c.mu[j];
    if (weighted) BENCH_CHECK(wcov_blas(c.X, c.n, c.d, c.w, 1, c.mu, ref));
    else BENCH_CHECK(covariance_blas(c.X, c.n, c.d, ref));
    if (!config->skip_cpu) {
        row->cpu_ms = bench_time_host(weighted ? wcov_cpu_w : cov_cpu, NULL, &c, 0,
                                      bench_cpu_repeats(config));
        rc |= bench_judge(row, "CPU twin vs OpenBLAS", bench_rel_error(c.C, ref, dd), 1e-12);
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_X, sizeof(double) * c.n * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_w, sizeof(double) * c.n));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_mu, sizeof(double) * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_C, sizeof(double) * dd));
    BENCH_CHECK(bench_gpu_upload(c.d_X, c.X, sizeof(double) * c.n * c.d));
    BENCH_CHECK(bench_gpu_upload(c.d_w, c.w, sizeof(double) * c.n));
    BENCH_CHECK(bench_gpu_upload(c.d_mu, c.mu, sizeof(double) * c.d));
    row->cuda_ms = bench_time_device(config, weighted ? wcov_cuda_w : cov_cuda, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_C, sizeof(double) * dd));
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, ref, dd), 1e-12);
    row->lib_ms = bench_time_device(config, weighted ? wcov_lib_w : cov_lib, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_C, sizeof(double) * dd));
    rc |= bench_judge(row, "cuBLAS", bench_rel_error(out, ref, dd), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    if (weighted) bench_note(row, "lib = sqrt(w) scaling + DSYRK");
done:
    bench_gpu_free(c.d_X);
    bench_gpu_free(c.d_w);
    bench_gpu_free(c.d_mu);
    bench_gpu_free(c.d_C);
    free(c.X);
    free(c.w);
    free(c.mu);
    free(c.C);
    free(ref);
    free(out);
    return rc;
}

int bench_covariance(const bench_config *config, bench_row *row)
{
    return bench_cov_common(config, row, 0);
}

int bench_wcov(const bench_config *config, bench_row *row)
{
    return bench_cov_common(config, row, 1);
}

/* ---- Cholesky ---- */

typedef struct {
    int d, batch;
    size_t elems;
    double *A0, *A;      /* pristine input, work copy (host) */
    double *d_A0, *d_A;
} chol_ctx;

static gmm_status chol_restore_host(void *p)
{
    chol_ctx *c = p;
    memcpy(c->A, c->A0, sizeof(double) * c->elems);
    return GMM_OK;
}
static gmm_status chol_cpu(void *p)
{
    chol_ctx *c = p;
    return cholesky_cpu(c->A, c->d, c->batch, NULL);
}
static gmm_status chol_restore_dev(void *p)
{
    chol_ctx *c = p;
    return bench_gpu_copy(c->d_A, c->d_A0, sizeof(double) * c->elems);
}
static gmm_status chol_cuda(void *p)
{
    chol_ctx *c = p;
    return cholesky_cuda_v1(c->d_A, c->d, c->batch, NULL, NULL);
}
static gmm_status chol_lib(void *p)
{
    chol_ctx *c = p;
    return cholesky_cusolver(c->d_A, c->d, c->batch, NULL, bench_gpu_resources());
}

static int bench_chol_common(const bench_config *config, bench_row *row, int dim, int batch,
                             double target_ms)
{
    int rc = 0;
    chol_ctx c = {.d = dim, .batch = batch};
    c.elems = (size_t)dim * dim * batch;
    double *ref = NULL, *out = NULL;
    if (batch == 1) snprintf(row->size, sizeof row->size, "%dx%d fp64", dim, dim);
    else snprintf(row->size, sizeof row->size, "%d x %dx%d fp64", batch, dim, dim);
    row->work = (double)batch * dim * (double)dim * dim / 3.0;
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    row->target_ms = target_ms;
    c.A0 = malloc(sizeof(double) * c.elems);
    c.A = malloc(sizeof(double) * c.elems);
    ref = malloc(sizeof(double) * c.elems);
    out = malloc(sizeof(double) * c.elems);
    BENCH_CHECK_ALLOC(c.A0 && c.A && ref && out);
    bench_fill_spd(c.A0, dim, batch, 5);
    memcpy(ref, c.A0, sizeof(double) * c.elems);
    BENCH_CHECK(cholesky_blas(ref, dim, batch, NULL));
    if (!config->skip_cpu) {
        row->cpu_ms = bench_time_host(chol_cpu, chol_restore_host, &c, 0, bench_cpu_repeats(config));
        rc |= bench_judge(row, "CPU twin vs LAPACK", bench_rel_error(c.A, ref, c.elems), 1e-12);
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_A0, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_A, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_upload(c.d_A0, c.A0, sizeof(double) * c.elems));
    row->cuda_ms = bench_time_device(config, chol_cuda, chol_restore_dev, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_A, sizeof(double) * c.elems));
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, ref, c.elems), 1e-12);
    row->lib_ms = bench_time_device(config, chol_lib, chol_restore_dev, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_A, sizeof(double) * c.elems));
    rc |= bench_judge(row, "cuSOLVER", bench_rel_error(out, ref, c.elems), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, batch == 1 ? "lib = cuSOLVER potrf" : "lib = cuSOLVER potrfBatched");
done:
    bench_gpu_free(c.d_A0);
    bench_gpu_free(c.d_A);
    free(c.A0);
    free(c.A);
    free(ref);
    free(out);
    return rc;
}

int bench_cholesky(const bench_config *config, bench_row *row)
{
    int dim = (int)bench_scaled(config, 4096, 64);
    return bench_chol_common(config, row, dim, 1, 5.0 * pow(config->scale, 3));
}

int bench_cholesky_batched(const bench_config *config, bench_row *row)
{
    return bench_chol_common(config, row, 784, 10, 2.0);
}

/* ---- triangular solve ---- */

typedef struct {
    int d;
    size_t nrhs;
    double *L, *B0, *B;
    double *d_L, *d_B0, *d_B;
} trsm_ctx;

static gmm_status trsm_restore_host(void *p)
{
    trsm_ctx *c = p;
    memcpy(c->B, c->B0, sizeof(double) * c->d * c->nrhs);
    return GMM_OK;
}
static gmm_status trsm_cpu_w(void *p)
{
    trsm_ctx *c = p;
    return trsm_cpu(c->L, c->d, c->B, c->nrhs);
}
static gmm_status trsm_restore_dev(void *p)
{
    trsm_ctx *c = p;
    return bench_gpu_copy(c->d_B, c->d_B0, sizeof(double) * c->d * c->nrhs);
}
static gmm_status trsm_cuda_w(void *p)
{
    trsm_ctx *c = p;
    return trsm_cuda_v1(c->d_L, c->d, c->d_B, c->nrhs, NULL);
}
static gmm_status trsm_lib_w(void *p)
{
    trsm_ctx *c = p;
    return trsm_cublas(c->d_L, c->d, c->d_B, c->nrhs, bench_gpu_resources());
}

int bench_trsm(const bench_config *config, bench_row *row)
{
    int rc = 0;
    trsm_ctx c = {.d = 784, .nrhs = bench_scaled(config, 60000, 64)};
    size_t nb = (size_t)c.d * c.nrhs;
    double *ref = NULL, *out = NULL;
    snprintf(row->size, sizeof row->size, "%dx%d, %zu rhs fp64", c.d, c.d, c.nrhs);
    row->work = (double)c.d * c.d * (double)c.nrhs;
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    row->target_ms = 3.0 * config->scale;
    c.L = malloc(sizeof(double) * c.d * c.d);
    c.B0 = malloc(sizeof(double) * nb);
    c.B = malloc(sizeof(double) * nb);
    ref = malloc(sizeof(double) * nb);
    out = malloc(sizeof(double) * nb);
    BENCH_CHECK_ALLOC(c.L && c.B0 && c.B && ref && out);
    /* A well-conditioned lower factor: unit-ish diagonal, small off-diagonal entries. */
    {
        uint64_t s = 6;
        for (int i = 0; i < c.d; i++)
            for (int j = 0; j < c.d; j++)
                c.L[(size_t)i * c.d + j] = j < i ? (2 * bench_rng_uniform(&s) - 1) / c.d
                                                 : (j == i ? 1.0 + bench_rng_uniform(&s) : 0.0);
    }
    bench_fill(c.B0, nb, -1.0, 1.0, 7);
    memcpy(ref, c.B0, sizeof(double) * nb);
    BENCH_CHECK(trsm_blas(c.L, c.d, ref, c.nrhs));
    if (!config->skip_cpu) {
        row->cpu_ms = bench_time_host(trsm_cpu_w, trsm_restore_host, &c, 0, bench_cpu_repeats(config));
        rc |= bench_judge(row, "CPU twin vs OpenBLAS", bench_rel_error(c.B, ref, nb), 1e-12);
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_L, sizeof(double) * c.d * c.d));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_B0, sizeof(double) * nb));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_B, sizeof(double) * nb));
    BENCH_CHECK(bench_gpu_upload(c.d_L, c.L, sizeof(double) * c.d * c.d));
    BENCH_CHECK(bench_gpu_upload(c.d_B0, c.B0, sizeof(double) * nb));
    row->cuda_ms = bench_time_device(config, trsm_cuda_w, trsm_restore_dev, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_B, sizeof(double) * nb));
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, ref, nb), 1e-12);
    row->lib_ms = bench_time_device(config, trsm_lib_w, trsm_restore_dev, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_B, sizeof(double) * nb));
    rc |= bench_judge(row, "cuBLAS", bench_rel_error(out, ref, nb), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
done:
    bench_gpu_free(c.d_L);
    bench_gpu_free(c.d_B0);
    bench_gpu_free(c.d_B);
    free(c.L);
    free(c.B0);
    free(c.B);
    free(ref);
    free(out);
    return rc;
}

/* ---- matrix-vector ---- */

typedef struct {
    size_t m, n;
    int f64;
    void *A, *x, *y;
    void *d_A, *d_x, *d_y;
} mv_ctx;

static gmm_status mv_cpu(void *p)
{
    mv_ctx *c = p;
    return c->f64 ? matvec_f64_cpu(c->A, c->m, c->n, c->x, c->y)
                  : matvec_f32_cpu(c->A, c->m, c->n, c->x, c->y);
}
static gmm_status mv_cuda(void *p)
{
    mv_ctx *c = p;
    return c->f64 ? matvec_f64_cuda_v1(c->d_A, c->m, c->n, c->d_x, c->d_y, NULL)
                  : matvec_f32_cuda(c->d_A, c->m, c->n, c->d_x, c->d_y, NULL);
}
static gmm_status mv_lib(void *p)
{
    mv_ctx *c = p;
    return c->f64 ? matvec_f64_cublas(c->d_A, c->m, c->n, c->d_x, c->d_y, bench_gpu_resources())
                  : matvec_f32_cublas(c->d_A, c->m, c->n, c->d_x, c->d_y, bench_gpu_resources());
}

static int bench_mv_common(const bench_config *config, bench_row *row, int f64)
{
    int rc = 0;
    size_t side = bench_scaled(config, 10000, 32);
    mv_ctx c = {.m = side, .n = side, .f64 = f64};
    size_t es = f64 ? sizeof(double) : sizeof(float);
    double *ref = NULL, *out = NULL, *tmp = NULL;
    snprintf(row->size, sizeof row->size, "%zux%zu %s", c.m, c.n, f64 ? "fp64" : "fp32");
    row->work = (double)es * ((double)c.m * c.n + c.n + c.m);
    row->bytes_bound = 1;
    row->ceiling = config->copy_tbps * 1e3;
    /* Target: 85% of the measured copy bandwidth. */
    row->target_ms = config->copy_tbps > 0 ? row->work / (0.85 * config->copy_tbps * 1e12) * 1e3 : 0;
    c.A = malloc(es * c.m * c.n);
    c.x = malloc(es * c.n);
    c.y = malloc(es * c.m);
    ref = malloc(sizeof(double) * c.m);
    out = malloc(sizeof(double) * c.m);
    tmp = malloc(es * c.m);
    BENCH_CHECK_ALLOC(c.A && c.x && c.y && ref && out && tmp);
    if (f64) {
        bench_fill(c.A, c.m * c.n, -1.0, 1.0, 8);
        bench_fill(c.x, c.n, -1.0, 1.0, 9);
    } else {
        bench_fill_f(c.A, c.m * c.n, -1.0f, 1.0f, 8);
        bench_fill_f(c.x, c.n, -1.0f, 1.0f, 9);
    }
    /* Reference in float64 whatever the type. */
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < c.m; i++) {
        double s = 0;
        for (size_t j = 0; j < c.n; j++)
            s += f64 ? ((double *)c.A)[i * c.n + j] * ((double *)c.x)[j]
                     : (double)((float *)c.A)[i * c.n + j] * ((float *)c.x)[j];
        ref[i] = s;
    }
    const double bound = f64 ? 1e-12 : 1e-5;
#define TO_DOUBLE(src)                                                                             \
    for (size_t i = 0; i < c.m; i++) out[i] = f64 ? ((double *)(src))[i] : ((float *)(src))[i]
    if (!config->skip_cpu) {
        row->cpu_ms = bench_time_host(mv_cpu, NULL, &c, 1, bench_cpu_repeats(config));
        TO_DOUBLE(c.y);
        rc |= bench_judge(row, "CPU twin", bench_rel_error(out, ref, c.m), bound);
    }
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc(&c.d_A, es * c.m * c.n));
    BENCH_CHECK(bench_gpu_alloc(&c.d_x, es * c.n));
    BENCH_CHECK(bench_gpu_alloc(&c.d_y, es * c.m));
    BENCH_CHECK(bench_gpu_upload(c.d_A, c.A, es * c.m * c.n));
    BENCH_CHECK(bench_gpu_upload(c.d_x, c.x, es * c.n));
    row->cuda_ms = bench_time_device(config, mv_cuda, NULL, &c);
    BENCH_CHECK(bench_gpu_download(tmp, c.d_y, es * c.m));
    TO_DOUBLE(tmp);
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, ref, c.m), bound);
    row->lib_ms = bench_time_device(config, mv_lib, NULL, &c);
    BENCH_CHECK(bench_gpu_download(tmp, c.d_y, es * c.m));
    TO_DOUBLE(tmp);
    rc |= bench_judge(row, "cuBLAS", bench_rel_error(out, ref, c.m), bound);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, "target: 85%% of copy bandwidth");
#undef TO_DOUBLE
done:
    bench_gpu_free(c.d_A);
    bench_gpu_free(c.d_x);
    bench_gpu_free(c.d_y);
    free(c.A);
    free(c.x);
    free(c.y);
    free(ref);
    free(out);
    free(tmp);
    return rc;
}

int bench_matvec(const bench_config *config, bench_row *row) { return bench_mv_common(config, row, 0); }
int bench_matvec_f64(const bench_config *config, bench_row *row) { return bench_mv_common(config, row, 1); }
