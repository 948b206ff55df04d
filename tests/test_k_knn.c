/* Check suite for kernels/knn.h: the CPU twin against a naive double-precision loop with a full
 * sort, exact ties (integer data: every version must order equal distances by index), and on a
 * GPU every version of bench/experiments/knn.cu (0: the library's cuBLAS GEMM form, knn_cublas;
 * 1: the direct-difference kernel, knn_cuda_v1) and the library's host convenience knn_cuda_host
 * (with the test's resources object and with NULL, its own) against the naive reference.
 * Tolerances: returned distances within 1e-5 (CPU, direct kernel) or 2e-3 (GEMM form, whose
 * |q|^2 + |r|^2 - 2 q.r loses digits to cancellation) times the largest row norm of the pointwise
 * true distance of the returned index, and of the k-th true distance at each rank. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "bench/experiments/experiments.h"
#include "kernels/knn.h"
#include "tests/testutil.h"

typedef struct {
    double dist;
    int32_t index;
} pair;

static int pair_cmp(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->index < y->index ? -1 : (x->index > y->index);
}

static double true_dist(const float *x, const float *y, size_t dim)
{
    double acc = 0;
    for (size_t c = 0; c < dim; c++) acc += ((double)x[c] - y[c]) * ((double)x[c] - y[c]);
    return sqrt(acc);
}

/* Naive reference: all distances in double, sorted by (distance, index). */
static void knn_naive(const float *q, size_t m, const float *r, size_t n, size_t dim, size_t k,
                      int32_t *idx, double *dist)
{
    pair *all = malloc(sizeof(pair) * n);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < n; j++) {
            all[j].dist = true_dist(q + i * dim, r + j * dim, dim);
            all[j].index = (int32_t)j;
        }
        qsort(all, n, sizeof(pair), pair_cmp);
        for (size_t j = 0; j < k; j++) {
            idx[i * k + j] = all[j].index;
            dist[i * k + j] = all[j].dist;
        }
    }
    free(all);
}

static double max_norm(const float *x, size_t rows, size_t dim)
{
    double best = 0;
    for (size_t i = 0; i < rows; i++) {
        double s = 0;
        for (size_t c = 0; c < dim; c++) s += (double)x[i * dim + c] * x[i * dim + c];
        best = fmax(best, sqrt(s));
    }
    return best;
}

/* Every returned index is valid and distinct within its row, its true distance matches the
 * returned one, and rank j's distance matches the naive rank j's. */
static void check_knn(const float *q, size_t m, const float *r, size_t n, size_t dim, size_t k,
                      const int32_t *idx, const float *dist, const double *ref_dist, double rel_tol)
{
    double tol = rel_tol * fmax(max_norm(q, m, dim) + max_norm(r, n, dim), 1e-30);
    for (size_t i = 0; i < m; i++)
        for (size_t j = 0; j < k; j++) {
            int32_t id = idx[i * k + j];
            ck_assert_msg(id >= 0 && (size_t)id < n, "query %zu rank %zu: index %d", i, j, id);
            for (size_t t = 0; t < j; t++) ck_assert_int_ne(idx[i * k + t], id);
            double d = dist[i * k + j];
            ck_assert_msg(isfinite(d), "query %zu rank %zu: distance not finite", i, j);
            double td = true_dist(q + i * dim, r + (size_t)id * dim, dim);
            ck_assert_msg(fabs(d - td) <= tol, "query %zu rank %zu: %g vs true %g (tol %g)", i, j,
                          d, td, tol);
            ck_assert_msg(fabs(d - ref_dist[i * k + j]) <= tol,
                          "query %zu rank %zu: %g vs naive %g (tol %g)", i, j, d,
                          ref_dist[i * k + j], tol);
        }
}

typedef struct {
    size_t m, n, dim, k;
} knn_case;

/* The GPU paths checked: 0 .. KNN_N_VERSIONS - 1 the versions of bench/experiments/knn.cu (on
 * device buffers whose outputs are poisoned first; refs alias queries when r == q), then the
 * library's host convenience knn_cuda_host on the test's resources object and with gpu NULL. */
#define N_GPU_PATHS (KNN_N_VERSIONS + 2)
_Static_assert(KNN_N_VERSIONS == 2, "give the new kNN version its tolerance in GPU_PATH_TOL");
static const double GPU_PATH_TOL[N_GPU_PATHS] = {2e-3, 1e-5, 2e-3, 2e-3};

static const char *gpu_path_name(int path)
{
    if (path < KNN_N_VERSIONS) return knn_version_name(path);
    return path == KNN_N_VERSIONS ? "knn_cuda_host(gpu)" : "knn_cuda_host(NULL)";
}

