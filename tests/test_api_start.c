/* Check suite for the start of a library fit (models/api/api_start.c and the EM loop's
 * per-run replacement, options.given_params): scikit-learn's _initialize semantics. From given
 * responsibilities (gmm_params_set_resp_init) the weights, means and covariances (+ reg_covar)
 * are estimated, then weights_init / means_init / precisions_init replace their parts; the
 * first E-step's lower bound (max_iter 1) is compared with the one computed here by hand from
 * those parameters. Also: every one of n_init runs draws its own responsibilities, all three
 * arrays given make one run, the responsibilities are checked, the CPU and the GPU (when there
 * is one) agree, and a umap space takes them in its embedding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/gmm/gmm.h"
#include "tests/testutil.h"

enum { N = 6, D = 2, K = 2 };

/* two groups of three points, and soft responsibilities that mostly follow them */
static const double X[N * D] = {0, 0, 1, 0, 0, 1.5, 5, 5, 6, 5, 5, 7};
static const double RESP[N * K] = {0.8, 0.2, 0.9, 0.1, 1, 0, 0.1, 0.9, 0.3, 0.7, 0, 1};

/* full 2 x 2 parameters: weights (K), means (K x 2), precision matrices (K x 2 x 2) */
typedef struct {
    double w[K], mu[K * D], prec[K * 4];
} params2;

static void inverse2(const double *a, double *inv)
{
    double det = a[0] * a[3] - a[1] * a[2];
    inv[0] = a[3] / det, inv[1] = -a[1] / det, inv[2] = -a[2] / det, inv[3] = a[0] / det;
}

/* scikit-learn's _estimate_gaussian_parameters (full) and weights nk / n, with the precisions
 * the inverses of the covariances */
static params2 estimate(const double *x, const double *resp, int n, int k_count, double reg)
{
    params2 p;
    for (int k = 0; k < k_count; k++) {
        double nk = 0, m[2] = {0, 0}, c[4] = {0, 0, 0, 0};
        for (int i = 0; i < n; i++) {
            nk += resp[i * k_count + k];
            for (int j = 0; j < D; j++) m[j] += resp[i * k_count + k] * x[i * D + j];
        }
        m[0] /= nk, m[1] /= nk;
        for (int i = 0; i < n; i++) {
            double r = resp[i * k_count + k], a = x[i * D] - m[0], b = x[i * D + 1] - m[1];
            c[0] += r * a * a, c[1] += r * a * b, c[3] += r * b * b;
        }
        c[0] = c[0] / nk + reg, c[1] /= nk, c[2] = c[1], c[3] = c[3] / nk + reg;
        p.w[k] = nk / n;
        p.mu[k * D] = m[0], p.mu[k * D + 1] = m[1];
        inverse2(c, p.prec + k * 4);
    }
    return p;
}

/* the mean of log sum_k w_k N(x_i | mu_k, P_k^-1) */
static double mean_loglik(const double *x, int n, int k_count, const params2 *p)
{
    double total = 0;
    for (int i = 0; i < n; i++) {
        double sum = 0;
        for (int k = 0; k < k_count; k++) {
            const double *P = p->prec + k * 4;
            double a = x[i * D] - p->mu[k * D], b = x[i * D + 1] - p->mu[k * D + 1];
            double q = P[0] * a * a + 2 * P[1] * a * b + P[3] * b * b;
            double log_det = log(P[0] * P[3] - P[1] * P[2]);
            sum += p->w[k] * exp(-log(2 * M_PI) + 0.5 * log_det - 0.5 * q);
        }
        total += log(sum);
    }
    return total / n;
}

static gmm_params *start_params(const char *cov, double reg_covar)
{
    gmm_params *p = NULL;
    ck_assert_int_eq(gmm_params_new(&p), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "n_components", K), 0);
    ck_assert_int_eq(gmm_params_set_string(p, "covariance_type", cov), 0);
    ck_assert_int_eq(gmm_params_set_string(p, "device", "cpu"), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "max_iter", 1), 0); /* lower bound: the start's */
    ck_assert_int_eq(gmm_params_set_double(p, "reg_covar", reg_covar), 0);
    ck_assert_int_eq(gmm_params_set_resp_init(p, RESP, N, K), 0);
    return p;
}

