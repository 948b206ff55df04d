/* Check suite for libgmm's public interface (include/gmm/gmm.h, models/api/api.c, api_start.c,
 * api_data.c, api_space.c): one EM iteration from given initial parameters against the
 * hand-computed update, the data types and scale against float64, warm starts, model.bin through
 * the handle, the metrics, the error codes and sentences (a singular covariance names the
 * component and reg_covar), and the space "umap": three blobs found in the embedding, new points
 * placed with their blob, the space through model.bin (bytes kept as images, floats as values)
 * and its parameters refused out of range. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "include/gmm/gmm.h"
#include "models/io/model_io.h"
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

/* ---- space "umap" --------------------------------------------------------------------- */

enum { BLOB_DIM = 12, BLOBS = 3 };

/* n points: point i in blob i % 3, N(0, 1) around a centre 6 units out on axis (i % 3) (as
 * tests/test_umap.c's blob_points) */
static double *blob_points(int n, uint64_t seed)
{
    double *X = malloc(sizeof(double) * n * BLOB_DIM);
    for (int i = 0; i < n; i++)
        for (int c = 0; c < BLOB_DIM; c++)
            X[i * BLOB_DIM + c] = tu_rand_normal(&seed) + (c == i % BLOBS ? 6.0 : 0.0);
    return X;
}

/* wrong labels after naming each blob by its first point's component (-1: two blobs share one) */
static int wrong_blobs(const int32_t *labels, int n, const int32_t *name_of)
{
    int32_t name[BLOBS];
    for (int b = 0; b < BLOBS; b++) name[b] = name_of ? name_of[b] : labels[b];
    if (name[0] == name[1] || name[1] == name[2] || name[0] == name[2]) return -1;
    int wrong = 0;
    for (int i = 0; i < n; i++) wrong += labels[i] != name[i % BLOBS];
    return wrong;
}

static gmm_params *umap_params(void)
{
    gmm_params *p = new_params(BLOBS, "full");
    ck_assert_int_eq(gmm_params_set_string(p, "space", "umap"), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "n_init", 3), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "random_state", 1), 0);
    return p;
}

START_TEST(test_umap_space_finds_the_blobs)
{
    enum { N = 600, M = 90 };
    double *X = blob_points(N, 5), *Y = blob_points(M, 99);
    gmm_params *p = umap_params();
    gmm_mixture *m = NULL, *back = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &m), 0);
    ck_assert_str_eq(gmm_mixture_space(m), "umap");
    ck_assert_int_eq(gmm_mixture_dim(m), 10); /* embed_dims' default */
    ck_assert_int_eq(gmm_mixture_input_dim(m), BLOB_DIM);
    ck_assert_ptr_nonnull(gmm_mixture_embedding(m));
    /* the training points, placed again, and new points of the same blobs */
    int32_t train[N], fresh[M], again[M];
    double ll[M], ll_again[M];
    ck_assert_int_eq(gmm_mixture_score_samples(m, X, N, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, NULL,
                                               NULL, train), 0);
    ck_assert_int_eq(wrong_blobs(train, N, NULL), 0);
    ck_assert_int_eq(gmm_mixture_score_samples(m, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, ll,
                                               NULL, fresh), 0);
    ck_assert_int_eq(wrong_blobs(fresh, M, train), 0);
    /* score, bic and aic are the mixture's on the placed coordinates */
    double mean = 0, s, bic, aic;
    for (int i = 0; i < M; i++) mean += ll[i] / M;
    ck_assert_int_eq(gmm_mixture_score(m, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &s), 0);
    ck_assert_double_le(fabs(s - mean), 1e-9 * (1 + fabs(mean)));
    const int64_t k = gmm_mixture_n_parameters(m); /* 3 x (10 + 55) + 2 */
    ck_assert_int_eq(k, 3 * (10 + 55) + 2);
    ck_assert_int_eq(gmm_mixture_bic(m, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &bic), 0);
    ck_assert_int_eq(gmm_mixture_aic(m, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &aic), 0);
    ck_assert_double_le(fabs(bic - (-2 * M * s + k * log((double)M))), 1e-6 * fabs(bic));
    ck_assert_double_le(fabs(aic - (-2 * M * s + 2 * k)), 1e-6 * fabs(aic));
    /* transform gives the coordinates scored */
    double *coords = malloc(sizeof(double) * M * 10);
    ck_assert_int_eq(gmm_mixture_transform(m, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, coords), 0);
    for (int i = 0; i < M * 10; i++) ck_assert(isfinite(coords[i]));

    /* through model.bin: the same predictions, bit for bit */
    const char *path = tu_tmp_path("api_umap.bin");
    ck_assert_int_eq(gmm_mixture_save(m, path), 0);
    ck_assert_int_eq(gmm_mixture_load(path, &back), 0);
    ck_assert_str_eq(gmm_mixture_space(back), "umap");
    ck_assert_int_eq(gmm_mixture_input_dim(back), BLOB_DIM);
    /* a loaded model scores on "auto"; m was fitted on the CPU, and the CPU's and the GPU's
     * placements differ by rounding, so the comparison is on the CPU */
    ck_assert_int_eq(gmm_mixture_set_device(back, "cpu"), 0);
    ck_assert_int_eq(gmm_mixture_score_samples(back, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0,
                                               ll_again, NULL, again), 0);
    ck_assert_mem_eq(again, fresh, sizeof fresh);
    ck_assert_mem_eq(ll_again, ll, sizeof ll);
    if (tu_gpu_available()) { /* on the GPU: the same components, and the same bits twice */
        double ll_gpu[M], ll_gpu_again[M];
        ck_assert_int_eq(gmm_mixture_set_device(back, "gpu"), 0);
        ck_assert_int_eq(gmm_mixture_score_samples(back, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0,
                                                   ll_gpu, NULL, again), 0);
        ck_assert_int_eq(wrong_blobs(again, M, train), 0);
        ck_assert_int_eq(gmm_mixture_score_samples(back, Y, M, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0,
                                                   ll_gpu_again, NULL, NULL), 0);
        ck_assert_mem_eq(ll_gpu_again, ll_gpu, sizeof ll_gpu);
    }

    /* what a umap model refuses: data of the mixture's dimension, sampling */
    double S[10 * 2];
    ck_assert_int_eq(gmm_mixture_score_samples(m, coords, M, 10, GMM_DTYPE_FLOAT64, 1.0, NULL,
                                               NULL, fresh), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "12"), "%s", gmm_last_error());
    ck_assert_int_eq(gmm_mixture_sample(m, 2, 0, S, NULL), GMM_CODE_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(gmm_last_error(), "umap"), "%s", gmm_last_error());
    free(coords);
    gmm_mixture_free(m);
    gmm_mixture_free(back);
    gmm_params_free(p);
    free(X);
    free(Y);
}
END_TEST

