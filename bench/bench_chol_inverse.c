/* gmm-bench chol_inverse: the precision Cholesky factors of ten 784 x 784 covariances (the fit's
 * K = 10 on MNIST-sized images), U_k = R_k^{-1} with S_k = R_k^T R_k (linalg/chol_inverse.h):
 * the CPU twin, chol_inverse_cuda, and the vendor libraries' way on one stream (cuSOLVER
 * potrfBatched, then a cuBLAS TRSM against the identity per matrix), all checked against the CPU
 * twin. Work counted as d^3 / 3 (Cholesky) + d^3 / 3 (triangular inverse) per matrix.
 *
 * gmm-bench factor_<name>: the same ten covariances through a factorisation of the CUDA
 * backend's M-step that lost to chol_inverse_cuda (bench/experiments/factorisation.cu, versions
 * 1-6) in the CUDA column, and through the production one (version 0: chol_inverse_cuda and the
 * infos read back, as the M-step does after it) in the lib column, both against the CPU twin. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/bench_ops.h"
#include "bench/experiments/experiments.h"
#include "linalg/chol_inverse.h"
#include "linalg/cholesky.h"
#include "linalg/trsm.h"

typedef struct {
    int d, batch;
    size_t elems;
    double *S, *U;                       /* host input and the CPU twin's result */
    double *d_S, *d_U, *d_work, *d_eye;  /* device: input, result, scratch, K identities */
    int *d_info;
} ci_ctx;

static gmm_status ci_cpu(void *p)
{
    ci_ctx *c = p;
    return chol_inverse_cpu(c->S, c->d, c->batch, c->U, NULL);
}
static gmm_status ci_cuda(void *p)
{
    ci_ctx *c = p;
    return chol_inverse_cuda(c->d_S, c->d, c->batch, c->d_U, c->d_work, c->d_info,
                             bench_gpu_resources());
}
/* before the library's run: its input copied (potrf works in place) and the identities reset */
static gmm_status ci_lib_restore(void *p)
{
    ci_ctx *c = p;
    gmm_status st = bench_gpu_copy(c->d_work, c->d_S, sizeof(double) * c->elems);
    return st != GMM_OK ? st : bench_gpu_copy(c->d_U, c->d_eye, sizeof(double) * c->elems);
}
/* L_k (row-major lower) by potrfBatched, then L_k^{-1} = U_k^T by TRSM against the identity */
static gmm_status ci_lib(void *p)
{
    ci_ctx *c = p;
    const size_t dd = (size_t)c->d * c->d;
    gmm_status st = cholesky_cusolver(c->d_work, c->d, c->batch, NULL, bench_gpu_resources());
    for (int b = 0; b < c->batch && st == GMM_OK; b++)
        st = trsm_cublas(c->d_work + dd * b, c->d, c->d_U + dd * b, (size_t)c->d,
                         bench_gpu_resources());
    return st;
}

/* out = the batch's matrices transposed (the library path gives U^T) */
static void transpose_batch(double *x, int d, int batch)
{
    for (int b = 0; b < batch; b++) {
        double *m = x + (size_t)b * d * d;
        for (int i = 0; i < d; i++)
            for (int j = i + 1; j < d; j++) {
                double t = m[(size_t)i * d + j];
                m[(size_t)i * d + j] = m[(size_t)j * d + i];
                m[(size_t)j * d + i] = t;
            }
    }
}

int bench_chol_inverse(const bench_config *config, bench_row *row)
{
    int rc = 0;
    ci_ctx c = {.d = 784, .batch = 10};
    const int d = c.d;
    c.elems = (size_t)d * d * c.batch;
    double *out = NULL, *eye = NULL;
    snprintf(row->size, sizeof row->size, "%d x %dx%d fp64", c.batch, d, d);
    row->work = c.batch * 2.0 * d * (double)d * d / 3.0;
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    row->target_ms = 0.5; /* the "well under a millisecond" for K = 10, d = 784 */
    c.S = malloc(sizeof(double) * c.elems);
    c.U = malloc(sizeof(double) * c.elems);
    out = malloc(sizeof(double) * c.elems);
    eye = calloc(c.elems, sizeof(double));
    BENCH_CHECK_ALLOC(c.S && c.U && out && eye);
    bench_fill_spd(c.S, d, c.batch, 7);
    for (int b = 0; b < c.batch; b++)
        for (int i = 0; i < d; i++) eye[(size_t)b * d * d + (size_t)i * d + i] = 1.0;
    /* the reference: the CPU twin once (timed below only when asked) */
    BENCH_CHECK(chol_inverse_cpu(c.S, d, c.batch, c.U, NULL));
    if (!config->skip_cpu) row->cpu_ms = bench_time_host(ci_cpu, NULL, &c, 0, bench_cpu_repeats(config));
    if (!bench_have_gpu()) goto done;
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_S, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_U, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_work, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_eye, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_alloc((void **)&c.d_info, sizeof(int) * c.batch));
    BENCH_CHECK(bench_gpu_upload(c.d_S, c.S, sizeof(double) * c.elems));
    BENCH_CHECK(bench_gpu_upload(c.d_eye, eye, sizeof(double) * c.elems));
    row->cuda_ms = bench_time_device(config, ci_cuda, NULL, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_U, sizeof(double) * c.elems));
    rc |= bench_judge(row, "CUDA", bench_rel_error(out, c.U, c.elems), 1e-12);
    row->lib_ms = bench_time_device(config, ci_lib, ci_lib_restore, &c);
    BENCH_CHECK(bench_gpu_download(out, c.d_U, sizeof(double) * c.elems));
    transpose_batch(out, d, c.batch);
    rc |= bench_judge(row, "cuSOLVER+cuBLAS", bench_rel_error(out, c.U, c.elems), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, "lib = potrfBatched + TRSM vs I, one stream");
