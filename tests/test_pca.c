/* Check suite for the symmetric eigensolver (linalg/eigen.h) and the PCA projection inside the
 * model (models/features/pca.h): eigenpairs of a matrix with a known spectrum, the projection of data
 * whose principal axes are known exactly, the map back, model.bin version 3 round trips with
 * identical predictions, mapped-back means that equal a pixel-space fit's, and the error cases.
 * The GPU halves are compared with the CPU when a GPU is present (skipped otherwise). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "bench/bench_gpu.h"
#include "kernels/blas_cpu.h"
#include "linalg/eigen.h"
#include "models/io/model_io.h"
#include "models/features/pca.h"
#include "models/core/em.h"
#include "models/core/pixel_means.h"
#include "models/core/score.h"
#include "tests/testutil.h"

/* A random orthogonal Q (dim x dim, rows orthonormal) by Gram-Schmidt on normal rows. */
static void random_orthogonal(double *Q, int dim, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < dim; i++) {
        double *q = Q + (size_t)i * dim;
        for (int j = 0; j < dim; j++) q[j] = tu_rand_normal(&state);
        for (int pass = 0; pass < 2; pass++)
            for (int k = 0; k < i; k++) {
                const double *p = Q + (size_t)k * dim;
                double dot = 0;
                for (int j = 0; j < dim; j++) dot += q[j] * p[j];
                for (int j = 0; j < dim; j++) q[j] -= dot * p[j];
            }
        double norm = 0;
        for (int j = 0; j < dim; j++) norm += q[j] * q[j];
        for (int j = 0; j < dim; j++) q[j] /= sqrt(norm);
    }
}

/* A = Q^T diag(lambda) Q: eigenvector i is row i of Q. */
static void known_spectrum(double *A, const double *Q, const double *lambda, int dim)
{
    for (int r = 0; r < dim; r++)
        for (int c = 0; c < dim; c++) {
            double s = 0;
            for (int k = 0; k < dim; k++) s += Q[(size_t)k * dim + r] * lambda[k] * Q[(size_t)k * dim + c];
            A[(size_t)r * dim + c] = s;
        }
}

/* values descending and equal to want, A v = lambda v, V V^T = I, each v = +-(row of Q). */
static void check_eigenpairs(const double *A, const double *Q, const double *want, int dim,
                             const double *values, const double *vectors)
{
    for (int i = 0; i < dim; i++) {
        ck_assert_msg(fabs(values[i] - want[i]) <= 1e-10 * fabs(want[0]),
                      "eigenvalue %d: %.17g, want %.17g", i, values[i], want[i]);
        if (i) ck_assert(values[i] <= values[i - 1]);
        const double *v = vectors + (size_t)i * dim, *q = Q + (size_t)i * dim;
        double res = 0, dot_q = 0;
        for (int r = 0; r < dim; r++) {
            double av = 0;
            for (int c = 0; c < dim; c++) av += A[(size_t)r * dim + c] * v[c];
            res += (av - values[i] * v[r]) * (av - values[i] * v[r]);
            dot_q += v[r] * q[r];
        }
        ck_assert_msg(sqrt(res) <= 1e-10 * fabs(want[0]), "||A v - l v|| = %g for %d", sqrt(res), i);
        ck_assert_msg(fabs(fabs(dot_q) - 1) <= 1e-9, "eigenvector %d is not +-Q row (%.12g)", i, dot_q);
        for (int j = 0; j <= i; j++) {
            double dot = 0;
            for (int c = 0; c < dim; c++) dot += v[c] * vectors[(size_t)j * dim + c];
            ck_assert_msg(fabs(dot - (i == j)) <= 1e-12, "V V^T[%d][%d] = %.17g", i, j, dot);
        }
    }
}

