/* Check suite for the CUDA backend (models/backend/cuda/backend_cuda.cu): every backend operation compared
 * with the CPU backend on random and awkward sizes (N not a multiple of any block, K = 1,
 * d = 1, d = 784) for all four covariance types, forced small chunks, float32/TF32 bounds,
 * the E-step's column blocks, the compaction, the factorisation's graph against its direct
 * calls and the Cholesky failure message (the k-means, k-means++ and whole fits are in
 * test_gpu_fit.c; the paths that lost, bench/experiments/, and the production kernels beside
 * them are checked against the CPU twins by test_k_factorisation.c, test_k_compact.c and
 * test_k_estep_product.c). Skips without a GPU. CUDA is touched only inside the tests (each
 * runs in Check's forked child). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "kernels/estep_rows.h"
#include "kernels/gpu_info.h"
#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/core/init.h"
#include "kernels/rng.h"
#include "tests/testutil.h"

/* The backend tuning of the next create (the tests set fields and reset them). */
static gmm_tuning g_tuning;

static const gmm_cov_type TYPES[4] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG,
                                      GMM_COV_SPHERICAL};

#define gpu tu_gpu_backend
#define CHECK_OK TU_CHECK_OK

/* A valid random model: positive weights, means in [0, 1], well-conditioned covariances. */
static void random_model(gmm_model *m, int K, int d, gmm_cov_type type, uint64_t seed)
{
    CHECK_OK(gmm_model_alloc(m, K, d, type));
    uint64_t s = seed;
    double wsum = 0;
    for (int k = 0; k < K; k++) wsum += m->weights[k] = 0.2 + tu_rand_uniform(&s);
    for (int k = 0; k < K; k++) m->weights[k] /= wsum;
    tu_fill_uniform(m->means, (size_t)K * d, 0.0, 1.0, seed + 1);
    size_t dd = (size_t)d * d;
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) {
        int nm = type == GMM_COV_FULL ? K : 1;
        double *A = malloc(sizeof(double) * dd);
        for (int k = 0; k < nm; k++) {
            for (size_t i = 0; i < dd; i++) A[i] = tu_rand_normal(&s);
            double *c = m->covariances + k * dd;
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++) {
                    double t = 0;
                    for (int l = 0; l < d; l++) t += A[(size_t)a * d + l] * A[(size_t)b * d + l];
                    c[(size_t)a * d + b] = 0.05 * t / d + (a == b ? 0.05 : 0.0);
                }
        }
        free(A);
    } else {
        size_t n = gmm_cov_size(type, K, d);
        for (size_t i = 0; i < n; i++) m->covariances[i] = 0.02 + 0.1 * tu_rand_uniform(&s);
    }
    m->reg_covar = 1e-6;
    CHECK_OK(gmm_model_compute_precisions(m));
}

/* Random responsibilities, rows positive and summing to 1. */
static void random_resp(double *resp, int64_t N, int K, uint64_t seed)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < N; i++) {
        double t = 0;
        for (int k = 0; k < K; k++) t += resp[i * K + k] = 0.05 + tu_rand_uniform(&s);
        for (int k = 0; k < K; k++) resp[i * K + k] /= t;
    }
}

#define poison tu_poison

/* Everything one backend produces from the same inputs. */
typedef struct {
    double ll, ll2;
    double *lpn, *log_resp;   /* E-step from the given parameters */
    gmm_model after_resp;     /* M-step from the given responsibilities */
    double *nk;
    gmm_model after_estep;    /* M-step after the E-step (the EM path) */
} op_results;

