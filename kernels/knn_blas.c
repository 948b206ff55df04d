/* knn_cpu_blas (see knn.h): the brute-force kNN in the GEMM form on the CPU. SGEMM on tiles of
 * queries x references gives each pair h = |r|^2 - 2 q.r (the squared distance less |q|^2); each
 * query keeps the k + margin references of smallest h; their distances are then computed again
 * by knn_sq_dist, as knn_cpu computes them, and sorted by (distance, index). That is exact when
 * the k nearest are among the candidates, which a float32 error bound on h shows (below); the
 * queries where it cannot be shown go to knn_cpu itself.
 *
 * The bound: with u = 2^-24 and g_n = n u / (1 - n u), the SGEMM product, the rounded norms and
 * the sum give |h + |q|^2 - |q - r|^2| <= (g_dim + 3u)(|q|^2 + |r|^2), and knn_sq_dist's sum of
 * positive terms gives |d - |q - r|^2| <= (g_dim + 3u) |q - r|^2 <= 2 (g_dim + 3u)(|q|^2 + |r|^2)
 * for its value d. So |h + |q|^2 - d| <= E = eps (|q|^2 + R), eps = 3 g_dim + 10 u (doubled here
 * for safety), R the largest |r|^2. If T is the k-th smallest h, k references have d <= T +
 * |q|^2 + E, so each of the k nearest (by d) has h <= T + 2E. When the (k + margin)-th smallest h
 * is above T + 2E, every reference left out is farther than the k nearest: the candidates are
 * conclusive. Otherwise (many near-ties, or norms so large that E swamps the distances: data far
 * from the origin) the query is answered by knn_cpu. Data whose squared norms are not finite
 * (or large enough to overflow the form) go to knn_cpu entirely.
 *
 * A self-kNN (queries == refs) computes only the tiles on and above the diagonal and reads each
 * off-diagonal tile twice: by rows for its queries, by columns for the transposed pairs; it keeps
 * every query's candidates to the end (n (k + margin) pairs). Otherwise the queries go one tile
 * at a time, settled before the next.
 * Threads: SGEMM runs on OpenBLAS's threads, one tile at a time; the scans of a tile and the
 * final candidates run on OpenMP's, between the SGEMM calls (never nested in each other). */
#include "kernels/knn.h"

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "kernels/blas_cpu.h"

enum {
    KNN_BLAS_MAX_TILE = 1 << 16,
    KNN_BLAS_SCAN_CHUNK = 16,   /* h values tested together before any is inserted */
    KNN_BLAS_PARALLEL_MIN = 1 << 16, /* less work than this in a loop: no team of threads */
    KNN_BLAS_DIRECT_BATCH = 1024 /* rows per knn_cpu call for the inconclusive queries */
};

typedef struct {
    float h; /* |r|^2 - 2 q.r, then (after the scan) knn_sq_dist's squared distance */
    int32_t index;
} cand;

/* Inserts (h, index) into the ascending list of L, whose last entry it must beat; updates
 * *worst, the list's last h. */
static void insert_cand(cand *list, size_t L, float *worst, float h, int32_t index)
{
    size_t pos = L - 1;
    while (pos > 0 && list[pos - 1].h > h) {
        list[pos] = list[pos - 1];
        pos--;
    }
    list[pos].h = h;
    list[pos].index = index;
    *worst = list[L - 1].h;
}

/* Queries q0 .. q0 + nq - 1 (the tile's rows) against references r0 .. r0 + nr - 1 (its
 * columns): C row-major nq x nr, rnorm[j] = |r_j|^2 of the tile's references. */
static void scan_rows(const float *C, size_t nq, size_t nr, const float *rnorm, size_t r0,
                      cand *lists, float *worst, size_t L)
{
#pragma omp parallel for schedule(static) if (nq * nr >= KNN_BLAS_PARALLEL_MIN)
    for (size_t qi = 0; qi < nq; qi++) {
        const float *row = C + qi * nr;
        cand *list = lists + qi * L;
        float w = worst[qi];
        for (size_t j0 = 0; j0 < nr; j0 += KNN_BLAS_SCAN_CHUNK) {
            size_t j1 = nr - j0 < KNN_BLAS_SCAN_CHUNK ? nr : j0 + KNN_BLAS_SCAN_CHUNK;
            int any = 0;
#pragma omp simd reduction(| : any)
            for (size_t j = j0; j < j1; j++) any |= row[j] + rnorm[j] < w;
            if (!any) continue;
            for (size_t j = j0; j < j1; j++) {
                float h = row[j] + rnorm[j];
                if (h < w) insert_cand(list, L, &w, h, (int32_t)(r0 + j));
            }
        }
        worst[qi] = w;
    }
}