START_TEST(test_eigen_known_spectrum)
{
    const int dims[] = {1, 2, 7, 64};
    for (int t = 0; t < 4; t++) {
        int dim = dims[t];
        double *Q = malloc(sizeof(double) * dim * dim), *A = malloc(sizeof(double) * dim * dim);
        double *lambda = malloc(sizeof(double) * dim), *values = malloc(sizeof(double) * dim);
        double *vectors = malloc(sizeof(double) * dim * dim);
        random_orthogonal(Q, dim, 100 + (uint64_t)dim);
        for (int i = 0; i < dim; i++) lambda[i] = 10.0 / (1 + i) - (i == dim - 1 && dim > 2 ? 3 : 0);
        known_spectrum(A, Q, lambda, dim);
        double *A_copy = malloc(sizeof(double) * dim * dim);
        memcpy(A_copy, A, sizeof(double) * dim * dim);
        tu_poison(values, dim);
        tu_poison(vectors, (size_t)dim * dim);
        ck_assert_int_eq(eigen_sym_lapack(A, dim, values, vectors), GMM_OK);
        ck_assert_int_eq(memcmp(A, A_copy, sizeof(double) * dim * dim), 0); /* A untouched */
        check_eigenpairs(A, Q, lambda, dim, values, vectors);
        free(Q), free(A), free(A_copy), free(lambda), free(values), free(vectors);
    }
    double bad[4] = {1, NAN, NAN, 1}, v[2], w[4];
    ck_assert_int_eq(eigen_sym_lapack(bad, 2, v, w), GMM_ERR_NUMERIC);
}
END_TEST

START_TEST(test_eigen_gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const int dims[] = {1, 3, 50, 300};
    for (int t = 0; t < 4; t++) {
        int dim = dims[t];
        size_t m = (size_t)dim * dim;
        double *Q = malloc(sizeof(double) * m), *A = malloc(sizeof(double) * m);
        double *lambda = malloc(sizeof(double) * dim), *values = malloc(sizeof(double) * dim);
        double *vectors = malloc(sizeof(double) * m), *cpu_vectors = malloc(sizeof(double) * m);
        double *cpu_values = malloc(sizeof(double) * dim);
        random_orthogonal(Q, dim, 7 + (uint64_t)dim);
        for (int i = 0; i < dim; i++) lambda[i] = 5.0 / (1 + i) + 0.01;
        known_spectrum(A, Q, lambda, dim);
        double *d_A, *d_values, *d_vectors;
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_A, sizeof(double) * m), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_values, sizeof(double) * dim), GMM_OK);
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_vectors, sizeof(double) * m), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_A, A, sizeof(double) * m), GMM_OK);
        tu_poison(vectors, m);
        ck_assert_int_eq(bench_gpu_upload(d_vectors, vectors, sizeof(double) * m), GMM_OK);
        ck_assert_int_eq(eigen_sym_cusolver(d_A, dim, d_values, d_vectors, bench_gpu_resources()),
                         GMM_OK);
        ck_assert_int_eq(bench_gpu_download(values, d_values, sizeof(double) * dim), GMM_OK);
        ck_assert_int_eq(bench_gpu_download(vectors, d_vectors, sizeof(double) * m), GMM_OK);
        check_eigenpairs(A, Q, lambda, dim, values, vectors);
        /* the same signs as the CPU: the same axes on both devices */
        ck_assert_int_eq(eigen_sym_lapack(A, dim, cpu_values, cpu_vectors), GMM_OK);
        ck_assert_msg(tu_rel_error(vectors, cpu_vectors, m) < 1e-9, "GPU vs CPU vectors %g",
                      tu_rel_error(vectors, cpu_vectors, m));
        bench_gpu_free(d_A), bench_gpu_free(d_values), bench_gpu_free(d_vectors);
        free(Q), free(A), free(lambda), free(values), free(vectors), free(cpu_vectors),
            free(cpu_values);
    }
}
END_TEST

/* Data whose principal axes are known exactly: the columns of the 8 x 8 Sylvester Hadamard
 * matrix H (entries +-1) other than the first are centred and orthogonal, so X0 = H[:, 1..5]
 * diag(s) has covariance diag(s^2 * 8 / 7); rotated, X = X0 Q + mu has eigenvalues s^2 * 8 / 7
 * and axes the rows of Q (s descending), and projects onto +-s_a H[:, a + 1]. */
enum { HN = 8, HD = 5 };
static const double hs[HD] = {3.0, 2.0, 1.5, 1.0, 0.5};
static double hadamard(int i, int j) { return __builtin_popcount(i & j) & 1 ? -1.0 : 1.0; }

static void hadamard_data(double *X, double *Q, double *mu)
{
    random_orthogonal(Q, HD, 5);
    for (int j = 0; j < HD; j++) mu[j] = 0.1 * (j + 1);
    for (int i = 0; i < HN; i++)
        for (int c = 0; c < HD; c++) {
            double s = mu[c];
            for (int a = 0; a < HD; a++) s += hs[a] * hadamard(i, a + 1) * Q[(size_t)a * HD + c];
            X[(size_t)i * HD + c] = s;
        }
}