static double first_lower_bound(const gmm_params *p)
{
    gmm_mixture *m = NULL;
    ck_assert_msg(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &m) == 0, "%s",
                  gmm_last_error());
    ck_assert_int_eq(gmm_mixture_n_iter(m), 1);
    double lb = gmm_mixture_lower_bound(m);
    gmm_mixture_free(m);
    return lb;
}

static const double MEANS[K * D] = {2, 2, 4, 6};     /* unlike the responsibilities' */
static const double WEIGHTS[K] = {0.25, 0.75};
static const double PRECS[K * 4] = {2, 0.5, 0.5, 1, 0.5, -0.1, -0.1, 3};

START_TEST(test_means_only_keeps_weights_and_covariances_of_resp)
{
    gmm_params *p = start_params("full", 0.01);
    ck_assert_int_eq(gmm_params_set_means_init(p, MEANS, K, D), 0);
    params2 want = estimate(X, RESP, N, K, 0.01);
    memcpy(want.mu, MEANS, sizeof MEANS);
    double lb = first_lower_bound(p);
    ck_assert_double_le(tu_rel_error_1(lb, mean_loglik(X, N, K, &want)), 1e-12);
    /* other weights (equal ones) give another lower bound: the test tells the starts apart */
    params2 other = want;
    other.w[0] = other.w[1] = 0.5;
    ck_assert_double_ge(fabs(lb - mean_loglik(X, N, K, &other)), 1e-3);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_weights_only)
{
    gmm_params *p = start_params("full", 0.01);
    ck_assert_int_eq(gmm_params_set_weights_init(p, WEIGHTS, K), 0);
    params2 want = estimate(X, RESP, N, K, 0.01);
    memcpy(want.w, WEIGHTS, sizeof WEIGHTS);
    ck_assert_double_le(tu_rel_error_1(first_lower_bound(p), mean_loglik(X, N, K, &want)),
                        1e-12);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_precisions_only_full_and_tied)
{
    /* the given precisions are used as they are: reg_covar (large here) is not added to them */
    gmm_params *p = start_params("full", 0.5);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, PRECS, K * 4), 0);
    params2 want = estimate(X, RESP, N, K, 0.5);
    memcpy(want.prec, PRECS, sizeof PRECS);
    ck_assert_double_le(tu_rel_error_1(first_lower_bound(p), mean_loglik(X, N, K, &want)),
                        1e-12);
    gmm_params_free(p);

    p = start_params("tied", 0.5);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, PRECS, 4), 0);
    memcpy(want.prec + 4, PRECS, sizeof(double) * 4);
    ck_assert_double_le(tu_rel_error_1(first_lower_bound(p), mean_loglik(X, N, K, &want)),
                        1e-12);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_all_three_given)
{
    gmm_params *p = start_params("full", 0.01);
    ck_assert_int_eq(gmm_params_set_weights_init(p, WEIGHTS, K), 0);
    ck_assert_int_eq(gmm_params_set_means_init(p, MEANS, K, D), 0);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, PRECS, K * 4), 0);
    params2 want;
    memcpy(want.w, WEIGHTS, sizeof WEIGHTS);
    memcpy(want.mu, MEANS, sizeof MEANS);
    memcpy(want.prec, PRECS, sizeof PRECS);
    ck_assert_double_le(tu_rel_error_1(first_lower_bound(p), mean_loglik(X, N, K, &want)),
                        1e-12);
    gmm_params_free(p);
}
END_TEST

/* ---- n_init: every run its own responsibilities ------------------------------------------ */

typedef struct {
    double first[8]; /* each run's lower bound after its first iteration */
    int runs;
} run_log;

static void log_runs(void *user, int init_index, int iteration, double lb, double change,
                     double seconds)
{
    run_log *log = user;
    if (iteration == 1 && init_index < 8) log->first[init_index] = lb;
    if (init_index + 1 > log->runs) log->runs = init_index + 1;
}

/* n points in two groups along the diagonal */
static double *two_groups(int n)
{
    double *x = malloc(sizeof(double) * n * D);
    uint64_t seed = 5;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < D; j++) x[i * D + j] = (i % 2) * 6.0 + tu_rand_normal(&seed);
    return x;
}

