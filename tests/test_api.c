/* Check suite for libgmm's public interface (include/gmm/gmm.h, models/api/api.c, api_start.c):
 * one EM iteration from given initial parameters against the hand-computed update, the data
 * types and scale against float64, warm starts, model.bin through the handle, the metrics, and
 * the error codes and sentences (a singular covariance names the component and reg_covar). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "include/gmm/gmm.h"
#include "tests/testutil.h"

static gmm_params *new_params(int k, const char *cov)
{
    gmm_params *p = NULL;
    ck_assert_int_eq(gmm_params_new(&p), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_int(p, "n_components", k), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_string(p, "covariance_type", cov), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_string(p, "device", "cpu"), GMM_CODE_OK);
    return p;
}

START_TEST(test_one_iteration_from_initial_parameters)
{
    /* 1-D points {0, 1, 10, 11}, means 0.5 and 10.5, weights 1/2, precisions 4 (variance
     * 1/4). The first E-step's responsibilities are one-hot up to exp(-180), so the M-step
     * keeps the means and weights and gives variance 1/4 + reg_covar; the lower bound is the
     * mean log p(x) under the initial parameters: log(1/2) - log(2 pi / 4) / 2 - 1/2 for each
     * point (each at distance 1/2 from its mean) plus the other component's negligible part. */
    double X[] = {0, 1, 10, 11}, w[] = {0.5, 0.5}, m[] = {0.5, 10.5}, prec[] = {4, 4};
    gmm_params *p = new_params(2, "spherical");
    ck_assert_int_eq(gmm_params_set_int(p, "max_iter", 1), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_double(p, "reg_covar", 1e-3), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_weights_init(p, w, 2), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_means_init(p, m, 2, 1), GMM_CODE_OK);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, prec, 2), GMM_CODE_OK);
    gmm_mixture *model = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, X, 4, 1, GMM_DTYPE_FLOAT64, 1.0, &model), GMM_CODE_OK);
    ck_assert_int_eq(gmm_mixture_n_iter(model), 1);
    ck_assert_str_eq(gmm_mixture_covariance_type(model), "spherical");
    ck_assert_uint_eq(gmm_mixture_cov_size(model), 2);
    const double *mu = gmm_mixture_means(model), *cov = gmm_mixture_covariances(model);
    const double *pc = gmm_mixture_precisions_cholesky(model);
    ck_assert_double_eq_tol(mu[0], 0.5, 1e-12);
    ck_assert_double_eq_tol(mu[1], 10.5, 1e-12);
    ck_assert_double_eq_tol(gmm_mixture_weights(model)[0], 0.5, 1e-12);
    ck_assert_double_eq_tol(cov[0], 0.25 + 1e-3, 1e-12);
    ck_assert_double_eq_tol(cov[1], 0.25 + 1e-3, 1e-12);
    ck_assert_double_eq_tol(pc[0], 1.0 / sqrt(0.251), 1e-12);
    double lb = log(0.5) - 0.5 * log(2 * M_PI / 4) - 0.5;
    ck_assert_double_eq_tol(gmm_mixture_lower_bound(model), lb, 1e-12);
    /* score and BIC on the fitted parameters: 2 means + 2 variances + 1 weight = 5 */
    double s, bic, aic;
    ck_assert_int_eq(gmm_mixture_score(model, X, 4, 1, GMM_DTYPE_FLOAT64, 1.0, &s), 0);
    double want = log(0.5) - 0.5 * log(2 * M_PI * 0.251) - 0.25 / (2 * 0.251);
    ck_assert_double_eq_tol(s, want, 1e-12);
    ck_assert_int_eq(gmm_mixture_n_parameters(model), 5);
    ck_assert_int_eq(gmm_mixture_bic(model, X, 4, 1, GMM_DTYPE_FLOAT64, 1.0, &bic), 0);
    ck_assert_int_eq(gmm_mixture_aic(model, X, 4, 1, GMM_DTYPE_FLOAT64, 1.0, &aic), 0);
    ck_assert_double_eq_tol(bic, -8 * want + 5 * log(4.0), 1e-10);
    ck_assert_double_eq_tol(aic, -8 * want + 10, 1e-10);
    int32_t labels[4];
    double proba[8];
    ck_assert_int_eq(gmm_mixture_score_samples(model, X, 4, 1, GMM_DTYPE_FLOAT64, 1.0, NULL,
                                               proba, labels), 0);
    ck_assert_int_eq(labels[0], 0);
    ck_assert_int_eq(labels[3], 1);
    ck_assert_double_eq_tol(proba[0], 1.0, 1e-12);
    gmm_mixture_free(model);
    gmm_params_free(p);
}
END_TEST

