/* Check suite for the k-means steps (kernels/kmeans.h) and the loops written once over them
 * (models/backend/cpu/kmeans.h). The CPU twins against naive loops: exact ties (a duplicated center: the
 * first wins, the duplicate's cluster is empty), K = 1, d = 1, n = 1, the searchsorted
 * boundaries of the k-means++ pick; Lloyd's empty-cluster rule and k-means++ on blobs. On a GPU,
 * every CUDA version against its CPU twin on the same inputs (outputs poisoned first): labels,
 * counts, one-hot rows, change counts, argmax and picks exactly; sums and distances by relative
 * error <= 1e-12 (float64 sums in another order; 1e-13 for the norms). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_gpu.h"
#include "kernels/kmeans.h"
#include "models/backend/cpu/kmeans.h"
#include "tests/testutil.h"

#define BOUND 1e-12

typedef struct {
    int64_t n;
    int d, k;
} shape;

/* 1 x 1 x 1, d = 1, K = 1, n not a multiple of any block (256 rows, 8 rows per block, 256-row
 * chunks), K past one 32-wide warp, and MNIST's d = 784. */
static const shape SHAPES[] = {{1, 1, 1},     {7, 1, 3},    {300, 5, 1},  {257, 3, 33},
                               {1000, 13, 7}, {2049, 784, 10}, {513, 2, 4}, {256, 1, 2}};
#define N_SHAPES (int)(sizeof SHAPES / sizeof SHAPES[0])

/* The inputs of one shape: X (n x d), centers C (k x d: rows of X, the last a copy of the first
 * when k >= 2, so every sample ties between them), dots = X C^T, the norms, previous labels. */
typedef struct {
    shape s;
    double *X, *C, *dots, *xn, *cn, *mean;
    int *prev;
} fixture;

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    ck_assert_ptr_nonnull(p);
    return p;
}

static void poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

/* ||a - b|| / max(||b||, 1): a relative error that stays defined for all-zero references;
 * INFINITY on a NaN or inf in a. */
static double err(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return sqrt(num) / fmax(sqrt(den), 1.0);
}

static void naive_norms(const double *A, int64_t rows, int d, double *out)
{
    for (int64_t r = 0; r < rows; r++) {
        double s = 0;
        for (int j = 0; j < d; j++) s += A[r * d + j] * A[r * d + j];
        out[r] = s;
    }
}

static void make(const shape *s, fixture *f, uint64_t seed)
{
    const int64_t n = s->n;
    const int d = s->d, k = s->k;
    f->s = *s;
    f->X = xmalloc(sizeof(double) * n * d);
    f->C = xmalloc(sizeof(double) * k * d);
    f->dots = xmalloc(sizeof(double) * n * k);
    f->xn = xmalloc(sizeof(double) * n);
    f->cn = xmalloc(sizeof(double) * k);
    f->mean = xmalloc(sizeof(double) * d);
    f->prev = xmalloc(sizeof(int) * n);
    tu_fill_uniform(f->X, (size_t)n * d, -1.0, 2.0, seed);
    for (int c = 0; c < k; c++) {
        int64_t row = (int64_t)((c * 7919 + 3) % n);
        if (k >= 2 && c == k - 1) row = 3 % n; /* the duplicate of center 0 */
        memcpy(f->C + (size_t)c * d, f->X + row * d, sizeof(double) * d);
    }
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < k; c++) {
            double s2 = 0;
            for (int j = 0; j < d; j++) s2 += f->X[i * d + j] * f->C[(size_t)c * d + j];
            f->dots[i * k + c] = s2;
        }
    naive_norms(f->X, n, d, f->xn);
    naive_norms(f->C, k, d, f->cn);
    for (int j = 0; j < d; j++) {
        double s2 = 0;
        for (int64_t i = 0; i < n; i++) s2 += f->X[i * d + j];
        f->mean[j] = s2 / (double)n;
    }
    for (int64_t i = 0; i < n; i++) f->prev[i] = i % 3 == 0 ? (int)(i % k) : -1;
}

static void release(fixture *f)
{
    free(f->X), free(f->C), free(f->dots), free(f->xn), free(f->cn), free(f->mean), free(f->prev);
}

/* The reference assignment: the first minimum of xn - 2 dots + cn. */
static int64_t naive_assign(const fixture *f, int *labels, double *min_dist)
{
    const int k = f->s.k;
    int64_t changed = 0;
    for (int64_t i = 0; i < f->s.n; i++) {
        int best = 0;
        double bd = INFINITY;
        for (int c = 0; c < k; c++) {
            double dd = f->xn[i] - 2 * f->dots[i * k + c] + f->cn[c];
            if (dd < bd) bd = dd, best = c;
        }
        changed += f->prev[i] != best;
        labels[i] = best;
        min_dist[i] = bd < 0 ? 0 : bd;
    }
    return changed;
}