static gmm_status run_gpu_path(int path, const float *q, size_t m, const float *r, size_t n,
                               size_t dim, size_t k, int32_t *idx, float *dist)
{
    if (path == KNN_N_VERSIONS) return knn_cuda_host(q, m, r, n, dim, k, bench_gpu_resources(), idx, dist);
    if (path == KNN_N_VERSIONS + 1) return knn_cuda_host(q, m, r, n, dim, k, NULL, idx, dist);
    float *d_q = NULL, *d_r = NULL, *d_dist = NULL;
    int32_t *d_idx = NULL;
    int32_t *poison_idx = malloc(sizeof(int32_t) * m * k);
    float *poison_dist = malloc(sizeof(float) * m * k);
    ck_assert(poison_idx && poison_dist);
    for (size_t i = 0; i < m * k; i++) {
        poison_idx[i] = -7;
        poison_dist[i] = NAN;
    }
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_q, sizeof(float) * m * dim), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_q, q, sizeof(float) * m * dim), GMM_OK);
    if (r == q) {
        d_r = d_q;
    } else {
        ck_assert_int_eq(bench_gpu_alloc((void **)&d_r, sizeof(float) * n * dim), GMM_OK);
        ck_assert_int_eq(bench_gpu_upload(d_r, r, sizeof(float) * n * dim), GMM_OK);
    }
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_idx, sizeof(int32_t) * m * k), GMM_OK);
    ck_assert_int_eq(bench_gpu_alloc((void **)&d_dist, sizeof(float) * m * k), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_idx, poison_idx, sizeof(int32_t) * m * k), GMM_OK);
    ck_assert_int_eq(bench_gpu_upload(d_dist, poison_dist, sizeof(float) * m * k), GMM_OK);
    gmm_status st = knn_version(path, d_q, m, d_r, n, dim, k, d_idx, d_dist, bench_gpu_resources());
    if (st == GMM_OK) {
        ck_assert_int_eq(bench_gpu_download(idx, d_idx, sizeof(int32_t) * m * k), GMM_OK);
        ck_assert_int_eq(bench_gpu_download(dist, d_dist, sizeof(float) * m * k), GMM_OK);
    }
    if (d_r != d_q) bench_gpu_free(d_r);
    bench_gpu_free(d_q), bench_gpu_free(d_idx), bench_gpu_free(d_dist);
    free(poison_idx), free(poison_dist);
    return st;
}

static void run_case(knn_case c, uint64_t seed, int gpu)
{
    float *q = malloc(sizeof(float) * c.m * c.dim), *r = malloc(sizeof(float) * c.n * c.dim);
    int32_t *idx = malloc(sizeof(int32_t) * c.m * c.k), *ref_idx = malloc(sizeof(int32_t) * c.m * c.k);
    float *dist = malloc(sizeof(float) * c.m * c.k);
    double *ref_dist = malloc(sizeof(double) * c.m * c.k);
    tu_fill_uniform_f(q, c.m * c.dim, -1.0f, 2.0f, seed);
    tu_fill_uniform_f(r, c.n * c.dim, -1.0f, 2.0f, seed + 1);
    knn_naive(q, c.m, r, c.n, c.dim, c.k, ref_idx, ref_dist);
    for (int path = 0; path < (gpu ? N_GPU_PATHS : 1); path++) {
        for (size_t i = 0; i < c.m * c.k; i++) {
            idx[i] = -7;
            dist[i] = NAN;
        }
        gmm_status st = gpu ? run_gpu_path(path, q, c.m, r, c.n, c.dim, c.k, idx, dist)
                            : knn_cpu(q, c.m, r, c.n, c.dim, c.k, idx, dist);
        ck_assert_msg(st == GMM_OK, "%s: %s", gpu ? gpu_path_name(path) : "knn_cpu",
                      gmm_error_message(st));
        check_knn(q, c.m, r, c.n, c.dim, c.k, idx, dist, ref_dist, gpu ? GPU_PATH_TOL[path] : 1e-5);
    }
    free(q), free(r), free(idx), free(ref_idx), free(dist), free(ref_dist);
}

static const knn_case cpu_cases[] = {
    {1, 1, 1, 1}, {1, 200, 7, 10}, {37, 53, 13, 5}, {64, 300, 1, 3}, {50, 257, 33, 20},
    {3, 40, 5, 40}, {100, 1000, 64, 1},
};

START_TEST(test_cpu_vs_naive)
{
    for (size_t i = 0; i < sizeof cpu_cases / sizeof cpu_cases[0]; i++) run_case(cpu_cases[i], 10 + i, 0);
}
END_TEST

/* Integer coordinates in 0..2: distances are exact in float32 in every form, many are equal, and
 * equal distances must come out by increasing index, as in the naive sort. */
