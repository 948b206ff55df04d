/* gmm-bench rows for the CUDA backend's former tuning modes that lost inside the EM iteration
 * (bench/experiments/cov_product.cu and estep_product.cu), at the shapes of one iteration on
 * Fashion-MNIST (60000 x 784, K = 10, float64): the losing version in the CUDA column, the
 * production path (version 0) in the lib column, both checked (the factorisations are the
 * factor_* rows of bench_chol_inverse.c, the means product the matmul row of bench_dense.c).
 *   cov_gemm, cov_syrk, cov_tiled   the M-step's K covariance products of the packed rows (K
 *                                   blocks of N / K rows, the nearly hard responsibilities of
 *                                   784 dimensions) on the lanes, against the block triangle of
 *                                   GEMMs; checked against the CPU twin wcov_packed_cpu (against
 *                                   version 0 with --no-cpu).
 *   estep_kgemm                     Y = X [U_1 .. U_K] as K DGEMMs against one DGEMM; the first
 *                                   and last 32 rows of both checked against host dot products.
 *   estep_fused                     the squared distances ||x U_k - b_k||^2 by one DMMA kernel
 *                                   against the backend's blocked DGEMMs and row kernel; the
 *                                   first and last 16 rows of both checked against the host.
 * Each timed version's output is poisoned first (NaN), so that neither passes on the other's. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/bench_ops.h"
#include "bench/experiments/experiments.h"
#include "kernels/wcov.h"

/* NaN into n doubles of device memory, so that a version that writes nothing cannot pass on
 * what the one before it left. */
static gmm_status poison_device(double *d_x, size_t n)
{
    double *h = malloc(sizeof(double) * n);
    if (!h) return gmm_error(GMM_ERR_NOMEM, "out of host memory");
    for (size_t i = 0; i < n; i++) h[i] = NAN;
    gmm_status st = bench_gpu_upload(d_x, h, sizeof(double) * n);
    free(h);
    return st;
}

/* ---- cov_<name>: the covariance products ---------------------------------------------------- */

typedef struct {
    const double *d_A;
    double *d_out;
    int dim, n_blocks, version;
    const int *bounds;
} cp_ctx;

static gmm_status cp_run(void *p)
{
    cp_ctx *c = p;
    return cov_product_version(c->version, c->d_A, c->dim, c->bounds, c->n_blocks, 0, c->d_out,
                               bench_gpu_resources());
}

/* the largest relative error over the blocks' lower triangles */
static double blocks_error(const double *got, const double *want, int d, int n_blocks)
{
    const size_t dd = (size_t)d * d;
    double worst = 0;
    double *a = malloc(sizeof(double) * dd), *b = malloc(sizeof(double) * dd);
    if (!a || !b) {
        free(a);
        free(b);
        return -1;
    }
    for (int k = 0; k < n_blocks; k++) {
        size_t n = 0;
        for (int r = 0; r < d; r++)
            for (int c = 0; c <= r; c++, n++) {
                a[n] = got[k * dd + (size_t)r * d + c];
                b[n] = want[k * dd + (size_t)r * d + c];
            }
        double e = bench_rel_error(a, b, n);
        if (!(e <= worst)) worst = e;
    }
    free(a);
    free(b);
    return worst;
}