START_TEST(cpu_norms_and_means)
{
    fixture f;
    make(&SHAPES[_i], &f, 100 + _i);
    const int64_t n = f.s.n;
    const int d = f.s.d;
    double *mean = xmalloc(sizeof(double) * d), *xn = xmalloc(sizeof(double) * n);
    double *dev = xmalloc(sizeof(double) * n), *cn = xmalloc(sizeof(double) * f.s.k);
    double *ref_dev = xmalloc(sizeof(double) * n);
    poison(mean, d), poison(xn, n), poison(dev, n), poison(cn, f.s.k);
    for (int j = 0; j < d; j++) mean[j] = 0;
    ck_assert_int_eq(kmeans_column_sums_cpu(f.X, n, d, mean), GMM_OK);
    for (int j = 0; j < d; j++) mean[j] /= (double)n;
    ck_assert_msg(err(mean, f.mean, d) <= 1e-15, "column means: %g", err(mean, f.mean, d));
    ck_assert_int_eq(kmeans_row_norms_cpu(f.X, n, d, f.mean, xn, dev), GMM_OK);
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < d; j++) s += (f.X[i * d + j] - f.mean[j]) * (f.X[i * d + j] - f.mean[j]);
        ref_dev[i] = s;
    }
    ck_assert_msg(err(xn, f.xn, n) <= 1e-15, "row norms: %g", err(xn, f.xn, n));
    ck_assert_msg(err(dev, ref_dev, n) <= 1e-15, "deviations: %g", err(dev, ref_dev, n));
    ck_assert_int_eq(kmeans_sq_norms_cpu(f.C, f.s.k, d, cn), GMM_OK);
    ck_assert_msg(err(cn, f.cn, f.s.k) <= 1e-15, "center norms: %g", err(cn, f.cn, f.s.k));
    float *xf = xmalloc(sizeof(float) * n * d);
    double *xd = xmalloc(sizeof(double) * n * d);
    for (int64_t q = 0; q < n * d; q++) xf[q] = (float)f.X[q];
    ck_assert_int_eq(kmeans_to_double_cpu(xf, (size_t)n * d, xd), GMM_OK);
    for (int64_t q = 0; q < n * d; q++) ck_assert(xd[q] == (double)xf[q]);
    free(mean), free(xn), free(dev), free(cn), free(ref_dev), free(xf), free(xd);
    release(&f);
}
END_TEST

START_TEST(cpu_assign_and_sums)
{
    fixture f;
    make(&SHAPES[_i], &f, 200 + _i);
    const int64_t n = f.s.n;
    const int d = f.s.d, k = f.s.k;
    int *ref_lab = xmalloc(sizeof(int) * n), *lab = xmalloc(sizeof(int) * n);
    double *ref_min = xmalloc(sizeof(double) * n), *min = xmalloc(sizeof(double) * n);
    double *onehot = xmalloc(sizeof(double) * n * k);
    int64_t ref_changed = naive_assign(&f, ref_lab, ref_min), changed = -7;
    memcpy(lab, f.prev, sizeof(int) * n);
    poison(min, n), poison(onehot, (size_t)n * k);
    ck_assert_int_eq(kmeans_assign_cpu(f.dots, f.xn, f.cn, n, k, lab, min, onehot, &changed),
                     GMM_OK);
    ck_assert_int_eq(changed, ref_changed);
    for (int64_t i = 0; i < n; i++) {
        ck_assert_int_eq(lab[i], ref_lab[i]);
        if (k >= 2) ck_assert_int_ne(lab[i], k - 1); /* a tie goes to the first center */
        for (int c = 0; c < k; c++) ck_assert(onehot[i * k + c] == (c == lab[i] ? 1.0 : 0.0));
    }
    ck_assert_msg(err(min, ref_min, n) == 0, "min_dist: %g", err(min, ref_min, n));
    /* again from those labels: nothing changes; no one-hot, no count wanted */
    ck_assert_int_eq(kmeans_assign_cpu(f.dots, f.xn, f.cn, n, k, lab, min, NULL, &changed), GMM_OK);
    ck_assert_int_eq(changed, 0);
    ck_assert_int_eq(kmeans_assign_cpu(f.dots, f.xn, f.cn, n, k, lab, min, NULL, NULL), GMM_OK);

    /* the update's sums and counts; with k >= 2 the duplicate's cluster is empty */
    double *sums = xmalloc(sizeof(double) * k * d), *ref_sums = calloc((size_t)k * d, sizeof(double));
    int *counts = xmalloc(sizeof(int) * k), *ref_counts = calloc(k, sizeof(int));
    for (int64_t i = 0; i < n; i++) {
        ref_counts[lab[i]]++;
        for (int j = 0; j < d; j++) ref_sums[(size_t)lab[i] * d + j] += f.X[i * d + j];
    }
    poison(sums, (size_t)k * d);
    for (int c = 0; c < k; c++) counts[c] = -1;
    ck_assert_int_eq(kmeans_sums_cpu(f.X, n, d, lab, k, sums, counts), GMM_OK);
    for (int c = 0; c < k; c++) ck_assert_int_eq(counts[c], ref_counts[c]);
    if (k >= 2) {
        ck_assert_int_eq(counts[k - 1], 0);
        for (int j = 0; j < d; j++) ck_assert(sums[(size_t)(k - 1) * d + j] == 0.0);
    }
    /* index order in both: the same bits */
    ck_assert_msg(err(sums, ref_sums, (size_t)k * d) == 0, "sums: %g",
                  err(sums, ref_sums, (size_t)k * d));
    free(ref_lab), free(lab), free(ref_min), free(min), free(onehot);
    free(sums), free(ref_sums), free(counts), free(ref_counts);
    release(&f);
}
END_TEST

START_TEST(cpu_argmax)
{
    double x[] = {1, 3, -2, 3, 0.5};
    int64_t idx = -1;
    ck_assert_int_eq(kmeans_argmax_cpu(x, 5, &idx), GMM_OK);
    ck_assert_int_eq(idx, 1); /* the first of a tie */
    ck_assert_int_eq(kmeans_argmax_cpu(x + 2, 1, &idx), GMM_OK);
    ck_assert_int_eq(idx, 0);
    double z[4] = {0, 0, 0, 0};
    ck_assert_int_eq(kmeans_argmax_cpu(z, 4, &idx), GMM_OK);
    ck_assert_int_eq(idx, 0);
}
END_TEST