START_TEST(test_projection_direct)
{
    double X[HN * HD], Q[HD * HD], mu[HD];
    hadamard_data(X, Q, mu);
    const int D = 3;
    for (int whiten = 0; whiten < 2; whiten++) {
        gmm_projection *p = NULL;
        ck_assert_int_eq(gmm_projection_fit(X, HN, HD, D, whiten, NULL, &p), GMM_OK);
        ck_assert_int_eq(p->n_axes, D);
        ck_assert_int_eq(p->input_dim, HD);
        double total = 0;
        for (int a = 0; a < HD; a++) total += hs[a] * hs[a] * 8.0 / 7.0;
        ck_assert(fabs(p->total_variance - total) <= 1e-12 * total);
        for (int j = 0; j < HD; j++) ck_assert(fabs(p->mean[j] - mu[j]) <= 1e-14);
        double kept = 0;
        for (int a = 0; a < D; a++) {
            double want = hs[a] * hs[a] * 8.0 / 7.0;
            kept += want;
            ck_assert_msg(fabs(p->explained_variance[a] - want) <= 1e-12 * want,
                          "axis %d variance %.17g, want %.17g", a, p->explained_variance[a], want);
            double dot = 0;
            for (int c = 0; c < HD; c++) dot += p->components[a * HD + c] * Q[a * HD + c];
            ck_assert_msg(fabs(fabs(dot) - 1) <= 1e-12, "axis %d is not Q's row (%.15g)", a, dot);
            for (int b = 0; b <= a; b++) {
                double o = 0;
                for (int c = 0; c < HD; c++) o += p->components[a * HD + c] * p->components[b * HD + c];
                ck_assert(fabs(o - (a == b)) <= 1e-12);
            }
        }
        ck_assert(fabs(gmm_projection_explained_ratio(p) - kept / total) <= 1e-12);
        /* projected data: a direct loop, and the known values +-s_a H[i][a+1] (/ sqrt(var)) */
        double Z[HN * D];
        tu_poison(Z, HN * D);
        ck_assert_int_eq(gmm_projection_apply(p, X, HN, NULL, Z), GMM_OK);
        for (int i = 0; i < HN; i++)
            for (int a = 0; a < D; a++) {
                double direct = 0;
                for (int c = 0; c < HD; c++)
                    direct += (X[i * HD + c] - p->mean[c]) * p->components[a * HD + c];
                if (whiten) direct /= sqrt(p->explained_variance[a]);
                ck_assert_msg(fabs(Z[i * D + a] - direct) <= 1e-12, "Z[%d][%d] %.17g vs %.17g",
                              i, a, Z[i * D + a], direct);
                double known = hs[a] * hadamard(i, a + 1);
                if (whiten) known /= sqrt(hs[a] * hs[a] * 8.0 / 7.0);
                ck_assert(fabs(fabs(Z[i * D + a]) - fabs(known)) <= 1e-12);
            }
        /* back to pixels: the rank-3 reconstruction, the mean plus the kept axes */
        double back[HN * HD];
        ck_assert_int_eq(gmm_projection_inverse(p, Z, HN, back), GMM_OK);
        for (int i = 0; i < HN; i++)
            for (int c = 0; c < HD; c++) {
                double want = mu[c];
                for (int a = 0; a < D; a++) want += hs[a] * hadamard(i, a + 1) * Q[a * HD + c];
                ck_assert(fabs(back[i * HD + c] - want) <= 1e-12);
            }
        gmm_projection_free(p);
    }
    /* D = d: the inverse is exact */
    gmm_projection *p = NULL;
    ck_assert_int_eq(gmm_projection_fit(X, HN, HD, HD, 1, NULL, &p), GMM_OK);
    double Z[HN * HD], back[HN * HD];
    ck_assert_int_eq(gmm_projection_apply(p, X, HN, NULL, Z), GMM_OK);
    ck_assert_int_eq(gmm_projection_inverse(p, Z, HN, back), GMM_OK);
    ck_assert(tu_rel_error(back, X, HN * HD) <= 1e-13);
    gmm_projection_free(p);
}
END_TEST