static void run_ties(int gpu)
{
    const size_t m = 45, n = 300, dim = 3, k = 17;
    float *q = malloc(sizeof(float) * m * dim), *r = malloc(sizeof(float) * n * dim);
    int32_t *idx = malloc(sizeof(int32_t) * m * k), *ref_idx = malloc(sizeof(int32_t) * m * k);
    float *dist = malloc(sizeof(float) * m * k);
    double *ref_dist = malloc(sizeof(double) * m * k);
    uint64_t s = 77;
    for (size_t i = 0; i < m * dim; i++) q[i] = (float)(tu_rand_u64(&s) % 3);
    for (size_t i = 0; i < n * dim; i++) r[i] = (float)(tu_rand_u64(&s) % 3);
    knn_naive(q, m, r, n, dim, k, ref_idx, ref_dist);
    for (int path = 0; path < (gpu ? N_GPU_PATHS : 1); path++) {
        const char *who = gpu ? gpu_path_name(path) : "knn_cpu";
        memset(idx, 0xFF, sizeof(int32_t) * m * k);
        gmm_status st = gpu ? run_gpu_path(path, q, m, r, n, dim, k, idx, dist)
                            : knn_cpu(q, m, r, n, dim, k, idx, dist);
        ck_assert_msg(st == GMM_OK, "%s: %s", who, gmm_error_message(st));
        for (size_t i = 0; i < m * k; i++) {
            ck_assert_msg(idx[i] == ref_idx[i], "%s, entry %zu: index %d, naive %d", who, i,
                          idx[i], ref_idx[i]);
            ck_assert_msg(dist[i] == (float)ref_dist[i], "%s, entry %zu: %g vs %g", who, i,
                          dist[i], ref_dist[i]);
        }
    }
    free(q), free(r), free(idx), free(ref_idx), free(dist), free(ref_dist);
}

START_TEST(test_cpu_ties)
{
    run_ties(0);
}
END_TEST

START_TEST(test_cpu_bad_args)
{
    float x[4] = {1, 2, 3, 4};
    int32_t idx[4];
    float dist[4];
    ck_assert_int_eq(knn_cpu(x, 2, x, 2, 2, 3, idx, dist), GMM_ERR_ARG); /* k > n_refs */
    ck_assert_int_eq(knn_cpu(x, 2, x, 2, 2, 0, idx, dist), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu(x, 2, x, 2, 0, 1, idx, dist), GMM_ERR_ARG);
}
END_TEST

static const knn_case gpu_cases[] = {
    {1, 1, 1, 1},     {1, 1000, 5, 7},   {300, 1, 3, 1},      {129, 131, 257, 20},
    {200, 1000, 784, 33}, {70, 500, 16, 128}, {1000, 3001, 9, 24}, {517, 2049, 130, 8},
};

START_TEST(test_gpu_vs_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    for (size_t i = 0; i < sizeof gpu_cases / sizeof gpu_cases[0]; i++) run_case(gpu_cases[i], 100 + i, 1);
    run_ties(1);
}
END_TEST

/* Self-kNN (queries == refs), as the GMM initialisation calls it: each point is its own first
 * neighbour at distance 0 (the GEMM form: within its tolerance). */
START_TEST(test_gpu_self)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const size_t n = 777, dim = 50, k = 5;
    float *x = malloc(sizeof(float) * n * dim), *dist = malloc(sizeof(float) * n * k);
    int32_t *idx = malloc(sizeof(int32_t) * n * k);
    tu_fill_uniform_f(x, n * dim, 0.0f, 1.0f, 5);
    for (int path = 0; path < N_GPU_PATHS; path++) {
        const char *who = gpu_path_name(path);
        /* the direct-difference kernel computes (x - x)^2 = 0 exactly */
        const float self_tol = GPU_PATH_TOL[path] < 1e-4 ? 0.0f : 1e-2f;
        gmm_status st = run_gpu_path(path, x, n, x, n, dim, k, idx, dist);
        ck_assert_msg(st == GMM_OK, "%s: %s", who, gmm_error_message(st));
        for (size_t i = 0; i < n; i++) {
            ck_assert_msg(idx[i * k] == (int32_t)i, "%s: point %zu's first neighbour %d", who, i,
                          idx[i * k]);
            ck_assert_msg(dist[i * k] <= self_tol && dist[i * k] >= 0.0f, "%s: self distance %g",
                          who, dist[i * k]);
        }
        ck_assert_msg(run_gpu_path(path, x, n, x, n, dim, KNN_CUDA_MAX_K + 1, idx, dist) == GMM_ERR_ARG,
                      "%s: k > KNN_CUDA_MAX_K accepted", who);
    }
    free(x), free(dist), free(idx);
}
END_TEST

/* A version number the experiments do not have is refused (see test_k_cholesky.c). */
START_TEST(test_unknown_version)
{
    float x[2] = {1, 2};
    int32_t idx[1];
    float dist[1];
    ck_assert_int_ne(knn_version(KNN_N_VERSIONS, x, 1, x, 1, 2, 1, idx, dist, NULL), GMM_OK);
    ck_assert_int_ne(knn_version(-1, x, 1, x, 1, 2, 1, idx, dist, NULL), GMM_OK);
    ck_assert_str_eq(knn_version_name(KNN_N_VERSIONS), "?");
}
END_TEST

static Suite *knn_suite(void)
{
    Suite *s = suite_create("k_knn");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cpu_vs_naive);
    tcase_add_test(tc, test_cpu_ties);
    tcase_add_test(tc, test_cpu_bad_args);
    tcase_add_test(tc, test_gpu_vs_cpu);
    tcase_add_test(tc, test_gpu_self);
    tcase_add_test(tc, test_unknown_version);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(knn_suite()); }