/* Fits the same values given as float64, float32 and uint8 (scaled) and compares. */
START_TEST(test_dtypes_agree_with_float64)
{
    enum { N = 300, D = 3 };
    uint8_t *x8 = malloc(N * D);
    float *xf = malloc(sizeof(float) * N * D);
    double *xd = malloc(sizeof(double) * N * D), *xs = malloc(sizeof(double) * N * D);
    uint64_t st = 7;
    for (int i = 0; i < N * D; i++) {
        x8[i] = (uint8_t)((i / D) % 2 ? 180 + tu_rand_u64(&st) % 60 : tu_rand_u64(&st) % 60);
        xf[i] = (float)x8[i];
        xd[i] = x8[i];
        xs[i] = x8[i] * (1.0 / 255);
    }
    gmm_params *p = new_params(2, "full");
    gmm_mixture *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, xd, N, D, GMM_DTYPE_FLOAT64, 1.0, &a), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, xf, N, D, GMM_DTYPE_FLOAT32, 1.0, &b), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, x8, N, D, GMM_DTYPE_UINT8, 1.0 / 255, &c), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, xs, N, D, GMM_DTYPE_FLOAT64, 1.0, &d), 0);
    size_t nc = gmm_mixture_cov_size(a);
    ck_assert_mem_eq(gmm_mixture_means(a), gmm_mixture_means(b), sizeof(double) * 2 * D);
    ck_assert_mem_eq(gmm_mixture_covariances(a), gmm_mixture_covariances(b), sizeof(double) * nc);
    ck_assert_mem_eq(gmm_mixture_means(c), gmm_mixture_means(d), sizeof(double) * 2 * D);
    ck_assert_double_eq(gmm_mixture_lower_bound(c), gmm_mixture_lower_bound(d));
    /* the scaled fit is the unscaled one shrunk by 255 */
    double shrunk[2 * D];
    for (int i = 0; i < 2 * D; i++) shrunk[i] = gmm_mixture_means(a)[i] / 255;
    ck_assert_double_le(tu_rel_error(gmm_mixture_means(c), shrunk, 2 * D), 1e-9);
    gmm_mixture_free(a);
    gmm_mixture_free(b);
    gmm_mixture_free(c);
    gmm_mixture_free(d);
    gmm_params_free(p);
    free(x8);
    free(xf);
    free(xd);
    free(xs);
}
END_TEST

