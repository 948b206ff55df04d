/* Check suite for the CUDA backend's compact and streamed data (models/backend/cuda/cuda_chunks.cu): a fit
 * on an image-byte (U8) view on the GPU against the CPU backend on the same view and against
 * the GPU on the same values as a float64 view; chunked conversion (a small chunk_rows); and a
 * memory budget smaller than the data, which makes the context stream the rows from host memory
 * and must give the in-memory fit to 1e-12. Every comparison prints what it compares. Skips
 * without a GPU (CUDA is touched only inside the tests, each in Check's forked child). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/dataset.h"
#include "models/backend/backend.h"
#include "models/data_view.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "tests/testutil.h"

#define CHECK_OK TU_CHECK_OK

static double *bytes_to_double(const uint8_t *b, size_t n)
{
    double *x = malloc(sizeof(double) * n);
    ck_assert_ptr_nonnull(x);
    for (size_t i = 0; i < n; i++) x[i] = b[i] / 255.0;
    return x;
}

static gmm_data_view view_of(gmm_elem elem, const void *rows, int64_t N, int d)
{
    gmm_data_view v = {elem, rows, N, d, 0, N};
    return v;
}

typedef struct {
    gmm_model model;
    gmm_fit_scores scores;
} fit_result;

/* A fit of `iters` EM iterations (tol 0) from k-means, seed 3. */
static void fit(const gmm_data_view *v, gmm_device device, gmm_cov_type type,
                gmm_precision precision, int K, int iters, const gmm_tuning *tuning,
                fit_result *out)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = K;
    o.covariance_type = type;
    o.precision = precision;
    o.device = device;
    o.max_iter = iters;
    o.tol = 0;
    o.seed = 3;
    o.reg_covar = 1e-4;
    if (tuning) o.tuning = *tuning;
    memset(out, 0, sizeof *out);
    CHECK_OK(gmm_fit_view(v, &o, &out->model, &out->scores));
}

static void free_result(fit_result *r)
{
    gmm_model_free(&r->model);
    gmm_fit_scores_free(&r->scores);
}

static int label_differences(const fit_result *a, const fit_result *b)
{
    int n = 0;
    for (int64_t i = 0; i < a->scores.n_samples; i++) n += a->scores.labels[i] != b->scores.labels[i];
    return n;
}

/* Prints and asserts: lower bounds within tol_lb (relative), means within tol_means (relative,
 * over the whole matrix), the same labels. */
static void compare(const char *what, const fit_result *a, const fit_result *b, double tol_lb,
                    double tol_means)
{
    const gmm_model *ma = &a->model, *mb = &b->model;
    double lb = tu_rel_error_1(ma->lower_bound, mb->lower_bound);
    double mu = tu_rel_error(ma->means, mb->means, (size_t)ma->n_components * ma->dim);
    int diff = label_differences(a, b);
    printf("%s: lower bounds %.15g vs %.15g (rel %.2e, tol %.0e), means rel %.2e (tol %.0e), "
           "%d of %lld labels differ, iterations %d vs %d\n",
           what, ma->lower_bound, mb->lower_bound, lb, tol_lb, mu, tol_means, diff,
           (long long)a->scores.n_samples, ma->n_iter, mb->n_iter);
    ck_assert_int_eq(ma->n_iter, mb->n_iter);
    ck_assert_msg(lb <= tol_lb, "%s: lower bounds differ by %.3e", what, lb);
    ck_assert_msg(mu <= tol_means, "%s: means differ by %.3e", what, mu);
    ck_assert_int_eq(diff, 0);
}

static const gmm_cov_type all_types[] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG,
                                         GMM_COV_SPHERICAL};

