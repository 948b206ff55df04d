/* Check suite for the EM fit on the CPU backend: agreement with scikit-learn on a fixed problem,
 * recovery of a known well-separated mixture for every covariance type, a lower bound that never
 * decreases, determinism, scores, save/load, sampling, the failure paths (a singular
 * covariance, an empty component), and stopping on request, checkpoints and continuing from a
 * saved model. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

#include "models/core/em.h"
#include "models/core/score.h"
#include "models/io/model_io.h"
#include "tests/testutil.h"

static const gmm_cov_type all_types[4] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG,
                                          GMM_COV_SPHERICAL};

/* ---- agreement with scikit-learn ------------------------------------------------------- */

/* The fixture of tests/sklearn_reference.py: 60 x 3 deterministic points, 3 components, fixed
 * initial responsibilities, 5 EM iterations. The expected numbers were printed by scikit-learn
 * 1.2.1 (GaussianMixture._initialize, then _e_step/_m_step five times). */
#define REF_N 60
#define REF_D 3
#define REF_K 3
static void reference_problem(double *X, double *resp)
{
    for (int i = 0; i < REF_N; i++) {
        for (int j = 0; j < REF_D; j++)
            X[i * REF_D + j] = sin(i * 1.3 + j * 0.7) * 1.5 + (i % 3) * 4.0 * (j != 1 ? 1 : -1) + 0.1 * j;
        for (int k = 0; k < REF_K; k++) resp[i * REF_K + k] = 0;
        resp[i * REF_K + (i % 5 == 0 ? (i * 7) % REF_K : i % 3)] = 1;
    }
}

static const struct {
    double lower_bound;
    double means[9];
    double cov_head[4];
} sklearn_ref[4] = {
    {1.64383523957689,
     {-0.047036015988534914, 0.10395802460125621, 0.25309054437523615, 4.047146050179511,
      -3.8240614457355746, 4.269015969706135, 8.072259042383125, -7.863331075974898, 8.183832837730325},
     {1.1341052611855047, 0.8953699652927375, 0.23552918418116406, 0.8953699652927375}},
    {1.6430736351307964,
     {-0.047036015988534914, 0.10395802460125621, 0.25309054437523615, 4.047146050179511,
      -3.8240614457355746, 4.269015969706135, 8.072259042383125, -7.863331075974898, 8.183832837730325},
     {1.1191238787171018, 0.8626111661202266, 0.20039994342573658, 0.8626111661202266}},
    {-5.533324018691895,
     {-0.0470360058268915, 0.10395800351976744, 0.2530905546989948, 4.047146051380448,
      -3.8240614441461234, 4.269015970836711, 8.072259035560894, -7.863331060619075, 8.183832830770875},
     {1.1341052935836988, 1.1668044111353058, 1.1250814843739039, 1.1339510241149984}},
    {-5.5336835669604865,
     {-0.0470360078120199, 0.10395800609631323, 0.2530905529048992, 4.0471460511794755,
      -3.8240614447839105, 4.269015970296791, 8.072259036399455, -7.863331061350163, 8.183832831767099},
     {1.1419970550833822, 1.1037616438390216, 1.1331615822235552, 0}},
};

START_TEST(test_matches_sklearn)
{
    double X[REF_N * REF_D], resp[REF_N * REF_K];
    reference_problem(X, resp);
    gmm_cov_type type = all_types[_i];
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = REF_K;
    o.covariance_type = type;
    o.max_iter = 5;
    o.tol = 0;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit_from_resp(X, REF_N, REF_D, &o, resp, &m), GMM_OK);
    ck_assert_int_eq(m.n_iter, 5);
    /* 1e-8: OpenBLAS's kernels round by the CPU they run on (tied: 1.3e-9 from scikit-learn's
     * on an Intel Xeon, within 1e-9 on AMD EPYC; the means and covariances as below on both) */
    ck_assert_double_eq_tol(m.lower_bound, sklearn_ref[_i].lower_bound, 1e-8);
    ck_assert_double_le(tu_rel_error(m.means, sklearn_ref[_i].means, 9), 1e-9);
    int n_cov = type == GMM_COV_SPHERICAL ? 3 : 4;
    ck_assert_double_le(tu_rel_error(m.covariances, sklearn_ref[_i].cov_head, n_cov), 1e-8);
    gmm_model_free(&m);
}
END_TEST

/* ---- recovery of a known mixture ------------------------------------------------------- */

#define SYN_K 3
#define SYN_D 4
#define SYN_N 6000

typedef struct {
    double weights[SYN_K];
    double means[SYN_K * SYN_D];
    double cov[SYN_K * SYN_D * SYN_D]; /* full matrices of the true model */
} truth;