/* Fits to bytes (scale 1/255: the space keeps the bytes, storage 0) and to floats (the space
 * keeps them as float32 values, storage 1); both through the file. */
START_TEST(test_umap_space_keeps_images_or_values)
{
    enum { N = 300 };
    double *X = blob_points(N, 11);
    uint8_t *bytes = malloc(N * BLOB_DIM);
    float *xf = malloc(sizeof(float) * N * BLOB_DIM);
    for (int i = 0; i < N * BLOB_DIM; i++) {
        const double v = 100 + 15 * X[i];
        bytes[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
        xf[i] = (float)X[i];
    }
    gmm_params *p = umap_params();
    ck_assert_int_eq(gmm_params_set_int(p, "embed_dims", 3), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "n_neighbors", 10), 0);
    ck_assert_int_eq(gmm_params_set_int(p, "n_epochs", 200), 0);
    gmm_mixture *a = NULL, *b = NULL, *a_back = NULL, *b_back = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, bytes, N, BLOB_DIM, GMM_DTYPE_UINT8, 1.0 / 255, &a), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, N, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &b), 0);
    ck_assert_int_eq(gmm_mixture_dim(a), 3);
    char pa[512], pb[512]; /* tu_tmp_path's buffer is its own */
    snprintf(pa, sizeof pa, "%s", tu_tmp_path("api_umap_images.bin"));
    snprintf(pb, sizeof pb, "%s", tu_tmp_path("api_umap_values.bin"));
    ck_assert_int_eq(gmm_mixture_save(a, pa), 0);
    ck_assert_int_eq(gmm_mixture_save(b, pb), 0);
    gmm_model ma = {0}, mb = {0};
    TU_CHECK_OK(gmm_model_load(pa, &ma));
    TU_CHECK_OK(gmm_model_load(pb, &mb));
    const gmm_umap_space *ua = gmm_space_umap(ma.space), *ub = gmm_space_umap(mb.space);
    ck_assert_ptr_nonnull(ua);
    ck_assert_ptr_nonnull(ub);
    ck_assert_int_eq(gmm_umap_space_storage(ua), GMM_UMAP_KEEPS_IMAGES);
    ck_assert_ptr_nonnull(ua->images);
    ck_assert_ptr_null(ua->values);
    ck_assert_mem_eq(ua->images, bytes, N * BLOB_DIM);
    ck_assert_int_eq(gmm_umap_space_storage(ub), GMM_UMAP_KEEPS_VALUES);
    ck_assert_ptr_null(ub->images);
    ck_assert_mem_eq(ub->values, xf, sizeof(float) * N * BLOB_DIM);
    ck_assert_int_eq(ua->n_neighbors, 10);
    ck_assert_int_eq(ub->n_epochs, 200);
    ck_assert_mem_eq(ub->embedding, gmm_mixture_embedding(b), sizeof(float) * N * 3);
    /* both models predict the same through the file, and find the blobs */
    ck_assert_int_eq(gmm_mixture_load(pa, &a_back), 0);
    ck_assert_int_eq(gmm_mixture_load(pb, &b_back), 0);
    int32_t la[N], la_back[N], lb[N], lb_back[N];
    ck_assert_int_eq(gmm_mixture_score_samples(a, bytes, N, BLOB_DIM, GMM_DTYPE_UINT8,
                                               1.0 / 255, NULL, NULL, la), 0);
    ck_assert_int_eq(gmm_mixture_score_samples(a_back, bytes, N, BLOB_DIM, GMM_DTYPE_UINT8,
                                               1.0 / 255, NULL, NULL, la_back), 0);
    ck_assert_int_eq(gmm_mixture_score_samples(b, xf, N, BLOB_DIM, GMM_DTYPE_FLOAT32, 1.0, NULL,
                                               NULL, lb), 0);
    ck_assert_int_eq(gmm_mixture_score_samples(b_back, X, N, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0,
                                               NULL, NULL, lb_back), 0);
    ck_assert_mem_eq(la, la_back, sizeof la);
    ck_assert_mem_eq(lb, lb_back, sizeof lb);
    ck_assert_int_eq(wrong_blobs(la, N, NULL), 0);
    ck_assert_int_eq(wrong_blobs(lb, N, NULL), 0);
    gmm_model_free(&ma);
    gmm_model_free(&mb);
    gmm_mixture_free(a);
    gmm_mixture_free(b);
    gmm_mixture_free(a_back);
    gmm_mixture_free(b_back);
    gmm_params_free(p);
    free(X);
    free(bytes);
    free(xf);
}
END_TEST

