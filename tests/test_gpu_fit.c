/* Check suite for the CUDA backend's initialisation and whole fits against the CPU: device
 * k-means (host and device responsibilities, empty clusters, float32), k-means++ seeding (the
 * same draws, the same seeds), and whole fits (identical labels) on a synthetic mixture and,
 * when MNIST is present, on the first 5000 real digits; a float32/TF32 fit's handed-on scores
 * are float64 scoring of its model. Skips without a GPU. CUDA is touched
 * only inside the tests (each runs in Check's forked child). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/core/init.h"
#include "kernels/rng.h"
#include "tests/testutil.h"

#define gpu tu_gpu_backend
#define CHECK_OK TU_CHECK_OK
#define poison tu_poison

/* The backend tuning of the next create (all defaults here). */
static const gmm_tuning g_tuning;

static int count_label_differences(const int *a, const int *b, int64_t n);

/* N x d points around K centres (component i % K, 8 along axis j where j % K == k, spread
 * 1 + 0.2 k), drawn from seed. */
static double *synthetic_blobs(int64_t N, int d, int K, uint64_t seed)
{
    double *X = malloc(sizeof(double) * N * d);
    ck_assert_ptr_nonnull(X);
    uint64_t s = seed;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % K);
        for (int j = 0; j < d; j++)
            X[i * d + j] = 8.0 * ((j % K) == k) + (1.0 + 0.2 * k) * tu_rand_normal(&s);
    }
    return X;
}

/* The first n training images of the test MNIST directory as doubles (*n_samples, *dim set), or
 * NULL after printing that `what` was skipped when there is no MNIST directory. */
static double *mnist_first(int n, const char *what, int64_t *n_samples, int *dim)
{
    const char *dir = tu_mnist_dir();
    if (!dir) {
        printf("MNIST %s skipped: no MNIST_DIR\n", what);
        return NULL;
    }
    dataset ds;
    CHECK_OK(dataset_load(dir, DATASET_TRAIN, &ds));
    dataset_truncate(&ds, n);
    double *X = NULL;
    CHECK_OK(dataset_to_double(&ds, &X));
    *n_samples = ds.n_samples;
    *dim = ds.rows * ds.cols;
    dataset_free(&ds);
    return X;
}

/* kmeans_lloyd with resp NULL leaves the one-hot responsibilities in the context: from the
 * same seeds it gives the same centers (to the bit: the same device steps) as the host-resp
 * path, and the M-step that follows at once the same parameters as set_resp(resp) then the
 * M-step (to 1e-12 in float64, in case the M-step's sums run in another order). */