/* A true model of the given type, well separated, and N samples from it. */
static void make_truth(gmm_cov_type type, truth *t, double *X, int *labels)
{
    uint64_t s = 1234 + type;
    double w[SYN_K] = {0.5, 0.3, 0.2};
    memcpy(t->weights, w, sizeof w);
    for (int k = 0; k < SYN_K; k++)
        for (int j = 0; j < SYN_D; j++) t->means[k * SYN_D + j] = (k - 1) * 12.0 + (j % 2 ? 3.0 : -2.0) * k;
    double shared[SYN_D * SYN_D];
    for (int k = 0; k < SYN_K; k++) {
        double *c = t->cov + k * SYN_D * SYN_D;
        memset(c, 0, sizeof(double) * SYN_D * SYN_D);
        if (type == GMM_COV_FULL || (type == GMM_COV_TIED && k == 0)) {
            double A[SYN_D * SYN_D];
            for (int i = 0; i < SYN_D * SYN_D; i++) A[i] = tu_rand_uniform(&s) - 0.5;
            for (int a = 0; a < SYN_D; a++)
                for (int b = 0; b < SYN_D; b++) {
                    double v = a == b ? 0.5 + 0.5 * k : 0;
                    for (int q = 0; q < SYN_D; q++) v += A[a * SYN_D + q] * A[b * SYN_D + q] * 2;
                    c[a * SYN_D + b] = v;
                }
            if (type == GMM_COV_TIED) memcpy(shared, c, sizeof shared);
        } else if (type == GMM_COV_TIED) {
            memcpy(c, shared, sizeof shared);
        } else if (type == GMM_COV_DIAG) {
            for (int j = 0; j < SYN_D; j++) c[j * SYN_D + j] = 0.5 + tu_rand_uniform(&s) * 2;
        } else {
            double v = 0.5 + k;
            for (int j = 0; j < SYN_D; j++) c[j * SYN_D + j] = v;
        }
    }
    /* samples: x = mu + L z with L the Cholesky factor of the true covariance */
    double L[SYN_K][SYN_D * SYN_D];
    for (int k = 0; k < SYN_K; k++) {
        const double *c = t->cov + k * SYN_D * SYN_D;
        memset(L[k], 0, sizeof L[k]);
        for (int a = 0; a < SYN_D; a++)
            for (int b = 0; b <= a; b++) {
                double v = c[a * SYN_D + b];
                for (int q = 0; q < b; q++) v -= L[k][a * SYN_D + q] * L[k][b * SYN_D + q];
                L[k][a * SYN_D + b] = a == b ? sqrt(v) : v / L[k][b * SYN_D + b];
            }
    }
    for (int i = 0; i < SYN_N; i++) {
        double u = tu_rand_uniform(&s);
        int k = u < 0.5 ? 0 : u < 0.8 ? 1 : 2;
        double z[SYN_D];
        for (int j = 0; j < SYN_D; j++) z[j] = tu_rand_normal(&s);
        for (int a = 0; a < SYN_D; a++) {
            double v = t->means[k * SYN_D + a];
            for (int b = 0; b <= a; b++) v += L[k][a * SYN_D + b] * z[b];
            X[i * SYN_D + a] = v;
        }
        if (labels) labels[i] = k;
    }
}

/* Component of the fit closest to true component k. */
static int match_component(const gmm_model *m, const double *mean)
{
    int best = 0;
    double bd = INFINITY;
    for (int c = 0; c < m->n_components; c++) {
        double dd = 0;
        for (int j = 0; j < m->dim; j++) dd += pow(m->means[c * m->dim + j] - mean[j], 2);
        if (dd < bd) {
            bd = dd;
            best = c;
        }
    }
    return best;
}

static double fitted_cov(const gmm_model *m, int c, int a, int b)
{
    int d = m->dim;
    switch (m->covariance_type) {
    case GMM_COV_FULL: return m->covariances[(size_t)c * d * d + a * d + b];
    case GMM_COV_TIED: return m->covariances[a * d + b];
    case GMM_COV_DIAG: return a == b ? m->covariances[c * d + a] : 0;
    default: return a == b ? m->covariances[c] : 0;
    }
}

typedef struct {
    double lb[200];
    int n;
} lb_trace;

static void record_lb(void *user, int init, int iter, double lb, double change, double s)
{
    (void)init; (void)iter; (void)change; (void)s;
    lb_trace *t = user;
    if (t->n < 200) t->lb[t->n++] = lb;
}

START_TEST(test_recovers_known_mixture)
{
    gmm_cov_type type = all_types[_i];
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(type, &t, X, NULL);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = SYN_K;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    o.seed = 7;
    lb_trace trace = {.n = 0};
    o.on_progress = record_lb;
    o.user = &trace;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &m), GMM_OK);
    ck_assert_int_eq(m.converged, 1);
    int used[SYN_K] = {0};
    for (int k = 0; k < SYN_K; k++) {
        int c = match_component(&m, t.means + k * SYN_D);
        ck_assert_int_eq(used[c], 0);
        used[c] = 1;
        ck_assert_double_le(fabs(m.weights[c] - t.weights[k]), 0.03);
        for (int j = 0; j < SYN_D; j++)
            ck_assert_double_le(fabs(m.means[c * SYN_D + j] - t.means[k * SYN_D + j]), 0.15);
        double num = 0, den = 0;
        for (int a = 0; a < SYN_D; a++)
            for (int b = 0; b < SYN_D; b++) {
                double tv = t.cov[k * SYN_D * SYN_D + a * SYN_D + b];
                num += pow(fitted_cov(&m, c, a, b) - tv, 2);
                den += tv * tv;
            }
        ck_assert_double_le(sqrt(num / den), 0.1);
    }
    /* the lower bound never decreases beyond rounding */
    ck_assert_int_ge(trace.n, 2);
    for (int i = 1; i < trace.n; i++)
        ck_assert_double_ge(trace.lb[i], trace.lb[i - 1] - 1e-9 * fabs(trace.lb[i - 1]));
    gmm_model_free(&m);
    free(X);
}
END_TEST

