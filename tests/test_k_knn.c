/* Check suite for kernels/knn.h: the CPU twin against a naive double-precision loop with a full
 * sort, exact ties (integer data: every version must order equal distances by index), the CPU
 * GEMM form knn_cpu_blas against the naive loop and equal to knn_cpu bit for bit (random data,
 * ties, duplicated points, points far from the origin, non-finite data, edge sizes), and on a
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
#ifdef _OPENMP
#include <omp.h>
#endif

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

/* ---- knn_cpu_blas: the GEMM form on the CPU, which must return what knn_cpu returns ---- */

/* Runs knn_cpu and knn_cpu_blas_params (params NULL: knn_cpu_blas with its defaults) on the same
 * data (refs may alias queries) and asserts the same indices and the same distances, bit for bit
 * (which also makes the distances equal within 1e-6 relative); when ref_idx is given, the indices
 * must also be the naive reference's. Returns how many queries knn_cpu answered. */
static size_t check_blas_eq_cpu(const float *q, size_t m, const float *r, size_t n, size_t dim,
                                size_t k, knn_blas_params *params, const int32_t *ref_idx)
{
    const size_t len = m * k + 1; /* + 1: m = 0 allocates too */
    int32_t *idx = malloc(sizeof(int32_t) * len), *cpu_idx = malloc(sizeof(int32_t) * len);
    float *dist = malloc(sizeof(float) * len), *cpu_dist = malloc(sizeof(float) * len);
    ck_assert(idx && cpu_idx && dist && cpu_dist);
    for (size_t i = 0; i < m * k; i++) {
        idx[i] = -7;
        dist[i] = NAN;
    }
    TU_CHECK_OK(knn_cpu(q, m, r, n, dim, k, cpu_idx, cpu_dist));
    gmm_status st = params ? knn_cpu_blas_params(q, m, r, n, dim, k, idx, dist, params)
                           : knn_cpu_blas(q, m, r, n, dim, k, idx, dist);
    ck_assert_msg(st == GMM_OK, "knn_cpu_blas: %s", gmm_error_message(st));
    for (size_t i = 0; i < m * k; i++) {
        ck_assert_msg(idx[i] == cpu_idx[i], "m %zu n %zu dim %zu k %zu, query %zu rank %zu: "
                      "index %d, knn_cpu %d", m, n, dim, k, i / k, i % k, idx[i], cpu_idx[i]);
        ck_assert_msg(memcmp(&dist[i], &cpu_dist[i], sizeof(float)) == 0,
                      "query %zu rank %zu: distance %.9g, knn_cpu %.9g", i / k, i % k, dist[i],
                      cpu_dist[i]);
        ck_assert(fabsf(dist[i] - cpu_dist[i]) <= 1e-6f * fabsf(cpu_dist[i]));
        if (ref_idx)
            ck_assert_msg(idx[i] == ref_idx[i], "query %zu rank %zu: index %d, naive %d", i / k,
                          i % k, idx[i], ref_idx[i]);
    }
    free(idx), free(cpu_idx), free(dist), free(cpu_dist);
    return params ? params->n_direct : 0;
}

/* Many threads on few columns: the column scan of a self-kNN tile splits its columns into one
 * segment a thread, and with 16 threads on a tile of 300 columns the last segments start past
 * the tile (they once wrote past it: "double free or corruption" on a 16-core host). */
START_TEST(test_blas_many_threads)
{
#ifdef _OPENMP
    const int before = omp_get_max_threads();
    omp_set_num_threads(16);
#endif
    enum { N = 700, DIM = 8, K = 12 };
    float *r = malloc(sizeof(float) * N * DIM);
    tu_fill_uniform_f(r, N * DIM, -1.0f, 2.0f, 4242);
    knn_blas_params p = KNN_BLAS_DEFAULTS;
    p.query_tile = 256, p.ref_tile = 300;
    ck_assert_uint_eq(check_blas_eq_cpu(r, N, r, N, DIM, K, &p, NULL), 0);
#ifdef _OPENMP
    omp_set_num_threads(before);
#endif
    free(r);
}
END_TEST

/* Random data: against the naive reference (as knn_cpu is) and equal to knn_cpu, with the
 * default tiles and with small ones that the sizes are no multiples of, self-kNN included; every
 * query is settled by its candidates (none left to knn_cpu). */