START_TEST(test_warm_start_equals_longer_fit)
{
    /* 2 iterations, then 3 more from that model = 5 iterations at once (tol 0: no stop). */
    enum { N = 200, D = 2 };
    double X[N * D];
    uint64_t st = 3;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < D; j++) X[i * D + j] = (i % 2) * 4.0 + tu_rand_normal(&st);
    double m[] = {-1, -1, 5, 5};
    gmm_params *p = new_params(2, "diag");
    ck_assert_int_eq(gmm_params_set_double(p, "tol", 0), 0);
    ck_assert_int_eq(gmm_params_set_means_init(p, m, 2, D), 0);
    gmm_mixture *five = NULL, *two = NULL, *more = NULL;
    ck_assert_int_eq(gmm_params_set_int(p, "max_iter", 5), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &five), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "max_iter", 2), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &two), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "max_iter", 3), 0);
    ck_assert_int_eq(gmm_params_set_start(p, two), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &more), 0);
    ck_assert_double_le(tu_rel_error(gmm_mixture_means(more), gmm_mixture_means(five), 4), 1e-12);
    ck_assert_double_le(tu_rel_error_1(gmm_mixture_lower_bound(more),
                                       gmm_mixture_lower_bound(five)), 1e-12);
    gmm_mixture_free(five);
    gmm_mixture_free(two);
    gmm_mixture_free(more);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_save_load_and_metrics)
{
    double X[] = {0, 0, 0.1, 0.2, 5, 5, 5.2, 4.9, 0.2, 0.1, 4.8, 5.1};
    gmm_params *p = new_params(2, "spherical");
    ck_assert_int_eq(gmm_params_set_int(p, "random_state", 1), 0);
    gmm_mixture *a = NULL, *b = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, X, 6, 2, GMM_DTYPE_FLOAT64, 1.0, &a), 0);
    const char *path = tu_tmp_path("api_model.bin");
    ck_assert_int_eq(gmm_mixture_save(a, path), 0);
    ck_assert_int_eq(gmm_mixture_load(path, &b), 0);
    ck_assert_mem_eq(gmm_mixture_means(a), gmm_mixture_means(b), sizeof(double) * 4);
    ck_assert_int_eq(gmm_mixture_n_train_samples(b), 6);
    int32_t labels[6];
    ck_assert_int_eq(gmm_mixture_score_samples(b, X, 6, 2, GMM_DTYPE_FLOAT64, 1.0, NULL, NULL,
                                               labels), 0);
    uint8_t classes[] = {0, 0, 1, 1, 0, 1};
    double acc, nmi, ari;
    ck_assert_int_eq(gmm_cluster_scores(labels, 2, classes, 2, 6, &acc, &nmi, &ari), 0);
    ck_assert_double_eq_tol(acc, 1.0, 1e-15);
    ck_assert_double_eq_tol(nmi, 1.0, 1e-12);
    ck_assert_double_eq_tol(ari, 1.0, 1e-15);
    double S[10];
    int32_t y[5];
    ck_assert_int_eq(gmm_mixture_sample(b, 5, 9, S, y), 0);
    for (int i = 0; i < 5; i++) ck_assert(y[i] == 0 || y[i] == 1);
    gmm_mixture *missing = b; /* a failed load leaves NULL behind */
    ck_assert_int_ne(gmm_mixture_load(tu_tmp_path("no-such.bin"), &missing), 0);
    ck_assert_ptr_null(missing);
    gmm_mixture_free(b);
    ck_assert(strncmp(gmm_last_error(), "GMM_CODE_ERR_IO: ", 17) == 0);
    gmm_mixture_free(a);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_errors_have_codes_and_sentences)
{
    double X[] = {1, 1, 1, 1, 1, 1, 1, 1};
    gmm_params *p = new_params(2, "full");
    gmm_mixture *m = NULL;
    ck_assert_int_eq(gmm_params_set_double(p, "reg_covar", 0), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, 4, 2, GMM_DTYPE_FLOAT64, 1.0, &m),
                     GMM_CODE_ERR_CHOLESKY);
    ck_assert_ptr_null(m);
    const char *e = gmm_last_error();
    ck_assert_msg(strncmp(e, "GMM_CODE_ERR_CHOLESKY: component ", 33) == 0, "%s", e);
    ck_assert_msg(strstr(e, "reg_covar") && !strstr(e, "--reg-covar"), "%s", e);

    X[3] = NAN;
    ck_assert_int_eq(gmm_mixture_fit(p, X, 4, 2, GMM_DTYPE_FLOAT64, 1.0, &m),
                     GMM_CODE_ERR_NUMERIC);
    ck_assert_msg(strstr(gmm_last_error(), "sample 1, feature 1") != NULL, "%s", gmm_last_error());
    X[3] = 1;
    ck_assert_int_eq(gmm_mixture_fit(p, X, 4, 2, 7, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_mixture_fit(p, X, 1, 2, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "n_components=2 must be <= n_samples=1") != NULL, "%s",
                  gmm_last_error());
    ck_assert_int_eq(gmm_params_set_int(p, "n_clusters", 2), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_string(p, "covariance_type", "banded"), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_double(p, "tol", -1), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_string(p, "device", "tpu"), GMM_CODE_ERR_ARG);

    /* initial arrays of the wrong size or value */
    double bad_prec[] = {1, 2, 2, 1, 1, 0, 0, 1}; /* first matrix indefinite */
    ck_assert_int_eq(gmm_params_set_double(p, "reg_covar", 1e-6), 0);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, bad_prec, 8), 0);
    double Y[] = {0, 0, 1, 0, 0, 1, 5, 5, 6, 5, 5, 6};
    ck_assert_int_eq(gmm_mixture_fit(p, Y, 6, 2, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "precisions_init[0] is not positive definite"), "%s",
                  gmm_last_error());
    double asym[] = {2, 1, 0.5, 2, 1, 0, 0, 1}; /* 1 against 0.5: not symmetric */
    ck_assert_int_eq(gmm_params_set_precisions_init(p, asym, 8), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, Y, 6, 2, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "precisions_init[0] is not symmetric"), "%s",
                  gmm_last_error());
    double near[] = {2, 1, 1 + 1e-9, 2, 1, 0, 0, 1}; /* within np.allclose: accepted */
    ck_assert_int_eq(gmm_params_set_precisions_init(p, near, 8), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, Y, 6, 2, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_OK);
    gmm_mixture_free(m);
    m = NULL;
    ck_assert_int_eq(gmm_params_set_precisions_init(p, bad_prec, 4), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, Y, 6, 2, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "precisions_init has 4 values"), "%s", gmm_last_error());
    ck_assert_int_eq(gmm_params_set_precisions_init(p, NULL, 0), 0);
    double w[] = {0.7, 0.7};
    ck_assert_int_eq(gmm_params_set_weights_init(p, w, 2), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, Y, 6, 2, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "weights_init sums to 1.4"), "%s", gmm_last_error());
    ck_assert_str_eq(gmm_code_name(GMM_CODE_ERR_CHOLESKY), "GMM_CODE_ERR_CHOLESKY");
    ck_assert_str_eq(gmm_version(), "1.0.0");
    gmm_params_free(p);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("public interface");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_one_iteration_from_initial_parameters);
    tcase_add_test(tc, test_dtypes_agree_with_float64);
    tcase_add_test(tc, test_warm_start_equals_longer_fit);
    tcase_add_test(tc, test_save_load_and_metrics);
    tcase_add_test(tc, test_errors_have_codes_and_sentences);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(api_suite()); }