/* The transposed pairs of a self-kNN tile: queries r0 .. r0 + nr - 1 (the columns) against
 * references q0 .. q0 + nq - 1 (the rows), qnorm[i] = |x_{q0 + i}|^2; lists and worst are the
 * column queries'. Each thread takes one wide segment of columns and walks the rows (narrow
 * segments, a row's 1 KB at a time, made this scan twice as slow as the rows'). */
static void scan_cols(const float *C, size_t nq, size_t nr, const float *qnorm, size_t q0,
                      cand *lists, float *worst, size_t L)
{
#ifdef _OPENMP
    const size_t threads = (size_t)omp_get_max_threads();
#else
    const size_t threads = 1;
#endif
    const size_t chunks = (nr + KNN_BLAS_SCAN_CHUNK - 1) / KNN_BLAS_SCAN_CHUNK;
    const size_t n_seg = threads < chunks ? threads : chunks;
    const size_t width = (chunks + n_seg - 1) / n_seg * KNN_BLAS_SCAN_CHUNK;
#pragma omp parallel for schedule(static) if (nq * nr >= KNN_BLAS_PARALLEL_MIN)
    for (size_t s = 0; s < n_seg; s++) {
        const size_t c0 = s * width; /* past nr for the last segments of many threads */
        const size_t c1 = c0 + width < nr ? c0 + width : nr;
        for (size_t i = 0; i < nq; i++) {
            const float *row = C + i * nr;
            const float add = qnorm[i];
            for (size_t j0 = c0; j0 < c1; j0 += KNN_BLAS_SCAN_CHUNK) {
                size_t j1 = c1 - j0 < KNN_BLAS_SCAN_CHUNK ? c1 : j0 + KNN_BLAS_SCAN_CHUNK;
                int any = 0;
#pragma omp simd reduction(| : any)
                for (size_t j = j0; j < j1; j++) any |= row[j] + add < worst[j];
                if (!any) continue;
                for (size_t j = j0; j < j1; j++) {
                    float h = row[j] + add;
                    if (h < worst[j])
                        insert_cand(lists + j * L, L, &worst[j], h, (int32_t)(q0 + i));
                }
            }
        }
    }
}

static double sq_norm(const float *x, size_t dim)
{
    double s = 0.0;
    for (size_t c = 0; c < dim; c++) s += (double)x[c] * x[c];
    return s;
}

static int cand_cmp(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->h != y->h) return x->h < y->h ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The queries flagged in direct[], by knn_cpu, in batches of rows copied together. */
static gmm_status answer_directly(const float *queries, size_t n_queries, const float *refs,
                                  size_t n_refs, size_t dim, size_t k, const unsigned char *direct,
                                  int32_t *nn_index, float *nn_dist)
{
    float *rows = malloc(sizeof(float) * KNN_BLAS_DIRECT_BATCH * dim);
    float *dist = malloc(sizeof(float) * KNN_BLAS_DIRECT_BATCH * k);
    int32_t *index = malloc(sizeof(int32_t) * KNN_BLAS_DIRECT_BATCH * k);
    size_t which[KNN_BLAS_DIRECT_BATCH];
    gmm_status st = GMM_OK;
    if (!rows || !dist || !index) {
        st = gmm_error(GMM_ERR_NOMEM, "knn_cpu_blas: out of memory for the direct queries");
        goto done;
    }
    for (size_t q = 0; q < n_queries && st == GMM_OK;) {
        size_t n = 0;
        for (; q < n_queries && n < KNN_BLAS_DIRECT_BATCH; q++)
            if (direct[q]) {
                memcpy(rows + n * dim, queries + q * dim, sizeof(float) * dim);
                which[n++] = q;
            }
        if (n == 0) break;
        st = knn_cpu(rows, n, refs, n_refs, dim, k, index, dist);
        for (size_t i = 0; i < n && st == GMM_OK; i++) {
            memcpy(nn_index + which[i] * k, index + i * k, sizeof(int32_t) * k);
            memcpy(nn_dist + which[i] * k, dist + i * k, sizeof(float) * k);
        }
    }
done:
    free(rows), free(dist), free(index);
    return st;
}