/* GPU on a U8 view vs the CPU backend on the same view, fp64, every covariance type. */
START_TEST(test_u8_view_vs_cpu)
{
    if (!tu_gpu_available()) return;
    const int64_t N = 3001;
    const int d = 12, K = 4;
    uint8_t *X = tu_synthetic_bytes(N, d, K, 5);
    gmm_data_view v = view_of(GMM_ELEM_U8, X, N, d);
    for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
        fit_result cpu, gpu;
        char what[128];
        fit(&v, GMM_DEVICE_CPU, all_types[t], GMM_PRECISION_FP64, K, 15, NULL, &cpu);
        fit(&v, GMM_DEVICE_GPU, all_types[t], GMM_PRECISION_FP64, K, 15, NULL, &gpu);
        snprintf(what, sizeof what, "U8 view 3001 x 12, K = 4, %s, fp64: GPU vs CPU",
                 gmm_cov_type_name(all_types[t]));
        compare(what, &gpu, &cpu, 1e-10, 1e-9);
        free_result(&cpu);
        free_result(&gpu);
    }
    free(X);
}
END_TEST

/* GPU on a U8 view vs the GPU on the same values as a float64 view (resident, read in place):
 * whole (the bytes converted once on the device) and in chunks of 500 rows (kept as bytes,
 * converted in every pass). */
START_TEST(test_u8_view_vs_f64_view)
{
    if (!tu_gpu_available()) return;
    const int64_t N = 3001;
    const int d = 12, K = 4;
    uint8_t *X = tu_synthetic_bytes(N, d, K, 7);
    double *Xd = bytes_to_double(X, (size_t)N * d);
    gmm_data_view vb = view_of(GMM_ELEM_U8, X, N, d), vd = view_of(GMM_ELEM_F64, Xd, N, d);
    gmm_tuning chunked = {0};
    chunked.chunk_rows = 500;
    for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
        fit_result f64, u8, u8c;
        char what[128];
        fit(&vd, GMM_DEVICE_GPU, all_types[t], GMM_PRECISION_FP64, K, 15, NULL, &f64);
        fit(&vb, GMM_DEVICE_GPU, all_types[t], GMM_PRECISION_FP64, K, 15, NULL, &u8);
        fit(&vb, GMM_DEVICE_GPU, all_types[t], GMM_PRECISION_FP64, K, 15, &chunked, &u8c);
        snprintf(what, sizeof what, "GPU %s fp64: U8 view vs float64 view",
                 gmm_cov_type_name(all_types[t]));
        compare(what, &u8, &f64, 1e-12, 1e-12);
        snprintf(what, sizeof what, "GPU %s fp64: U8 view in 500-row chunks vs float64 view",
                 gmm_cov_type_name(all_types[t]));
        compare(what, &u8c, &f64, 1e-12, 1e-12);
        free_result(&f64);
        free_result(&u8);
        free_result(&u8c);
    }
    free(Xd);
    free(X);
}
END_TEST

/* Whether a context for the view under the tuning streams (asked of the backend itself). */
static bool context_streams(const gmm_data_view *v, int K, gmm_cov_type type,
                            const gmm_tuning *tuning)
{
    const gmm_backend *be = tu_gpu_backend();
    gmm_backend_ctx *ctx = NULL;
    gmm_backend_config cfg = {.data = *v, .n_components = K, .type = type,
                              .precision = GMM_PRECISION_FP64, .tuning = tuning};
    CHECK_OK(be->create(&ctx, &cfg));
    ck_assert_ptr_nonnull(be->streams);
    bool s = be->streams(ctx);
    be->destroy(ctx);
    return s;
}

/* A memory budget below the data's size: the context streams the rows (many double-buffered
 * chunks) and the fit is the in-memory one to 1e-12; float64 and U8 views, every type. */