static void run_ops(const gmm_backend *be, const double *X, int64_t N, int d, int K,
                    gmm_cov_type type, gmm_precision precision, const gmm_model *params,
                    const double *resp, op_results *r)
{
    gmm_backend_ctx *ctx = NULL;
    r->lpn = malloc(sizeof(double) * N);
    r->log_resp = malloc(sizeof(double) * N * K);
    r->nk = malloc(sizeof(double) * K);
    poison(r->lpn, N);
    poison(r->log_resp, (size_t)N * K);
    poison(r->nk, K);
    CHECK_OK(gmm_model_alloc(&r->after_resp, K, d, type));
    CHECK_OK(gmm_model_alloc(&r->after_estep, K, d, type));
    size_t cn = gmm_cov_size(type, K, d);
    poison(r->after_resp.covariances, cn);
    poison(r->after_resp.precisions_cholesky, cn);
    poison(r->after_resp.means, (size_t)K * d);
    poison(r->after_resp.weights, K);

    CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, type, precision, &g_tuning, NULL));
    CHECK_OK(be->set_params(ctx, params));
    CHECK_OK(be->e_step(ctx, &r->ll));
    CHECK_OK(be->get_estep(ctx, r->lpn, r->log_resp));
    /* below -GMM_ESTEP_PRUNE_MARGIN a log responsibility may be a bound (the pairs of no weight
     * left partial, kernels/estep_rows.h), which differs with how far each backend got: compared
     * as the margin (test_*_estep_pruned check the bounds themselves) */
    for (size_t e = 0; e < (size_t)N * K; e++)
        if (r->log_resp[e] < -GMM_ESTEP_PRUNE_MARGIN) r->log_resp[e] = -GMM_ESTEP_PRUNE_MARGIN;
    gmm_mstep_report rep = {.nk = NULL};
    CHECK_OK(be->m_step(ctx, 1e-6, &rep));
    CHECK_OK(be->get_params(ctx, &r->after_estep));
    CHECK_OK(be->set_resp(ctx, resp));
    rep.nk = r->nk;
    CHECK_OK(be->m_step(ctx, 1e-6, &rep));
    CHECK_OK(be->get_params(ctx, &r->after_resp));
    CHECK_OK(be->e_step(ctx, &r->ll2));
    be->destroy(ctx);
}

static void free_results(op_results *r)
{
    free(r->lpn);
    free(r->log_resp);
    free(r->nk);
    gmm_model_free(&r->after_resp);
    gmm_model_free(&r->after_estep);
}


/* The worst relative error over everything compared; with core_only, over the E-step from the
 * given parameters and the M-step statistics (not the precision factors, whose error the
 * covariances' condition number amplifies: the float32 comparisons). */
static double worst_error(const op_results *g, const op_results *c, int64_t N, int d, int K,
                          gmm_cov_type type, int core_only, char *what, size_t what_len)
{
    size_t cn = gmm_cov_size(type, K, d);
    struct {
        const char *name;
        double err;
    } e[] = {
        {"mean log-likelihood", tu_rel_error_1(g->ll, c->ll)},
        {"log p(x)", tu_rel_error(g->lpn, c->lpn, N)},
        {"log_resp", tu_rel_error(g->log_resp, c->log_resp, (size_t)N * K)},
        {"nk", tu_rel_error(g->nk, c->nk, K)},
        {"weights", tu_rel_error(g->after_resp.weights, c->after_resp.weights, K)},
        {"means", tu_rel_error(g->after_resp.means, c->after_resp.means, (size_t)K * d)},
        {"covariances", tu_rel_error(g->after_resp.covariances, c->after_resp.covariances, cn)},
        {"precisions_cholesky",
         tu_rel_error(g->after_resp.precisions_cholesky, c->after_resp.precisions_cholesky, cn)},
        {"means (EM path)",
         tu_rel_error(g->after_estep.means, c->after_estep.means, (size_t)K * d)},
        {"covariances (EM path)",
         tu_rel_error(g->after_estep.covariances, c->after_estep.covariances, cn)},
        {"precisions_cholesky (EM path)",
         tu_rel_error(g->after_estep.precisions_cholesky, c->after_estep.precisions_cholesky, cn)},
        {"second E-step", tu_rel_error_1(g->ll2, c->ll2)},
    };
    double worst = 0;
    for (size_t i = 0; i < sizeof e / sizeof e[0]; i++) {
        if (core_only && (i == 2 || i == 7 || i >= 8)) continue;
        if (!(e[i].err <= worst)) {
            worst = e[i].err;
            snprintf(what, what_len, "%s", e[i].name);
        }
    }
    return worst;
}