static void check_resp_in_ctx(const gmm_backend *be, const double *X, int64_t N, int d, int K,
                              gmm_precision precision, const double *seeds, const char *what)
{
    const gmm_cov_type type = GMM_COV_FULL;
    double *ch = malloc(sizeof(double) * K * d), *cd = malloc(sizeof(double) * K * d);
    double *resp = malloc(sizeof(double) * N * K);
    gmm_model mh, md;
    memcpy(ch, seeds, sizeof(double) * K * d);
    memcpy(cd, seeds, sizeof(double) * K * d);
    CHECK_OK(gmm_model_alloc(&mh, K, d, type));
    CHECK_OK(gmm_model_alloc(&md, K, d, type));
    size_t cn = gmm_cov_size(type, K, d);
    poison(md.weights, K);
    poison(md.means, (size_t)K * d);
    poison(md.covariances, cn);
    poison(md.precisions_cholesky, cn);
    gmm_backend_ctx *ctx = NULL;
    CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, type, precision, &g_tuning, NULL));
    CHECK_OK(be->kmeans_lloyd(ctx, 300, ch, resp));
    CHECK_OK(be->set_resp(ctx, resp));
    CHECK_OK(be->m_step(ctx, 1e-6, NULL));
    CHECK_OK(be->get_params(ctx, &mh));
    be->destroy(ctx);
    ctx = NULL;
    CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, type, precision, &g_tuning, NULL));
    CHECK_OK(be->kmeans_lloyd(ctx, 300, cd, NULL));
    CHECK_OK(be->m_step(ctx, 1e-6, NULL));
    CHECK_OK(be->get_params(ctx, &md));
    be->destroy(ctx);
    ck_assert_msg(memcmp(ch, cd, sizeof(double) * K * d) == 0,
                  "%s: centers differ between the resp and NULL paths", what);
    double ew = tu_rel_error(md.weights, mh.weights, K);
    double em = tu_rel_error(md.means, mh.means, (size_t)K * d);
    double ec = tu_rel_error(md.covariances, mh.covariances, cn);
    double ep = tu_rel_error(md.precisions_cholesky, mh.precisions_cholesky, cn);
    printf("device k-means resp in context, %s (%s): M-step weights %.2e means %.2e covariances "
           "%.2e precisions %.2e\n",
           what, gmm_precision_name(precision), ew, em, ec, ep);
    /* float32 products may round a last-bit difference of the means differently */
    const double bound = precision == GMM_PRECISION_FP64 ? 1e-12 : 1e-5;
    ck_assert_msg(ew <= bound && em <= bound && ec <= bound && ep <= 100 * bound,
                  "%s: the M-step after kmeans_lloyd(NULL) differs from set_resp", what);
    gmm_model_free(&mh);
    gmm_model_free(&md);
    free(ch);
    free(cd);
    free(resp);
}

/* Device k-means (kmeans_lloyd) against gmm_kmeans_lloyd from the same k-means++ seeds: the
 * labels (at most max_diff differences, near-ties) and the centers; then the resp NULL path
 * (check_resp_in_ctx). */
static void compare_kmeans_from(const double *X, int64_t N, int d, int K,
                                gmm_precision precision, int max_diff, const int64_t *seeds,
                                const char *what);
static void compare_kmeans(const double *X, int64_t N, int d, int K, gmm_precision precision,
                           int max_diff, const char *what)
{
    compare_kmeans_from(X, N, d, K, precision, max_diff, NULL, what);
}

/* seeds: the seed rows (NULL: k-means++ with seed 7) */
static void compare_kmeans_from(const double *X, int64_t N, int d, int K,
                                gmm_precision precision, int max_diff, const int64_t *seeds,
                                const char *what)
{
    const gmm_backend *be = gpu();
    ck_assert_ptr_nonnull(be->kmeans_lloyd);
    gmm_rng rng;
    gmm_rng_seed(&rng, 7);
    int64_t *idx = malloc(sizeof(int64_t) * K);
    double *cc = malloc(sizeof(double) * K * d), *gc = malloc(sizeof(double) * K * d);
    double *resp = malloc(sizeof(double) * N * K);
    int *lc = malloc(sizeof(int) * N), *lg = malloc(sizeof(int) * N);
    int n_iter = 0;
    if (seeds)
        memcpy(idx, seeds, sizeof(int64_t) * K);
    else
        CHECK_OK(gmm_kmeans_plusplus(X, N, d, K, &rng, idx));
    for (int k = 0; k < K; k++) memcpy(cc + (size_t)k * d, X + idx[k] * d, sizeof(double) * d);
    memcpy(gc, cc, sizeof(double) * K * d);
    check_resp_in_ctx(be, X, N, d, K, precision, cc, what);
    CHECK_OK(gmm_kmeans_lloyd(X, N, d, K, 300, cc, lc, &n_iter));
    /* both device paths from the same seeds: without cuBLAS (the default at these sizes), then
     * the GEMMs */
    for (int gemm = 0; gemm < 2; gemm++) {
        gmm_tuning tuning = g_tuning;
        tuning.kmeans_gemm = gemm;
        for (int k = 0; k < K; k++) memcpy(gc + (size_t)k * d, X + idx[k] * d, sizeof(double) * d);
        gmm_backend_ctx *ctx = NULL;
        CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, GMM_COV_FULL, precision, &tuning,
                                        NULL));
        poison(resp, (size_t)N * K);
        CHECK_OK(be->kmeans_lloyd(ctx, 300, gc, resp));
        be->destroy(ctx);
        for (int64_t i = 0; i < N; i++) {
            int ones = 0, zeros = 0;
            lg[i] = -1;
            for (int k = 0; k < K; k++) {
                if (resp[i * K + k] == 1.0) {
                    ones++;
                    lg[i] = k;
                } else if (resp[i * K + k] == 0.0) {
                    zeros++;
                }
            }
            ck_assert_msg(ones == 1 && zeros == K - 1, "row %lld of resp is not one-hot",
                          (long long)i);
        }
        int diff = count_label_differences(lc, lg, N);
        double cerr = tu_rel_error(gc, cc, (size_t)K * d);
        printf("device k-means%s, %s (%s): cpu %d iterations; %d of %lld labels differ; centers "
               "relative error %.2e\n",
               gemm ? " (GEMMs)" : "", what, gmm_precision_name(precision), n_iter, diff,
               (long long)N, cerr);
        ck_assert_msg(diff <= max_diff, "%s: %d labels differ (bound %d)", what, diff, max_diff);
        if (diff == 0 && precision == GMM_PRECISION_FP64)
            ck_assert_msg(cerr < 1e-10, "%s: centers differ by %.3e", what, cerr);
    }
    free(idx);
    free(cc);
    free(gc);
    free(resp);
    free(lc);
    free(lg);
}