START_TEST(test_lower_bound_monotone_every_init)
{
    /* overlapping data and a random start: many iterations, each must not lower the bound */
    gmm_init_method inits[3] = {GMM_INIT_RANDOM, GMM_INIT_KMEANS_PP, GMM_INIT_RANDOM_FROM_DATA};
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(GMM_COV_FULL, &t, X, NULL);
    for (int i = 0; i < SYN_N * SYN_D; i++) X[i] *= 0.1; /* squeeze the clusters together */
    for (int v = 0; v < 3; v++) {
        gmm_options o;
        gmm_options_default(&o);
        o.n_components = 4;
        o.init = inits[v];
        o.device = GMM_DEVICE_CPU;
        o.tol = 1e-8;
        o.max_iter = 60;
        o.reg_covar = 1e-12; /* regularisation bends EM's guarantee; keep it negligible */
        lb_trace trace = {.n = 0};
        o.on_progress = record_lb;
        o.user = &trace;
        gmm_model m = {0};
        ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &m), GMM_OK);
        ck_assert_int_ge(trace.n, 5);
        for (int i = 1; i < trace.n; i++)
            ck_assert_double_ge(trace.lb[i], trace.lb[i - 1] - 1e-9 * fabs(trace.lb[i - 1]));
        gmm_model_free(&m);
    }
    free(X);
}
END_TEST

START_TEST(test_same_seed_same_fit)
{
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(GMM_COV_DIAG, &t, X, NULL);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 5;
    o.n_init = 2;
    o.seed = 99;
    o.device = GMM_DEVICE_CPU;
#ifdef _OPENMP
    /* more threads than this machine's cores: an OpenMP float reduction would then combine its
     * partial sums in a varying order (it did: the lower bound differed in its last bits) */
    int threads_before = omp_get_max_threads();
    omp_set_num_threads(16);
#endif
    gmm_model a = {0}, b = {0}, c = {0};
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &a), GMM_OK);
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &b), GMM_OK);
    ck_assert_mem_eq(a.means, b.means, sizeof(double) * 5 * SYN_D);
    ck_assert_mem_eq(a.covariances, b.covariances, sizeof(double) * gmm_cov_size(GMM_COV_DIAG, 5, SYN_D));
    ck_assert(a.lower_bound == b.lower_bound);
    o.seed = 100;
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &c), GMM_OK);
    ck_assert(memcmp(a.means, c.means, sizeof(double) * 5 * SYN_D) != 0);
    gmm_model_free(&a);
    gmm_model_free(&b);
    gmm_model_free(&c);
    free(X);
#ifdef _OPENMP
    omp_set_num_threads(threads_before);
#endif
}
END_TEST

/* ---- scores, save/load, sampling --------------------------------------------------------- */

/* gmm_fit_scored hands on the final E-step of the fit's own context: the same model as gmm_fit
 * and exactly the per-sample scores that gmm_score_samples gives for it afterwards, also when a
 * later initialisation (n_init 3) left other parameters in the context. */
START_TEST(test_fit_hands_scores_on)
{
    gmm_cov_type type = all_types[_i];
    truth t;
    int *truth_labels = malloc(sizeof(int) * SYN_N);
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(type, &t, X, truth_labels);
    for (int n_init = 1; n_init <= 3; n_init += 2) {
        gmm_options o;
        gmm_options_default(&o);
        o.n_components = SYN_K;
        o.covariance_type = type;
        o.device = GMM_DEVICE_CPU;
        o.n_init = n_init;
        o.init = GMM_INIT_RANDOM;
        o.seed = 3;
        gmm_model plain = {0}, m = {0};
        gmm_fit_scores fs = {0};
        ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &plain), GMM_OK);
        ck_assert_int_eq(gmm_fit_scored(X, SYN_N, SYN_D, &o, &m, &fs), GMM_OK);
        ck_assert_int_eq(memcmp(plain.means, m.means, sizeof(double) * SYN_K * SYN_D), 0);
        ck_assert_double_eq(plain.lower_bound, m.lower_bound);
        double *ll = malloc(sizeof(double) * SYN_N), *proba = malloc(sizeof(double) * SYN_N * SYN_K);
        int *labels = malloc(sizeof(int) * SYN_N);
        ck_assert_int_eq(gmm_score_samples(&m, X, SYN_N, GMM_DEVICE_CPU, ll, proba, labels), GMM_OK);
        ck_assert_int_eq(fs.n_samples, SYN_N);
        ck_assert_int_eq(memcmp(fs.log_likelihood, ll, sizeof(double) * SYN_N), 0);
        ck_assert_int_eq(memcmp(fs.labels, labels, sizeof(int) * SYN_N), 0);
        ck_assert_double_le(tu_rel_error(fs.proba, proba, (size_t)SYN_N * SYN_K), 1e-15);
        double mean = 0;
        for (int i = 0; i < SYN_N; i++) mean += ll[i];
        ck_assert_double_eq_tol(fs.mean_log_likelihood, mean / SYN_N, 1e-12 * fabs(mean / SYN_N));
        free(ll);
        free(proba);
        free(labels);
        gmm_fit_scores_free(&fs);
        gmm_fit_scores_free(&fs); /* twice is harmless */
        gmm_model_free(&plain);
        gmm_model_free(&m);
    }
    free(X);
    free(truth_labels);
}
END_TEST

