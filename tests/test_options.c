/* Check suite for models/model.c: scikit-learn's option defaults, option validation, the enum
 * names, model allocation, and the parameter count behind BIC and AIC. */
#include <math.h>
#include <string.h>

#include "models/core/em.h"
#include "models/core/score.h"
#include "tests/testutil.h"

START_TEST(test_defaults)
{
    gmm_options o;
    memset(&o, 0x5a, sizeof o);
    gmm_options_default(&o);
    /* GaussianMixture(n_components=1, covariance_type='full', tol=1e-3, reg_covar=1e-6,
     * max_iter=100, n_init=1, init_params='kmeans'); KMeans(max_iter=300). */
    ck_assert_int_eq(o.n_components, 1);
    ck_assert_int_eq(o.covariance_type, GMM_COV_FULL);
    ck_assert_double_eq(o.tol, 1e-3);
    ck_assert_double_eq(o.reg_covar, 1e-6);
    ck_assert_int_eq(o.max_iter, 100);
    ck_assert_int_eq(o.n_init, 1);
    ck_assert_int_eq(o.init, GMM_INIT_KMEANS);
    ck_assert(o.seed == 0);
    ck_assert_int_eq(o.device, GMM_DEVICE_AUTO);
    ck_assert_int_eq(o.precision, GMM_PRECISION_FP64);
    ck_assert_int_eq(o.kmeans_max_iter, 300);
    ck_assert_ptr_null(o.on_progress);
    ck_assert_ptr_null(o.on_notice);
    ck_assert_ptr_null(o.user);
    ck_assert_int_eq(gmm_options_validate(&o, 1, 1), GMM_OK);
    ck_assert_int_eq(gmm_options_validate(&o, 60000, 784), GMM_OK);
}
END_TEST

/* Validates o against the shape, expecting GMM_ERR_ARG with word in the detail. */
static void expect_invalid(const gmm_options *o, int64_t n_samples, int dim, const char *word)
{
    gmm_error_clear();
    gmm_status st = gmm_options_validate(o, n_samples, dim);
    const char *msg = gmm_error_message(st);
    ck_assert_msg(st == GMM_ERR_ARG, "expected GMM_ERR_ARG, got %d (%s)", st, msg);
    ck_assert_msg(strstr(msg, word) != NULL, "message '%s' lacks '%s'", msg, word);
    ck_assert_ptr_null(strchr(msg, '\n'));
}

