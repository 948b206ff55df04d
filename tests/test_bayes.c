/* Check suite for the variational (Bayesian) mixture: the kernel layer's two operations
 * (kernels/bayes_covariance.h against a direct transcription of scikit-learn's formulas, and
 * reduce_resp_entropy against a naive sum; their CUDA versions against the CPU twins, outputs
 * poisoned first), the digamma function against known values, and whole variational fits: on a
 * GPU the lower bound after 1, 10 and convergence iterations against the CPU's (which the Python
 * suite holds to scikit-learn's to 1e-8) for every covariance type and both weight priors, and
 * the model file's variational section written and read back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_gpu.h"
#include "kernels/bayes_covariance.h"
#include "kernels/reduce.h"
#include "models/bayes.h"
#include "models/core/em.h"
#include "models/io/model_io.h"
#include "tests/testutil.h"

/* ---- the kernels ------------------------------------------------------------------------ */

typedef struct {
    int layout, K, d;
} cov_case;
static const cov_case COV_CASES[] = {
    {BAYES_COV_FULL, 3, 5},      {BAYES_COV_FULL, 1, 1},      {BAYES_COV_FULL, 7, 33},
    {BAYES_COV_TIED, 4, 6},      {BAYES_COV_TIED, 1, 1},      {BAYES_COV_DIAG, 5, 17},
    {BAYES_COV_DIAG, 1, 1},      {BAYES_COV_SPHERICAL, 6, 9}, {BAYES_COV_SPHERICAL, 1, 1},
};
#define N_COV_CASES (int)(sizeof COV_CASES / sizeof COV_CASES[0])

static size_t cov_values(const cov_case *c)
{
    switch (c->layout) {
    case BAYES_COV_FULL: return (size_t)c->K * c->d * c->d;
    case BAYES_COV_TIED: return (size_t)c->d * c->d;
    case BAYES_COV_DIAG: return (size_t)c->K * c->d;
    default: return (size_t)c->K;
    }
}

static size_t prior_values(const cov_case *c)
{
    return c->layout == BAYES_COV_FULL || c->layout == BAYES_COV_TIED ? (size_t)c->d * c->d
           : c->layout == BAYES_COV_DIAG                               ? (size_t)c->d
                                                                       : 1;
}

/* scikit-learn's _estimate_wishart_* written out, for the covariance of (k, i, j). */
static double expected(const cov_case *c, const double *prior, const double *coef,
                       const double *diff, const double *cov, int k, int i, int j)
{
    const int K = c->K, d = c->d;
    const double *a = coef, *g = coef + K, *cc = coef + 2 * K;
    switch (c->layout) {
    case BAYES_COV_FULL:
        return (prior[i * d + j] + a[k] * cov[((size_t)k * d + i) * d + j] +
                g[k] * diff[k * d + i] * diff[k * d + j]) / cc[k];
    case BAYES_COV_TIED: {
        double outer = 0;
        for (int m = 0; m < K; m++) outer += g[m] * diff[m * d + i] * diff[m * d + j];
        return (prior[i * d + j] + a[0] * cov[i * d + j] + outer) / cc[0];
    }
    case BAYES_COV_DIAG:
        return (prior[j] + a[k] * cov[k * d + j] + g[k] * diff[k * d + j] * diff[k * d + j]) /
               cc[k];
    default: {
        double s = 0;
        for (int m = 0; m < d; m++) s += diff[k * d + m] * diff[k * d + m];
        return (prior[0] + a[k] * cov[k] + g[k] * s / d) / cc[k];
    }
    }
}

static void make_case(const cov_case *c, uint64_t seed, double **prior, double **coef,
                      double **diff, double **cov)
{
    *prior = malloc(sizeof(double) * prior_values(c));
    *coef = malloc(sizeof(double) * 3 * c->K);
    *diff = malloc(sizeof(double) * c->K * c->d);
    *cov = malloc(sizeof(double) * cov_values(c));
    ck_assert(*prior && *coef && *diff && *cov);
    tu_fill_uniform(*prior, prior_values(c), 0.1, 2.0, seed);
    tu_fill_uniform(*coef, 3 * c->K, 0.5, 40.0, seed + 1);
    tu_fill_uniform(*diff, (size_t)c->K * c->d, -3.0, 3.0, seed + 2);
    tu_fill_uniform(*cov, cov_values(c), 0.01, 1.5, seed + 3);
}