START_TEST(test_scores_and_save_load)
{
    gmm_cov_type type = all_types[_i];
    truth t;
    int *truth_labels = malloc(sizeof(int) * SYN_N);
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(type, &t, X, truth_labels);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = SYN_K;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0}, loaded = {0};
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &m), GMM_OK);

    double *ll = malloc(sizeof(double) * SYN_N), *ll2 = malloc(sizeof(double) * SYN_N);
    double *proba = malloc(sizeof(double) * SYN_N * SYN_K);
    int *labels = malloc(sizeof(int) * SYN_N), *labels2 = malloc(sizeof(int) * SYN_N);
    for (int i = 0; i < SYN_N; i++) ll[i] = proba[i] = TU_POISON_F64;
    ck_assert_int_eq(gmm_score_samples(&m, X, SYN_N, GMM_DEVICE_CPU, ll, proba, labels), GMM_OK);
    double mean = 0;
    for (int i = 0; i < SYN_N; i++) {
        ck_assert(isfinite(ll[i]));
        double s = 0;
        for (int k = 0; k < SYN_K; k++) s += proba[i * SYN_K + k];
        ck_assert_double_eq_tol(s, 1.0, 1e-12);
        mean += ll[i];
    }
    mean /= SYN_N;
    double score;
    ck_assert_int_eq(gmm_score(&m, X, SYN_N, GMM_DEVICE_CPU, &score), GMM_OK);
    ck_assert_double_eq_tol(score, mean, 1e-12 * fabs(mean));
    /* the lower bound is the score before the last M-step: close to it at convergence */
    ck_assert_double_le(fabs(score - m.lower_bound), 1e-2);
    /* well separated: the clusters are the true components up to a permutation */
    int map[SYN_K] = {-1, -1, -1};
    int agree = 0;
    for (int i = 0; i < SYN_N; i++) {
        if (map[truth_labels[i]] < 0) map[truth_labels[i]] = labels[i];
        agree += map[truth_labels[i]] == labels[i];
    }
    ck_assert_int_ge(agree, SYN_N - SYN_N / 200);
    double p = (double)gmm_n_parameters(&m);
    ck_assert_double_eq_tol(gmm_bic(&m, score, SYN_N), -2 * score * SYN_N + p * log((double)SYN_N), 1e-6);
    ck_assert_double_eq_tol(gmm_aic(&m, score, SYN_N), -2 * score * SYN_N + 2 * p, 1e-6);

    const char *path = tu_tmp_path("em-model.bin");
    m.image_rows = 2;
    m.image_cols = 2;
    ck_assert_int_eq(gmm_model_save(path, &m), GMM_OK);
    ck_assert_int_eq(gmm_model_load(path, &loaded), GMM_OK);
    ck_assert_int_eq(gmm_score_samples(&loaded, X, SYN_N, GMM_DEVICE_CPU, ll2, NULL, labels2), GMM_OK);
    ck_assert_mem_eq(labels, labels2, sizeof(int) * SYN_N);
    ck_assert_mem_eq(ll, ll2, sizeof(double) * SYN_N);
    gmm_model_free(&m);
    gmm_model_free(&loaded);
    free(ll);
    free(ll2);
    free(proba);
    free(labels);
    free(labels2);
    free(truth_labels);
    free(X);
}
END_TEST

START_TEST(test_sample_matches_model)
{
    gmm_cov_type type = all_types[_i];
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(type, &t, X, NULL);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = SYN_K;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &m), GMM_OK);
    const int n = 30000;
    double *S = malloc(sizeof(double) * n * SYN_D);
    int *lab = malloc(sizeof(int) * n);
    ck_assert_int_eq(gmm_sample(&m, n, 5, S, lab), GMM_OK);
    for (int c = 0; c < SYN_K; c++) {
        int cnt = 0;
        double mu[SYN_D] = {0};
        for (int i = 0; i < n; i++)
            if (lab[i] == c) {
                cnt++;
                for (int j = 0; j < SYN_D; j++) mu[j] += S[i * SYN_D + j];
            }
        ck_assert_double_le(fabs(cnt / (double)n - m.weights[c]), 0.015);
        for (int j = 0; j < SYN_D; j++)
            ck_assert_double_le(fabs(mu[j] / cnt - m.means[c * SYN_D + j]), 0.1);
        double var0 = 0;
        for (int i = 0; i < n; i++)
            if (lab[i] == c) var0 += pow(S[i * SYN_D] - mu[0] / cnt, 2);
        var0 /= cnt;
        ck_assert_double_le(fabs(var0 / fitted_cov(&m, c, 0, 0) - 1), 0.08);
    }
    /* samples come out grouped by component, as scikit-learn's */
    for (int i = 1; i < n; i++) ck_assert_int_ge(lab[i], lab[i - 1]);
    gmm_model_free(&m);
    free(S);
    free(lab);
    free(X);
}
END_TEST