typedef struct {
    int64_t n;
    int d, k;
} shape;

static const shape SHAPES[] = {
    {1237, 7, 3},  /* N not a multiple of any block size */
    {1237, 1, 1},  /* d = 1, K = 1 */
    {517, 1, 5},   /* d = 1, several components */
    {999, 33, 1},  /* K = 1 */
    {1237, 784, 2} /* MNIST's d */
};

static void compare_shape(const shape *sh, gmm_cov_type type, gmm_precision precision, double tol)
{
    int64_t N = sh->n;
    int d = sh->d, K = sh->k;
    double *X = malloc(sizeof(double) * N * d);
    double *resp = malloc(sizeof(double) * N * K);
    uint64_t seed = 1000 + 17 * (uint64_t)N + 31 * d + K + 7 * type;
    tu_fill_uniform(X, (size_t)N * d, 0.0, 1.0, seed);
    random_resp(resp, N, K, seed + 5);
    gmm_model params = {0};
    random_model(&params, K, d, type, seed + 9);

    op_results c = {0}, g = {0};
    run_ops(&gmm_backend_cpu, X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &c);
    run_ops(gpu(), X, N, d, K, type, precision, &params, resp, &g);
    char what[64] = "";
    double err = worst_error(&g, &c, N, d, K, type, precision != GMM_PRECISION_FP64, what,
                             sizeof what);
    printf("gpu vs cpu: N=%lld d=%d K=%d %-9s %s: worst relative error %.2e (%s)\n",
           (long long)N, d, K, gmm_cov_type_name(type), gmm_precision_name(precision), err, what);
    ck_assert_msg(err < tol, "N=%lld d=%d K=%d %s %s: %s relative error %.3e >= %.0e",
                  (long long)N, d, K, gmm_cov_type_name(type), gmm_precision_name(precision),
                  what, err, tol);
    free_results(&c);
    free_results(&g);
    gmm_model_free(&params);
    free(X);
    free(resp);
}

START_TEST(test_ops_vs_cpu)
{
    if (!tu_gpu_available()) return;
    for (size_t s = 0; s < sizeof SHAPES / sizeof SHAPES[0]; s++)
        compare_shape(&SHAPES[s], TYPES[_i], GMM_PRECISION_FP64, 1e-10);
}
END_TEST

/* The E-step's product in column blocks of the triangular factors (tuning.estep_blocks) gives the
 * CPU's results in every precision. The covariance products take the block triangle for d = 784
 * and one GEMM for d = 7 (cov_product.cuh), both against the CPU here and in test_ops_vs_cpu. */
START_TEST(test_estep_blocks)
{
    if (!tu_gpu_available()) return;
    static const shape sh[] = {{1237, 784, 2}, {1237, 7, 3}};
    /* the E-step's product in column blocks of the triangular factors: one GEMM, 2 and 3
     * blocks (d = 7: widths 4, 3 and 3, 3, 1), 8 blocks of d = 784 (widths of 112) */
    static const int blocks[] = {1, 2, 3, 8};
    for (int b = 0; b < 4; b++) {
        g_tuning.estep_blocks = blocks[b];
        for (size_t s = 0; s < 2; s++) {
            compare_shape(&sh[s], GMM_COV_FULL, GMM_PRECISION_FP64, 1e-10);
            compare_shape(&sh[s], GMM_COV_TIED, GMM_PRECISION_FP64, 1e-10);
            compare_shape(&sh[s], GMM_COV_FULL, GMM_PRECISION_FP32, 1e-4);
            compare_shape(&sh[s], GMM_COV_TIED, GMM_PRECISION_FP32, 1e-4);
            compare_shape(&sh[s], GMM_COV_FULL, GMM_PRECISION_TF32, 2e-2);
        }
    }
    g_tuning.estep_blocks = 0;
}
END_TEST