/* What the passes share: the data, the bound's terms, the outputs. */
typedef struct {
    const float *queries, *refs;
    size_t n_refs, dim, k, L;
    double eps, rmax, tiny;
    unsigned char *direct;
    int32_t *nn_index;
    float *nn_dist;
} knn_blas_run;

static void reset_lists(cand *lists, float *worst, size_t nq, size_t L)
{
#pragma omp parallel for schedule(static) if (nq * L >= KNN_BLAS_PARALLEL_MIN)
    for (size_t q = 0; q < nq; q++) {
        for (size_t j = 0; j < L; j++) {
            lists[q * L + j].h = INFINITY;
            lists[q * L + j].index = -1;
        }
        worst[q] = INFINITY;
    }
}

/* Queries q0 .. q0 + nq - 1, whose lists of candidates start at lists: the conclusive ones get
 * their k nearest, the others a flag in direct[]. Returns how many were flagged. */
static size_t settle(const knn_blas_run *r, size_t q0, size_t nq, cand *lists)
{
    const size_t k = r->k, L = r->L, dim = r->dim;
    size_t n_direct = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : n_direct) \
    if (nq * L * dim >= KNN_BLAS_PARALLEL_MIN)
    for (size_t qi = 0; qi < nq; qi++) {
        const size_t q = q0 + qi;
        cand *list = lists + qi * L;
        const float *x = r->queries + q * dim;
        /* only candidates with h <= T + 2E can be among the k nearest (see the top) */
        const double bound = (double)list[k - 1].h + 2.0 * r->eps * (sq_norm(x, dim) + r->rmax) +
                             r->tiny;
        size_t m = k;
        while (m < L && (double)list[m].h <= bound) m++;
        if (m == L && L < r->n_refs) { /* some left out may be as near: not conclusive */
            r->direct[q] = 1;
            n_direct++;
            continue;
        }
        for (size_t j = 0; j < m; j++)
            list[j].h = knn_sq_dist(x, r->refs + (size_t)list[j].index * dim, dim);
        qsort(list, m, sizeof(cand), cand_cmp);
        for (size_t j = 0; j < k; j++) {
            r->nn_index[q * k + j] = list[j].index;
            r->nn_dist[q * k + j] = sqrtf(list[j].h);
        }
    }
    return n_direct;
}

