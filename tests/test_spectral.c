/* Check suite for the Lanczos eigensolver (linalg/lanczos.h) and the spectral embedding
 * (models/features/spectral.h): graphs of known spectrum (a ring: cos(2 pi j / n), each twice; two
 * disconnected cliques: 1 twice, then -1 / (m - 1)), a kNN graph against scipy's eigsh
 * (eigenvalues to 1e-9, eigenvectors inside the reference subspace to 1e-7), the GPU against
 * the CPU on a GPU, and the embedding: the eigenvector equation u = D^-1 A u / theta of every
 * kept coordinate, the sign rule, and the Nyström extension of training points. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/knn.h"
#include "kernels/knn_graph.h"
#include "linalg/lanczos.h"
#include "models/features/spectral.h"
#include "models/fit/spectral_init.h"
#include "models/core/em.h"
#include "models/core/pixel_means.h"
#include "models/core/score.h"
#include "tests/testutil.h"

/* A CSR matrix built from dense rows (for the small known graphs). */
typedef struct {
    int64_t *row_ptr;
    int32_t *col;
    double *val;
    csr_matrix m;
} owned_csr;

static void csr_from_dense(const double *A, int n, owned_csr *o)
{
    o->row_ptr = malloc(sizeof(int64_t) * (n + 1));
    o->col = malloc(sizeof(int32_t) * n * n);
    o->val = malloc(sizeof(double) * n * n);
    int64_t nnz = 0;
    for (int i = 0; i < n; i++) {
        o->row_ptr[i] = nnz;
        for (int j = 0; j < n; j++)
            if (A[i * n + j] != 0) {
                o->col[nnz] = j;
                o->val[nnz++] = A[i * n + j];
            }
    }
    o->row_ptr[n] = nnz;
    o->m = (csr_matrix){n, o->row_ptr, o->col, o->val};
}

static void csr_free(owned_csr *o)
{
    free(o->row_ptr);
    free(o->col);
    free(o->val);
}

/* max over the k returned pairs of ||A v - lambda v|| */
static double worst_residual(const double *A, int n, int k, const double *w, const double *V)
{
    double worst = 0;
    for (int c = 0; c < k; c++) {
        double r2 = 0;
        for (int i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < n; j++) s += A[i * n + j] * V[j * k + c];
            r2 += (s - w[c] * V[i * k + c]) * (s - w[c] * V[i * k + c]);
        }
        if (sqrt(r2) > worst) worst = sqrt(r2);
    }
    return worst;
}

static void run_on_both(const csr_matrix *m, int k, const lanczos_options *o, double *w, double *V,
                        lanczos_report *rep)
{
    TU_CHECK_OK(lanczos_largest(m, k, o, NULL, w, V, rep));
    if (!tu_gpu_available()) return;
    gmm_gpu *gpu = NULL;
    TU_CHECK_OK(gmm_gpu_create(&gpu));
    double *wg = malloc(sizeof(double) * k), *Vg = malloc(sizeof(double) * m->n * k);
    lanczos_report rg;
    TU_CHECK_OK(lanczos_largest(m, k, o, gpu, wg, Vg, &rg));
    for (int c = 0; c < k; c++) ck_assert_double_le(fabs(wg[c] - w[c]), 1e-10);
    ck_assert_int_eq(rg.converged, rep->converged);
    free(wg);
    free(Vg);
    gmm_gpu_destroy(gpu);
}

START_TEST(ring_spectrum)
{
    enum { N = 40, K = 5 };
    double *A = calloc(N * N, sizeof(double));
    for (int i = 0; i < N; i++) A[i * N + (i + 1) % N] = A[i * N + (i + N - 1) % N] = 0.5;
    owned_csr o;
    csr_from_dense(A, N, &o);
    double w[K], V[N * K];
    lanczos_report rep;
    run_on_both(&o.m, K, &(lanczos_options){.seed = 1}, w, V, &rep);
    const double want[K] = {1, cos(2 * M_PI / N), cos(2 * M_PI / N), cos(4 * M_PI / N),
                            cos(4 * M_PI / N)};
    for (int c = 0; c < K; c++)
        ck_assert_msg(fabs(w[c] - want[c]) < 1e-10, "eigenvalue %d: %.15f, want %.15f", c, w[c],
                      want[c]);
    ck_assert_int_eq(rep.converged, 1);
    ck_assert_int_ge(rep.restarts, 1); /* the second copies come from a restart */
    ck_assert_double_le(worst_residual(A, N, K, w, V), 1e-9);
    csr_free(&o);
    free(A);
}
END_TEST