static int bench_cov_version(const bench_config *config, bench_row *row, int version)
{
    int rc = 0;
    const int d = 784, K = 10;
    const size_t n = bench_scaled(config, 60000, 100), dd = (size_t)d * d;
    int bounds[11];
    double *A = NULL, *ref = NULL, *out = NULL, *d_A = NULL, *d_out = NULL;
    cp_ctx experiment = {NULL, NULL, d, K, version, bounds}, production;
    snprintf(row->size, sizeof row->size, "%d x (%zux%d)^T(%zux%d) fp64", K, n / K, d, n / K, d);
    row->work = (double)n * d * d; /* as SYRK: N d^2 over the K blocks */
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    if (!bench_have_gpu()) {
        bench_note(row, "a GPU experiment (%s): no GPU", cov_product_version_name(version));
        return -1;
    }
    for (int k = 0; k <= K; k++) bounds[k] = (int)(n * (size_t)k / K);
    A = malloc(sizeof(double) * n * d);
    ref = calloc(dd * K, sizeof(double));
    out = malloc(sizeof(double) * dd * K);
    BENCH_CHECK_ALLOC(A && ref && out);
    bench_fill(A, n * d, -1.0, 1.0, 11);
    BENCH_CHECK(bench_gpu_alloc((void **)&d_A, sizeof(double) * n * d));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_out, sizeof(double) * dd * K));
    BENCH_CHECK(bench_gpu_upload(d_A, A, sizeof(double) * n * d));
    experiment.d_A = d_A;
    experiment.d_out = d_out;
    production = experiment;
    production.version = 0;
    BENCH_CHECK(poison_device(d_out, dd * K));
    row->lib_ms = bench_time_device(config, cp_run, NULL, &production);
    if (config->skip_cpu) {
        BENCH_CHECK(bench_gpu_download(ref, d_out, sizeof(double) * dd * K));
    } else {
        for (int k = 0; k < K; k++)
            BENCH_CHECK(wcov_packed_cpu(A + (size_t)bounds[k] * d, (size_t)(bounds[k + 1] - bounds[k]),
                                        d, 0, ref + k * dd));
        BENCH_CHECK(bench_gpu_download(out, d_out, sizeof(double) * dd * K));
        rc |= bench_judge(row, cov_product_version_name(0), blocks_error(out, ref, d, K), 1e-12);
    }
    BENCH_CHECK(poison_device(d_out, dd * K));
    row->cuda_ms = bench_time_device(config, cp_run, NULL, &experiment);
    BENCH_CHECK(bench_gpu_download(out, d_out, sizeof(double) * dd * K));
    rc |= bench_judge(row, cov_product_version_name(version), blocks_error(out, ref, d, K), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, "experiment v%d %s; lib = v0 %s (production)", version,
               cov_product_version_name(version), cov_product_version_name(0));
done:
    bench_gpu_free(d_A);
    bench_gpu_free(d_out);
    free(A);
    free(ref);
    free(out);
    return rc;
}

int bench_cov_gemm(const bench_config *c, bench_row *r) { return bench_cov_version(c, r, 1); }
int bench_cov_syrk(const bench_config *c, bench_row *r) { return bench_cov_version(c, r, 2); }
int bench_cov_tiled(const bench_config *c, bench_row *r) { return bench_cov_version(c, r, 3); }

/* ---- estep_kgemm: the E-step's product as K GEMMs ---------------------------------------- */

typedef struct {
    const double *d_X, *d_U;
    double *d_Y;
    size_t n;
    int dim, K, version;
} ep_ctx;

static gmm_status ep_run(void *p)
{
    ep_ctx *c = p;
    return estep_product_version(c->version, c->d_X, c->n, c->dim, c->K, c->d_U, c->d_Y,
                                 bench_gpu_resources());
}

/* NaN into the rows check_rows reads. */
static gmm_status poison_rows(double *d_Y, size_t n, int W, size_t rows)
{
    gmm_status st = poison_device(d_Y, rows * W);
    return st != GMM_OK ? st : poison_device(d_Y + (n - rows) * W, rows * W);
}

/* The relative error of the first and the last `rows` rows of d_Y (n x W) against X U. */
static gmm_status check_rows(const double *X, const double *U, size_t n, int d, int W,
                             size_t rows, const double *d_Y, double *err)
{
    gmm_status st = GMM_OK;
    double *got = malloc(sizeof(double) * rows * W), *want = malloc(sizeof(double) * rows * W);
    *err = 0;
    if (!got || !want) {
        st = gmm_error(GMM_ERR_NOMEM, "out of host memory");
        goto out;
    }
    for (int end = 0; end < 2; end++) {
        const size_t r0 = end ? n - rows : 0;
        if ((st = bench_gpu_download(got, d_Y + r0 * W, sizeof(double) * rows * W)) != GMM_OK)
            goto out;
        for (size_t i = 0; i < rows; i++)
            for (int j = 0; j < W; j++) {
                double t = 0;
                for (int l = 0; l < d; l++) t += X[(r0 + i) * d + l] * U[(size_t)l * W + j];
                want[i * W + j] = t;
            }
        double e = bench_rel_error(got, want, rows * W);
        if (!(e <= *err)) *err = e;
    }
out:
    free(got);
    free(want);
    return st;
}