START_TEST(test_blas_random)
{
    static const knn_case cases[] = {
        {1, 1, 1, 1},       {1, 200, 7, 10},     {37, 53, 13, 5},  {64, 300, 1, 3},
        {50, 257, 33, 20},  {3, 40, 5, 40},      {100, 1000, 64, 1}, {203, 517, 784, 15},
        {129, 70, 9, 70},   {300, 301, 2, 16},   {40, 1000, 8, 12},
    };
    /* tiles of at least 2^16 pairs are scanned by a team of threads (256 x 300, 300 x 300) */
    static const size_t tiles[][2] = {{2048, 2048}, {7, 13}, {1, 1}, {64, 5}, {256, 300}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const knn_case c = cases[i];
        float *q = malloc(sizeof(float) * c.m * c.dim), *r = malloc(sizeof(float) * c.n * c.dim);
        const size_t rows = c.m > c.n ? c.m : c.n; /* queries, then the references' self-kNN */
        int32_t *idx = malloc(sizeof(int32_t) * rows * c.k);
        int32_t *ref_idx = malloc(sizeof(int32_t) * rows * c.k);
        float *dist = malloc(sizeof(float) * rows * c.k);
        double *ref_dist = malloc(sizeof(double) * rows * c.k);
        tu_fill_uniform_f(q, c.m * c.dim, -1.0f, 2.0f, 300 + i);
        tu_fill_uniform_f(r, c.n * c.dim, -1.0f, 2.0f, 400 + i);
        knn_naive(q, c.m, r, c.n, c.dim, c.k, ref_idx, ref_dist);
        TU_CHECK_OK(knn_cpu_blas(q, c.m, r, c.n, c.dim, c.k, idx, dist));
        check_knn(q, c.m, r, c.n, c.dim, c.k, idx, dist, ref_dist, 1e-5);
        for (size_t t = 0; t < sizeof tiles / sizeof tiles[0]; t++) {
            if (tiles[t][1] < 8 && c.n > 60) continue; /* tiny tiles: ~n^2 / 2 SGEMM calls */
            knn_blas_params p = KNN_BLAS_DEFAULTS;
            p.query_tile = tiles[t][0], p.ref_tile = tiles[t][1];
            ck_assert_uint_eq(check_blas_eq_cpu(q, c.m, r, c.n, c.dim, c.k, &p, NULL), 0);
            /* self-kNN of the references: the symmetric tiles */
            ck_assert_uint_eq(check_blas_eq_cpu(r, c.n, r, c.n, c.dim, c.k, &p, NULL), 0);
        }
        knn_naive(r, c.n, r, c.n, c.dim, c.k, ref_idx, ref_dist);
        TU_CHECK_OK(knn_cpu_blas(r, c.n, r, c.n, c.dim, c.k, idx, dist));
        check_knn(r, c.n, r, c.n, c.dim, c.k, idx, dist, ref_dist, 1e-5);
        for (size_t j = 0; j < c.n && c.k > 0; j++) /* uniform data has no duplicates */
            ck_assert_int_eq(idx[j * c.k], (int32_t)j);
        free(q), free(r), free(idx), free(ref_idx), free(dist), free(ref_dist);
    }
}
END_TEST

/* Integer coordinates in 0..2: exact distances, many equal; the naive order by index must come
 * out whether the ties leave the candidates inconclusive (the default margin: knn_cpu answers)
 * or every reference is a candidate (a margin of n: the candidates' own sort by index). */
