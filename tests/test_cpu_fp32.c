/* Check suite for the CPU backend's float32 path (--precision fp32: the E-step product in
 * SGEMM, everything else in float64) and its triangle-blocked E-step product: fp32 and fp64
 * fits of a well separated mixture agree (labels, lower bound), the fp32 E-step's per-sample
 * log-likelihoods stay within a rounding bound computed for each sample, the blocked fp64
 * product equals the whole product, and tf32 (and fp32 for diag) are refused on the CPU. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "kernels/estep_rows.h"
#include "models/backend/backend.h"
#include "models/backend/cpu/cpu_estep.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "tests/testutil.h"

/* d = 150 > CPU_ESTEP_BLOCK: two column blocks of unequal width. */
#define N 3000
#define D 150
#define K 4

/* K clusters of N / K points, label i % K: mean 8 e_k-ish apart plus a correlated N(0, L L^T)
 * with L unit lower triangular, off-diagonal 0.05 N(0, 1). */
static double *make_data(int *labels)
{
    uint64_t s = 12345;
    double *X = malloc(sizeof(double) * N * D), *mu = malloc(sizeof(double) * K * D),
           *L = calloc((size_t)D * D, sizeof(double)), *z = malloc(sizeof(double) * D);
    ck_assert(X && mu && L && z);
    for (int k = 0; k < K; k++)
        for (int j = 0; j < D; j++) mu[k * D + j] = 2.0 * tu_rand_normal(&s) + (j % K == k ? 8 : 0);
    for (int a = 0; a < D; a++) {
        L[a * D + a] = 1;
        for (int b = 0; b < a; b++) L[a * D + b] = 0.05 * tu_rand_normal(&s);
    }
    for (int i = 0; i < N; i++) {
        labels[i] = i % K;
        for (int j = 0; j < D; j++) z[j] = tu_rand_normal(&s);
        for (int a = 0; a < D; a++) {
            double v = mu[labels[i] * D + a];
            for (int b = 0; b <= a; b++) v += L[a * D + b] * z[b];
            X[(size_t)i * D + a] = v;
        }
    }
    free(mu);
    free(L);
    free(z);
    return X;
}

static void fit(const double *X, gmm_cov_type type, gmm_precision precision, gmm_model *m,
                gmm_fit_scores *sc)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = K;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    o.precision = precision;
    o.reg_covar = 1e-6;
    o.tol = 1e-6;
    TU_CHECK_OK(gmm_fit_scored(X, N, D, &o, m, sc));
}

/* fp32 and fp64 fits: the same labels (and the true ones up to a permutation), the lower
 * bound within 1e-5 relative, iteration counts within one. */
static void check_fit_agrees(gmm_cov_type type)
{
    int *truth = malloc(sizeof(int) * N);
    double *X = make_data(truth);
    gmm_model m64 = {0}, m32 = {0};
    gmm_fit_scores s64 = {0}, s32 = {0};
    fit(X, type, GMM_PRECISION_FP64, &m64, &s64);
    fit(X, type, GMM_PRECISION_FP32, &m32, &s32);
    int perm[K];
    for (int k = 0; k < K; k++) perm[k] = -1;
    for (int i = 0; i < N; i++) {
        ck_assert_int_eq(s32.labels[i], s64.labels[i]);
        if (perm[truth[i]] < 0) perm[truth[i]] = s64.labels[i];
        ck_assert_int_eq(s64.labels[i], perm[truth[i]]); /* the clusters are recovered */
    }
    double rel = tu_rel_error_1(m32.lower_bound, m64.lower_bound);
    ck_assert_msg(rel < 1e-5, "lower bound fp32 %.12g fp64 %.12g (rel %.3g)", m32.lower_bound,
                  m64.lower_bound, rel);
    ck_assert_int_le(abs(m32.n_iter - m64.n_iter), 1);
    ck_assert(m32.converged && m64.converged);
    gmm_model_free(&m64);
    gmm_model_free(&m32);
    gmm_fit_scores_free(&s64);
    gmm_fit_scores_free(&s32);
    free(X);
    free(truth);
}

START_TEST(test_fp32_fit_matches_fp64_full) { check_fit_agrees(GMM_COV_FULL); }
END_TEST

START_TEST(test_fp32_fit_matches_fp64_tied) { check_fit_agrees(GMM_COV_TIED); }
END_TEST