START_TEST(test_streaming_matches_in_memory)
{
    if (!tu_gpu_available()) return;
    const int64_t N = 3001;
    const int d = 12, K = 4;
    uint8_t *X = tu_synthetic_bytes(N, d, K, 9);
    double *Xd = bytes_to_double(X, (size_t)N * d);
    gmm_data_view views[2] = {view_of(GMM_ELEM_F64, Xd, N, d), view_of(GMM_ELEM_U8, X, N, d)};
    const char *names[2] = {"float64 view (288 KB, budget 100 KB)", "U8 view (36 KB, budget 16 KB)"};
    gmm_tuning budgets[2] = {{0}, {0}};
    budgets[0].memory_budget = 100 << 10;
    budgets[1].memory_budget = 16 << 10;
    for (int vi = 0; vi < 2; vi++) {
        ck_assert_msg(context_streams(&views[vi], K, GMM_COV_FULL, &budgets[vi]),
                      "%s: the context does not stream", names[vi]);
        ck_assert_msg(!context_streams(&views[vi], K, GMM_COV_FULL, NULL),
                      "%s: the context streams without a budget", names[vi]);
        for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++) {
            fit_result mem, str;
            char what[160];
            fit(&views[vi], GMM_DEVICE_GPU, all_types[t], GMM_PRECISION_FP64, K, 15, NULL, &mem);
            fit(&views[vi], GMM_DEVICE_GPU, all_types[t], GMM_PRECISION_FP64, K, 15,
                &budgets[vi], &str);
            snprintf(what, sizeof what, "GPU %s fp64, %s: streamed vs in memory",
                     gmm_cov_type_name(all_types[t]), names[vi]);
            compare(what, &str, &mem, 1e-12, 1e-12);
            free_result(&mem);
            free_result(&str);
        }
    }
    /* float32 (TF32 GEMMs) streams too: the same fit to float32 rounding */
    {
        fit_result mem, str;
        fit(&views[1], GMM_DEVICE_GPU, GMM_COV_FULL, GMM_PRECISION_TF32, K, 10, NULL, &mem);
        fit(&views[1], GMM_DEVICE_GPU, GMM_COV_FULL, GMM_PRECISION_TF32, K, 10, &budgets[1],
            &str);
        compare("GPU full tf32, U8 view: streamed vs in memory", &str, &mem, 1e-6, 1e-5);
        free_result(&mem);
        free_result(&str);
    }
    free(Xd);
    free(X);
}
END_TEST

/* When the M-step's sums go chunk by chunk (data streamed, or image bytes kept on the device and
 * converted a chunk at a time), the E-step also forms the next M-step's responsibilities and
 * means' sums chunk by chunk (one pass over the data fewer) and that M-step says so; its
 * parameters are those of the M-step's own pass, which a second M-step on the same
 * responsibilities makes (to 1e-13: the same operations on the same chunks). Every type,
 * float64 and TF32; data in memory as one chunk: every M-step makes its own pass. */
START_TEST(test_estep_sums_means)
{
    if (!tu_gpu_available()) return;
    const int64_t N = 3001;
    const int d = 12, K = 4;
    uint8_t *X = tu_synthetic_bytes(N, d, K, 9);
    gmm_data_view v = view_of(GMM_ELEM_U8, X, N, d);
    /* one chunk in memory; chunks of 500 rows in memory; streamed in chunks of ~136 rows */
    gmm_tuning tunings[3] = {{0}, {0}, {0}};
    static const char *const ways[3] = {"in memory", "in memory, chunks of 500", "streamed"};
    tunings[1].chunk_rows = 500;
    tunings[2].memory_budget = 16 << 10;
    double *resp = calloc((size_t)N * K, sizeof(double));
    ck_assert_ptr_nonnull(resp);
    for (int64_t i = 0; i < N; i++) resp[i * K + (i * 7 + i / 5) % K] = 1.0;
    const gmm_backend *be = tu_gpu_backend();
    static const gmm_precision precs[2] = {GMM_PRECISION_FP64, GMM_PRECISION_TF32};
    for (int way = 0; way < 3; way++)
        for (size_t t = 0; t < sizeof all_types / sizeof all_types[0]; t++)
            for (int p = 0; p < 2; p++) {
                if (!be->supports(all_types[t], precs[p])) continue;
                gmm_backend_config cfg = {.data = v, .n_components = K, .type = all_types[t],
                                          .precision = precs[p],
                                          .tuning = &tunings[way]};
                gmm_backend_ctx *ctx = NULL;
                gmm_mstep_report r0 = {0}, r1 = {0}, r2 = {0};
                gmm_model a = {0}, b = {0};
                double ll = 0;
                CHECK_OK(be->create(&ctx, &cfg));
                CHECK_OK(gmm_model_alloc(&a, K, d, all_types[t]));
                CHECK_OK(gmm_model_alloc(&b, K, d, all_types[t]));
                ck_assert(be->streams(ctx) == (way == 2));
                CHECK_OK(be->set_resp(ctx, resp));
                CHECK_OK(be->m_step(ctx, 1e-4, &r0));
                CHECK_OK(be->e_step(ctx, &ll));
                CHECK_OK(be->m_step(ctx, 1e-4, &r1));
                CHECK_OK(be->get_params(ctx, &a));
                CHECK_OK(be->m_step(ctx, 1e-4, &r2));
                CHECK_OK(be->get_params(ctx, &b));
                const size_t cn = gmm_cov_size(all_types[t], K, d);
                double err = tu_rel_error(a.weights, b.weights, K);
                double e2 = tu_rel_error(a.means, b.means, (size_t)K * d);
                double e3 = tu_rel_error(a.covariances, b.covariances, cn);
                if (e2 > err) err = e2;
                if (e3 > err) err = e3;
                printf("%s, %s %s: means from the E-step %d, after a pass of its own: %.2e\n",
                       ways[way], gmm_cov_type_name(all_types[t]),
                       gmm_precision_name(precs[p]), (int)r1.means_from_estep, err);
                ck_assert_msg(!r0.means_from_estep && !r2.means_from_estep,
                              "an M-step after set_resp or a first M-step took E-step sums");
                ck_assert_msg(r1.means_from_estep == (way > 0), "%s, %s %s: means from the E-step %d",
                              ways[way], gmm_cov_type_name(all_types[t]),
                              gmm_precision_name(precs[p]), (int)r1.means_from_estep);
                ck_assert_msg(err <= 1e-13, "%s, %s %s: the parameters differ by %.3e",
                              ways[way], gmm_cov_type_name(all_types[t]), gmm_precision_name(precs[p]), err);
                gmm_model_free(&a);
                gmm_model_free(&b);
                be->destroy(ctx);
            }
    free(resp);
    free(X);
}
END_TEST