/* ---- failures ---------------------------------------------------------------------------- */

START_TEST(test_singular_covariance_names_component)
{
    /* the third feature is constant: with reg_covar = 0 every covariance is singular */
    const int n = 300, d = 3;
    double *X = malloc(sizeof(double) * n * d);
    uint64_t s = 3;
    for (int i = 0; i < n; i++) {
        X[i * d] = tu_rand_normal(&s) + (i % 2) * 10;
        X[i * d + 1] = tu_rand_normal(&s);
        X[i * d + 2] = 1.0;
    }
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 2;
    o.reg_covar = 0;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    gmm_error_clear();
    gmm_status st = gmm_fit(X, n, d, &o, &m);
    ck_assert_int_eq(st, GMM_ERR_CHOLESKY);
    const char *msg = gmm_error_message(st);
    ck_assert_ptr_nonnull(strstr(msg, "component "));
    ck_assert_ptr_nonnull(strstr(msg, "--reg-covar"));
    ck_assert_ptr_null(m.means);
    /* with a regularisation it fits */
    o.reg_covar = 1e-6;
    ck_assert_int_eq(gmm_fit(X, n, d, &o, &m), GMM_OK);
    gmm_model_free(&m);
    free(X);
}
END_TEST

typedef struct {
    int reseeds;
    char last[512];
} notice_log;

static void record_notice(void *user, const char *msg)
{
    notice_log *log = user;
    if (strstr(msg, "re-seeded")) log->reseeds++;
    snprintf(log->last, sizeof log->last, "%s", msg);
}

START_TEST(test_empty_component_reseeded)
{
    /* Initial responsibilities leave component 2 with nothing: it must be re-seeded, reported,
     * and the fit must end finite with three real components. */
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(all_types[_i], &t, X, NULL);
    double *resp = calloc((size_t)SYN_N * SYN_K, sizeof(double));
    for (int i = 0; i < SYN_N; i++) resp[i * SYN_K + (X[i * SYN_D] > 0 ? 1 : 0)] = 1;
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = SYN_K;
    o.covariance_type = all_types[_i];
    o.device = GMM_DEVICE_CPU;
    notice_log log = {0};
    o.on_notice = record_notice;
    o.user = &log;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit_from_resp(X, SYN_N, SYN_D, &o, resp, &m), GMM_OK);
    ck_assert_int_ge(log.reseeds, 1);
    for (int k = 0; k < SYN_K; k++) {
        ck_assert(isfinite(m.weights[k]));
        ck_assert_double_gt(m.weights[k], 0.05);
        for (int j = 0; j < SYN_D; j++) ck_assert(isfinite(m.means[k * SYN_D + j]));
    }
    ck_assert(isfinite(m.lower_bound));
    gmm_model_free(&m);
    free(resp);
    free(X);
}
END_TEST