START_TEST(test_blas_ties)
{
    const size_t m = 45, n = 300, dim = 3, k = 17;
    float *q = malloc(sizeof(float) * m * dim), *r = malloc(sizeof(float) * n * dim);
    int32_t *ref_idx = malloc(sizeof(int32_t) * n * k);
    double *ref_dist = malloc(sizeof(double) * n * k);
    uint64_t s = 78;
    for (size_t i = 0; i < m * dim; i++) q[i] = (float)(tu_rand_u64(&s) % 3);
    for (size_t i = 0; i < n * dim; i++) r[i] = (float)(tu_rand_u64(&s) % 3);
    knn_blas_params p = KNN_BLAS_DEFAULTS, wide = KNN_BLAS_DEFAULTS, small = KNN_BLAS_DEFAULTS;
    wide.margin = n;
    small.query_tile = 16, small.ref_tile = 50, small.margin = n;
    knn_naive(q, m, r, n, dim, k, ref_idx, ref_dist);
    ck_assert_uint_gt(check_blas_eq_cpu(q, m, r, n, dim, k, &p, ref_idx), 0);
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &wide, ref_idx), 0);
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &small, ref_idx), 0);
    knn_naive(r, n, r, n, dim, k, ref_idx, ref_dist);
    ck_assert_uint_gt(check_blas_eq_cpu(r, n, r, n, dim, k, &p, ref_idx), 0);
    ck_assert_uint_eq(check_blas_eq_cpu(r, n, r, n, dim, k, &wide, ref_idx), 0);
    ck_assert_uint_eq(check_blas_eq_cpu(r, n, r, n, dim, k, &small, ref_idx), 0);
    /* the same ties far from the origin: the distances stay exact but the GEMM form's values
     * round (|r|^2 ~ 5e7 > 2^24), so the candidates come in no index order among equals */
    for (size_t i = 0; i < m * dim; i++) q[i] += 4096.0f;
    for (size_t i = 0; i < n * dim; i++) r[i] += 4096.0f;
    knn_naive(q, m, r, n, dim, k, ref_idx, ref_dist);
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &wide, ref_idx), 0);
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &p, ref_idx), m);
    knn_naive(r, n, r, n, dim, k, ref_idx, ref_dist);
    ck_assert_uint_eq(check_blas_eq_cpu(r, n, r, n, dim, k, &small, ref_idx), 0);
    free(q), free(r), free(ref_idx), free(ref_dist);
}
END_TEST

/* Self-kNN where each point has two copies elsewhere: the three copies are at distance 0 from
 * each other, first in index order, and the copies' lists are the same. */
START_TEST(test_blas_duplicates)
{
    const size_t base = 150, n = 3 * base, dim = 20, k = 6;
    float *u = malloc(sizeof(float) * base * dim), *x = malloc(sizeof(float) * n * dim);
    int32_t *ref_idx = malloc(sizeof(int32_t) * n * k), *idx = malloc(sizeof(int32_t) * n * k);
    double *ref_dist = malloc(sizeof(double) * n * k);
    float *dist = malloc(sizeof(float) * n * k);
    tu_fill_uniform_f(u, base * dim, 0.0f, 1.0f, 91);
    for (size_t i = 0; i < n; i++) /* point i is u[(7 i) % base]: copies 150 rows apart, shuffled */
        memcpy(x + i * dim, u + ((7 * i) % base) * dim, sizeof(float) * dim);
    knn_naive(x, n, x, n, dim, k, ref_idx, ref_dist);
    knn_blas_params p = KNN_BLAS_DEFAULTS, small = KNN_BLAS_DEFAULTS;
    small.ref_tile = 64;
    ck_assert_uint_eq(check_blas_eq_cpu(x, n, x, n, dim, k, &p, ref_idx), 0);
    ck_assert_uint_eq(check_blas_eq_cpu(x, n, x, n, dim, k, &small, ref_idx), 0);
    TU_CHECK_OK(knn_cpu_blas(x, n, x, n, dim, k, idx, dist));
    for (size_t i = 0; i < n; i++) {
        size_t first = (i % base + base) % base; /* the copies of i are i mod 150 + 0, 150, 300 */
        for (size_t c = 0; c < 3; c++) {
            ck_assert_int_eq(idx[i * k + c], (int32_t)(first + c * base));
            ck_assert(dist[i * k + c] == 0.0f);
        }
    }
    free(u), free(x), free(ref_idx), free(idx), free(ref_dist), free(dist);
}
END_TEST

/* Points far from the origin (1000 + [0, 0.01)): |q|^2 + |r|^2 - 2 q.r loses every digit of the
 * distances to cancellation, so the error bound leaves the candidates inconclusive and knn_cpu
 * answers (the result still exact); non-finite data goes to knn_cpu whole. */