START_TEST(test_projection_errors)
{
    double X[HN * HD], Q[HD * HD], mu[HD];
    hadamard_data(X, Q, mu);
    gmm_projection *p = (gmm_projection *)1;
    gmm_error_clear();
    ck_assert_int_eq(gmm_projection_fit(X, HN, HD, HD + 1, 0, NULL, &p), GMM_ERR_ARG);
    ck_assert_ptr_null(p);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "image dimension 5"));
    ck_assert_int_eq(gmm_projection_fit(X, HN, HD, 0, 0, NULL, &p), GMM_ERR_ARG);
    ck_assert_int_eq(gmm_projection_fit(X, 3, HD, 4, 0, NULL, &p), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "more axes than images"));
    /* whitening an axis without variance: 3 images span 2 axes */
    ck_assert_int_eq(gmm_projection_fit(X, 3, HD, 3, 1, NULL, &p), GMM_ERR_NUMERIC);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_NUMERIC), "no variance"));
    ck_assert_ptr_null(p);
    /* unwhitened, the same projection is fine */
    ck_assert_int_eq(gmm_projection_fit(X, 3, HD, 3, 0, NULL, &p), GMM_OK);
    gmm_projection_free(p);
}
END_TEST

/* Three well-separated blobs in 6 dimensions, living mostly in 3 of them. */
enum { BN = 600, BD = 6, BK = 3 };
static void blob_data(double *X, int *truth)
{
    uint64_t state = 99;
    double Q[BD * BD];
    random_orthogonal(Q, BD, 17);
    for (int i = 0; i < BN; i++) {
        int k = i % BK;
        truth[i] = k;
        double z[BD];
        for (int a = 0; a < BD; a++)
            z[a] = (a < 3 ? (a == k ? 10.0 : 0.0) + tu_rand_normal(&state) * (1.0 + 0.3 * a)
                          : 0.2 * tu_rand_normal(&state));
        for (int c = 0; c < BD; c++) {
            double s = 0.5;
            for (int a = 0; a < BD; a++) s += z[a] * Q[a * BD + c];
            X[i * BD + c] = s;
        }
    }
}

static void fit_options(gmm_options *opt)
{
    gmm_options_default(opt);
    opt->n_components = BK;
    opt->device = GMM_DEVICE_CPU;
    opt->seed = 4;
    opt->tol = 1e-10;
    opt->max_iter = 300;
}

/* Fit on the projection, save (version 3), load: the projection is the same, and predictions
 * of the loaded model on the pixels equal those of the fitted one. */
START_TEST(test_save_load_predict)
{
    double X[BN * BD], Z[BN * 3];
    int truth[BN];
    blob_data(X, truth);
    for (int whiten = 0; whiten < 2; whiten++) {
        gmm_projection *p = NULL;
        ck_assert_int_eq(gmm_projection_fit(X, BN, BD, 3, whiten, NULL, &p), GMM_OK);
        ck_assert_int_eq(gmm_projection_apply(p, X, BN, NULL, Z), GMM_OK);
        gmm_options opt;
        fit_options(&opt);
        gmm_model a = {0}, b = {0};
        ck_assert_int_eq(gmm_fit(Z, BN, 3, &opt, &a), GMM_OK);
        ck_assert_int_eq(gmm_feature_space_from_pca(p, &a.space), GMM_OK);
        a.image_rows = 2, a.image_cols = 3; /* the input's shape, not the fit's */
        int labels_a[BN], labels_b[BN];
        ck_assert_int_eq(gmm_score_samples(&a, Z, BN, GMM_DEVICE_CPU, NULL, NULL, labels_a), GMM_OK);
        const char *path = tu_tmp_path("pca.bin");
        ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
        ck_assert_int_eq(gmm_model_load(path, &b), GMM_OK);
        ck_assert_ptr_nonnull(gmm_space_pca(b.space));
        ck_assert_int_eq(gmm_space_pca(b.space)->input_dim, BD);
        ck_assert_int_eq(gmm_space_pca(b.space)->n_axes, 3);
        ck_assert_int_eq(gmm_space_pca(b.space)->whiten, whiten);
        ck_assert(gmm_space_pca(b.space)->total_variance == p->total_variance);
        ck_assert_int_eq(memcmp(gmm_space_pca(b.space)->mean, p->mean, sizeof(double) * BD), 0);
        ck_assert_int_eq(memcmp(gmm_space_pca(b.space)->components, p->components, sizeof(double) * 3 * BD), 0);
        ck_assert_int_eq(memcmp(gmm_space_pca(b.space)->explained_variance, p->explained_variance,
                                sizeof(double) * 3), 0);
        ck_assert_int_eq(gmm_model_input_dim(&b), BD);
        double Zb[BN * 3];
        ck_assert_int_eq(gmm_projection_apply(gmm_space_pca(b.space), X, BN, NULL, Zb), GMM_OK);
        ck_assert_int_eq(gmm_score_samples(&b, Zb, BN, GMM_DEVICE_CPU, NULL, NULL, labels_b), GMM_OK);
        ck_assert_int_eq(memcmp(labels_a, labels_b, sizeof labels_a), 0);
        /* the blobs are found: every component holds one blob */
        int agree = 0;
        for (int i = 0; i < BN; i++) agree += labels_a[i] == labels_a[truth[i]];
        ck_assert_int_eq(agree, BN);
        /* a copy keeps its own projection */
        gmm_model c = {0};
        ck_assert_int_eq(gmm_model_copy(&c, &b), GMM_OK);
        ck_assert_ptr_nonnull(gmm_space_pca(c.space));
        ck_assert_ptr_ne(gmm_space_pca(c.space), gmm_space_pca(b.space));
        ck_assert_int_eq(memcmp(gmm_space_pca(c.space)->components, p->components, sizeof(double) * 3 * BD), 0);
        gmm_model_free(&c);
        gmm_model_free(&a); /* frees p */
        gmm_model_free(&b);
    }
}
END_TEST