START_TEST(test_each_run_draws_its_responsibilities)
{
    enum { M = 200 };
    double *x = two_groups(M);
    gmm_params *p = NULL;
    ck_assert_int_eq(gmm_params_new(&p), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "n_components", K), 0);
    ck_assert_int_eq(gmm_params_set_string(p, "device", "cpu"), 0);
    ck_assert_int_eq(gmm_params_set_string(p, "init_params", "random"), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "n_init", 3), 0);
    ck_assert_int_eq(gmm_params_set_means_init(p, MEANS, K, D), 0);
    run_log log = {{0}, 0};
    ck_assert_int_eq(gmm_params_set_progress(p, log_runs, &log), 0);
    gmm_mixture *m = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, x, M, D, GMM_DTYPE_FLOAT64, 1.0, &m), 0);
    /* three runs, each from its own random responsibilities (so its own weights and
     * covariances) and the same given means: their first lower bounds differ */
    ck_assert_int_eq(log.runs, 3);
    ck_assert_double_ne(log.first[0], log.first[1]);
    ck_assert_double_ne(log.first[1], log.first[2]);
    gmm_mixture_free(m);

    /* with all three arrays every run would start alike: one run */
    ck_assert_int_eq(gmm_params_set_weights_init(p, WEIGHTS, K), 0);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, PRECS, K * 4), 0);
    log.runs = 0;
    ck_assert_int_eq(gmm_mixture_fit(p, x, M, D, GMM_DTYPE_FLOAT64, 1.0, &m), 0);
    ck_assert_int_eq(log.runs, 1);
    gmm_mixture_free(m);

    /* given responsibilities: every run starts from them, so all runs alike */
    ck_assert_int_eq(gmm_params_set_precisions_init(p, NULL, 0), 0);
    double *resp = malloc(sizeof(double) * M * K);
    for (int i = 0; i < M; i++)
        resp[i * K] = i % 2 ? 0.25 : 0.75, resp[i * K + 1] = 1 - resp[i * K];
    ck_assert_int_eq(gmm_params_set_resp_init(p, resp, M, K), 0);
    log.runs = 0;
    ck_assert_int_eq(gmm_mixture_fit(p, x, M, D, GMM_DTYPE_FLOAT64, 1.0, &m), 0);
    ck_assert_int_eq(log.runs, 3);
    ck_assert_double_eq(log.first[0], log.first[1]);
    ck_assert_double_eq(log.first[1], log.first[2]);
    gmm_mixture_free(m);
    gmm_params_free(p);
    free(resp);
    free(x);
}
END_TEST

START_TEST(test_resp_init_checked)
{
    gmm_params *p = start_params("full", 1e-6);
    double bad[N * K];
    memcpy(bad, RESP, sizeof bad);
    bad[3] = -0.1, bad[2] = 1.1;
    ck_assert_int_eq(gmm_params_set_resp_init(p, bad, N, K), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "resp_init[1, 1]=-0.1"), "%s", gmm_last_error());
    bad[3] = 0.2;
    ck_assert_int_eq(gmm_params_set_resp_init(p, bad, N, K), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "row 1 sums to 1.3"), "%s", gmm_last_error());
    /* a row off by less than 1e-6 is taken */
    bad[2] = 0.9 + 5e-7, bad[3] = 0.1;
    ck_assert_int_eq(gmm_params_set_resp_init(p, bad, N, K), 0);
    /* the shape against the data, at fit time */
    ck_assert_int_eq(gmm_params_set_resp_init(p, RESP, N - 1, K), 0);
    gmm_mixture *m = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &m), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "resp_init is 5 x 2 but the data has 6 samples"),
                  "%s", gmm_last_error());
    ck_assert_ptr_null(m);
    /* NULL clears: the fit starts from init_params again */
    ck_assert_int_eq(gmm_params_set_resp_init(p, NULL, 0, 0), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &m), 0);
    gmm_mixture_free(m);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_gpu_agrees_with_cpu)
{
    if (!tu_gpu_available()) {
        printf("test_gpu_agrees_with_cpu: no GPU, skipped\n");
        return;
    }
    gmm_params *p = start_params("full", 0.01);
    ck_assert_int_eq(gmm_params_set_means_init(p, MEANS, K, D), 0);
    ck_assert_int_eq(gmm_params_set_precisions_init(p, PRECS, K * 4), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "max_iter", 20), 0);
    gmm_mixture *cpu = NULL, *gpu = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &cpu), 0);
    ck_assert_int_eq(gmm_params_set_string(p, "device", "gpu"), 0);
    ck_assert_msg(gmm_mixture_fit(p, X, N, D, GMM_DTYPE_FLOAT64, 1.0, &gpu) == 0, "%s",
                  gmm_last_error());
    ck_assert_int_eq(gmm_mixture_n_iter(gpu), gmm_mixture_n_iter(cpu));
    ck_assert_double_le(tu_rel_error_1(gmm_mixture_lower_bound(gpu),
                                       gmm_mixture_lower_bound(cpu)), 1e-10);
    ck_assert_double_le(tu_rel_error(gmm_mixture_means(gpu), gmm_mixture_means(cpu), K * D),
                        1e-10);
    gmm_mixture_free(cpu);
    gmm_mixture_free(gpu);
    gmm_params_free(p);
}
END_TEST