/* One E-step of each precision under the same parameters (the fp64 fit's). The fp32 product
 * y_l = sum_j x_j U_jl (x and U rounded to float32, u = 2^-24, the SGEMM summing d terms) is off
 * the exact r_l = sum_j (x_j - mu_j) U_jl by at most
 *   e_l = (d + 2) u sum_j (|x_j| + |x_j - mu_j|) |U_jl|
 * (the GEMM's gamma_d bound on sum |x_j U_jl|, x's rounding, and U's rounding, which the
 * centers share so that mu's part cancels except for |x - mu| |dU|); then
 * |s32 - s64| <= sum_l (2 |r_l| e_l + e_l^2), and log p(x) = logsumexp_k(c_k - s_k / 2) moves
 * by at most max_k |ds_k| / 2. The test checks every sample against its bound (plus 1e-12
 * relative for the fp64 side's own rounding), and that the fp32 path did differ. The bound is
 * the worst case: on this data the largest difference is 7e-5 of it (3e-5 in log p). */
START_TEST(test_fp32_estep_within_rounding_bound)
{
    int *truth = malloc(sizeof(int) * N);
    double *X = make_data(truth);
    gmm_model m = {0};
    gmm_fit_scores sc = {0};
    fit(X, GMM_COV_FULL, GMM_PRECISION_FP64, &m, &sc);
    const gmm_backend *be = &gmm_backend_cpu;
    double ll[2][N], mean[2];
    for (int p = 0; p < 2; p++) {
        gmm_backend_ctx *ctx = NULL;
        TU_CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, D, K, GMM_COV_FULL,
                               p ? GMM_PRECISION_FP32 : GMM_PRECISION_FP64, NULL, NULL));
        TU_CHECK_OK(be->set_params(ctx, &m));
        TU_CHECK_OK(be->e_step(ctx, &mean[p]));
        TU_CHECK_OK(be->get_estep(ctx, ll[p], NULL));
        be->destroy(ctx);
    }
    const double u = ldexp(1.0, -24);
    double max_diff = 0;
    for (int i = 0; i < N; i++) {
        const double *x = X + (size_t)i * D;
        double ds_max = 0;
        for (int k = 0; k < K; k++) {
            const double *U = m.precisions_cholesky + (size_t)k * D * D, *mu = m.means + k * D;
            double ds = 0;
            for (int l = 0; l < D; l++) {
                double r = 0, a = 0;
                for (int j = 0; j <= l; j++) {
                    r += (x[j] - mu[j]) * U[j * D + l];
                    a += (fabs(x[j]) + fabs(x[j] - mu[j])) * fabs(U[j * D + l]);
                }
                double e = (D + 2) * u * a;
                ds += 2 * fabs(r) * e + e * e;
            }
            if (ds > ds_max) ds_max = ds;
        }
        double bound = ds_max / 2 + 1e-12 * fabs(ll[0][i]);
        double diff = fabs(ll[1][i] - ll[0][i]);
        ck_assert_msg(diff <= bound, "sample %d: |ll32 - ll64| = %g > bound %g", i, diff, bound);
        if (diff > max_diff) max_diff = diff;
    }
    ck_assert_msg(max_diff > 0, "the fp32 E-step gave float64's bits: no float32 product ran");
    ck_assert(tu_rel_error_1(mean[1], mean[0]) < 1e-6);
    gmm_model_free(&m);
    gmm_fit_scores_free(&sc);
    free(X);
    free(truth);
}
END_TEST