gmm_status knn_cpu_blas_params(const float *queries, size_t n_queries, const float *refs,
                               size_t n_refs, size_t dim, size_t k, int32_t *nn_index,
                               float *nn_dist, knn_blas_params *params)
{
    if (!queries || !refs || !nn_index || !nn_dist || !params || dim == 0 || dim > INT_MAX ||
        k == 0 || k > n_refs || n_refs > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "knn_cpu_blas: need 1 <= k (%zu) <= n_refs (%zu) < 2^31, "
                                      "0 < dim < 2^31", k, n_refs);
    if (params->query_tile < 1 || params->query_tile > KNN_BLAS_MAX_TILE ||
        params->ref_tile < 1 || params->ref_tile > KNN_BLAS_MAX_TILE)
        return gmm_error(GMM_ERR_ARG, "knn_cpu_blas: tiles of %zu x %zu rows, need 1 .. %d",
                         params->query_tile, params->ref_tile, KNN_BLAS_MAX_TILE);
    params->n_direct = 0;
    if (n_queries == 0) return GMM_OK;
    /* a self-kNN keeps every query's candidates until the end; otherwise one tile's at a time */
    const int self = queries == refs && n_queries == n_refs;
    const size_t bq = self ? params->ref_tile : params->query_tile, br = params->ref_tile;
    const double u = 0x1p-24, limit = FLT_MAX / 64;
    knn_blas_run run = {
        .queries = queries, .refs = refs, .n_refs = n_refs, .dim = dim, .k = k,
        .L = params->margin < n_refs - k ? k + params->margin : n_refs,
        .eps = 2.0 * (3.0 * (dim * u / (1.0 - dim * u)) + 10.0 * u),
        .tiny = 8.0 * (3.0 * dim + 10.0) * 0x1p-149, /* 2E's share of underflow */
        .nn_index = nn_index, .nn_dist = nn_dist};
    const size_t L = run.L;
    gmm_status st = GMM_OK;

    /* squared norms: the references' (rounded to float, the GEMM form's term), the largest */
    float *rnorm = malloc(sizeof(float) * n_refs);
    if (!rnorm) return gmm_error(GMM_ERR_NOMEM, "knn_cpu_blas: out of memory for the norms");
    double rmax = 0.0;
    int bad = dim * u > 0.01; /* the bound wants dim u small; 167772 dims and more go direct */
#pragma omp parallel for schedule(static) reduction(max : rmax) reduction(| : bad)
    for (size_t j = 0; j < n_refs; j++) {
        double s = sq_norm(refs + j * dim, dim);
        bad |= !(s <= limit); /* also NaN */
        rmax = s > rmax ? s : rmax;
        rnorm[j] = (float)s;
    }
    run.rmax = rmax;
    if (!self) {
#pragma omp parallel for schedule(static) reduction(| : bad)
        for (size_t q = 0; q < n_queries; q++) bad |= !(sq_norm(queries + q * dim, dim) <= limit);
    }
    if (bad) {
        free(rnorm);
        params->n_direct = n_queries;
        return knn_cpu(queries, n_queries, refs, n_refs, dim, k, nn_index, nn_dist);
    }

    const size_t tile_rows = n_queries < bq ? n_queries : bq, tile_cols = n_refs < br ? n_refs : br;
    const size_t list_rows = self ? n_queries : tile_rows;
    cand *lists = malloc(sizeof(cand) * list_rows * L);
    float *worst = malloc(sizeof(float) * list_rows);
    float *C = malloc(sizeof(float) * tile_rows * tile_cols);
    run.direct = calloc(n_queries, 1);
    if (!lists || !worst || !C || !run.direct) {
        st = gmm_error(GMM_ERR_NOMEM, "knn_cpu_blas: out of memory for %zu queries' candidates",
                       list_rows);
        goto done;
    }
    size_t n_direct = 0;
    if (self) reset_lists(lists, worst, n_queries, L);
    for (size_t q0 = 0; q0 < n_queries; q0 += bq) {
        const size_t nq = n_queries - q0 < bq ? n_queries - q0 : bq;
        cand *q_lists = self ? lists + q0 * L : lists;
        float *q_worst = self ? worst + q0 : worst;
        if (!self) reset_lists(lists, worst, nq, L);
        for (size_t r0 = self ? q0 : 0; r0 < n_refs; r0 += br) {
            const size_t nr = n_refs - r0 < br ? n_refs - r0 : br;
            if (params->should_stop && params->should_stop(params->stop_user)) {
                st = gmm_error(GMM_INTERRUPTED, "interrupted in the kNN search (%zu of %zu "
                               "queries done)", q0, n_queries);
                goto done;
            }
            la_sgemm(false, true, (int)nq, (int)nr, (int)dim, -2.0f, queries + q0 * dim, (int)dim,
                     refs + r0 * dim, (int)dim, 0.0f, C, (int)nr);
            scan_rows(C, nq, nr, rnorm + r0, r0, q_lists, q_worst, L);
            if (self && r0 != q0)
                scan_cols(C, nq, nr, rnorm + q0, q0, lists + r0 * L, worst + r0, L);
        }
        if (!self) n_direct += settle(&run, q0, nq, lists);
    }
    if (self) n_direct = settle(&run, 0, n_queries, lists);
    params->n_direct = n_direct;
    if (n_direct)
        st = answer_directly(queries, n_queries, refs, n_refs, dim, k, run.direct, nn_index,
                             nn_dist);
done:
    free(rnorm), free(lists), free(worst), free(C), free(run.direct);
    return st;
}

gmm_status knn_cpu_blas(const float *queries, size_t n_queries, const float *refs, size_t n_refs,
                        size_t dim, size_t k, int32_t *nn_index, float *nn_dist)
{
    knn_blas_params params = KNN_BLAS_DEFAULTS;
    return knn_cpu_blas_params(queries, n_queries, refs, n_refs, dim, k, nn_index, nn_dist,
                               &params);
}