START_TEST(test_blas_far_and_nonfinite)
{
    const size_t m = 60, n = 200, dim = 16, k = 5;
    float *q = malloc(sizeof(float) * m * dim), *r = malloc(sizeof(float) * n * dim);
    tu_fill_uniform_f(q, m * dim, 1000.0f, 1000.01f, 5);
    tu_fill_uniform_f(r, n * dim, 1000.0f, 1000.01f, 6);
    knn_blas_params p = KNN_BLAS_DEFAULTS;
    ck_assert_uint_gt(check_blas_eq_cpu(q, m, r, n, dim, k, &p, NULL), m / 2);
    ck_assert_uint_gt(check_blas_eq_cpu(r, n, r, n, dim, k, &p, NULL), n / 2);
    knn_blas_params small = KNN_BLAS_DEFAULTS;
    small.query_tile = 7, small.ref_tile = 13;
    ck_assert_uint_gt(check_blas_eq_cpu(q, m, r, n, dim, k, &small, NULL), m / 2);
    ck_assert_uint_gt(check_blas_eq_cpu(r, n, r, n, dim, k, &small, NULL), n / 2);
    /* the same shape near the origin: settled by the candidates */
    tu_fill_uniform_f(q, m * dim, 0.0f, 0.01f, 5);
    tu_fill_uniform_f(r, n * dim, 0.0f, 0.01f, 6);
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &p, NULL), 0);
    r[3 * dim + 2] = NAN; /* reference 3 is never a neighbour (knn_cpu's rule) */
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &p, NULL), m);
    r[3 * dim + 2] = 1e30f; /* its squared norm overflows float */
    ck_assert_uint_eq(check_blas_eq_cpu(q, m, r, n, dim, k, &p, NULL), m);
    free(q), free(r);
}
END_TEST

START_TEST(test_blas_edges)
{
    float x[6] = {1, 2, 3, 4, 5, 6};
    int32_t idx[9] = {-7, -7, -7, -7, -7, -7, -7, -7, -7};
    float dist[9];
    knn_blas_params p = KNN_BLAS_DEFAULTS;
    /* no queries: nothing written */
    ck_assert_int_eq(knn_cpu_blas(x, 0, x, 3, 2, 2, idx, dist), GMM_OK);
    ck_assert_int_eq(knn_cpu_blas_params(x, 0, x, 3, 2, 2, idx, dist, &p), GMM_OK);
    for (int i = 0; i < 9; i++) ck_assert_int_eq(idx[i], -7);
    /* k = n_refs: every reference, nearest first */
    ck_assert_int_eq(knn_cpu_blas(x, 3, x, 3, 2, 3, idx, dist), GMM_OK);
    static const int32_t want[9] = {0, 1, 2, 1, 0, 2, 2, 1, 0};
    for (int i = 0; i < 9; i++) ck_assert_int_eq(idx[i], want[i]);
    ck_assert(dist[1] == sqrtf(8.0f) && dist[2] == sqrtf(32.0f));
    /* bad arguments */
    ck_assert_int_eq(knn_cpu_blas(x, 2, x, 2, 2, 3, idx, dist), GMM_ERR_ARG); /* k > n_refs */
    ck_assert_int_eq(knn_cpu_blas(x, 2, x, 2, 2, 0, idx, dist), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu_blas(x, 2, x, 2, 0, 1, idx, dist), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu_blas(NULL, 2, x, 2, 2, 1, idx, dist), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu_blas(x, 2, NULL, 2, 2, 1, idx, dist), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu_blas(x, 2, x, 2, 2, 1, NULL, dist), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu_blas(x, 2, x, 2, 2, 1, idx, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(knn_cpu_blas(x, 0, x, 0, 2, 1, idx, dist), GMM_ERR_ARG); /* no references */
    ck_assert_int_eq(knn_cpu_blas_params(x, 2, x, 2, 2, 1, idx, dist, NULL), GMM_ERR_ARG);
    p.query_tile = 0;
    ck_assert_int_eq(knn_cpu_blas_params(x, 2, x, 2, 2, 1, idx, dist, &p), GMM_ERR_ARG);
    p.query_tile = 4, p.ref_tile = 0;
    ck_assert_int_eq(knn_cpu_blas_params(x, 2, x, 2, 2, 1, idx, dist, &p), GMM_ERR_ARG);
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
    tcase_add_test(tc, test_blas_random);
    tcase_add_test(tc, test_blas_many_threads);
    tcase_add_test(tc, test_blas_ties);
    tcase_add_test(tc, test_blas_duplicates);
    tcase_add_test(tc, test_blas_far_and_nonfinite);
    tcase_add_test(tc, test_blas_edges);
    tcase_add_test(tc, test_gpu_vs_cpu);
    tcase_add_test(tc, test_gpu_self);
    tcase_add_test(tc, test_unknown_version);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(knn_suite()); }