START_TEST(cpu_pp_distances_and_potentials)
{
    fixture f;
    make(&SHAPES[_i], &f, 300 + _i);
    const int64_t n = f.s.n;
    const int d = f.s.d, T = 3;
    int64_t cand[3] = {0, n - 1, n / 2};
    double *closest = xmalloc(sizeof(double) * n), *out = xmalloc(sizeof(double) * n * T);
    double *ref = xmalloc(sizeof(double) * n * T), pots[3], ref_pots[3];
    poison(closest, n);
    ck_assert_int_eq(kmeans_pp_distances_cpu(f.X, n, d, cand, 1, NULL, closest), GMM_OK);
    for (int64_t i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < d; j++) s += (f.X[i * d + j] - f.X[j]) * (f.X[i * d + j] - f.X[j]);
        ck_assert(closest[i] == s);
    }
    ck_assert(closest[0] == 0.0);
    poison(out, (size_t)n * T);
    ck_assert_int_eq(kmeans_pp_distances_cpu(f.X, n, d, cand, T, closest, out), GMM_OK);
    for (int t = 0; t < T; t++) {
        const double *c = f.X + cand[t] * d;
        double p = 0;
        for (int64_t i = 0; i < n; i++) {
            double s = 0;
            for (int j = 0; j < d; j++) s += (f.X[i * d + j] - c[j]) * (f.X[i * d + j] - c[j]);
            ref[(size_t)t * n + i] = s < closest[i] ? s : closest[i];
            p += ref[(size_t)t * n + i];
        }
        ref_pots[t] = p;
    }
    ck_assert_msg(err(out, ref, (size_t)n * T) == 0, "distances: %g", err(out, ref, (size_t)n * T));
    ck_assert_int_eq(kmeans_pp_potentials_cpu(out, n, T, pots), GMM_OK);
    for (int t = 0; t < T; t++) ck_assert(pots[t] == ref_pots[t]);
    free(closest), free(out), free(ref);
    release(&f);
}
END_TEST

/* The first i whose running sum exceeds r, n - 1 when none. */
static int64_t naive_pick(const double *w, int64_t n, double r)
{
    double run = 0;
    for (int64_t i = 0; i < n; i++)
        if ((run += w[i]) > r) return i;
    return n - 1;
}

START_TEST(cpu_pp_pick)
{
    double w[] = {0, 0, 1, 2, 0, 3, 0};
    double cumsum[7];
    /* r = 0: the first positive weight; at a running sum exactly: the next positive one; past
     * the total, negative, and inside each step */
    double draws[] = {0, 1, 3, 6, 100, -1, 0.5, 2.5, 5.999};
    int64_t expect[] = {2, 3, 5, 6, 6, 0, 2, 3, 5};
    int64_t picks[9];
    ck_assert_int_eq(kmeans_pp_pick_cpu(w, 7, draws, 9, picks, cumsum), GMM_OK);
    for (int t = 0; t < 9; t++) {
        ck_assert_int_eq(picks[t], expect[t]);
        ck_assert_int_eq(picks[t], naive_pick(w, 7, draws[t]));
    }
    double one = 0.0, r = 0.3;
    ck_assert_int_eq(kmeans_pp_pick_cpu(&one, 1, &r, 1, picks, cumsum), GMM_OK);
    ck_assert_int_eq(picks[0], 0);
    /* random weights and draws against the linear scan */
    enum { N = 1000, T = KMEANS_PP_MAX_TRIALS };
    double *ww = xmalloc(sizeof(double) * N), *cs = xmalloc(sizeof(double) * N), rr[T], total = 0;
    int64_t pp[T];
    tu_fill_uniform(ww, N, 0.0, 1.0, 77);
    for (int i = 0; i < N; i += 5) ww[i] = 0;
    for (int i = 0; i < N; i++) total += ww[i];
    tu_fill_uniform(rr, T, 0.0, total, 78);
    ck_assert_int_eq(kmeans_pp_pick_cpu(ww, N, rr, T, pp, cs), GMM_OK);
    for (int t = 0; t < T; t++) ck_assert_int_eq(pp[t], naive_pick(ww, N, rr[t]));
    ck_assert_int_eq(kmeans_pp_pick_cpu(ww, N, rr, T + 1, pp, cs), GMM_ERR_ARG);
    free(ww), free(cs);
}
END_TEST

/* Two blobs (around 0 and around 10 in every coordinate), both seeds on the same sample of the
 * first: every sample ties to center 0, center 1's cluster is empty and moves to the farthest
 * sample, which is in the second blob; Lloyd then separates the blobs. */