/* The first 4000 MNIST training images as a U8 view (784 values a row: the blocked E-step,
 * compaction, the lanes), K = 10, 8 iterations: GPU (in memory and streamed) vs CPU. */
START_TEST(test_mnist_u8)
{
    if (!tu_gpu_available()) return;
    const char *dir = tu_mnist_dir();
    if (!dir) {
        printf("MNIST U8 comparison skipped: no MNIST_DIR\n");
        return;
    }
    dataset ds;
    CHECK_OK(dataset_load(dir, DATASET_TRAIN, &ds));
    dataset_truncate(&ds, 4000);
    gmm_data_view v = view_of(GMM_ELEM_U8, ds.pixels, ds.n_samples, ds.rows * ds.cols);
    gmm_tuning budget = {0};
    budget.memory_budget = 1 << 20; /* 3.1 MB of bytes: streamed in ~130-row chunks */
    fit_result cpu, gpu, str;
    fit(&v, GMM_DEVICE_CPU, GMM_COV_FULL, GMM_PRECISION_FP64, 10, 8, NULL, &cpu);
    fit(&v, GMM_DEVICE_GPU, GMM_COV_FULL, GMM_PRECISION_FP64, 10, 8, NULL, &gpu);
    fit(&v, GMM_DEVICE_GPU, GMM_COV_FULL, GMM_PRECISION_FP64, 10, 8, &budget, &str);
    compare("MNIST 4000 U8, K = 10 full fp64: GPU vs CPU", &gpu, &cpu, 1e-10, 1e-9);
    compare("MNIST 4000 U8, K = 10 full fp64: GPU streamed vs in memory", &str, &gpu, 1e-12,
            1e-12);
    free_result(&cpu);
    free_result(&gpu);
    free_result(&str);
    dataset_free(&ds);
}
END_TEST

static Suite *gpu_scale_suite(void)
{
    Suite *s = suite_create("gpu_scale");
    TCase *tc = tcase_create("compact and streamed data");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_u8_view_vs_cpu);
    tcase_add_test(tc, test_u8_view_vs_f64_view);
    tcase_add_test(tc, test_streaming_matches_in_memory);
    tcase_add_test(tc, test_estep_sums_means);
    tcase_add_test(tc, test_mnist_u8);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!tu_gpu_available()) {
        printf("GPU scale tests skipped: no GPU\n");
        return 0;
    }
    return tu_run_suite(gpu_scale_suite());
}