/* Forced small chunks (tuning.chunk_rows) give the unchunked results up to rounding. */
START_TEST(test_small_chunks)
{
    if (!tu_gpu_available()) return;
    gmm_cov_type type = TYPES[_i];
    int64_t N = 1237;
    int d = 40, K = 4;
    double *X = malloc(sizeof(double) * N * d);
    double *resp = malloc(sizeof(double) * N * K);
    tu_fill_uniform(X, (size_t)N * d, 0.0, 1.0, 77);
    random_resp(resp, N, K, 78);
    gmm_model params = {0};
    random_model(&params, K, d, type, 79);
    op_results whole = {0}, chunked = {0};
    g_tuning.chunk_rows = 0;
    run_ops(gpu(), X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &whole);
    g_tuning.chunk_rows = 100;
    run_ops(gpu(), X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &chunked);
    g_tuning.chunk_rows = 0;
    char what[64] = "";
    double err = worst_error(&chunked, &whole, N, d, K, type, 0, what, sizeof what);
    printf("chunks of 100 rows vs whole, %s: worst relative error %.2e (%s)\n",
           gmm_cov_type_name(type), err, what);
    ck_assert_msg(err < 1e-12, "%s: chunked %s differs by %.3e", gmm_cov_type_name(type), what, err);
    free_results(&whole);
    free_results(&chunked);
    gmm_model_free(&params);
    free(X);
    free(resp);
}
END_TEST

/* float32 and TF32 against the float64 CPU: bounded, not exact. */
START_TEST(test_single_precision)
{
    if (!tu_gpu_available()) return;
    static const shape sh[] = {{1237, 784, 3}, {2000, 50, 4}};
    for (int t = 0; t < 4; t++)
        for (size_t s = 0; s < 2; s++) {
            compare_shape(&sh[s], TYPES[t], GMM_PRECISION_FP32, 1e-4);
            compare_shape(&sh[s], TYPES[t], GMM_PRECISION_TF32, 2e-2);
        }
}
END_TEST

/* A covariance that is exactly singular with reg_covar = 0 fails naming the component; with
 * warm_up, after a successful M-step (reg_covar 1e-6) in the same context (the factorisation
 * graph's replay rather than its capture; under sync debugging, the direct calls both times). */
static void cholesky_failure(gmm_cov_type type, bool warm_up, bool direct)
{
    int64_t N = 60;
    int d = 3, K = 2;
    double *X = malloc(sizeof(double) * N * d);
    double *resp = calloc(N * K, sizeof(double));
    tu_fill_uniform(X, (size_t)N * d, 1.0, 2.0, 5);
    for (int64_t i = 0; i < N; i++) {
        int k = i < 5 ? 1 : 0; /* component 1 holds five copies of the origin */
        if (k == 1) memset(X + i * d, 0, sizeof(double) * d);
        resp[i * K + k] = 1.0;
    }
    const gmm_backend *be = gpu();
    gmm_backend_ctx *ctx = NULL;
    CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, type, GMM_PRECISION_FP64, &g_tuning, NULL));
    CHECK_OK(be->set_resp(ctx, resp));
    if (warm_up) CHECK_OK(be->m_step(ctx, 1e-6, NULL));
    gmm_error_clear();
    gmm_status st = be->m_step(ctx, 0.0, NULL);
    const char *msg = gmm_error_message(st);
    printf("expected failure (%s%s): %s\n", direct ? "direct calls" : "graph",
           warm_up ? ", after a good M-step" : "", msg);
    ck_assert_int_eq(st, GMM_ERR_CHOLESKY);
    ck_assert_msg(strstr(msg, "component 1") && strstr(msg, "reg-covar"), "message: %s", msg);
    be->destroy(ctx);
    free(X);
    free(resp);
}