static void put_f64(unsigned char *q, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, 8);
    for (int i = 0; i < 8; i++) q[i] = (unsigned char)(bits >> (8 * i));
}

/* A loaded projection is checked: axes that are not orthonormal, a negative variance or an
 * image shape of the fit's dimension instead of the input's are format errors, even under a
 * valid CRC; a model saved with an inconsistent projection is refused. */
START_TEST(test_projection_checked_on_load)
{
    double X[BN * BD], Z[BN * 2];
    int truth[BN];
    blob_data(X, truth);
    gmm_projection *p = NULL;
    ck_assert_int_eq(gmm_projection_fit(X, BN, BD, 2, 0, NULL, &p), GMM_OK);
    ck_assert_int_eq(gmm_projection_apply(p, X, BN, NULL, Z), GMM_OK);
    gmm_options opt;
    fit_options(&opt);
    opt.n_components = 2;
    gmm_model a = {0}, b = {0};
    ck_assert_int_eq(gmm_fit(Z, BN, 2, &opt, &a), GMM_OK);
    ck_assert_int_eq(gmm_feature_space_from_pca(p, &a.space), GMM_OK);
    const char *path = tu_tmp_path("pca_bad.bin");
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char buf[8192];
    size_t size = fread(buf, 1, sizeof buf, f);
    fclose(f);
    ck_assert_int_lt(size, sizeof buf);
    /* the arrays end with mean[6], components[2 x 6], explained variance[2], then the CRC */
    const size_t off_var = size - 4 - 8 * 2, off_comp = off_var - 8 * 12;
    struct {
        size_t offset;
        double value;
        const char *word;
    } cases[] = {
        {off_comp, 2.0, "orthonormal"},
        {off_comp + 8 * 6, p->components[0], "orthonormal"},
        {off_var, -1.0, "variance"},
        {off_comp, NAN, "projection components"},
    };
    for (int t = 0; t < 4; t++) {
        unsigned char edit[8192];
        memcpy(edit, buf, size);
        put_f64(edit + cases[t].offset, cases[t].value);
        uint32_t crc = (uint32_t)crc32(crc32(0L, Z_NULL, 0), edit, (uInt)(size - 4));
        for (int i = 0; i < 4; i++) edit[size - 4 + i] = (unsigned char)(crc >> (8 * i));
        const char *bad = tu_tmp_path("pca_edit.bin");
        f = fopen(bad, "wb");
        ck_assert_int_eq(fwrite(edit, 1, size, f), size);
        fclose(f);
        gmm_error_clear();
        gmm_status st = gmm_model_load(bad, &b);
        ck_assert_int_eq(st, GMM_ERR_FORMAT);
        ck_assert_msg(strstr(gmm_error_message(st), cases[t].word), "'%s' lacks '%s'",
                      gmm_error_message(st), cases[t].word);
        ck_assert_ptr_null(gmm_space_pca(b.space));
    }
    /* image shape: rows x cols must be the input dimension (6), not the fit's (2) */
    a.image_rows = 1, a.image_cols = 2;
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_ERR_ARG);
    a.image_rows = 2, a.image_cols = 3;
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
    /* a projection whose axes are not the model's dimension */
    p->n_axes = 1;
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_ERR_ARG);
    p->n_axes = 2;
    gmm_model_free(&a);
}
END_TEST