START_TEST(lloyd_empty_cluster)
{
    const int64_t n = 301;
    const int d = 3, k = 2;
    double *X = xmalloc(sizeof(double) * n * d), centers[6];
    int *labels = xmalloc(sizeof(int) * n), n_iter = 0;
    tu_fill_uniform(X, (size_t)n * d, -1.0, 1.0, 5);
    for (int64_t i = 0; i < n; i++)
        if (i % 2) for (int j = 0; j < d; j++) X[i * d + j] += 10;
    memcpy(centers, X, sizeof(double) * d);
    memcpy(centers + d, X, sizeof(double) * d);
    ck_assert_int_eq(gmm_kmeans_lloyd(X, n, d, k, 100, centers, labels, &n_iter), GMM_OK);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(labels[i], (int)(i % 2));
    for (int c = 0; c < k; c++) {
        double m[3] = {0, 0, 0};
        int64_t cnt = 0;
        for (int64_t i = c; i < n; i += 2, cnt++)
            for (int j = 0; j < d; j++) m[j] += X[i * d + j];
        for (int j = 0; j < d; j++)
            ck_assert_msg(fabs(centers[c * d + j] - m[j] / cnt) < 1e-12, "center %d", c);
    }
    ck_assert(n_iter >= 2 && n_iter <= 100);
    /* max_iter = 1: one assignment and one update */
    memcpy(centers, X, sizeof(double) * d);
    memcpy(centers + d, X, sizeof(double) * d);
    ck_assert_int_eq(gmm_kmeans_lloyd(X, n, d, k, 1, centers, labels, &n_iter), GMM_OK);
    ck_assert_int_eq(n_iter, 1);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(labels[i], 0);
    ck_assert_int_eq(gmm_kmeans_lloyd(X, n, d, k, 0, centers, labels, &n_iter), GMM_ERR_ARG);
    free(X), free(labels);
}
END_TEST

/* K = 1, d = 1: the center is the mean, every label 0. */
START_TEST(lloyd_k1_d1)
{
    const int64_t n = 17;
    double X[17], c, mean = 0;
    int labels[17], n_iter = 0;
    tu_fill_uniform(X, n, -3.0, 5.0, 9);
    for (int64_t i = 0; i < n; i++) mean += X[i];
    mean /= n;
    c = X[4];
    ck_assert_int_eq(gmm_kmeans_lloyd(X, n, 1, 1, 300, &c, labels, &n_iter), GMM_OK);
    ck_assert(fabs(c - mean) < 1e-13);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(labels[i], 0);
    ck_assert(n_iter >= 1 && n_iter <= 3);
}
END_TEST

/* k-means++ on three far blobs picks one seed in each; K = 1 draws once. */
START_TEST(kpp_blobs)
{
    const int64_t n = 600;
    const int d = 4;
    double *X = xmalloc(sizeof(double) * n * d);
    tu_fill_uniform(X, (size_t)n * d, 0.0, 1.0, 11);
    for (int64_t i = 0; i < n; i++)
        for (int j = 0; j < d; j++) X[i * d + j] += 100.0 * (double)(i % 3);
    for (uint64_t seed = 1; seed <= 5; seed++) {
        gmm_rng rng, copy;
        gmm_rng_seed(&rng, seed);
        int64_t idx[3];
        ck_assert_int_eq(gmm_kmeans_plusplus(X, n, d, 3, &rng, idx), GMM_OK);
        int seen[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            ck_assert(idx[k] >= 0 && idx[k] < n);
            seen[idx[k] % 3]++;
        }
        ck_assert_msg(seen[0] == 1 && seen[1] == 1 && seen[2] == 1, "seed %d", (int)seed);
        gmm_rng_seed(&rng, seed);
        gmm_rng_seed(&copy, seed);
        ck_assert_int_eq(gmm_kmeans_plusplus(X, n, d, 1, &rng, idx), GMM_OK);
        ck_assert_int_eq(idx[0], (int64_t)gmm_rng_below(&copy, (uint64_t)n));
        ck_assert(memcmp(&rng, &copy, sizeof rng) == 0);
    }
    free(X);
}
END_TEST