START_TEST(test_cholesky_failure)
{
    if (!tu_gpu_available()) return;
    gmm_cov_type type = TYPES[_i];
    if (type == GMM_COV_TIED) return; /* a tied covariance pools every sample */
    /* the factorisation's graph fails with the message, captured or replayed, and so do its
     * direct calls (sync debugging turns the graph off) */
    cholesky_failure(type, false, false);
    cholesky_failure(type, true, false);
    gmm_cuda_set_sync_debug(1);
    cholesky_failure(type, false, true);
    cholesky_failure(type, true, true);
    gmm_cuda_set_sync_debug(0);
}
END_TEST


/* Well-separated (sep = 8: many responsibilities exactly 0 or below 1e-20) or overlapping
 * (sep = 0.3) clusters: X around K centers, the given responsibilities with exact zeros, tiny
 * values either side of 1e-20 (separated) or all positive (overlapping), and parameters at the
 * true centers so that the E-step's own responsibilities are nearly hard (separated). */
static void clustered(int64_t N, int d, int K, double sep, double *X, double *resp,
                      gmm_model *params, gmm_cov_type type, uint64_t seed)
{
    uint64_t s = seed;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % K);
        for (int j = 0; j < d; j++)
            X[i * d + j] = sep * ((j % K) == k) + 0.3 * tu_rand_normal(&s);
        double t = 0;
        for (int c = 0; c < K; c++) {
            double r;
            if (sep > 1) {
                static const double tiny[4] = {0.0, 1e-30, 1e-20, 3e-19};
                r = c == k ? 1.0 : tiny[(i + c) % 4];
            } else {
                r = 0.05 + tu_rand_uniform(&s);
            }
            t += resp[i * K + c] = r;
        }
        for (int c = 0; c < K; c++) resp[i * K + c] /= t;
    }
    random_model(params, K, d, type, seed + 3);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < d; j++) params->means[(size_t)k * d + j] = sep * ((j % K) == k);
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) {
        int nm = type == GMM_COV_FULL ? K : 1;
        for (int m = 0; m < nm; m++)
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++)
                    params->covariances[(size_t)m * d * d + (size_t)a * d + b] =
                        a == b ? 0.09 : 0.0;
    } else {
        size_t n = gmm_cov_size(type, K, d);
        for (size_t i = 0; i < n; i++) params->covariances[i] = 0.09;
    }
    CHECK_OK(gmm_model_compute_precisions(params));
}

/* The packed covariance products (rows with r_ik <= 1e-20 left out) against the CPU backend
 * and against the unpacked path (tuning.no_compaction), one chunk and chunks of 100 rows. */