/* With D = d (no whitening) the projection is a rotation and a shift, which the fit (k-means
 * seeding, EM with a full covariance and reg_covar * I) does not see: the means mapped back to
 * pixel space are the pixel-space fit's means, and the means drawn are in pixel space. */
START_TEST(test_mapped_back_means)
{
    double X[BN * BD], Z[BN * BD];
    int truth[BN];
    blob_data(X, truth);
    gmm_projection *p = NULL;
    ck_assert_int_eq(gmm_projection_fit(X, BN, BD, BD, 0, NULL, &p), GMM_OK);
    ck_assert_int_eq(gmm_projection_apply(p, X, BN, NULL, Z), GMM_OK);
    gmm_options opt;
    fit_options(&opt);
    gmm_model pixel = {0}, projected = {0};
    ck_assert_int_eq(gmm_fit(X, BN, BD, &opt, &pixel), GMM_OK);
    ck_assert_int_eq(gmm_fit(Z, BN, BD, &opt, &projected), GMM_OK);
    ck_assert_int_eq(gmm_feature_space_from_pca(p, &projected.space), GMM_OK);
    double back[BK * BD];
    tu_poison(back, BK * BD);
    ck_assert_int_eq(gmm_model_pixel_means(&projected, back), GMM_OK);
    double err = tu_rel_error(back, pixel.means, BK * BD);
    ck_assert_msg(err <= 1e-8, "mapped-back means differ from the pixel fit's by %g", err);
    ck_assert(fabs(projected.lower_bound - pixel.lower_bound) <= 1e-9 * fabs(pixel.lower_bound));
    /* without a projection the pixel means are the means */
    ck_assert_int_eq(gmm_model_pixel_means(&pixel, back), GMM_OK);
    ck_assert_int_eq(memcmp(back, pixel.means, sizeof back), 0);
    gmm_model_free(&pixel);
    gmm_model_free(&projected);
}
END_TEST

/* The GPU projection (covariance_cuda, cuSOLVER syevd, cuBLAS GEMM) equals the CPU's. */
START_TEST(test_projection_gpu_matches_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    double X[BN * BD], Zc[BN * 4], Zg[BN * 4];
    int truth[BN];
    blob_data(X, truth);
    gmm_projection *pc = NULL, *pg = NULL;
    gmm_gpu *gpu = bench_gpu_resources();
    ck_assert_int_eq(gmm_projection_fit(X, BN, BD, 4, 1, NULL, &pc), GMM_OK);
    ck_assert_int_eq(gmm_projection_fit(X, BN, BD, 4, 1, gpu, &pg), GMM_OK);
    ck_assert(tu_rel_error(pg->explained_variance, pc->explained_variance, 4) < 1e-10);
    ck_assert(tu_rel_error(pg->components, pc->components, 4 * BD) < 1e-9);
    ck_assert_int_eq(gmm_projection_apply(pc, X, BN, NULL, Zc), GMM_OK);
    tu_poison(Zg, BN * 4);
    ck_assert_int_eq(gmm_projection_apply(pg, X, BN, gpu, Zg), GMM_OK);
    ck_assert(tu_rel_error(Zg, Zc, BN * 4) < 1e-9);
    gmm_projection_free(pc);
    gmm_projection_free(pg);
}
END_TEST

static Suite *pca_suite(void)
{
    Suite *s = suite_create("pca");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_eigen_known_spectrum);
    tcase_add_test(tc, test_projection_direct);
    tcase_add_test(tc, test_projection_errors);
    tcase_add_test(tc, test_save_load_predict);
    tcase_add_test(tc, test_projection_checked_on_load);
    tcase_add_test(tc, test_mapped_back_means);
    suite_add_tcase(s, tc);
    TCase *gpu = tcase_create("gpu");
    tcase_set_timeout(gpu, 120);
    tcase_add_test(gpu, test_eigen_gpu_matches_cpu);
    tcase_add_test(gpu, test_projection_gpu_matches_cpu);
    suite_add_tcase(s, gpu);
    return s;
}

int main(void) { return tu_run_suite(pca_suite()); }