START_TEST(test_kmeans_synthetic)
{
    if (!tu_gpu_available()) return;
    int64_t N = 3001;
    int d = 12, K = 5;
    double *X = synthetic_blobs(N, d, K, 21);
    compare_kmeans(X, N, d, K, GMM_PRECISION_FP64, 0, "synthetic 3001 x 12, K = 5");
    compare_kmeans(X, N, d, K, GMM_PRECISION_FP32, 0, "synthetic 3001 x 12, K = 5");
    free(X);
}
END_TEST

/* Seeds with duplicates: the duplicates' clusters are empty after the first assignment (ties go
 * to the first center) and move to the farthest samples, one after the other; K = 1; d = 1 with
 * N not a multiple of any block. */
START_TEST(test_kmeans_empty_clusters)
{
    if (!tu_gpu_available()) return;
    int64_t N = 3001;
    int d = 12, K = 5;
    double *X = synthetic_blobs(N, d, K, 23);
    const int64_t dup[5] = {10, 10, 10, 200, 200};
    compare_kmeans_from(X, N, d, K, GMM_PRECISION_FP64, 0, dup, "3001 x 12, K = 5, duplicate seeds");
    compare_kmeans_from(X, N, d, K, GMM_PRECISION_FP32, 0, dup, "3001 x 12, K = 5, duplicate seeds");
    compare_kmeans_from(X, N, d, 1, GMM_PRECISION_FP64, 0, dup + 3, "3001 x 12, K = 1");
    free(X);
    N = 1037;
    X = malloc(sizeof(double) * N);
    tu_fill_uniform(X, N, -2.0, 3.0, 31);
    compare_kmeans(X, N, 1, 3, GMM_PRECISION_FP64, 2, "1037 x 1, K = 3");
    free(X);
}
END_TEST

START_TEST(test_kmeans_mnist)
{
    if (!tu_gpu_available()) return;
    int64_t N;
    int d;
    double *X = mnist_first(5000, "k-means comparison", &N, &d);
    if (!X) return;
    compare_kmeans(X, N, d, 10, GMM_PRECISION_FP64, 5, "MNIST first 5000, K = 10");
    free(X);
}
END_TEST

/* Device k-means++ (kmeans_plusplus) against gmm_kmeans_plusplus from the same seed: the same
 * rng draws, so the same seeds up to near-ties (the sums run in different orders); the rng
 * states after must match too (same number of calls). */