/* The blocked fp64 product against the whole one: DGEMM X [U_1 .. U_K], then estep_rows_cpu. */
static void check_blocked_equals_whole(gmm_cov_type type)
{
    int *truth = malloc(sizeof(int) * N);
    double *X = make_data(truth);
    gmm_model m = {0};
    gmm_fit_scores sc = {0};
    fit(X, type, GMM_PRECISION_FP64, &m, &sc);
    int mats = type == GMM_COV_FULL ? K : 1, width = mats * D;
    double *P = malloc(sizeof(double) * D * width), *Y = malloc(sizeof(double) * N * width),
           *C = malloc(sizeof(double) * K * D), *lr = malloc(sizeof(double) * N * K),
           *ll = malloc(sizeof(double) * N), *lc = malloc(sizeof(double) * K),
           *got = malloc(sizeof(double) * N);
    for (int q = 0; q < mats; q++)
        for (int j = 0; j < D; j++)
            for (int l = 0; l < D; l++)
                P[(size_t)j * width + q * D + l] = m.precisions_cholesky[(size_t)q * D * D + j * D + l];
    la_dgemm(false, false, N, width, D, 1.0, X, D, P, width, 0.0, Y, width);
    for (int k = 0; k < K; k++)
        la_dgemm(false, false, 1, D, D, 1.0, m.means + k * D, D,
                 m.precisions_cholesky + (size_t)(mats > 1 ? k : 0) * D * D, D, 0.0, C + k * D, D);
    double half_log_2pi = 0.5 * D * log(2 * M_PI);
    for (int k = 0; k < K; k++) {
        const double *U = m.precisions_cholesky + (size_t)(mats > 1 ? k : 0) * D * D;
        double s = 0;
        for (int j = 0; j < D; j++) s += log(U[j * D + j]);
        lc[k] = log(m.weights[k]) + s - half_log_2pi;
    }
    TU_CHECK_OK(estep_rows_cpu(ESTEP_ROWS_PROJECTED, Y, width, mats > 1 ? D : 0, 0, C, NULL, lc,
                               N, K, D, lr, ll));
    gmm_backend_ctx *ctx = NULL;
    double mean;
    TU_CHECK_OK(gmm_backend_create_f64(&gmm_backend_cpu, &ctx, X, N, D, K, type, GMM_PRECISION_FP64, NULL, NULL));
    TU_CHECK_OK(gmm_backend_cpu.set_params(ctx, &m));
    TU_CHECK_OK(gmm_backend_cpu.e_step(ctx, &mean));
    TU_CHECK_OK(gmm_backend_cpu.get_estep(ctx, got, NULL));
    gmm_backend_cpu.destroy(ctx);
    double rel = tu_rel_error(got, ll, N);
    ck_assert_msg(rel < 1e-12, "blocked vs whole product: rel %g", rel);
    free(P), free(Y), free(C), free(lr), free(ll), free(lc), free(got), free(X), free(truth);
    gmm_model_free(&m);
    gmm_fit_scores_free(&sc);
}

START_TEST(test_blocked_product_full) { check_blocked_equals_whole(GMM_COV_FULL); }
END_TEST

START_TEST(test_blocked_product_tied) { check_blocked_equals_whole(GMM_COV_TIED); }
END_TEST

/* The packed size: the sum over column blocks of rows used x block width, for d = 150:
 * 112 * 112 + 150 * 38 per factor. */
START_TEST(test_packed_size)
{
    ck_assert_uint_eq(cpu_estep_packed_size(1, 150), 112 * 112 + 150 * 38);
    ck_assert_uint_eq(cpu_estep_packed_size(3, 150), 3 * (112 * 112 + 150 * 38));
    ck_assert_uint_eq(cpu_estep_packed_size(2, 100), 2 * 100 * 100);
}
END_TEST

/* tf32 on the CPU, and fp32 for diag/spherical, are refused with a message naming them. */
START_TEST(test_refusals)
{
    double X[40 * 2];
    for (int i = 0; i < 80; i++) X[i] = (i * 37 % 11) * 0.1;
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 2;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    o.precision = GMM_PRECISION_TF32;
    ck_assert_int_eq(gmm_fit(X, 40, 2, &o, &m), GMM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_UNSUPPORTED), "tf32"));
    o.precision = GMM_PRECISION_FP32;
    o.covariance_type = GMM_COV_DIAG;
    ck_assert_int_eq(gmm_fit(X, 40, 2, &o, &m), GMM_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_UNSUPPORTED), "fp32"));
    gmm_backend_ctx *ctx = NULL;
    ck_assert_int_eq(gmm_backend_create_f64(&gmm_backend_cpu, &ctx, X, 40, 2, 2, GMM_COV_FULL, GMM_PRECISION_TF32,
                                            NULL, NULL),
                     GMM_ERR_UNSUPPORTED);
    ck_assert_ptr_null(ctx);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_UNSUPPORTED), "GPU"));
}
END_TEST

static Suite *cpu_fp32_suite(void)
{
    Suite *s = suite_create("cpu_fp32");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_packed_size);
    tcase_add_test(tc, test_refusals);
    tcase_add_test(tc, test_blocked_product_full);
    tcase_add_test(tc, test_blocked_product_tied);
    tcase_add_test(tc, test_fp32_fit_matches_fp64_full);
    tcase_add_test(tc, test_fp32_fit_matches_fp64_tied);
    tcase_add_test(tc, test_fp32_estep_within_rounding_bound);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cpu_fp32_suite()); }