START_TEST(bad_arguments)
{
    double x = 1;
    int lab = 0, cnt = 0;
    int64_t idx;
    ck_assert_int_eq(kmeans_assign_cpu(NULL, &x, &x, 1, 1, &lab, &x, NULL, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(kmeans_sums_cpu(&x, 1, 1, &lab, 0, &x, &cnt), GMM_ERR_ARG);
    lab = 3;
    ck_assert_int_eq(kmeans_sums_cpu(&x, 1, 1, &lab, 2, &x, &cnt), GMM_ERR_ARG);
    ck_assert_int_eq(kmeans_argmax_cpu(&x, 0, &idx), GMM_ERR_ARG);
    idx = 5;
    ck_assert_int_eq(kmeans_pp_distances_cpu(&x, 1, 1, &idx, 1, NULL, &x), GMM_ERR_ARG);
    /* the GEMM-free label sums' workspace: one slab per 256 rows, at most 64; none past 192
     * components (the GEMM sums then) */
    ck_assert_uint_eq(kmeans_label_sums_work(1, 1, 1), 1);
    ck_assert_uint_eq(kmeans_label_sums_work(257, 10, 784), 2 * 10 * 784);
    ck_assert_uint_eq(kmeans_label_sums_work(60000, 192, 784), 64 * 192 * 784);
    ck_assert_uint_eq(kmeans_label_sums_work(60000, 193, 784), 0);
    ck_assert_uint_eq(kmeans_label_sums_work(0, 10, 784), 0);
}
END_TEST

/* ---- CUDA against the CPU twins ------------------------------------------------------------ */

#define GPU_OK(expr)                                                                              \
    do {                                                                                          \
        gmm_status st_ = (expr);                                                                  \
        ck_assert_msg(st_ == GMM_OK, "%s: %s", #expr, gmm_error_message(st_));                   \
    } while (0)

static void *dalloc(size_t bytes)
{
    void *p = NULL;
    GPU_OK(bench_gpu_alloc(&p, bytes ? bytes : 8));
    return p;
}

static void *dup_to_device(const void *host, size_t bytes)
{
    void *p = dalloc(bytes);
    GPU_OK(bench_gpu_upload(p, host, bytes));
    return p;
}

/* a device buffer of n doubles filled with NaN */
static double *dpoisoned(size_t n)
{
    double *h = xmalloc(sizeof(double) * (n ? n : 1));
    poison(h, n);
    double *d = dup_to_device(h, sizeof(double) * n);
    free(h);
    return d;
}

static void down(void *host, const void *d_src, size_t bytes)
{
    GPU_OK(bench_gpu_sync());
    GPU_OK(bench_gpu_download(host, d_src, bytes));
}

START_TEST(gpu_norms_and_means)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    fixture f;
    make(&SHAPES[_i], &f, 400 + _i);
    const int64_t n = f.s.n;
    const int d = f.s.d, k = f.s.k;
    const size_t nd = (size_t)n * d;
    double *mean = xmalloc(sizeof(double) * d), *xn = xmalloc(sizeof(double) * n);
    double *dev = xmalloc(sizeof(double) * n), *cn = xmalloc(sizeof(double) * k);
    double *g = xmalloc(sizeof(double) * nd);
    for (int j = 0; j < d; j++) mean[j] = 0;
    ck_assert_int_eq(kmeans_column_sums_cpu(f.X, n, d, mean), GMM_OK);
    ck_assert_int_eq(kmeans_row_norms_cpu(f.X, n, d, f.mean, xn, dev), GMM_OK);
    ck_assert_int_eq(kmeans_sq_norms_cpu(f.C, k, d, cn), GMM_OK);

    double *d_X = dup_to_device(f.X, sizeof(double) * nd), *d_C = dup_to_device(f.C, sizeof(double) * k * d);
    double *d_mean = dpoisoned(d), *d_xn = dpoisoned(n), *d_dev = dpoisoned(n), *d_cn = dpoisoned(k);
    GPU_OK(bench_gpu_upload(d_mean, f.X, sizeof(double) * d)); /* sums add to what is there */
    GPU_OK(kmeans_column_sums_cuda(d_X, n, d, d_mean, NULL));
    down(g, d_mean, sizeof(double) * d);
    for (int j = 0; j < d; j++) mean[j] += f.X[j];
    ck_assert_msg(err(g, mean, d) <= 1e-13, "column sums %lldx%d: %g", (long long)n, d, err(g, mean, d));
    /* the row norms from the fixture's mean, so only the norms are compared */
    GPU_OK(bench_gpu_upload(d_mean, f.mean, sizeof(double) * d));
    GPU_OK(kmeans_row_norms_cuda(d_X, n, d, d_mean, d_xn, d_dev, NULL));
    down(g, d_xn, sizeof(double) * n);
    ck_assert_msg(err(g, xn, n) <= 1e-13, "row norms: %g", err(g, xn, n));
    down(g, d_dev, sizeof(double) * n);
    ck_assert_msg(err(g, dev, n) <= 1e-13, "deviations: %g", err(g, dev, n));
    GPU_OK(kmeans_sq_norms_cuda(d_C, k, d, d_cn, NULL));
    down(g, d_cn, sizeof(double) * k);
    ck_assert_msg(err(g, cn, k) <= 1e-13, "center norms: %g", err(g, cn, k));

    float *xf = xmalloc(sizeof(float) * nd);
    double *ref = xmalloc(sizeof(double) * nd);
    for (size_t q = 0; q < nd; q++) xf[q] = (float)f.X[q];
    ck_assert_int_eq(kmeans_to_double_cpu(xf, nd, ref), GMM_OK);
    float *d_xf = dup_to_device(xf, sizeof(float) * nd);
    double *d_xd = dpoisoned(nd);
    GPU_OK(kmeans_to_double_cuda(d_xf, nd, d_xd, NULL));
    down(g, d_xd, sizeof(double) * nd);
    ck_assert(memcmp(g, ref, sizeof(double) * nd) == 0);

    bench_gpu_free(d_X), bench_gpu_free(d_C), bench_gpu_free(d_mean), bench_gpu_free(d_xn);
    bench_gpu_free(d_dev), bench_gpu_free(d_cn), bench_gpu_free(d_xf), bench_gpu_free(d_xd);
    free(mean), free(xn), free(dev), free(cn), free(g), free(xf), free(ref);
    release(&f);
}
END_TEST

START_TEST(gpu_assign_sums_argmax)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    fixture f;
    make(&SHAPES[_i], &f, 500 + _i);
    const int64_t n = f.s.n;
    const int d = f.s.d, k = f.s.k;
    const size_t nk = (size_t)n * k;
    int *lab = xmalloc(sizeof(int) * n), *glab = xmalloc(sizeof(int) * n);
    double *min = xmalloc(sizeof(double) * n), *onehot = xmalloc(sizeof(double) * nk);
    double *g = xmalloc(sizeof(double) * (nk > (size_t)k * d ? nk : (size_t)k * d) + 8);
    int64_t changed = 0;
    memcpy(lab, f.prev, sizeof(int) * n);
    ck_assert_int_eq(kmeans_assign_cpu(f.dots, f.xn, f.cn, n, k, lab, min, onehot, &changed), GMM_OK);

    double *d_dots = dup_to_device(f.dots, sizeof(double) * nk);
    double *d_xn = dup_to_device(f.xn, sizeof(double) * n), *d_cn = dup_to_device(f.cn, sizeof(double) * k);
    int *d_lab = dup_to_device(f.prev, sizeof(int) * n);
    double *d_min = dpoisoned(n), *d_onehot = dpoisoned(nk);
    unsigned long long *d_changed = dalloc(sizeof(unsigned long long)), gch = 12345;
    GPU_OK(bench_gpu_upload(d_changed, &gch, sizeof gch)); /* set, not added to */
    GPU_OK(kmeans_assign_cuda(d_dots, d_xn, d_cn, n, k, d_lab, d_min, d_onehot, d_changed, NULL));
    down(&gch, d_changed, sizeof gch);
    ck_assert_int_eq((int64_t)gch, changed);
    down(glab, d_lab, sizeof(int) * n);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(glab[i], lab[i]);
    down(g, d_min, sizeof(double) * n);
    ck_assert_msg(err(g, min, n) <= BOUND, "min_dist: %g", err(g, min, n));
    down(g, d_onehot, sizeof(double) * nk);
    ck_assert(memcmp(g, onehot, sizeof(double) * nk) == 0);
    /* again, no count and no one-hot: labels unchanged; then counted: nothing changed */
    GPU_OK(kmeans_assign_cuda(d_dots, d_xn, d_cn, n, k, d_lab, d_min, NULL, NULL, NULL));
    down(glab, d_lab, sizeof(int) * n);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(glab[i], lab[i]);
    GPU_OK(kmeans_assign_cuda(d_dots, d_xn, d_cn, n, k, d_lab, d_min, NULL, d_changed, NULL));
    down(&gch, d_changed, sizeof gch);
    ck_assert_int_eq((int64_t)gch, 0);

    /* sums and counts of the labels (k >= 2: the duplicate's cluster is empty) */
    double *sums = xmalloc(sizeof(double) * k * d);
    int *counts = xmalloc(sizeof(int) * k), *gcounts = xmalloc(sizeof(int) * k);
    ck_assert_int_eq(kmeans_sums_cpu(f.X, n, d, lab, k, sums, counts), GMM_OK);
    double *d_X = dup_to_device(f.X, sizeof(double) * n * d), *d_sums = dpoisoned((size_t)k * d);
    int *d_counts = dalloc(sizeof(int) * k);
    for (int c = 0; c < k; c++) gcounts[c] = -1;
    GPU_OK(bench_gpu_upload(d_counts, gcounts, sizeof(int) * k));
    GPU_OK(kmeans_sums_cuda(bench_gpu_resources(), d_X, n, d, d_lab, d_onehot, k, d_sums, d_counts));
    down(gcounts, d_counts, sizeof(int) * k);
    for (int c = 0; c < k; c++) ck_assert_int_eq(gcounts[c], counts[c]);
    down(g, d_sums, sizeof(double) * k * d);
    ck_assert_msg(err(g, sums, (size_t)k * d) <= BOUND, "sums %lldx%dx%d: %g", (long long)n, d, k,
                  err(g, sums, (size_t)k * d));

    /* the same without a GEMM: the assignment from X and the centers (from the previous labels
     * again), then the label sums */
    double *d_C = dup_to_device(f.C, sizeof(double) * k * d);
    GPU_OK(bench_gpu_upload(d_lab, f.prev, sizeof(int) * n));
    gch = 12345;
    GPU_OK(bench_gpu_upload(d_changed, &gch, sizeof gch));
    GPU_OK(bench_gpu_upload(d_min, onehot, sizeof(double) * n)); /* overwritten */
    GPU_OK(kmeans_assign_rows_cuda(d_X, n, d, d_C, d_xn, d_cn, k, d_lab, d_min, d_onehot,
                                   d_changed, NULL));
    down(&gch, d_changed, sizeof gch);
    ck_assert_int_eq((int64_t)gch, changed);
    down(glab, d_lab, sizeof(int) * n);
    for (int64_t i = 0; i < n; i++) ck_assert_int_eq(glab[i], lab[i]);
    down(g, d_min, sizeof(double) * n);
    ck_assert_msg(err(g, min, n) <= BOUND, "rows min_dist: %g", err(g, min, n));
    down(g, d_onehot, sizeof(double) * nk);
    ck_assert(memcmp(g, onehot, sizeof(double) * nk) == 0);
    GPU_OK(kmeans_assign_rows_cuda(d_X, n, d, d_C, d_xn, d_cn, k, d_lab, d_min, NULL, d_changed,
                                   NULL));
    down(&gch, d_changed, sizeof gch);
    ck_assert_int_eq((int64_t)gch, 0);
    size_t work = kmeans_label_sums_work(n, k, d);
    ck_assert_uint_gt(work, 0);
    double *d_work = dpoisoned(work), *d_sums2 = dpoisoned((size_t)k * d);
    for (int c = 0; c < k; c++) gcounts[c] = -1;
    GPU_OK(bench_gpu_upload(d_counts, gcounts, sizeof(int) * k));
    GPU_OK(kmeans_label_sums_cuda(d_X, n, d, d_lab, k, d_sums2, d_counts, d_work, NULL));
    down(gcounts, d_counts, sizeof(int) * k);
    for (int c = 0; c < k; c++) ck_assert_int_eq(gcounts[c], counts[c]);
    down(g, d_sums2, sizeof(double) * k * d);
    ck_assert_msg(err(g, sums, (size_t)k * d) <= BOUND, "label sums %lldx%dx%d: %g",
                  (long long)n, d, k, err(g, sums, (size_t)k * d));
    bench_gpu_free(d_C), bench_gpu_free(d_work), bench_gpu_free(d_sums2);

    /* argmax of the distances, then with the maximum repeated (the first wins) */
    int64_t far = -1, gfar = -1;
    int64_t *d_far = dalloc(sizeof(int64_t));
    for (int rep = 0; rep < 2; rep++) {
        if (rep == 1) {
            double top = min[0];
            for (int64_t i = 0; i < n; i++) top = fmax(top, min[i]);
            min[n / 3] = min[n - 1] = top + 1;
            GPU_OK(bench_gpu_upload(d_min, min, sizeof(double) * n));
        } else {
            GPU_OK(bench_gpu_upload(d_min, min, sizeof(double) * n)); /* the CPU's distances */
        }
        ck_assert_int_eq(kmeans_argmax_cpu(min, n, &far), GMM_OK);
        GPU_OK(kmeans_argmax_cuda(d_min, n, d_far, NULL));
        down(&gfar, d_far, sizeof gfar);
        ck_assert_int_eq(gfar, far);
    }
    ck_assert_int_eq(far, n / 3);

    bench_gpu_free(d_dots), bench_gpu_free(d_xn), bench_gpu_free(d_cn), bench_gpu_free(d_lab);
    bench_gpu_free(d_min), bench_gpu_free(d_onehot), bench_gpu_free(d_changed);
    bench_gpu_free(d_X), bench_gpu_free(d_sums);
    bench_gpu_free(d_counts), bench_gpu_free(d_far);
    free(lab), free(glab), free(min), free(onehot), free(g), free(sums), free(counts), free(gcounts);
    release(&f);
}
END_TEST

/* The label sums past 48 components (32 columns a block) up to the most, 192, with clusters
 * left empty, and a row count past several slabs. */
START_TEST(gpu_label_sums_many)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    const int ks[] = {49, 192}, d = 37;
    const int64_t n = 3001;
    const int k = ks[_i];
    double *X = xmalloc(sizeof(double) * n * d), *sums = xmalloc(sizeof(double) * k * d);
    double *g = xmalloc(sizeof(double) * k * d);
    int *lab = xmalloc(sizeof(int) * n), *counts = xmalloc(sizeof(int) * k);
    int *gcounts = xmalloc(sizeof(int) * k);
    tu_fill_uniform(X, (size_t)n * d, -3.0, 5.0, 77 + _i);
    for (int64_t i = 0; i < n; i++) lab[i] = (int)((i * 7 + i / 5) % (k - 3)); /* 3 empty */
    ck_assert_int_eq(kmeans_sums_cpu(X, n, d, lab, k, sums, counts), GMM_OK);
    double *d_X = dup_to_device(X, sizeof(double) * n * d), *d_sums = dpoisoned((size_t)k * d);
    double *d_work = dpoisoned(kmeans_label_sums_work(n, k, d));
    int *d_lab = dup_to_device(lab, sizeof(int) * n), *d_counts = dalloc(sizeof(int) * k);
    GPU_OK(kmeans_label_sums_cuda(d_X, n, d, d_lab, k, d_sums, d_counts, d_work, NULL));
    down(gcounts, d_counts, sizeof(int) * k);
    for (int c = 0; c < k; c++) ck_assert_int_eq(gcounts[c], counts[c]);
    ck_assert_int_eq(counts[k - 1], 0);
    down(g, d_sums, sizeof(double) * k * d);
    ck_assert_msg(err(g, sums, (size_t)k * d) <= BOUND, "label sums K = %d: %g", k,
                  err(g, sums, (size_t)k * d));
    ck_assert_int_eq(kmeans_label_sums_cuda(d_X, n, d, d_lab, 193, d_sums, d_counts, d_work,
                                            NULL),
                     GMM_ERR_ARG);
    gmm_error_clear();
    bench_gpu_free(d_X), bench_gpu_free(d_sums), bench_gpu_free(d_work), bench_gpu_free(d_lab);
    bench_gpu_free(d_counts);
    free(X), free(sums), free(g), free(lab), free(counts), free(gcounts);
}
END_TEST