static int compare_kpp(const double *X, int64_t N, int d, int K, gmm_precision precision,
                       uint64_t seed, const char *what)
{
    const gmm_backend *be = gpu();
    ck_assert_ptr_nonnull(be->kmeans_plusplus);
    gmm_rng rc, rg;
    gmm_rng_seed(&rc, seed);
    gmm_rng_seed(&rg, seed);
    int64_t *ic = malloc(sizeof(int64_t) * K), *ig = malloc(sizeof(int64_t) * K);
    CHECK_OK(gmm_kmeans_plusplus(X, N, d, K, &rc, ic));
    gmm_backend_ctx *ctx = NULL;
    CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, d, K, GMM_COV_FULL, precision, &g_tuning, NULL));
    for (int k = 0; k < K; k++) ig[k] = -1;
    double *centers = malloc(sizeof(double) * K * d);
    CHECK_OK(be->kmeans_plusplus(ctx, &rg, ig, centers));
    be->destroy(ctx);
    for (int k = 0; k < K; k++) /* the seeds handed back are the rows of their indices */
        if (ig[k] >= 0 && ig[k] < N)
            for (int j = 0; j < d; j++)
                ck_assert_msg(fabs(centers[k * d + j] - X[ig[k] * d + j]) <=
                                  (precision == GMM_PRECISION_FP64 ? 0.0 : 1e-6),
                              "%s: seed %d is not row %lld", what, k, (long long)ig[k]);
    free(centers);
    int diff = 0, first = -1;
    for (int k = 0; k < K; k++) {
        ck_assert_msg(ig[k] >= 0 && ig[k] < N, "%s: seed %d out of range", what, k);
        if (ig[k] != ic[k]) {
            diff++;
            if (first < 0) first = k;
        }
    }
    ck_assert_msg(memcmp(&rc, &rg, sizeof rc) == 0, "%s: rng states differ after seeding", what);
    printf("device k-means++, %s (%s): %d of %d seeds differ (first at %d)\n", what,
           gmm_precision_name(precision), diff, K, first);
    free(ic);
    free(ig);
    return diff;
}

START_TEST(test_kpp_synthetic)
{
    if (!tu_gpu_available()) return;
    int64_t N = 3001;
    int d = 12, K = 5;
    double *X = synthetic_blobs(N, d, K, 21);
    for (uint64_t seed = 1; seed <= 3; seed++)
        ck_assert_int_eq(compare_kpp(X, N, d, K, GMM_PRECISION_FP64, seed, "synthetic 3001 x 12, K = 5"), 0);
    ck_assert_int_eq(compare_kpp(X, N, d, 40, GMM_PRECISION_FP64, 5, "synthetic 3001 x 12, K = 40"), 0);
    /* float data: distances from the float copy, so rounding may move a near-tie */
    compare_kpp(X, N, d, K, GMM_PRECISION_FP32, 1, "synthetic 3001 x 12, K = 5");
    free(X);
}
END_TEST

START_TEST(test_kpp_mnist)
{
    if (!tu_gpu_available()) return;
    int64_t N;
    int d;
    double *X = mnist_first(5000, "k-means++ comparison", &N, &d);
    if (!X) return;
    int diff = compare_kpp(X, N, d, 10, GMM_PRECISION_FP64, 7, "MNIST first 5000, K = 10");
    ck_assert_msg(diff <= 1, "MNIST: %d seeds differ (bound 1)", diff);
    free(X);
}
END_TEST

static int count_label_differences(const int *a, const int *b, int64_t n)
{
    int diff = 0;
    for (int64_t i = 0; i < n; i++) diff += a[i] != b[i];
    return diff;
}