START_TEST(test_invalid_options)
{
    gmm_options base, o;
    gmm_options_default(&base);
    base.n_components = 10;

    o = base; o.n_components = 0;
    expect_invalid(&o, 100, 5, "n_components=0");
    o = base; o.n_components = -3;
    expect_invalid(&o, 100, 5, "n_components=-3");
    o = base; o.n_components = 11;
    expect_invalid(&o, 10, 5, "n_components=11 must be <= n_samples=10");
    o = base;
    ck_assert_int_eq(gmm_options_validate(&o, 10, 5), GMM_OK); /* K == N is allowed */
    o = base; o.tol = -1e-9;
    expect_invalid(&o, 100, 5, "tol");
    o = base; o.tol = NAN;
    expect_invalid(&o, 100, 5, "tol");
    o = base; o.tol = 0;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 5), GMM_OK);
    o = base; o.reg_covar = -1e-6;
    expect_invalid(&o, 100, 5, "reg_covar");
    o = base; o.reg_covar = NAN;
    expect_invalid(&o, 100, 5, "reg_covar");
    o = base; o.reg_covar = INFINITY;
    expect_invalid(&o, 100, 5, "reg_covar");
    o = base; o.reg_covar = 0;
    ck_assert_int_eq(gmm_options_validate(&o, 100, 5), GMM_OK);
    o = base; o.max_iter = 0;
    expect_invalid(&o, 100, 5, "max_iter=0");
    o = base; o.n_init = 0;
    expect_invalid(&o, 100, 5, "n_init=0");
    o = base; o.kmeans_max_iter = 0;
    expect_invalid(&o, 100, 5, "kmeans_max_iter");
    o = base;
    expect_invalid(&o, 0, 5, "n_samples=0");
    expect_invalid(&o, -1, 5, "n_samples=-1");
    expect_invalid(&o, 100, 0, "dim=0");
    o = base; o.covariance_type = (gmm_cov_type)7;
    expect_invalid(&o, 100, 5, "covariance");
    o = base; o.init = (gmm_init_method)-1;
    expect_invalid(&o, 100, 5, "init");
    o = base; o.device = (gmm_device)3;
    expect_invalid(&o, 100, 5, "device");
    o = base; o.precision = (gmm_precision)9;
    expect_invalid(&o, 100, 5, "precision");
    ck_assert_int_eq(gmm_options_validate(NULL, 100, 5), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_names)
{
    const char *cov[] = {"full", "tied", "diag", "spherical"};
    for (int i = 0; i < 4; i++) {
        gmm_cov_type t = (gmm_cov_type)-1;
        ck_assert_int_eq(gmm_cov_type_parse(cov[i], &t), 0);
        ck_assert_int_eq(t, i);
        ck_assert_str_eq(gmm_cov_type_name(t), cov[i]);
    }
    const char *init[] = {"kmeans", "k-means++", "random", "random_from_data"};
    for (int i = 0; i < 4; i++) {
        gmm_init_method m = (gmm_init_method)-1;
        ck_assert_int_eq(gmm_init_parse(init[i], &m), 0);
        ck_assert_int_eq(m, i);
        ck_assert_str_eq(gmm_init_name(m), init[i]);
    }
    const char *prec[] = {"fp64", "fp32", "tf32"};
    for (int i = 0; i < 3; i++) {
        gmm_precision p = (gmm_precision)-1;
        ck_assert_int_eq(gmm_precision_parse(prec[i], &p), 0);
        ck_assert_int_eq(p, i);
        ck_assert_str_eq(gmm_precision_name(p), prec[i]);
    }

    gmm_init_method m;
    ck_assert_int_eq(gmm_init_parse("random-from-data", &m), 0);
    ck_assert_int_eq(m, GMM_INIT_RANDOM_FROM_DATA);
    ck_assert_int_eq(gmm_init_parse("kmeans++", &m), 0);
    ck_assert_int_eq(m, GMM_INIT_KMEANS_PP);

    /* Unknown names fail and leave the output alone. */
    gmm_cov_type t = GMM_COV_DIAG;
    ck_assert_int_eq(gmm_cov_type_parse("Full", &t), -1);
    ck_assert_int_eq(gmm_cov_type_parse("", &t), -1);
    ck_assert_int_eq(gmm_cov_type_parse(NULL, &t), -1);
    ck_assert_int_eq(t, GMM_COV_DIAG);
    m = GMM_INIT_RANDOM;
    ck_assert_int_eq(gmm_init_parse("kmean", &m), -1);
    ck_assert_int_eq(m, GMM_INIT_RANDOM);
    gmm_precision p = GMM_PRECISION_FP32;
    ck_assert_int_eq(gmm_precision_parse("fp16", &p), -1);
    ck_assert_int_eq(p, GMM_PRECISION_FP32);

    ck_assert_str_eq(gmm_cov_type_name((gmm_cov_type)42), "unknown");
    ck_assert_str_eq(gmm_init_name((gmm_init_method)-1), "unknown");
    ck_assert_str_eq(gmm_precision_name((gmm_precision)3), "unknown");
}
END_TEST