START_TEST(test_invalid_options_rejected)
{
    double X[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    gmm_options o;
    gmm_options_default(&o);
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    o.n_components = 5; /* K > N = 4 */
    ck_assert_int_eq(gmm_fit(X, 4, 2, &o, &m), GMM_ERR_ARG);
    o.n_components = 0;
    ck_assert_int_eq(gmm_fit(X, 4, 2, &o, &m), GMM_ERR_ARG);
    o.n_components = 2;
    o.tol = -1;
    ck_assert_int_eq(gmm_fit(X, 4, 2, &o, &m), GMM_ERR_ARG);
    ck_assert_ptr_null(m.means);
}
END_TEST

START_TEST(test_real_mnist_subset)
{
    /* A quick check on real digits when the data is available (the full 19690-image run is the
     * acceptance figure measured by `make check-mnist`). */
    const char *dir = tu_mnist_dir();
    if (!dir) {
        printf("MNIST subset test skipped: set GMM_TEST_MNIST_DIR\n");
        return;
    }
    /* loaded through the programs, like a user */
    char cmd[2048];
    char *out = NULL;
    snprintf(cmd, sizeof cmd,
             "%s/gmm-train '%s' -k 10 --reg-covar 1e-2 --limit 2000 --max-iter 10 --device cpu "
             "-q -o %s --png ''",
             tu_bin_dir(), dir, tu_tmp_path("mnist.bin"));
    int rc = tu_run(cmd, &out);
    ck_assert_msg(rc == 0, "gmm-train failed: %s", out);
    const char *acc = strstr(out, "accuracy ");
    ck_assert_ptr_nonnull(acc);
    double accuracy = atof(acc + 9);
    ck_assert_double_ge(accuracy, 0.45);
    free(out);
}
END_TEST

/* ---- stopping, checkpoints and continuing from a model ------------------------------------ */

/* Every model array of a against b: the largest relative error. */
static double model_rel_error(const gmm_model *a, const gmm_model *b)
{
    size_t K = (size_t)b->n_components, d = (size_t)b->dim;
    size_t n_cov = gmm_cov_size(b->covariance_type, b->n_components, b->dim);
    double e = tu_rel_error(a->weights, b->weights, K);
    e = fmax(e, tu_rel_error(a->means, b->means, K * d));
    e = fmax(e, tu_rel_error(a->covariances, b->covariances, n_cov));
    return fmax(e, tu_rel_error(a->precisions_cholesky, b->precisions_cholesky, n_cov));
}

/* The user of the stop and checkpoint callbacks: stops once iteration stop_at of initialisation
 * stop_init has run; keeps a copy of the checkpoint at iteration copy_at. */
typedef struct {
    int stop_init, stop_at;
    int last_init, last_iter, n_progress;
    int checkpoints[16], n_checkpoints, copy_at;
    gmm_model copy;
    int n_fitted, progress_at_fitted; /* on_fitted: calls, and n_progress then */
    const gmm_model *fitted;
} stop_probe;

static void probe_fitted(void *user, gmm_model *model)
{
    stop_probe *p = user;
    p->n_fitted++;
    p->progress_at_fitted = p->n_progress;
    p->fitted = model;
    gmm_model_free(&p->copy);
    ck_assert_int_eq(gmm_model_copy(&p->copy, model), GMM_OK);
    model->image_rows = 7; /* the caller's fields: kept */
    model->image_cols = 8;
}

static void probe_progress(void *user, int init, int iter, double lb, double change, double s)
{
    (void)lb; (void)change; (void)s;
    stop_probe *p = user;
    p->last_init = init;
    p->last_iter = iter;
    p->n_progress++;
}

static int probe_should_stop(void *user)
{
    const stop_probe *p = user;
    return p->last_init == p->stop_init && p->last_iter >= p->stop_at;
}

static gmm_status probe_checkpoint(void *user, const gmm_model *so_far)
{
    stop_probe *p = user;
    if (p->n_checkpoints < 16) p->checkpoints[p->n_checkpoints++] = so_far->n_iter;
    if (so_far->n_iter == p->copy_at) return gmm_model_copy(&p->copy, so_far);
    return GMM_OK;
}

/* A fit stopped after iteration 3 returns GMM_INTERRUPTED with exactly the model of a fit
 * limited to 3 iterations (not converged, n_iter 3), and no scores. */
START_TEST(test_stop_keeps_model_so_far)
{
    gmm_cov_type type = all_types[_i];
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(type, &t, X, NULL);
    for (int i = 0; i < SYN_N * SYN_D; i++) X[i] *= 0.1; /* overlapping: many iterations */
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 4;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    o.init = GMM_INIT_RANDOM;
    o.tol = 0;
    o.max_iter = 3;
    gmm_model limited = {0}, stopped = {0};
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &limited));
    ck_assert_int_eq(limited.n_iter, 3);

    stop_probe probe = {.stop_init = 0, .stop_at = 3};
    o.max_iter = 100;
    o.on_progress = probe_progress;
    o.should_stop = probe_should_stop;
    o.on_fitted = probe_fitted;
    o.user = &probe;
    gmm_fit_scores scores = {0};
    ck_assert_int_eq(gmm_fit_scored(X, SYN_N, SYN_D, &o, &stopped, &scores), GMM_INTERRUPTED);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_INTERRUPTED), "iteration 3"));
    ck_assert_int_eq(probe.n_progress, 3);
    ck_assert_int_eq(stopped.converged, 0);
    ck_assert_int_eq(stopped.n_iter, 3);
    ck_assert_int_eq(stopped.max_iter, 100);
    ck_assert_int_eq(stopped.n_train_samples, SYN_N);
    ck_assert_double_eq(stopped.lower_bound, limited.lower_bound);
    ck_assert_double_le(model_rel_error(&stopped, &limited), 1e-13);
    ck_assert_int_eq(probe.n_fitted, 0); /* a stopped fit is not "fitted" */
    ck_assert_ptr_null(scores.log_likelihood); /* the final scoring was skipped */
    ck_assert_ptr_null(scores.proba);
    gmm_model_free(&limited);
    gmm_model_free(&stopped);
    free(X);
}
END_TEST

/* With n_init 3, a stop in the second initialisation keeps the better of the first (finished)
 * run and the second's parameters so far, and never starts the third. */