START_TEST(test_umap_parameters_refused)
{
    gmm_params *p = new_params(2, "full");
    ck_assert_int_eq(gmm_params_set_string(p, "space", "tangent"), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "pixels, umap"), "%s", gmm_last_error());
    ck_assert_int_eq(gmm_params_set_int(p, "n_neighbors", 1), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_int(p, "n_neighbors", 129), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_int(p, "embed_dims", 0), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_int(p, "embed_dims", 101), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_int(p, "n_epochs", -1), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_double(p, "min_dist", 2), GMM_CODE_ERR_ARG);
    ck_assert_msg(strstr(gmm_last_error(), "min_dist=2 must be in 0..1"), "%s", gmm_last_error());
    ck_assert_int_eq(gmm_params_set_double(p, "min_dist", -0.1), GMM_CODE_ERR_ARG);
    ck_assert_int_eq(gmm_params_set_double(p, "min_dist", 0.5), 0);
    ck_assert_int_eq(gmm_params_set_string(p, "space", "pixels"), 0);
    /* too few samples for the graph: the embedding's sentence */
    ck_assert_int_eq(gmm_params_set_string(p, "space", "umap"), 0);
    double *X = blob_points(12, 3);
    gmm_mixture *m = NULL;
    ck_assert_int_eq(gmm_mixture_fit(p, X, 12, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &m),
                     GMM_CODE_ERR_ARG);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(gmm_last_error(), "umap embedding: 12 images, 15 neighbours"), "%s",
                  gmm_last_error());
    /* transform needs a umap model */
    ck_assert_int_eq(gmm_params_set_string(p, "space", "pixels"), 0);
    ck_assert_int_eq(gmm_mixture_fit(p, X, 12, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, &m), 0);
    ck_assert_str_eq(gmm_mixture_space(m), "pixels");
    ck_assert_int_eq(gmm_mixture_input_dim(m), BLOB_DIM);
    ck_assert_ptr_null(gmm_mixture_embedding(m));
    double coords[12 * 10];
    ck_assert_int_eq(gmm_mixture_transform(m, X, 12, BLOB_DIM, GMM_DTYPE_FLOAT64, 1.0, coords),
                     GMM_CODE_ERR_ARG);
    gmm_mixture_free(m);
    gmm_params_free(p);
    free(X);
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
    tcase_add_test(tc, test_umap_space_finds_the_blobs);
    tcase_add_test(tc, test_umap_space_keeps_images_or_values);
    tcase_add_test(tc, test_umap_parameters_refused);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(api_suite()); }