START_TEST(gpu_pp)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    fixture f;
    make(&SHAPES[_i], &f, 600 + _i);
    const int64_t n = f.s.n;
    const int d = f.s.d, T = 3;
    const size_t nd = (size_t)n * d;
    int64_t cand[3] = {n / 2, 0, n - 1};
    double *closest = xmalloc(sizeof(double) * n), *out = xmalloc(sizeof(double) * n * T);
    double *g = xmalloc(sizeof(double) * n * T), pots[3], gpots[3];
    ck_assert_int_eq(kmeans_pp_distances_cpu(f.X, n, d, cand, 1, NULL, closest), GMM_OK);
    ck_assert_int_eq(kmeans_pp_distances_cpu(f.X, n, d, cand, T, closest, out), GMM_OK);
    ck_assert_int_eq(kmeans_pp_potentials_cpu(out, n, T, pots), GMM_OK);

    /* float64 data, then float32 data against the twin on the same values in float64 */
    float *xf = xmalloc(sizeof(float) * nd);
    double *xfd = xmalloc(sizeof(double) * nd), *closest_f = xmalloc(sizeof(double) * n);
    double *out_f = xmalloc(sizeof(double) * n * T);
    for (size_t q = 0; q < nd; q++) xfd[q] = xf[q] = (float)f.X[q];
    ck_assert_int_eq(kmeans_pp_distances_cpu(xfd, n, d, cand, 1, NULL, closest_f), GMM_OK);
    ck_assert_int_eq(kmeans_pp_distances_cpu(xfd, n, d, cand, T, closest_f, out_f), GMM_OK);
    double *d_X = dup_to_device(f.X, sizeof(double) * nd);
    float *d_xf = dup_to_device(xf, sizeof(float) * nd);
    int64_t *d_cand = dup_to_device(cand, sizeof cand);
    for (int single = 0; single < 2; single++) {
        double *d_closest = dpoisoned(n), *d_out = dpoisoned((size_t)n * T);
        const double *ref_closest = single ? closest_f : closest, *ref_out = single ? out_f : out;
        if (single) {
            GPU_OK(kmeans_pp_distances_f32_cuda(d_xf, n, d, d_cand, 1, NULL, d_closest, NULL));
            GPU_OK(kmeans_pp_distances_f32_cuda(d_xf, n, d, d_cand, T, d_closest, d_out, NULL));
        } else {
            GPU_OK(kmeans_pp_distances_cuda(d_X, n, d, d_cand, 1, NULL, d_closest, NULL));
            GPU_OK(kmeans_pp_distances_cuda(d_X, n, d, d_cand, T, d_closest, d_out, NULL));
        }
        down(g, d_closest, sizeof(double) * n);
        ck_assert_msg(err(g, ref_closest, n) <= BOUND, "closest (%s): %g", single ? "f32" : "f64",
                      err(g, ref_closest, n));
        down(g, d_out, sizeof(double) * n * T);
        ck_assert_msg(err(g, ref_out, (size_t)n * T) <= BOUND, "candidates (%s): %g",
                      single ? "f32" : "f64", err(g, ref_out, (size_t)n * T));
        bench_gpu_free(d_closest), bench_gpu_free(d_out);
    }

    /* potentials of the CPU's candidate distances */
    double *d_out = dup_to_device(out, sizeof(double) * n * T), *d_pots = dpoisoned(T);
    double *d_work = dalloc(sizeof(double) * kmeans_pp_potentials_work(n, T));
    GPU_OK(kmeans_pp_potentials_cuda(d_out, n, T, d_pots, d_work, NULL));
    down(gpots, d_pots, sizeof gpots);
    ck_assert_msg(err(gpots, pots, T) <= BOUND, "potentials: %g", err(gpots, pots, T));

    /* picks by the closest distances: draws halfway inside steps that are not tiny (so that
     * the two cumsum orders agree), 0, and past the total (the clip to n - 1) */
    double *cs = xmalloc(sizeof(double) * n), draws[KMEANS_PP_MAX_TRIALS], total = 0;
    int64_t picks[KMEANS_PP_MAX_TRIALS], gpicks[KMEANS_PP_MAX_TRIALS];
    int nd_draws = 0;
    for (int64_t i = 0; i < n; i++) total += closest[i];
    draws[nd_draws++] = 0.0;
    draws[nd_draws++] = 2 * total + 1;
    {
        double run = 0;
        for (int64_t i = 0; i < n && nd_draws < KMEANS_PP_MAX_TRIALS; i += 1 + n / 50) {
            run = 0;
            for (int64_t q = 0; q < i; q++) run += closest[q];
            if (closest[i] > 1e-6 * total) draws[nd_draws++] = run + 0.5 * closest[i];
        }
    }
    ck_assert_int_eq(kmeans_pp_pick_cpu(closest, n, draws, nd_draws, picks, cs), GMM_OK);
    double *d_w = dup_to_device(closest, sizeof(double) * n);
    double *d_draws = dup_to_device(draws, sizeof(double) * nd_draws);
    double *d_pick_work = dalloc(sizeof(double) * kmeans_pp_pick_work(n));
    int64_t *d_picks = dalloc(sizeof(int64_t) * nd_draws);
    GPU_OK(kmeans_pp_pick_cuda(d_w, n, d_draws, nd_draws, d_picks, d_pick_work, NULL));
    down(gpicks, d_picks, sizeof(int64_t) * nd_draws);
    for (int t = 0; t < nd_draws; t++)
        ck_assert_msg(gpicks[t] == picks[t], "pick %d (draw %g of %g): gpu %lld, cpu %lld", t,
                      draws[t], total, (long long)gpicks[t], (long long)picks[t]);
    ck_assert_int_eq(picks[1], n - 1);

    bench_gpu_free(d_X), bench_gpu_free(d_xf), bench_gpu_free(d_cand), bench_gpu_free(d_out);
    bench_gpu_free(d_pots), bench_gpu_free(d_work), bench_gpu_free(d_w), bench_gpu_free(d_draws);
    bench_gpu_free(d_pick_work), bench_gpu_free(d_picks);
    free(closest), free(out), free(g), free(xf), free(xfd), free(closest_f), free(out_f), free(cs);
    release(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("k_kmeans");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, cpu_norms_and_means, 0, N_SHAPES);
    tcase_add_loop_test(tc, cpu_assign_and_sums, 0, N_SHAPES);
    tcase_add_test(tc, cpu_argmax);
    tcase_add_loop_test(tc, cpu_pp_distances_and_potentials, 0, N_SHAPES);
    tcase_add_test(tc, cpu_pp_pick);
    tcase_add_test(tc, lloyd_empty_cluster);
    tcase_add_test(tc, lloyd_k1_d1);
    tcase_add_test(tc, kpp_blobs);
    tcase_add_test(tc, bad_arguments);
    tcase_add_loop_test(tc, gpu_norms_and_means, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_assign_sums_argmax, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_pp, 0, N_SHAPES);
    tcase_add_loop_test(tc, gpu_label_sums_many, 0, 2);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