START_TEST(test_stop_skips_later_initialisations)
{
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(GMM_COV_DIAG, &t, X, NULL);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = SYN_K;
    o.covariance_type = GMM_COV_DIAG;
    o.device = GMM_DEVICE_CPU;
    o.n_init = 1;
    o.seed = 5;
    gmm_model first = {0}, stopped = {0};
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &first)); /* the same first run */
    ck_assert_int_eq(first.converged, 1);
    stop_probe probe = {.stop_init = 1, .stop_at = 1};
    o.n_init = 3;
    o.on_progress = probe_progress;
    o.should_stop = probe_should_stop;
    o.user = &probe;
    ck_assert_int_eq(gmm_fit(X, SYN_N, SYN_D, &o, &stopped), GMM_INTERRUPTED);
    ck_assert_int_eq(probe.last_init, 1);
    ck_assert_int_eq(probe.last_iter, 1);
    ck_assert_int_eq(probe.n_progress, first.n_iter + 1);
    /* one iteration of the second run cannot beat a converged first run on this data */
    ck_assert_int_eq(stopped.converged, 1);
    ck_assert_int_eq(stopped.n_iter, first.n_iter);
    ck_assert_double_eq(stopped.lower_bound, first.lower_bound);
    ck_assert_double_le(model_rel_error(&stopped, &first), 1e-13);
    gmm_model_free(&first);
    gmm_model_free(&stopped);
    free(X);
}
END_TEST

/* Checkpoints come every 2 iterations of an unconverged run, each the model a fit limited to
 * that many iterations returns (marked not converged, the metadata filled). */
START_TEST(test_checkpoints_every_n_iterations)
{
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(GMM_COV_FULL, &t, X, NULL);
    for (int i = 0; i < SYN_N * SYN_D; i++) X[i] *= 0.1;
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 4;
    o.device = GMM_DEVICE_CPU;
    o.init = GMM_INIT_RANDOM;
    o.tol = 0;
    o.max_iter = 4;
    gmm_model limited = {0}, full = {0};
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &limited));
    stop_probe probe = {.stop_init = -1, .copy_at = 4};
    o.max_iter = 7;
    o.checkpoint_every = 2;
    o.on_checkpoint = probe_checkpoint;
    o.user = &probe;
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &full));
    ck_assert_int_eq(probe.n_checkpoints, 3);
    ck_assert_int_eq(probe.checkpoints[0], 2);
    ck_assert_int_eq(probe.checkpoints[1], 4);
    ck_assert_int_eq(probe.checkpoints[2], 6);
    ck_assert_int_eq(probe.copy.converged, 0);
    ck_assert_int_eq(probe.copy.max_iter, 7);
    ck_assert_int_eq(probe.copy.n_train_samples, SYN_N);
    ck_assert_double_eq(probe.copy.lower_bound, limited.lower_bound);
    ck_assert_double_le(model_rel_error(&probe.copy, &limited), 1e-13);
    gmm_model_free(&probe.copy);
    gmm_model_free(&limited);
    gmm_model_free(&full);
    free(X);
}
END_TEST

/* on_fitted comes once, after the last iteration of the last of n_init runs, with the model the
 * fit returns (the same object, already equal to it bit for bit: parameters, lower bound,
 * iterations, metadata), and the fields it fills are kept; the final scores follow as without
 * it. */
START_TEST(test_on_fitted_hands_final_model)
{
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(GMM_COV_FULL, &t, X, NULL);
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = SYN_K;
    o.device = GMM_DEVICE_CPU;
    o.n_init = 3;
    o.seed = 11;
    gmm_model plain = {0}, m = {0};
    gmm_fit_scores plain_scores = {0}, fs = {0};
    TU_CHECK_OK(gmm_fit_scored(X, SYN_N, SYN_D, &o, &plain, &plain_scores));
    stop_probe probe = {.stop_init = -1};
    o.on_progress = probe_progress;
    o.on_fitted = probe_fitted;
    o.user = &probe;
    TU_CHECK_OK(gmm_fit_scored(X, SYN_N, SYN_D, &o, &m, &fs));
    ck_assert_int_eq(probe.n_fitted, 1);
    ck_assert_int_eq(probe.progress_at_fitted, probe.n_progress); /* after every iteration */
    ck_assert_int_eq(probe.last_init, 2);
    ck_assert_ptr_eq(probe.fitted, &m);
    ck_assert_double_eq(probe.copy.lower_bound, m.lower_bound);
    ck_assert_int_eq(probe.copy.n_iter, m.n_iter);
    ck_assert_int_eq(probe.copy.converged, m.converged);
    ck_assert_int_eq(probe.copy.n_train_samples, SYN_N);
    ck_assert_int_eq(probe.copy.n_init, 3);
    ck_assert_double_eq(model_rel_error(&probe.copy, &m), 0.0);
    ck_assert_double_eq(model_rel_error(&plain, &m), 0.0);
    ck_assert_int_eq(m.image_rows, 7);
    ck_assert_int_eq(m.image_cols, 8);
    ck_assert_int_eq(memcmp(fs.log_likelihood, plain_scores.log_likelihood,
                            sizeof(double) * SYN_N), 0);
    gmm_model_free(&probe.copy);
    gmm_fit_scores_free(&plain_scores);
    gmm_fit_scores_free(&fs);
    gmm_model_free(&plain);
    gmm_model_free(&m);
    free(X);
}
END_TEST

/* Continuing: 3 iterations, then 2 more from the saved model, equal 5 iterations in one go;
 * from a converged model the fit converges again at once with the same lower bound. */