START_TEST(test_cov_size_and_alloc)
{
    ck_assert_uint_eq(gmm_cov_size(GMM_COV_FULL, 10, 784), 10u * 784 * 784);
    ck_assert_uint_eq(gmm_cov_size(GMM_COV_TIED, 10, 784), 784u * 784);
    ck_assert_uint_eq(gmm_cov_size(GMM_COV_DIAG, 10, 784), 7840u);
    ck_assert_uint_eq(gmm_cov_size(GMM_COV_SPHERICAL, 10, 784), 10u);

    gmm_model m;
    ck_assert_int_eq(gmm_model_alloc(&m, 3, 4, GMM_COV_FULL), GMM_OK);
    ck_assert_int_eq(m.n_components, 3);
    ck_assert_int_eq(m.dim, 4);
    for (int i = 0; i < 3 * 16; i++) ck_assert_double_eq(m.covariances[i], 0.0);
    for (int i = 0; i < 12; i++) ck_assert_double_eq(m.means[i], 0.0);
    ck_assert_int_eq(m.n_iter, 0);
    ck_assert_str_eq(m.data_path, "");
    gmm_model_free(&m);
    ck_assert_ptr_null(m.weights);
    gmm_model_free(&m);
    gmm_model_free(NULL);

    gmm_error_clear();
    ck_assert_int_eq(gmm_model_alloc(&m, 0, 4, GMM_COV_FULL), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "n_components"));
    ck_assert_ptr_null(m.weights);
    ck_assert_int_eq(gmm_model_alloc(&m, 2, 0, GMM_COV_DIAG), GMM_ERR_ARG);
    ck_assert_int_eq(gmm_model_alloc(&m, 2, 3, (gmm_cov_type)5), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_n_parameters)
{
    gmm_model m;
    memset(&m, 0, sizeof m);
    m.n_components = 10;
    m.dim = 784;
    /* full: 10*784*785/2 + 10*784 + 9 */
    m.covariance_type = GMM_COV_FULL;
    ck_assert_int_eq(gmm_n_parameters(&m), 3085049);
    /* tied: 784*785/2 + 7840 + 9 */
    m.covariance_type = GMM_COV_TIED;
    ck_assert_int_eq(gmm_n_parameters(&m), 315569);
    /* diag: 7840 + 7840 + 9 */
    m.covariance_type = GMM_COV_DIAG;
    ck_assert_int_eq(gmm_n_parameters(&m), 15689);
    /* spherical: 10 + 7840 + 9 */
    m.covariance_type = GMM_COV_SPHERICAL;
    ck_assert_int_eq(gmm_n_parameters(&m), 7859);

    /* One 1-d component: a mean and a variance, no free weight. */
    m.n_components = 1;
    m.dim = 1;
    m.covariance_type = GMM_COV_FULL;
    ck_assert_int_eq(gmm_n_parameters(&m), 2);

    /* K = 100, d = 784 full overflows 32 bits: 100*784*785/2 + 78400 + 99 = 30850499. Big d
     * overflows them sooner: K = 50, d = 10000: 50*10000*10001/2 + 500000 + 49. */
    m.n_components = 100;
    m.dim = 784;
    ck_assert_int_eq(gmm_n_parameters(&m), 30850499);
    m.n_components = 50;
    m.dim = 10000;
    ck_assert_int_eq(gmm_n_parameters(&m), 2500250000LL + 500000 + 49);
}
END_TEST

START_TEST(test_bic_aic)
{
    gmm_model m;
    memset(&m, 0, sizeof m);
    m.n_components = 3;
    m.dim = 2;
    m.covariance_type = GMM_COV_DIAG; /* p = 6 + 6 + 2 = 14 */
    ck_assert_int_eq(gmm_n_parameters(&m), 14);
    double score = -2.75; /* mean log-likelihood */
    int64_t n = 1000;
    ck_assert_double_eq_tol(gmm_bic(&m, score, n), 5500.0 + 14.0 * log(1000.0), 1e-9);
    ck_assert_double_eq_tol(gmm_aic(&m, score, n), 5500.0 + 28.0, 1e-9);
    /* A better fit lowers both; more data weighs the BIC penalty by log N. */
    ck_assert(gmm_bic(&m, -2.5, n) < gmm_bic(&m, score, n));
    ck_assert(gmm_aic(&m, -2.5, n) < gmm_aic(&m, score, n));
}
END_TEST

static Suite *options_suite(void)
{
    Suite *s = suite_create("options");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_defaults);
    tcase_add_test(tc, test_invalid_options);
    tcase_add_test(tc, test_names);
    tcase_add_test(tc, test_cov_size_and_alloc);
    tcase_add_test(tc, test_n_parameters);
    tcase_add_test(tc, test_bic_aic);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(options_suite()); }