int bench_estep_kgemm(const bench_config *config, bench_row *row)
{
    int rc = 0;
    const int d = 784, K = 10, W = K * d;
    const size_t n = bench_scaled(config, 60000, 64), rows = 32;
    double *X = NULL, *U = NULL, *d_X = NULL, *d_U = NULL, *d_Y = NULL, err = 0;
    ep_ctx experiment = {NULL, NULL, NULL, n, d, K, 1}, production;
    snprintf(row->size, sizeof row->size, "%zux%d * %dx%d fp64", n, d, d, W);
    row->work = 2.0 * n * d * (double)W;
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    if (!bench_have_gpu()) {
        bench_note(row, "a GPU experiment (%s): no GPU", estep_product_version_name(1));
        return -1;
    }
    X = malloc(sizeof(double) * n * d);
    U = malloc(sizeof(double) * (size_t)d * W);
    BENCH_CHECK_ALLOC(X && U);
    bench_fill(X, n * d, 0.0, 1.0, 21);
    bench_fill(U, (size_t)d * W, -1.0, 1.0, 22);
    BENCH_CHECK(bench_gpu_alloc((void **)&d_X, sizeof(double) * n * d));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_U, sizeof(double) * (size_t)d * W));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_Y, sizeof(double) * n * W));
    BENCH_CHECK(bench_gpu_upload(d_X, X, sizeof(double) * n * d));
    BENCH_CHECK(bench_gpu_upload(d_U, U, sizeof(double) * (size_t)d * W));
    experiment.d_X = d_X;
    experiment.d_U = d_U;
    experiment.d_Y = d_Y;
    production = experiment;
    production.version = 0;
    BENCH_CHECK(poison_rows(d_Y, n, W, rows));
    row->lib_ms = bench_time_device(config, ep_run, NULL, &production);
    BENCH_CHECK(check_rows(X, U, n, d, W, rows, d_Y, &err));
    rc |= bench_judge(row, estep_product_version_name(0), err, 1e-12);
    BENCH_CHECK(poison_rows(d_Y, n, W, rows));
    row->cuda_ms = bench_time_device(config, ep_run, NULL, &experiment);
    BENCH_CHECK(check_rows(X, U, n, d, W, rows, d_Y, &err));
    rc |= bench_judge(row, estep_product_version_name(1), err, 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, "experiment v1 %s; lib = v0 %s", estep_product_version_name(1),
               estep_product_version_name(0));
done:
    bench_gpu_free(d_X);
    bench_gpu_free(d_U);
    bench_gpu_free(d_Y);
    free(X);
    free(U);
    return rc;
}

/* ---- estep_fused: the E-step's distances ------------------------------------------------- */

typedef struct {
    const double *d_X, *d_U, *d_b;
    double *d_dist;
    void *d_work;
    size_t work, n;
    int d, K, version;
} ed_ctx;

static gmm_status ed_run(void *p)
{
    ed_ctx *c = p;
    return estep_distances_version(c->version, c->d_X, c->n, c->d, c->K, c->d_U, c->d_b,
                                   c->d_dist, c->d_work, c->work, bench_gpu_resources());
}

/* The relative error of the first and the last `rows` rows of d_dist against the host's
 * sum_l (sum_{j <= l} x_j U_k[j, l] - b_k[l])^2. */
static gmm_status check_distances(const double *X, const double *U, const double *b, size_t n,
                                  int d, int K, size_t rows, const double *d_dist, double *err)
{
    gmm_status st = GMM_OK;
    double *got = malloc(sizeof(double) * rows * K), *want = malloc(sizeof(double) * rows * K);
    *err = 0;
    if (!got || !want) {
        st = gmm_error(GMM_ERR_NOMEM, "out of host memory");
        goto out;
    }
    for (int end = 0; end < 2; end++) {
        const size_t r0 = end ? n - rows : 0;
        if ((st = bench_gpu_download(got, d_dist + r0 * K, sizeof(double) * rows * K)) != GMM_OK)
            goto out;
        for (size_t i = 0; i < rows; i++)
            for (int k = 0; k < K; k++) {
                const double *x = X + (r0 + i) * d, *u = U + (size_t)k * d * d;
                double s = 0;
                for (int l = 0; l < d; l++) {
                    double y = 0;
                    for (int j = 0; j <= l; j++) y += x[j] * u[(size_t)j * d + l];
                    s += (y - b[(size_t)k * d + l]) * (y - b[(size_t)k * d + l]);
                }
                want[i * K + k] = s;
            }
        double e = bench_rel_error(got, want, rows * K);
        if (!(e <= *err)) *err = e;
    }
out:
    free(got);
    free(want);
    return st;
}