/* Whole fits on the CPU and the GPU from the same seed: the same labels. */
static void compare_fits(const double *X, int64_t N, int d, int K, int max_iter, const char *what)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = K;
    o.seed = 3;
    o.max_iter = max_iter;
    gmm_model mc = {0}, mg = {0};
    o.device = GMM_DEVICE_CPU;
    CHECK_OK(gmm_fit(X, N, d, &o, &mc));
    o.device = GMM_DEVICE_GPU;
    gmm_fit_scores fs = {0};
    CHECK_OK(gmm_fit_scored(X, N, d, &o, &mg, &fs));
    int *lc = malloc(sizeof(int) * N), *lg = malloc(sizeof(int) * N);
    double *llg = malloc(sizeof(double) * N);
    CHECK_OK(gmm_score_samples(&mc, X, N, GMM_DEVICE_CPU, NULL, NULL, lc));
    CHECK_OK(gmm_score_samples(&mg, X, N, GMM_DEVICE_CPU, NULL, NULL, lg));
    int diff = count_label_differences(lc, lg, N);
    /* what the GPU fit handed on is what scoring its model on the GPU gives */
    int *lgg = malloc(sizeof(int) * N);
    CHECK_OK(gmm_score_samples(&mg, X, N, GMM_DEVICE_GPU, llg, NULL, lgg));
    ck_assert_int_eq(count_label_differences(fs.labels, lgg, N), 0);
    double ll_err = tu_rel_error(fs.log_likelihood, llg, (size_t)N);
    printf("gmm_fit_scored on the GPU vs gmm_score_samples: log-likelihoods %.2e\n", ll_err);
    ck_assert_double_le(ll_err, 1e-12);
    free(llg);
    free(lgg);
    gmm_fit_scores_free(&fs);
    printf("whole fit, %s: cpu %d iterations lower bound %.12g; gpu %d iterations %.12g; "
           "%d of %lld labels differ\n",
           what, mc.n_iter, mc.lower_bound, mg.n_iter, mg.lower_bound, diff, (long long)N);
    ck_assert_int_eq(mc.n_iter, mg.n_iter);
    ck_assert_msg(tu_rel_error_1(mg.lower_bound, mc.lower_bound) < 1e-9, "lower bounds differ");
    ck_assert_int_eq(diff, 0);
    free(lc);
    free(lg);
    gmm_model_free(&mc);
    gmm_model_free(&mg);
}

START_TEST(test_fit_synthetic)
{
    if (!tu_gpu_available()) return;
    int64_t N = 3001;
    int d = 12, K = 5;
    double *X = synthetic_blobs(N, d, K, 11);
    compare_fits(X, N, d, K, 100, "synthetic 3001 x 12, K = 5");
    free(X);
}
END_TEST

START_TEST(test_fit_mnist)
{
    if (!tu_gpu_available()) return;
    int64_t N;
    int d;
    double *X = mnist_first(5000, "fit comparison", &N, &d);
    if (!X) return;
    compare_fits(X, N, d, 10, 10, "MNIST first 5000, K = 10, 10 iterations");
    free(X);
}
END_TEST

/* A float32/TF32 fit's handed-on scores are float64 scoring of its final model (the backend's
 * e_step_f64 on the fit's context): within 1e-9 of gmm_score_samples on the CPU, the same
 * labels, for the ways the context holds the data: float64 rows kept as a float32 copy (read
 * again from the host), image bytes kept as a float32 copy (recovered from it), bytes resident
 * as bytes (chunk_rows forced), bytes streamed from host memory (a small memory budget). */