START_TEST(two_cliques)
{
    enum { M1 = 6, M2 = 9, N = M1 + M2, K = 4 };
    double *A = calloc(N * N, sizeof(double));
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            const int same = (i < M1) == (j < M1);
            if (i != j && same) A[i * N + j] = 1.0 / ((i < M1 ? M1 : M2) - 1); /* S of a clique */
        }
    owned_csr o;
    csr_from_dense(A, N, &o);
    double w[K], V[N * K];
    lanczos_report rep;
    run_on_both(&o.m, K, &(lanczos_options){.seed = 5}, w, V, &rep);
    const double want[K] = {1, 1, -1.0 / (M2 - 1), -1.0 / (M2 - 1)};
    for (int c = 0; c < K; c++)
        ck_assert_msg(fabs(w[c] - want[c]) < 1e-10, "eigenvalue %d: %.15f, want %.15f", c, w[c],
                      want[c]);
    ck_assert_double_le(worst_residual(A, N, K, w, V), 1e-9);
    csr_free(&o);
    free(A);
    /* k must be below n */
    ck_assert_int_eq(lanczos_largest(&o.m, 0, NULL, NULL, w, V, &rep), GMM_ERR_ARG);
}
END_TEST

/* Three blobs of points in 6-D, their k = 8 graph normalised. */
static void blob_graph(int n, knn_graph *g, float **points)
{
    enum { DIM = 6, K = 8 };
    float *X = malloc(sizeof(float) * n * DIM);
    uint64_t s = 77;
    for (int i = 0; i < n; i++)
        for (int c = 0; c < DIM; c++)
            X[i * DIM + c] = (float)(tu_rand_normal(&s) + (c == i % 3 ? 4.0 : 0.0));
    int32_t *nn = malloc(sizeof(int32_t) * n * K);
    float *dist = malloc(sizeof(float) * n * K);
    TU_CHECK_OK(knn_cpu(X, n, X, n, DIM, K, nn, dist));
    TU_CHECK_OK(knn_graph_build(nn, n, K, g));
    free(nn);
    free(dist);
    if (points) *points = X;
    else free(X);
}

START_TEST(knn_graph_against_scipy)
{
    enum { N = 240, K = 6 };
    knn_graph g;
    blob_graph(N, &g, NULL);
    knn_graph_normalise(&g);
    const char *path = tu_tmp_path("graph.txt");
    FILE *f = fopen(path, "w");
    fprintf(f, "%d %d\n", N, K);
    for (int i = 0; i < N; i++)
        for (int64_t p = g.row_ptr[i]; p < g.row_ptr[i + 1]; p++)
            fprintf(f, "%d %d %.17g\n", i, g.col[p], g.val[p]);
    fclose(f);
    char *out = NULL, script[4096];
    ck_assert_msg(realpath("tests/spectral_reference.py", script), "run from the source root");
    int rc = tu_sh(&out, "for p in python3 /usr/bin/python3; do $p -c 'import scipy' 2>/dev/null "
                         "&& exec $p '%s' graph.txt; done; echo no python3 with scipy; exit 1",
                   script);
    ck_assert_msg(rc == 0, "the scipy reference failed (CI installs python3-scipy): %s", out);
    double ref_w[K], *ref_V = malloc(sizeof(double) * N * K);
    char *p = out;
    for (int c = 0; c < K; c++) ref_w[c] = strtod(p, &p);
    for (int q = 0; q < N * K; q++) ref_V[q] = strtod(p, &p);
    free(out);

    double w[K], V[N * K];
    lanczos_report rep;
    const csr_matrix m = {g.n, g.row_ptr, g.col, g.val};
    run_on_both(&m, K, &(lanczos_options){.seed = 2}, w, V, &rep);
    for (int c = 0; c < K; c++)
        ck_assert_msg(fabs(w[c] - ref_w[c]) < 1e-9, "eigenvalue %d: %.15f, scipy %.15f", c, w[c],
                      ref_w[c]);
    /* each vector lies in the reference subspace: ||v - Q Q^T v|| small */
    for (int c = 0; c < K; c++) {
        double proj[K] = {0}, r2 = 0;
        for (int j = 0; j < K; j++)
            for (int i = 0; i < N; i++) proj[j] += ref_V[i * K + j] * V[i * K + c];
        for (int i = 0; i < N; i++) {
            double v = V[i * K + c];
            for (int j = 0; j < K; j++) v -= ref_V[i * K + j] * proj[j];
            r2 += v * v;
        }
        ck_assert_msg(sqrt(r2) < 1e-7, "eigenvector %d leaves scipy's subspace by %g", c, sqrt(r2));
    }
    free(ref_V);
    knn_graph_free(&g);
}
END_TEST