START_TEST(test_umap_space_takes_them_in_its_embedding)
{
    /* 2-D embedding of 120 points of two groups; responsibilities by group, means given in the
     * embedding: the start's lower bound from the embedding's coordinates computed here */
    enum { M = 120, IN_DIM = 6 };
    double *x = malloc(sizeof(double) * M * IN_DIM), *resp = malloc(sizeof(double) * M * K);
    uint64_t seed = 11;
    for (int i = 0; i < M; i++) {
        for (int j = 0; j < IN_DIM; j++)
            x[i * IN_DIM + j] = tu_rand_normal(&seed) + (j == i % 2 ? 8.0 : 0.0);
        resp[i * K] = i % 2 ? 0 : 1, resp[i * K + 1] = i % 2 ? 1 : 0;
    }
    gmm_params *p = start_params("full", 0.01);
    ck_assert_int_eq(gmm_params_set_string(p, "space", "umap"), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "embed_dims", D), 0);
    ck_assert_int_eq(gmm_params_set_resp_init(p, resp, M, K), 0);
    gmm_mixture *m = NULL;
    /* means of the input's width are refused: they live in the embedding */
    double wide[K * IN_DIM] = {0};
    ck_assert_int_eq(gmm_params_set_means_init(p, wide, K, IN_DIM), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, x, M, IN_DIM, GMM_DTYPE_FLOAT64, 1.0, &m),
                     GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "means_init has 12 values"), "%s", gmm_last_error());
    ck_assert_int_eq(gmm_params_set_means_init(p, MEANS, K, D), 0);
    ck_assert_msg(gmm_mixture_fit(p, x, M, IN_DIM, GMM_DTYPE_FLOAT64, 1.0, &m) == 0, "%s",
                  gmm_last_error());
    const float *e = gmm_mixture_embedding(m);
    ck_assert_ptr_nonnull(e);
    double *coords = malloc(sizeof(double) * M * D);
    for (int i = 0; i < M * D; i++) coords[i] = e[i];
    params2 want = estimate(coords, resp, M, K, 0.01);
    memcpy(want.mu, MEANS, sizeof MEANS);
    ck_assert_double_le(tu_rel_error_1(gmm_mixture_lower_bound(m),
                                       mean_loglik(coords, M, K, &want)), 1e-10);
    gmm_mixture_free(m);
    gmm_params_free(p);
    free(coords);
    free(resp);
    free(x);
}
END_TEST

static Suite *api_start_suite(void)
{
    Suite *s = suite_create("api_start");
    TCase *tc = tcase_create("start");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_means_only_keeps_weights_and_covariances_of_resp);
    tcase_add_test(tc, test_weights_only);
    tcase_add_test(tc, test_precisions_only_full_and_tied);
    tcase_add_test(tc, test_all_three_given);
    tcase_add_test(tc, test_each_run_draws_its_responsibilities);
    tcase_add_test(tc, test_resp_init_checked);
    tcase_add_test(tc, test_gpu_agrees_with_cpu);
    tcase_add_test(tc, test_umap_space_takes_them_in_its_embedding);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(api_start_suite()); }