int bench_estep_fused(const bench_config *config, bench_row *row)
{
    int rc = 0;
    const int d = 784, K = 10;
    const size_t n = bench_scaled(config, 60000, 128), rows = 16;
    double *X = NULL, *U = NULL, *b = NULL, *d_X = NULL, *d_U = NULL, *d_b = NULL;
    double *d_dist = NULL, err = 0;
    void *d_work = NULL;
    size_t work = estep_distances_work_bytes(0, n, d, K);
    if (estep_distances_work_bytes(1, n, d, K) > work) work = estep_distances_work_bytes(1, n, d, K);
    ed_ctx experiment = {0}, production;
    snprintf(row->size, sizeof row->size, "%zux%d, K = %d triangular fp64", n, d, K);
    row->work = (double)n * d * (double)d * K; /* the triangles' flops */
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    if (!bench_have_gpu()) {
        bench_note(row, "a GPU experiment (%s): no GPU", estep_distances_version_name(1));
        return -1;
    }
    X = malloc(sizeof(double) * n * d);
    U = calloc((size_t)K * d * d, sizeof(double));
    b = malloc(sizeof(double) * (size_t)K * d);
    BENCH_CHECK_ALLOC(X && U && b);
    bench_fill(X, n * d, 0.0, 1.0, 31);
    bench_fill(b, (size_t)K * d, -1.0, 1.0, 32);
    {
        double *r = malloc(sizeof(double) * d);
        BENCH_CHECK_ALLOC(r);
        for (int k = 0; k < K; k++)
            for (int j = 0; j < d; j++) {
                bench_fill(r, (size_t)(d - j), -0.05, 0.05, 33 + (uint64_t)k * d + j);
                for (int l = j; l < d; l++) U[(size_t)k * d * d + (size_t)j * d + l] = r[l - j];
                U[(size_t)k * d * d + (size_t)j * d + j] += 3.0;
            }
        free(r);
    }
    BENCH_CHECK(bench_gpu_alloc((void **)&d_X, sizeof(double) * n * d));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_U, sizeof(double) * (size_t)K * d * d));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_b, sizeof(double) * (size_t)K * d));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_dist, sizeof(double) * n * K));
    BENCH_CHECK(bench_gpu_alloc(&d_work, work));
    BENCH_CHECK(bench_gpu_upload(d_X, X, sizeof(double) * n * d));
    BENCH_CHECK(bench_gpu_upload(d_U, U, sizeof(double) * (size_t)K * d * d));
    BENCH_CHECK(bench_gpu_upload(d_b, b, sizeof(double) * (size_t)K * d));
    experiment = (ed_ctx){d_X, d_U, d_b, d_dist, d_work, work, n, d, K, 1};
    production = experiment;
    production.version = 0;
    BENCH_CHECK(poison_device(d_dist, n * K));
    row->lib_ms = bench_time_device(config, ed_run, NULL, &production);
    BENCH_CHECK(check_distances(X, U, b, n, d, K, rows, d_dist, &err));
    rc |= bench_judge(row, estep_distances_version_name(0), err, 1e-12);
    BENCH_CHECK(poison_device(d_dist, n * K));
    row->cuda_ms = bench_time_device(config, ed_run, NULL, &experiment);
    if (row->cuda_ms < 0) {
        bench_note(row, "%s: %s", estep_distances_version_name(1), gmm_error_message(GMM_ERR_UNSUPPORTED));
    } else {
        BENCH_CHECK(check_distances(X, U, b, n, d, K, rows, d_dist, &err));
        rc |= bench_judge(row, estep_distances_version_name(1), err, 1e-12);
        bench_note(row, "experiment v1 %s; lib = v0 %s (the backend's way)",
                   estep_distances_version_name(1), estep_distances_version_name(0));
    }
    if (row->lib_ms < 0) rc = 1;
done:
    bench_gpu_free(d_X);
    bench_gpu_free(d_U);
    bench_gpu_free(d_b);
    bench_gpu_free(d_dist);
    bench_gpu_free(d_work);
    free(X);
    free(U);
    free(b);
    return rc;
}