START_TEST(test_continue_from_model)
{
    gmm_cov_type type = all_types[_i];
    truth t;
    double *X = malloc(sizeof(double) * SYN_N * SYN_D);
    make_truth(type, &t, X, NULL);
    for (int i = 0; i < SYN_N * SYN_D; i++) X[i] *= 0.1;
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = 4;
    o.covariance_type = type;
    o.device = GMM_DEVICE_CPU;
    o.init = GMM_INIT_RANDOM;
    o.seed = 3;
    o.tol = 0;
    o.max_iter = 5;
    gmm_model five = {0}, three = {0}, resumed = {0}, converged = {0}, again = {0};
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &five));
    o.max_iter = 3;
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &three));
    /* through the file, as gmm-train --init-from reads it */
    const char *path = tu_tmp_path("three.bin");
    TU_CHECK_OK(gmm_model_save(path, &three));
    gmm_model_free(&three);
    TU_CHECK_OK(gmm_model_load(path, &three));
    o.max_iter = 2;
    o.seed = 12345; /* no random draw when continuing: the seed does not matter */
    TU_CHECK_OK(gmm_fit_from_model(X, SYN_N, SYN_D, &o, &three, &resumed));
    ck_assert_int_eq(resumed.n_iter, 2);
    ck_assert_double_le(tu_rel_error_1(resumed.lower_bound, five.lower_bound), 1e-12);
    ck_assert_double_le(model_rel_error(&resumed, &five), 1e-10);
    ck_assert_int_eq(resumed.init, GMM_INIT_RANDOM); /* the chain's initialisation */
    ck_assert_int_eq((int)resumed.seed, 3);

    o.tol = 1e-7;
    o.max_iter = 1000;
    o.seed = 3;
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &converged));
    ck_assert_int_eq(converged.converged, 1);
    ck_assert_int_ge(converged.n_iter, 2);
    o.init_model = &converged; /* the options field, as gmm-train sets it */
    TU_CHECK_OK(gmm_fit(X, SYN_N, SYN_D, &o, &again));
    ck_assert_int_eq(again.converged, 1);
    ck_assert_int_le(again.n_iter, 2);
    ck_assert_double_le(fabs(again.lower_bound - converged.lower_bound), 1e-6);
    ck_assert_double_ge(again.lower_bound, converged.lower_bound - 1e-9);
    gmm_model_free(&five);
    gmm_model_free(&three);
    gmm_model_free(&resumed);
    gmm_model_free(&converged);
    gmm_model_free(&again);
    free(X);
}
END_TEST

/* A starting model of another shape is a clear error, never a fit. */
START_TEST(test_continue_from_mismatched_model)
{
    double X[40];
    for (int i = 0; i < 40; i++) X[i] = sin(i * 0.7) + (i % 4);
    gmm_options o;
    gmm_options_default(&o);
    o.device = GMM_DEVICE_CPU;
    o.n_components = 2;
    gmm_model start = {0}, m = {0};
    TU_CHECK_OK(gmm_fit(X, 20, 2, &o, &start));
    o.n_components = 3;
    ck_assert_int_eq(gmm_fit_from_model(X, 20, 2, &o, &start, &m), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "2 components but n_components=3"));
    o.n_components = 2;
    o.covariance_type = GMM_COV_DIAG;
    ck_assert_int_eq(gmm_fit_from_model(X, 20, 2, &o, &start, &m), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "full covariance"));
    o.covariance_type = GMM_COV_FULL;
    ck_assert_int_eq(gmm_fit_from_model(X, 10, 4, &o, &start, &m), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "dim=2"));
    ck_assert_ptr_null(m.means);
    gmm_model_free(&start);
}
END_TEST

static Suite *em_suite(void)
{
    Suite *s = suite_create("em");
    TCase *tc = tcase_create("cpu");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, test_matches_sklearn, 0, 4);
    tcase_add_loop_test(tc, test_recovers_known_mixture, 0, 4);
    tcase_add_test(tc, test_lower_bound_monotone_every_init);
    tcase_add_test(tc, test_same_seed_same_fit);
    tcase_add_loop_test(tc, test_scores_and_save_load, 0, 4);
    tcase_add_loop_test(tc, test_fit_hands_scores_on, 0, 4);
    tcase_add_loop_test(tc, test_sample_matches_model, 0, 4);
    tcase_add_test(tc, test_singular_covariance_names_component);
    tcase_add_loop_test(tc, test_empty_component_reseeded, 0, 4);
    tcase_add_test(tc, test_invalid_options_rejected);
    tcase_add_test(tc, test_real_mnist_subset);
    tcase_add_loop_test(tc, test_stop_keeps_model_so_far, 0, 4);
    tcase_add_test(tc, test_stop_skips_later_initialisations);
    tcase_add_test(tc, test_checkpoints_every_n_iterations);
    tcase_add_test(tc, test_on_fitted_hands_final_model);
    tcase_add_loop_test(tc, test_continue_from_model, 0, 4);
    tcase_add_test(tc, test_continue_from_mismatched_model);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(em_suite()); }