static void check_single_fit_scores(gmm_precision precision, gmm_cov_type type)
{
    const int64_t N = 3000;
    const int d = 300, K = 5; /* d >= 224: the E-step product in column blocks */
    uint8_t *bytes = tu_synthetic_bytes(N, d, K, 41);
    double *X = malloc(sizeof(double) * N * d), *ll = malloc(sizeof(double) * N),
           *proba = malloc(sizeof(double) * N * K);
    int *labels = malloc(sizeof(int) * N);
    ck_assert(X && ll && proba && labels);
    for (int64_t i = 0; i < N * d; i++) X[i] = bytes[i] / 255.0;
    const char *ways[4] = {"float64 rows", "bytes (float32 copy)", "bytes resident",
                           "bytes streamed"};
    for (int way = 0; way < 4; way++) {
        gmm_options o;
        gmm_options_default(&o);
        o.n_components = K;
        o.covariance_type = type;
        o.precision = precision;
        o.device = GMM_DEVICE_GPU;
        o.seed = 5;
        o.max_iter = 15;
        o.reg_covar = 1e-4;
        if (way == 2) o.tuning.chunk_rows = 700;
        if (way == 3) o.tuning.memory_budget = 400 << 10; /* 900 KB of bytes */
        const gmm_data_view view = {.elem = way ? GMM_ELEM_U8 : GMM_ELEM_F64,
                                    .rows = way ? (const void *)bytes : (const void *)X,
                                    .n_rows = N, .dim = d, .first_row = 0, .n_total = N};
        gmm_model m = {0};
        gmm_fit_scores fs = {0};
        CHECK_OK(gmm_fit_view(&view, &o, &m, &fs));
        ck_assert_int_eq(fs.data_streamed, way == 3);
        CHECK_OK(gmm_score_samples(&m, X, N, GMM_DEVICE_CPU, ll, proba, labels));
        double mean = 0;
        for (int64_t i = 0; i < N; i++) mean += ll[i];
        mean /= (double)N;
        const double ll_err = tu_rel_error(fs.log_likelihood, ll, (size_t)N),
                     p_err = tu_rel_error(fs.proba, proba, (size_t)N * K),
                     mean_err = tu_rel_error_1(fs.mean_log_likelihood, mean);
        printf("%s %s, %s: handed-on scores against float64 scoring on the CPU: log p %.2e, "
               "proba %.2e, mean %.2e\n", gmm_precision_name(precision),
               gmm_cov_type_name(type), ways[way], ll_err, p_err, mean_err);
        ck_assert_msg(ll_err <= 1e-9 && p_err <= 1e-9 && mean_err <= 1e-9,
                      "%s: the scores are not float64 scoring of the model", ways[way]);
        ck_assert_int_eq(count_label_differences(fs.labels, labels, N), 0);
        gmm_fit_scores_free(&fs);
        gmm_model_free(&m);
    }
    free(bytes);
    free(X);
    free(ll);
    free(proba);
    free(labels);
}

START_TEST(test_tf32_full_scores_are_f64)
{
    if (!tu_gpu_available()) return;
    check_single_fit_scores(GMM_PRECISION_TF32, GMM_COV_FULL);
}
END_TEST

START_TEST(test_fp32_tied_scores_are_f64)
{
    if (!tu_gpu_available()) return;
    check_single_fit_scores(GMM_PRECISION_FP32, GMM_COV_TIED);
}
END_TEST

START_TEST(test_tf32_diag_scores_are_f64)
{
    if (!tu_gpu_available()) return;
    check_single_fit_scores(GMM_PRECISION_TF32, GMM_COV_DIAG);
}
END_TEST

static Suite *gpu_fit_suite(void)
{
    Suite *s = suite_create("gpu_fit");
    TCase *tc = tcase_create("gpu");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, test_kmeans_synthetic);
    tcase_add_test(tc, test_kmeans_empty_clusters);
    tcase_add_test(tc, test_kmeans_mnist);
    tcase_add_test(tc, test_kpp_synthetic);
    tcase_add_test(tc, test_kpp_mnist);
    tcase_add_test(tc, test_fit_synthetic);
    tcase_add_test(tc, test_fit_mnist);
    tcase_add_test(tc, test_tf32_full_scores_are_f64);
    tcase_add_test(tc, test_fp32_tied_scores_are_f64);
    tcase_add_test(tc, test_tf32_diag_scores_are_f64);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return 0;
    }
    return tu_run_suite(gpu_fit_suite());
}