START_TEST(embedding_equation_and_extension)
{
    enum { N = 300, DIM = 6, D = 4 };
    float *X;
    knn_graph g;
    blob_graph(N, &g, &X);
    gmm_spectral e;
    const gmm_spectral_options o = {.n_neighbors = 8, .n_dims = D, .seed = 3};
    TU_CHECK_OK(gmm_spectral_embed(X, N, DIM, &o, NULL, &e));
    ck_assert_int_eq(e.n_dims, D);
    ck_assert_int_eq(e.graph_components, g.n_components);
    ck_assert_int_eq(e.lanczos.converged, 1);
    for (int c = 0; c < D; c++) {
        ck_assert_double_lt(e.eigenvalues[c], 1.0);
        if (c) ck_assert_double_le(e.eigenvalues[c], e.eigenvalues[c - 1]);
        /* u_i = sum_j A_ij u_j / (d_i theta); the largest |u_i| is positive */
        double worst = 0, best = 0, best_val = 0;
        for (int i = 0; i < N; i++) {
            double s = 0;
            for (int64_t p = g.row_ptr[i]; p < g.row_ptr[i + 1]; p++)
                s += g.val[p] * e.embedding[g.col[p] * D + c];
            s /= g.degree[i] * e.eigenvalues[c];
            const double u = e.embedding[i * D + c];
            if (fabs(s - u) > worst) worst = fabs(s - u);
            if (fabs(u) > best) {
                best = fabs(u);
                best_val = u;
            }
            ck_assert_double_le(fabs(g.degree[i] - e.degrees[i]), 0);
        }
        ck_assert_msg(worst < 1e-9 * best, "coordinate %d: eigenvector equation off by %g", c, worst);
        ck_assert_double_gt(best_val, 0);
    }
    /* the Nyström extension of training points: the mean over their 8 nearest (themselves
     * included) over theta, computed here directly */
    double ext[5 * D];
    TU_CHECK_OK(gmm_spectral_extend(&e, X, DIM, X, 5, NULL, ext));
    int32_t nn[5 * 8];
    float dist[5 * 8];
    TU_CHECK_OK(knn_cpu(X, 5, X, N, DIM, 8, nn, dist));
    for (int q = 0; q < 5; q++)
        for (int c = 0; c < D; c++) {
            double s = 0;
            for (int j = 0; j < 8; j++) s += e.embedding[nn[q * 8 + j] * D + c];
            ck_assert_double_le(fabs(ext[q * D + c] - s / 8 / e.eigenvalues[c]), 1e-15);
        }
    /* bad arguments */
    gmm_spectral bad;
    ck_assert_int_eq(gmm_spectral_embed(X, N, DIM, &(gmm_spectral_options){.n_dims = N}, NULL, &bad),
                     GMM_ERR_ARG);
    ck_assert_int_eq(gmm_spectral_embed(X, N, DIM, &(gmm_spectral_options){.n_neighbors = 1},
                                        NULL, &bad), GMM_ERR_ARG);
    gmm_spectral_free(&e);
    knn_graph_free(&g);
    free(X);
}
END_TEST

/* A mixture fitted in the embedding of three blobs, with its spectral space: the pixel means are
 * the responsibility-weighted means of the images, the typical images are labelled k and in
 * descending log-likelihood; init=spectral recovers the blobs in a pixel-space fit. */