START_TEST(covariance_cpu_matches_formula)
{
    const cov_case *c = &COV_CASES[_i];
    double *prior, *coef, *diff, *cov;
    make_case(c, 100 + _i, &prior, &coef, &diff, &cov);
    size_t n = cov_values(c);
    double *out = malloc(sizeof(double) * n);
    memcpy(out, cov, sizeof(double) * n);
    ck_assert_int_eq(bayes_covariance_cpu((bayes_cov_layout)c->layout, c->K, c->d, prior, coef,
                                          diff, out), GMM_OK);
    int n_mats = c->layout == BAYES_COV_TIED ? 1 : c->K;
    for (int k = 0; k < n_mats; k++)
        for (int i = 0; i < (c->layout <= BAYES_COV_TIED ? c->d : 1); i++)
            for (int j = 0; j < (c->layout == BAYES_COV_SPHERICAL ? 1 : c->d); j++) {
                size_t at = c->layout <= BAYES_COV_TIED ? ((size_t)k * c->d + i) * c->d + j
                            : c->layout == BAYES_COV_DIAG ? (size_t)k * c->d + j
                                                          : (size_t)k;
                double want = expected(c, prior, coef, diff, cov, k, i, j);
                /* the terms reach a few hundred: near-cancelling sums get an absolute bound */
                ck_assert_msg(fabs(out[at] - want) <= 1e-13 * fabs(want) + 1e-12,
                              "layout %d K %d d %d (%d,%d,%d): %.17g vs %.17g", c->layout, c->K,
                              c->d, k, i, j, out[at], want);
            }
    free(prior), free(coef), free(diff), free(cov), free(out);
}
END_TEST

START_TEST(covariance_gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const cov_case *c = &COV_CASES[_i];
    double *prior, *coef, *diff, *cov;
    make_case(c, 200 + _i, &prior, &coef, &diff, &cov);
    size_t n = cov_values(c);
    double *ref = malloc(sizeof(double) * n), *out = malloc(sizeof(double) * n);
    memcpy(ref, cov, sizeof(double) * n);
    ck_assert_int_eq(bayes_covariance_cpu((bayes_cov_layout)c->layout, c->K, c->d, prior, coef,
                                          diff, ref), GMM_OK);
    double *d_prior, *d_coef, *d_diff, *d_cov;
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_prior, sizeof(double) * prior_values(c)), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_coef, sizeof(double) * 3 * c->K), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_diff, sizeof(double) * c->K * c->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_cov, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_prior, prior, sizeof(double) * prior_values(c)), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_coef, coef, sizeof(double) * 3 * c->K), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_diff, diff, sizeof(double) * c->K * c->d), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_cov, cov, sizeof(double) * n), GMM_OK);
    gmm_status st = bayes_covariance_cuda((bayes_cov_layout)c->layout, c->K, c->d, d_prior, d_coef,
                                          d_diff, d_cov, NULL);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    for (size_t q = 0; q < n; q++) out[q] = TU_POISON_F64;
    ck_assert_int_eq(bench_gpu_download(out, d_cov, sizeof(double) * n), GMM_OK);
    double e = tu_rel_error(out, ref, n);
    ck_assert_msg(e <= 1e-14, "layout %d K %d d %d: rel err %g", c->layout, c->K, c->d, e);
    bench_gpu_free(d_prior), bench_gpu_free(d_coef), bench_gpu_free(d_diff), bench_gpu_free(d_cov);
    free(prior), free(coef), free(diff), free(cov), free(ref), free(out);
}
END_TEST

/* Log responsibilities: rows of a softmax, one with an exact 0 (log 0 = -inf) and one with 1. */
static double *make_log_resp(size_t n_rows, int K, uint64_t seed)
{
    double *lr = malloc(sizeof(double) * n_rows * K);
    ck_assert(lr != NULL);
    tu_fill_uniform(lr, n_rows * K, -30.0, 0.0, seed);
    for (size_t i = 0; i < n_rows; i++) {
        double *r = lr + i * K, m = -INFINITY, s = 0;
        for (int k = 0; k < K; k++) m = r[k] > m ? r[k] : m;
        for (int k = 0; k < K; k++) s += exp(r[k] - m);
        for (int k = 0; k < K; k++) r[k] -= m + log(s);
    }
    if (n_rows > 1) {
        lr[0] = -INFINITY; /* r = 0 counts 0 */
        for (int k = 0; k < K; k++) lr[K + k] = k == 0 ? 0.0 : -INFINITY;
    }
    return lr;
}

static const size_t ENTROPY_ROWS[] = {1, 255, 257, 20000};