done:
    bench_gpu_free(c.d_S);
    bench_gpu_free(c.d_U);
    bench_gpu_free(c.d_work);
    bench_gpu_free(c.d_eye);
    bench_gpu_free(c.d_info);
    free(c.S);
    free(c.U);
    free(out);
    free(eye);
    return rc;
}

/* ---- factor_<name>: the factorisations that lost, against the production one ---------------- */

typedef struct {
    factorisation_plan *plan;
    int version;
} fv_ctx;

static gmm_status fv_run(void *p)
{
    fv_ctx *f = p;
    return factorisation_version(f->version, f->plan, NULL);
}

/* One row: version `version` of bench/experiments/factorisation.cu (CUDA column) against
 * version 0, the production kernel (lib column), on the chol_inverse row's matrices. */
static int bench_factor_version(const bench_config *config, bench_row *row, int version)
{
    int rc = 0;
    const int d = 784, batch = 10;
    const size_t elems = (size_t)d * d * batch;
    double *S = NULL, *U = NULL, *out = NULL, *d_S = NULL, *d_U = NULL;
    factorisation_plan *plan = NULL;
    fv_ctx experiment = {NULL, version}, production = {NULL, 0};
    snprintf(row->size, sizeof row->size, "%d x %dx%d fp64", batch, d, d);
    row->work = batch * 2.0 * d * (double)d * d / 3.0;
    row->bytes_bound = 0;
    row->ceiling = config->fp64_gemm_tflops * 1e3;
    if (!bench_have_gpu()) {
        bench_note(row, "a GPU experiment (%s): no GPU", factorisation_version_name(version));
        return -1;
    }
    S = malloc(sizeof(double) * elems);
    U = malloc(sizeof(double) * elems);
    out = malloc(sizeof(double) * elems);
    BENCH_CHECK_ALLOC(S && U && out);
    bench_fill_spd(S, d, batch, 7);
    BENCH_CHECK(chol_inverse_cpu(S, d, batch, U, NULL)); /* the reference, untimed */
    BENCH_CHECK(bench_gpu_alloc((void **)&d_S, sizeof(double) * elems));
    BENCH_CHECK(bench_gpu_alloc((void **)&d_U, sizeof(double) * elems));
    BENCH_CHECK(bench_gpu_upload(d_S, S, sizeof(double) * elems));
    BENCH_CHECK(factorisation_plan_create(&plan, d_S, d_U, d, batch, bench_gpu_resources()));
    experiment.plan = production.plan = plan;
    row->cuda_ms = bench_time_device(config, fv_run, NULL, &experiment);
    BENCH_CHECK(bench_gpu_download(out, d_U, sizeof(double) * elems));
    rc |= bench_judge(row, factorisation_version_name(version), bench_rel_error(out, U, elems),
                      1e-12);
    row->lib_ms = bench_time_device(config, fv_run, NULL, &production);
    BENCH_CHECK(bench_gpu_download(out, d_U, sizeof(double) * elems));
    rc |= bench_judge(row, "chol_inverse", bench_rel_error(out, U, elems), 1e-12);
    if (row->cuda_ms < 0 || row->lib_ms < 0) rc = 1;
    bench_note(row, "experiment v%d %s; lib = v0 chol_inverse (production, no graph)", version,
               factorisation_version_name(version));
done:
    factorisation_plan_free(plan);
    bench_gpu_free(d_S);
    bench_gpu_free(d_U);
    free(S);
    free(U);
    free(out);
    return rc;
}

int bench_factor_batched(const bench_config *c, bench_row *r) { return bench_factor_version(c, r, 1); }
int bench_factor_loop(const bench_config *c, bench_row *r) { return bench_factor_version(c, r, 2); }
int bench_factor_batched_trtri(const bench_config *c, bench_row *r) { return bench_factor_version(c, r, 3); }
int bench_factor_lanes_trtri(const bench_config *c, bench_row *r) { return bench_factor_version(c, r, 4); }
int bench_factor_lanes(const bench_config *c, bench_row *r) { return bench_factor_version(c, r, 5); }
int bench_factor_graph(const bench_config *c, bench_row *r) { return bench_factor_version(c, r, 6); }