START_TEST(model_in_spectral_space)
{
    enum { N = 300, DIM = 6, D = 3, K = 3 };
    float *X;
    knn_graph g;
    blob_graph(N, &g, &X);
    knn_graph_free(&g);
    gmm_spectral e;
    TU_CHECK_OK(gmm_spectral_embed(X, N, DIM, &(gmm_spectral_options){.n_neighbors = 8, .n_dims = D},
                                   NULL, &e));
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = K;
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    gmm_fit_scores sc = {0};
    TU_CHECK_OK(gmm_fit_scored(e.embedding, N, D, &o, &m, &sc));
    /* the "images": bytes made from the points, so that the means can be checked */
    uint8_t *bytes = malloc(N * DIM);
    for (int i = 0; i < N * DIM; i++) {
        double v = 128 + 20 * X[i];
        bytes[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
    }
    gmm_spectral_space *spectral = NULL;
    TU_CHECK_OK(gmm_spectral_space_from(&e, bytes, DIM, &spectral));
    TU_CHECK_OK(gmm_feature_space_from_spectral(spectral, &m.space));
    m.image_rows = 2;
    m.image_cols = 3;
    double means[K * DIM];
    TU_CHECK_OK(gmm_training_pixel_means(&m, means));
    for (int k = 0; k < K; k++)
        for (int j = 0; j < DIM; j++) {
            double s = 0, w = 0;
            for (int i = 0; i < N; i++) {
                s += sc.proba[i * K + k] * bytes[i * DIM + j] / 255.0;
                w += sc.proba[i * K + k];
            }
            ck_assert_double_le(fabs(means[k * DIM + j] - s / w), 1e-9);
        }
    int64_t typ[K * 4];
    TU_CHECK_OK(gmm_training_typical(&m, 4, typ));
    for (int k = 0; k < K; k++)
        for (int t = 0; t < 4; t++) {
            const int64_t i = typ[k * 4 + t];
            ck_assert_int_ge(i, 0);
            ck_assert_int_eq(sc.labels[i], k);
            if (t) ck_assert_double_le(sc.log_likelihood[i], sc.log_likelihood[typ[k * 4 + t - 1]]);
        }
    gmm_fit_scores_free(&sc);
    gmm_model_free(&m);
    gmm_spectral_free(&e);
    free(bytes);

    /* init=spectral on the points themselves: the three blobs found (labels up to names) */
    double *Xd = malloc(sizeof(double) * N * DIM);
    for (int i = 0; i < N * DIM; i++) Xd[i] = X[i];
    o.init = GMM_INIT_SPECTRAL;
    gmm_options_plug_fitted_init(&o);
    o.spectral_dims = D;
    o.knn_neighbors = 8;
    TU_CHECK_OK(gmm_fit_scored(Xd, N, DIM, &o, &m, &sc));
    ck_assert_int_eq(m.init, GMM_INIT_SPECTRAL);
    int map[K] = {-1, -1, -1}, wrong = 0;
    for (int i = 0; i < N; i++) {
        if (map[i % 3] < 0) map[i % 3] = sc.labels[i];
        wrong += sc.labels[i] != map[i % 3];
    }
    ck_assert_int_le(wrong, 3);
    ck_assert_int_ne(map[0], map[1]);
    ck_assert_int_ne(map[1], map[2]);
    ck_assert_int_ne(map[0], map[2]);
    ck_assert_str_eq(gmm_init_name(GMM_INIT_SPECTRAL), "spectral");
    o.spectral_dims = N; /* too many dimensions for the samples */
    gmm_model bad = {0};
    ck_assert_int_eq(gmm_fit(Xd, N, DIM, &o, &bad), GMM_ERR_ARG);
    gmm_fit_scores_free(&sc);
    gmm_model_free(&m);
    free(Xd);
    free(X);
}
END_TEST

static Suite *spectral_suite(void)
{
    Suite *s = suite_create("spectral");
    TCase *tc = tcase_create("spectral");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, ring_spectrum);
    tcase_add_test(tc, two_cliques);
    tcase_add_test(tc, knn_graph_against_scipy);
    tcase_add_test(tc, embedding_equation_and_extension);
    tcase_add_test(tc, model_in_spectral_space);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(spectral_suite()); }