START_TEST(entropy_cpu_and_gpu)
{
    const int K = 7;
    size_t n_rows = ENTROPY_ROWS[_i], n = n_rows * K;
    double *lr = make_log_resp(n_rows, K, 300 + _i);
    double naive = 0, out = TU_POISON_F64;
    for (size_t q = 0; q < n; q++)
        if (exp(lr[q]) > 0) naive -= exp(lr[q]) * lr[q];
    ck_assert_int_eq(reduce_resp_entropy_cpu(lr, n, &out), GMM_OK);
    ck_assert_msg(out == naive, "cpu %.17g vs %.17g", out, naive);
    ck_assert(isfinite(out) && out > 0);
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        free(lr);
        return;
    }
    double *d_lr, *d_partial, *d_out, gpu = TU_POISON_F64;
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_lr, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_partial, sizeof(double) * REDUCE_SUM_MAX_PARTIALS),
                     GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_out, sizeof(double)), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_lr, lr, sizeof(double) * n), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_out, &gpu, sizeof gpu), GMM_OK);
    ck_assert_int_eq(reduce_resp_entropy_cuda(d_lr, n, d_partial, d_out, NULL), GMM_OK);
    ck_assert_int_eq(bench_gpu_download(&gpu, d_out, sizeof gpu), GMM_OK);
    ck_assert_msg(tu_rel_error_1(gpu, out) <= 1e-12, "gpu %.17g vs cpu %.17g", gpu, out);
    bench_gpu_free(d_lr), bench_gpu_free(d_partial), bench_gpu_free(d_out);
    free(lr);
}
END_TEST

START_TEST(digamma_known_values)
{
    /* psi(1) = -gamma, psi(1/2) = -gamma - 2 log 2, psi(n) = H_{n-1} - gamma */
    const double euler = 0.57721566490153286061;
    ck_assert(fabs(gmm_digamma(1.0) + euler) <= 4e-15);
    ck_assert(fabs(gmm_digamma(0.5) - (-euler - 2 * log(2.0))) <= 1e-14);
    double h = 0;
    for (int n = 1; n < 400; n++) {
        double want = h - euler, got = gmm_digamma((double)n);
        ck_assert_msg(fabs(got - want) <= 4e-15 * fmax(1.0, fabs(want)), "psi(%d) = %.17g vs %.17g",
                      n, got, want);
        h += 1.0 / n;
    }
    /* psi(x + 1) = psi(x) + 1 / x across the switch to the series at 10 */
    for (double x = 0.01; x < 50; x *= 1.37)
        ck_assert_msg(fabs(gmm_digamma(x + 1) - gmm_digamma(x) - 1 / x) <= 1e-13 * (1 + 1 / x),
                      "x %g", x);
}
END_TEST

/* ---- whole fits ------------------------------------------------------------------------- */

#define FIT_N 600
#define FIT_D 4
#define FIT_K 5

/* Three blobs, and one-hot responsibilities that split them into FIT_K groups by index. */
static void fit_data(double *X, double *resp)
{
    tu_fill_uniform(X, FIT_N * FIT_D, -1.0, 1.0, 7);
    for (int i = 0; i < FIT_N; i++) {
        int blob = i % 3;
        for (int j = 0; j < FIT_D; j++) X[i * FIT_D + j] += blob * 4.0 * (j == blob ? 1 : 0.3);
        for (int k = 0; k < FIT_K; k++) resp[i * FIT_K + k] = k == (i * 7 / 3) % FIT_K;
    }
}

static gmm_status fit_bayes(gmm_device device, gmm_cov_type type, gmm_weight_prior_type prior,
                            int max_iter, const double *X, const double *resp, gmm_model *m)
{
    gmm_options o;
    gmm_options_default(&o);
    gmm_bayes_options b = {.weight_prior_type = prior};
    o.n_components = FIT_K;
    o.covariance_type = type;
    o.max_iter = max_iter;
    o.tol = 1e-8;
    o.device = device;
    o.bayes = &b;
    return gmm_fit_from_resp(X, FIT_N, FIT_D, &o, resp, m);
}

START_TEST(gpu_fit_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    double *X = malloc(sizeof(double) * FIT_N * FIT_D), *resp = malloc(sizeof(double) * FIT_N * FIT_K);
    fit_data(X, resp);
    const int iters[] = {1, 10, 1000};
    for (int type = GMM_COV_FULL; type <= GMM_COV_SPHERICAL; type++)
        for (int prior = 0; prior < 2; prior++)
            for (int it = 0; it < 3; it++) {
                gmm_model cpu = {0}, gpu = {0};
                TU_CHECK_OK(fit_bayes(GMM_DEVICE_CPU, type, prior, iters[it], X, resp, &cpu));
                TU_CHECK_OK(fit_bayes(GMM_DEVICE_GPU, type, prior, iters[it], X, resp, &gpu));
                ck_assert_int_eq(cpu.n_iter, gpu.n_iter);
                ck_assert_msg(tu_rel_error_1(gpu.lower_bound, cpu.lower_bound) <= 1e-8,
                              "%s %s %d iterations: gpu %.17g cpu %.17g",
                              gmm_cov_type_name(type), gmm_weight_prior_name(prior), iters[it],
                              gpu.lower_bound, cpu.lower_bound);
                ck_assert(gpu.bayes != NULL);
                ck_assert(tu_rel_error(gpu.weights, cpu.weights, FIT_K) <= 1e-7);
                ck_assert(tu_rel_error(gpu.bayes->degrees_of_freedom,
                                       cpu.bayes->degrees_of_freedom, FIT_K) <= 1e-9);
                gmm_model_free(&cpu), gmm_model_free(&gpu);
            }
    free(X), free(resp);
}
END_TEST