START_TEST(test_compaction)
{
    if (!tu_gpu_available()) return;
    gmm_cov_type type = TYPES[_i];
    static const shape sh[] = {{1237, 40, 4}, {3000, 784, 3}};
    static const double seps[] = {8.0, 0.3};
    for (size_t q = 0; q < 2; q++)
        for (int v = 0; v < 2; v++) {
            int64_t N = sh[q].n;
            int d = sh[q].d, K = sh[q].k;
            double *X = malloc(sizeof(double) * N * d);
            double *resp = malloc(sizeof(double) * N * K);
            gmm_model params = {0};
            clustered(N, d, K, seps[v], X, resp, &params, type, 500 + 10 * q + v);
            op_results c = {0}, g = {0}, g100 = {0}, old = {0};
            run_ops(&gmm_backend_cpu, X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &c);
            run_ops(gpu(), X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &g);
            g_tuning.chunk_rows = 100;
            run_ops(gpu(), X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &g100);
            g_tuning.chunk_rows = 0;
            g_tuning.no_compaction = 1;
            run_ops(gpu(), X, N, d, K, type, GMM_PRECISION_FP64, &params, resp, &old);
            g_tuning.no_compaction = 0;
            char w1[64] = "", w2[64] = "", w3[64] = "";
            double e1 = worst_error(&g, &c, N, d, K, type, 0, w1, sizeof w1);
            double e2 = worst_error(&g100, &c, N, d, K, type, 0, w2, sizeof w2);
            double e3 = worst_error(&g, &old, N, d, K, type, 0, w3, sizeof w3);
            printf("compaction N=%lld d=%d K=%d %-9s %s: vs cpu %.2e (%s), chunks of 100 vs cpu "
                   "%.2e (%s), vs unpacked gpu %.2e (%s)\n",
                   (long long)N, d, K, gmm_cov_type_name(type),
                   v == 0 ? "separated" : "overlapping", e1, w1, e2, w2, e3, w3);
            ck_assert_msg(e1 < 1e-10, "compaction vs cpu: %s %.3e", w1, e1);
            ck_assert_msg(e2 < 1e-10, "compaction, chunks of 100, vs cpu: %s %.3e", w2, e2);
            ck_assert_msg(e3 < 1e-10, "compaction vs unpacked: %s %.3e", w3, e3);
            free_results(&c);
            free_results(&g);
            free_results(&g100);
            free_results(&old);
            gmm_model_free(&params);
            free(X);
            free(resp);
        }
}
END_TEST

/* The precision factors after each of `steps` EM iterations from params, then (the buffers made
 * again by set_n_components, so a captured graph must be captured again) one more from params:
 * steps + 1 blocks of cn doubles in prec. */
static void em_precisions(const double *X, int64_t N, int d, int K, gmm_cov_type type,
                          gmm_precision precision, const gmm_model *params, int steps,
                          double *prec)
{
    const gmm_backend *be = gpu();
    gmm_backend_ctx *ctx = NULL;
    gmm_model got = {0};
    size_t cn = gmm_cov_size(type, K, d);
    double ll = 0;
    CHECK_OK(gmm_model_alloc(&got, K, d, type));
    CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, type, precision, &g_tuning, NULL));
    CHECK_OK(be->set_params(ctx, params));
    for (int s = 0; s <= steps; s++) {
        if (s == steps) {
            CHECK_OK(be->set_n_components(ctx, K));
            CHECK_OK(be->set_params(ctx, params));
        }
        CHECK_OK(be->e_step(ctx, &ll));
        CHECK_OK(be->m_step(ctx, 1e-6, NULL));
        poison(got.precisions_cholesky, cn);
        CHECK_OK(be->get_params(ctx, &got));
        memcpy(prec + s * cn, got.precisions_cholesky, sizeof(double) * cn);
    }
    be->destroy(ctx);
    gmm_model_free(&got);
}

/* The factorisation's graph (captured once, replayed) gives its direct calls' precision factors
 * (sync debugging turns the graph off, as a failed capture does): the same calls, so the same
 * numbers, over several M-steps and a capture after the buffers change, in float64 and TF32, full
 * and tied, and with more components than the M-step's lanes (14 > 12). (Both against the CPU:
 * test_ops_vs_cpu.) */