START_TEST(surplus_components_empty_and_bound_rises)
{
    double *X = malloc(sizeof(double) * FIT_N * FIT_D), *resp = malloc(sizeof(double) * FIT_N * FIT_K);
    fit_data(X, resp);
    gmm_model m = {0};
    TU_CHECK_OK(fit_bayes(GMM_DEVICE_CPU, GMM_COV_FULL, GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS, 1000, X,
                          resp, &m));
    ck_assert(m.converged);
    int kept = 0;
    double total = 0;
    for (int k = 0; k < FIT_K; k++) kept += m.weights[k] > 0.05, total += m.weights[k];
    ck_assert_msg(kept == 3, "%d components keep weight, the data has 3 blobs", kept);
    ck_assert(fabs(total - 1) < 1e-12);
    /* the variational bound of more iterations is not lower */
    gmm_model one = {0};
    TU_CHECK_OK(fit_bayes(GMM_DEVICE_CPU, GMM_COV_FULL, GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS, 3, X,
                          resp, &one));
    ck_assert(m.lower_bound >= one.lower_bound);
    gmm_model_free(&m), gmm_model_free(&one);
    free(X), free(resp);
}
END_TEST

START_TEST(model_file_keeps_the_posterior)
{
    double *X = malloc(sizeof(double) * FIT_N * FIT_D), *resp = malloc(sizeof(double) * FIT_N * FIT_K);
    fit_data(X, resp);
    const char *path = tu_tmp_path("bayes.bin");
    for (int type = GMM_COV_FULL; type <= GMM_COV_SPHERICAL; type++) {
        gmm_model m = {0}, back = {0};
        TU_CHECK_OK(fit_bayes(GMM_DEVICE_CPU, type, GMM_WEIGHT_PRIOR_DIRICHLET_DISTRIBUTION, 20, X,
                              resp, &m));
        TU_CHECK_OK(gmm_model_save(path, &m));
        TU_CHECK_OK(gmm_model_load(path, &back));
        ck_assert(back.bayes != NULL);
        ck_assert_int_eq(back.bayes->weight_prior_type, GMM_WEIGHT_PRIOR_DIRICHLET_DISTRIBUTION);
        ck_assert(memcmp(back.bayes->log_weight_terms, m.bayes->log_weight_terms,
                         sizeof(double) * FIT_K) == 0);
        ck_assert(memcmp(back.bayes->covariance_prior, m.bayes->covariance_prior,
                         sizeof(double) * gmm_bayes_prior_cov_size(type, FIT_D)) == 0);
        ck_assert(back.bayes->degrees_of_freedom_prior == FIT_D);
        gmm_model_free(&m), gmm_model_free(&back);
    }
    unlink(path);
    free(X), free(resp);
}
END_TEST

START_TEST(bad_priors_are_refused)
{
    double *X = malloc(sizeof(double) * FIT_N * FIT_D), *resp = malloc(sizeof(double) * FIT_N * FIT_K);
    fit_data(X, resp);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = FIT_K;
    double not_pd[FIT_D * FIT_D] = {0};
    gmm_bayes_options cases[] = {
        {.degrees_of_freedom_prior = FIT_D - 1.5},
        {.weight_concentration_prior = -1},
        {.covariance_prior = not_pd},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gmm_model m = {0};
        o.bayes = &cases[c];
        ck_assert_int_eq(gmm_fit_from_resp(X, FIT_N, FIT_D, &o, resp, &m), GMM_ERR_ARG);
        gmm_model_free(&m);
    }
    free(X), free(resp);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bayes");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, covariance_cpu_matches_formula, 0, N_COV_CASES);
    tcase_add_loop_test(tc, covariance_gpu_matches_cpu, 0, N_COV_CASES);
    tcase_add_loop_test(tc, entropy_cpu_and_gpu, 0, 4);
    tcase_add_test(tc, digamma_known_values);
    tcase_add_test(tc, gpu_fit_matches_cpu);
    tcase_add_test(tc, surplus_components_empty_and_bound_rises);
    tcase_add_test(tc, model_file_keeps_the_posterior);
    tcase_add_test(tc, bad_priors_are_refused);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