START_TEST(test_factor_graph)
{
    if (!tu_gpu_available()) return;
    static const struct {
        shape sh;
        gmm_cov_type type;
        gmm_precision precision;
    } cases[] = {
        {{1237, 784, 3}, GMM_COV_FULL, GMM_PRECISION_FP64},
        {{1237, 784, 3}, GMM_COV_FULL, GMM_PRECISION_TF32},
        {{1237, 60, 2}, GMM_COV_TIED, GMM_PRECISION_FP64},
        {{1500, 20, 14}, GMM_COV_FULL, GMM_PRECISION_FP64},
    };
    const int steps = 3;
    for (size_t q = 0; q < sizeof cases / sizeof cases[0]; q++) {
        int64_t N = cases[q].sh.n;
        int d = cases[q].sh.d, K = cases[q].sh.k;
        gmm_cov_type type = cases[q].type;
        size_t cn = gmm_cov_size(type, K, d);
        double *X = malloc(sizeof(double) * N * d);
        double *resp = malloc(sizeof(double) * N * K);
        double *graph = malloc(sizeof(double) * cn * (steps + 1));
        double *direct = malloc(sizeof(double) * cn * (steps + 1));
        gmm_model params = {0};
        clustered(N, d, K, 0.3, X, resp, &params, type, 900 + q);
        em_precisions(X, N, d, K, type, cases[q].precision, &params, steps, graph);
        gmm_cuda_set_sync_debug(1);
        em_precisions(X, N, d, K, type, cases[q].precision, &params, steps, direct);
        gmm_cuda_set_sync_debug(0);
        for (int s = 0; s <= steps; s++) {
            double err = tu_rel_error(graph + s * cn, direct + s * cn, cn);
            printf("factorisation graph vs direct calls: N=%lld d=%d K=%d %s %s, M-step %d%s: "
                   "relative difference %.2e\n",
                   (long long)N, d, K, gmm_cov_type_name(type),
                   gmm_precision_name(cases[q].precision), s + 1,
                   s == steps ? " (buffers made again)" : "", err);
            ck_assert_msg(err <= 1e-12, "%s %s M-step %d: the graph differs from the direct calls "
                          "by %.3e",
                          gmm_cov_type_name(type), gmm_precision_name(cases[q].precision), s + 1,
                          err);
        }
        gmm_model_free(&params);
        free(X);
        free(resp);
        free(graph);
        free(direct);
    }
}
END_TEST

/* A context made and destroyed beside another on one resources object (the k-means sample's
 * beside the fit's, models/core/init_kmeans.c) gives the object back with the TF32 setting it
 * found, so the fit's float32 GEMMs stay on the TF32 tensor cores; the last context gives back
 * the caller's setting. */
START_TEST(test_context_beside_keeps_tf32)
{
    if (!tu_gpu_available()) return;
    const gmm_backend *be = gpu();
    gmm_gpu *g = NULL;
    CHECK_OK(gmm_gpu_create(&g));
    double X[64 * 4];
    for (int i = 0; i < 64 * 4; i++) X[i] = (i * 37 % 101) / 101.0;
    gmm_backend_ctx *fit = NULL, *beside = NULL;
    ck_assert(!gmm_gpu_tf32(g));
    CHECK_OK(gmm_backend_create_f64(be, &fit, X, 64, 4, 2, GMM_COV_FULL, GMM_PRECISION_TF32,
                                    &g_tuning, g));
    ck_assert(gmm_gpu_tf32(g));
    CHECK_OK(gmm_backend_create_f64(be, &beside, X, 32, 4, 2, GMM_COV_FULL, GMM_PRECISION_TF32,
                                    &g_tuning, g));
    be->destroy(beside);
    ck_assert_msg(gmm_gpu_tf32(g), "destroying the context beside turned TF32 off");
    be->destroy(fit);
    ck_assert(!gmm_gpu_tf32(g));
    gmm_gpu_destroy(g);
}
END_TEST

static Suite *gpu_backend_suite(void)
{
    Suite *s = suite_create("gpu_backend");
    TCase *tc = tcase_create("ops");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_ops_vs_cpu, 0, 4);
    tcase_add_loop_test(tc, test_small_chunks, 0, 4);
    tcase_add_test(tc, test_single_precision);
    tcase_add_test(tc, test_estep_blocks);
    tcase_add_loop_test(tc, test_cholesky_failure, 0, 4);
    tcase_add_loop_test(tc, test_compaction, 0, 4);
    tcase_add_test(tc, test_factor_graph);
    tcase_add_test(tc, test_context_beside_keeps_tf32);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return 0;
    }
    return tu_run_suite(gpu_backend_suite());
}
