/* The CUDA E-step's distances for a full covariance in float64 with the pairs of no weight left
 * partial: the device twin of the CPU backend's cpu_estep_dist_pruned_f64 (cpu_estep.h says
 * why it is exact). Per chunk of rows:
 *   1. block 0 (the first `block` columns) of every pair: one GEMM over all components with the
 *      E-step's packed factors (ucat_kernel), its squares (a warp per pair);
 *   2. each row's candidate: the previous E-step's most responsible component, else the block-0
 *      bounds' most likely one; the candidates in full (columns [block, d));
 *   3. the other pairs whose bound log_const - partial / 2 is within GMM_ESTEP_PRUNE_MARGIN of
 *      their row's candidate, in stages of two blocks (at d = 784 columns [112, 336),
 *      [336, 560), [560, 784)), the bounds tested again before each.
 * A stage lists its pairs component-major (flags, one CUB scan, the K + 1 bounds back to the
 * host), gathers their rows' first c1 columns (one kernel), runs per two blocks one GEMM per
 * component on the cuBLAS lanes, concurrently (G_k[:, 0:p1] x U_k[0:p1, p0:p1] from the
 * unpacked factors: the zeros below the diagonal cost 14-33% of a piece's product at d = 784,
 * less than a GEMM a block would in launches), and adds the squares to the pairs' distances
 * (one kernel). The CPU stages block by block: the device's gathers and launches favour fewer,
 * larger stages, and below PRUNE_MIN_ROWS rows a chunk it forms every pair.
 * On ORDER_MIN_ROWS rows or more of a fit the distances are formed in an order of the
 * coordinates (make_order), as the bound holds in any order: first the block of coordinates
 * whose variance differs most across the components, then each component's others by its own
 * variance, smallest first (where a component is surest, a row that is not its own shows it
 * soonest); each component's covariance so reordered is factored again after each M-step. On 2
 * million augmented Fashion-MNIST images it settled 46% of the non-candidate pairs after block
 * 0 against 33% in the data's order: its GEMMs took 13% less time (16% fewer operations).
 * When more than half the other pairs reach the last stage (responsibilities still soft: the
 * first iterations from a poor start), the next 1, 2, 4 .. 16 E-steps form every pair
 * (cuda_estep.cu) before one tries again. */
#include <cub/cub.cuh>
#include <math.h>
#include <stdlib.h>

#include "kernels/estep_rows.h"
#include "kernels/reduce.cuh"
#include "linalg/chol_inverse.h"
#include "models/backend/cuda/backend_cuda.cuh"

#define WARPS 8 /* a block of threads: 8 warps, a warp per pair */
/* column blocks per stage and per GEMM (a stage's product over U_k[0:c1, c0:c1] in pieces of
 * this many blocks: the zeros below the diagonal cost 7-16% of a piece at d = 784) */
#define PIECE_BLOCKS 2
/* fewer rows a chunk: every pair in full (the stages' launches and waits cost more than they
 * save: 19690 digits, H200, 3.70 ms against 2.81 for the E-step) */
#define PRUNE_MIN_ROWS 32768
/* fewer rows (of this rank's data): the context's own factors, in the data's order (on
 * Fashion-MNIST's 60000 the order's second factorisation and host waits cost more than it
 * saves: 10.78 against 9.09 ms an iteration; on 2 million images it saves 33 ms of 338) */
#define ORDER_MIN_ROWS 262144

/* best[i]: the largest of row i's values v (cst NULL: the previous log responsibilities) or of
 * its bounds cst[k] - v[i, k] / 2 (v: the block-0 distances). */
static __global__ void best_kernel(const double *__restrict__ v, const double *__restrict__ cst,
                                   int64_t n, int K, int *best)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        const double *r = v + i * K;
        int b = 0;
        double top = cst ? cst[0] - 0.5 * r[0] : r[0];
        for (int k = 1; k < K; k++) {
            const double x = cst ? cst[k] - 0.5 * r[k] : r[k];
            if (x > top) top = x, b = k;
        }
        best[i] = b;
    }
}

/* dist[row, k] (+)= sum_t (Z[p, t] - b[k d + c0 + t])^2 over t < width, a warp per entry p:
 * entries [0, n) with rows row_of[p] and components comp_of[p], added; or with row_of NULL
 * every pair of block 0 (p = i K + k, Z row i at column k width, ld ldz), set. */
static __global__ void squares_kernel(const double *__restrict__ Z, int64_t ldz, int width,
                                      const double *__restrict__ b, int d, int c0,
                                      const int *__restrict__ row_of,
                                      const int *__restrict__ comp_of, int K, int64_t n,
                                      double *dist)
{
    const int lane = threadIdx.x & 31;
    const int64_t warps = (int64_t)gridDim.x * (blockDim.x >> 5);
    for (int64_t p = blockIdx.x * (int64_t)(blockDim.x >> 5) + (threadIdx.x >> 5); p < n;
         p += warps) {
        const int k = row_of ? comp_of[p] : (int)(p % K);
        const int64_t row = row_of ? row_of[p] : p / K;
        const double *z = row_of ? Z + p * ldz : Z + row * ldz + (int64_t)k * width;
        const double *c = b + (int64_t)k * d + c0;
        double s = 0;
        for (int t = lane; t < width; t += 32) {
            const double e = z[t] - c[t];
            s += e * e;
        }
        s = warp_sum(s);
        if (lane == 0) {
            double *out = dist + row * K + k;
            *out = row_of ? *out + s : s;
        }
    }
}

/* floors[i] = cst[best] - dist[i, best] / 2 - margin */
static __global__ void floor_kernel(const double *__restrict__ dist, const double *__restrict__ cst,
                                    const int *__restrict__ best, int64_t n, int K, double *floors)
{
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        floors[i] = cst[best[i]] - 0.5 * dist[i * K + best[i]] - GMM_ESTEP_PRUNE_MARGIN;
}

/* flags[k n + i]: the candidates (floors NULL: best[i] == k) or the other pairs still within the
 * margin (best[i] != k and cst[k] - dist[i, k] / 2 >= floors[i]). */
static __global__ void flags_kernel(const double *__restrict__ dist, const double *__restrict__ cst,
                                    const int *__restrict__ best, const double *__restrict__ floors,
                                    int64_t n, int K, int *flags)
{
    const int64_t total = n * K;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int k = (int)(e / n);
        const int64_t i = e - (int64_t)k * n;
        flags[e] = floors ? best[i] != k && cst[k] - 0.5 * dist[i * K + k] >= floors[i]
                         : best[i] == k;
    }
}

/* row_of[scan[e]] = i, comp_of[scan[e]] = k for the flagged e = k n + i; bounds[k] = scan[k n],
 * bounds[K] the total */
static __global__ void scatter_kernel(const int *__restrict__ flags, const int *__restrict__ scan,
                                      int64_t n, int K, int *row_of, int *comp_of, int *bounds)
{
    const int64_t total = n * K;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < total;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int k = (int)(e / n);
        const int64_t i = e - (int64_t)k * n;
        if (flags[e]) {
            row_of[scan[e]] = (int)i;
            comp_of[scan[e]] = k;
        }
        if (i == 0) bounds[k] = scan[e];
        if (e == total - 1) bounds[K] = scan[e] + flags[e];
    }
}

/* G[p, 0:cols] = X[i, 0:cols] for the pair p < n of row i = row_of[p] (row_of NULL: i = p);
 * with an order, X[i, perm_k[0:cols]] for k = comp_of[p] (comp_of NULL: k = 0; perm: K x d).
 * A block of GATHER_THREADS per pair: its row's reads stay in the L1 cache whatever the order
 * (an element a thread, p = e / cols, took 18-28% longer in the order than in the data's).
 * Gathering from the image bytes the chunk was converted from (an eighth of the reads)
 * measured no faster (2 million images: 1155 ms against 1157 over 20 E-steps). */
#define GATHER_THREADS 128
static __global__ void gather_kernel(const double *__restrict__ X, int d,
                                     const int *__restrict__ row_of,
                                     const int *__restrict__ comp_of,
                                     const int *__restrict__ perm, int64_t n, int cols, double *G)
{
    for (int64_t p = blockIdx.x; p < n; p += gridDim.x) {
        const double *x = X + (row_of ? (int64_t)row_of[p] : p) * d;
        double *g = G + p * cols;
        if (perm) {
            const int *pk = perm + (comp_of ? (int64_t)comp_of[p] * d : 0);
#pragma unroll 4
            for (int t = threadIdx.x; t < cols; t += GATHER_THREADS) g[t] = x[pk[t]];
        } else {
#pragma unroll 4
            for (int t = threadIdx.x; t < cols; t += GATHER_THREADS) g[t] = x[t];
        }
    }
}

/* The blocks of a gather_kernel over n pairs. */
static unsigned gather_blocks(int64_t n)
{
    return (unsigned)(n < 1 ? 1 : n < (1 << 20) ? n : 1 << 20);
}

/* The pieces of c->d_prune for chunks of `rows` rows. */
typedef struct {
    int *flags, *scan, *row_of, *comp_of, *best, *bounds;
    double *floors;
    void *cub_tmp;
    size_t cub_bytes;
} prune_buffers;

static size_t align256(size_t b) { return (b + 255) / 256 * 256; }

static gmm_status prune_layout(gmm_backend_ctx *c, int64_t rows, prune_buffers *p, size_t *bytes)
{
    gmm_status status = GMM_OK;
    const size_t items = (size_t)rows * c->n_components, K = c->n_components;
    size_t cub_bytes = 0;
    GMM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(NULL, cub_bytes, (const int *)NULL, (int *)NULL,
                                                 (int)items));
    {
        char *base = (char *)c->d_prune;
        size_t off = 0;
#define TAKE(field, type, count)                                                               \
    p->field = (type *)(base ? base + off : NULL);                                             \
    off += align256(sizeof(type) * (count));
        TAKE(flags, int, items)
        TAKE(scan, int, items)
        TAKE(row_of, int, items)
        TAKE(comp_of, int, items)
        TAKE(best, int, rows)
        TAKE(bounds, int, K + 1)
        TAKE(floors, double, rows)
#undef TAKE
        p->cub_tmp = base ? base + off : NULL;
        p->cub_bytes = cub_bytes;
        *bytes = off + align256(cub_bytes);
    }
fail:
    return status;
}

/* The pairs flagged by flags_kernel, listed component-major; c->h_prune_bounds gets the K + 1
 * bounds (the call waits for them). */
static gmm_status list_pairs(gmm_backend_ctx *c, const prune_buffers *p, const double *dist,
                             const double *floors, int64_t rows)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components;
    const int64_t items = rows * K;
    flags_kernel<<<grid_for(items, 256), 256>>>(dist, c->d_const, p->best, floors, rows, K,
                                                p->flags);
    size_t cub_bytes = p->cub_bytes;
    GMM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(p->cub_tmp, cub_bytes, p->flags, p->scan,
                                                 (int)items));
    scatter_kernel<<<grid_for(items, 256), 256>>>(p->flags, p->scan, rows, K, p->row_of,
                                                  p->comp_of, p->bounds);
    GMM_CUDA_CHECK(cudaMemcpy(c->h_prune_bounds, p->bounds, sizeof(int) * (K + 1),
                              cudaMemcpyDeviceToHost));
fail:
    return status;
}

/* ---- the coordinate order ------------------------------------------------------------------ */

/* The factors a pruned E-step reads: the context's own (perm NULL) or those of the order. */
typedef struct {
    const int *perm;     /* K x d: component k's coordinate t is the data's perm[k d + t] */
    const double *prec;  /* K x d x d upper-triangular factors in that order */
    const double *b;     /* K x d: mu_k U_k in that order */
    const double *ucat0; /* block x K block: [U_1[0:w, 0:w] .. U_K[0:w, 0:w]] (perm only) */
} factor_set;

typedef struct {
    int *perm;
    double *prec, *b, *means, *ucat0;
} order_buffers;

typedef struct {
    double key;
    int index;
} keyed;

static int by_key(const void *a, const void *b)
{
    const keyed *x = (const keyed *)a, *y = (const keyed *)b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

static size_t order_layout(const gmm_backend_ctx *c, int block, order_buffers *o)
{
    const size_t K = c->n_components, d = c->dim;
    char *base = (char *)c->d_order;
    size_t off = 0;
#define TAKE(field, type, count)                                                               \
    if (o) o->field = (type *)(base ? base + off : NULL);                                      \
    off += align256(sizeof(type) * (count));
    TAKE(perm, int, K * d)
    TAKE(prec, double, K * d * d)
    TAKE(b, double, K * d)
    TAKE(means, double, K * d)
    TAKE(ucat0, double, (size_t)block * K * block)
#undef TAKE
    return off;
}

/* out[k d + j] = cov_k[j, j] */
static __global__ void diag_kernel(const double *__restrict__ cov, int K, int d, double *out)
{
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < (int64_t)K * d;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = e / d, j = e - k * d;
        out[e] = cov[k * d * d + j * d + j];
    }
}

/* out_k[a, b] = cov_k[perm_k[a], perm_k[b]]; means_out[k, a] = means[k, perm_k[a]] */
static __global__ void reorder_kernel(const double *__restrict__ cov,
                                      const double *__restrict__ means,
                                      const int *__restrict__ perm, int K, int d, double *out,
                                      double *means_out)
{
    const int64_t dd = (int64_t)d * d;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < K * dd;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t k = e / dd, a = (e - k * dd) / d, b = e - k * dd - a * d;
        const int *pk = perm + k * d;
        out[e] = cov[k * dd + (int64_t)pk[a] * d + pk[b]];
        if (b == 0) means_out[k * d + a] = means[k * d + pk[a]];
    }
}

/* Whether this E-step reorders: ORDER_MIN_ROWS rows or more (tuning.estep_all_pairs -1: any)
 * and d_cov the source of d_prec. */
static bool orders(const gmm_backend_ctx *c)
{
    return c->order_source && (c->n_samples >= ORDER_MIN_ROWS || c->tuning.estep_all_pairs < 0);
}

/* The order and its factors from d_cov: the first `block` coordinates (all components) those
 * whose variance differs most across the components (log max_k - log min_k of the diagonals),
 * then each component's others by its own variance, smallest first; ties by index. Each
 * reordered covariance factored again (chol_inverse_cuda, d_acc its scratch). One that does
 * not factor, or no memory for the order, leaves it unusable for these parameters: the E-step
 * then reads d_prec in the data's order. */
static gmm_status make_order(gmm_backend_ctx *c, int block)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    order_buffers o;
    c->order_current = true;
    c->order_usable = false;
    if (!c->d_order && cudaMalloc(&c->d_order, order_layout(c, block, NULL)) != cudaSuccess) {
        c->d_order = NULL;
        cudaGetLastError(); /* an optimisation: without its memory, the data's order */
        return GMM_OK;
    }
    order_layout(c, block, &o);
    if (!c->h_order &&
        !(c->h_order = malloc(sizeof(double) * K * d + sizeof(int) * K * d + sizeof(keyed) * d)))
        return GMM_OK;
    {
        double *diag = (double *)c->h_order;
        int *perm = (int *)(diag + (size_t)K * d);
        keyed *keys = (keyed *)(perm + (size_t)K * d);
        diag_kernel<<<grid_for((int64_t)K * d, 256), 256>>>(c->d_cov, K, d, o.b);
        GMM_LAUNCH_CHECK("diag_kernel");
        GMM_CUDA_CHECK(cudaMemcpy(diag, o.b, sizeof(double) * K * d, cudaMemcpyDeviceToHost));
        for (int j = 0; j < d; j++) {
            double lo = diag[j], hi = diag[j];
            for (int k = 1; k < K; k++) {
                const double v = diag[(size_t)k * d + j];
                lo = v < lo ? v : lo;
                hi = v > hi ? v : hi;
            }
            if (!(lo > 0) || !isfinite(hi)) return GMM_OK; /* not positive: leave it unusable */
            keys[j].key = -(log(hi) - log(lo));
            keys[j].index = j;
        }
        qsort(keys, d, sizeof *keys, by_key);
        for (int k = 0; k < K; k++) {
            int *pk = perm + (size_t)k * d;
            for (int t = 0; t < block; t++) pk[t] = keys[t].index;
            for (int t = block; t < d; t++) {
                keys[t].key = diag[(size_t)k * d + keys[t].index];
                pk[t] = keys[t].index; /* re-sorted below; keys[t].index unchanged */
            }
            qsort(keys + block, d - block, sizeof *keys, by_key);
            for (int t = block; t < d; t++) pk[t] = keys[t].index;
        }
        GMM_CUDA_CHECK(cudaMemcpy(o.perm, perm, sizeof(int) * K * d, cudaMemcpyHostToDevice));
    }
    reorder_kernel<<<grid_for((int64_t)K * d * d, 256), 256>>>(c->d_cov, c->d_means, o.perm, K, d,
                                                              o.prec, o.means);
    GMM_LAUNCH_CHECK("reorder_kernel");
    if ((status = chol_inverse_cuda(o.prec, d, K, o.prec, c->d_acc, c->d_info, c->gpu)) !=
        GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(c->h_info, c->d_info, sizeof(int) * K, cudaMemcpyDeviceToHost));
    for (int k = 0; k < K; k++)
        if (c->h_info[k] != 0) return GMM_OK;
    /* block 0 of the packed factors and b_k = mu_k U_k in the order, as for the context's own */
    if ((status = cuda_pack_factors_f64(c, o.prec, o.means, block, o.ucat0, o.b)) != GMM_OK)
        goto fail;
    c->order_usable = true;
fail:
    return status;
}

/* Columns [c0, c1) of the listed pairs' products, in batches of pairs that fit the workspace:
 * the rows' first c1 columns (in f's order) gathered, per piece of PIECE_BLOCKS blocks
 * [p0, p1) a GEMM per component on its lane (G_k[:, 0:p1] x U_k[0:p1, p0:p1]), the squares
 * added. */
static gmm_status run_stage(gmm_backend_ctx *c, const double *Xc, int block, int c0, int c1,
                            const prune_buffers *p, const factor_set *f, double *dist)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim, zc = c1 - c0;
    const int *bounds = c->h_prune_bounds;
    const int64_t total = bounds[K], cap = (int64_t)(c->work_bytes / sizeof(double)) / (c1 + zc);
    double *G = (double *)c->d_work, *Z = G + (size_t)cap * c1;
    for (int64_t q0 = 0; q0 < total; q0 += cap) {
        const int64_t q1 = total - q0 < cap ? total : q0 + cap, n = q1 - q0;
        gather_kernel<<<gather_blocks(n), GATHER_THREADS>>>(Xc, d, p->row_of + q0,
                                                           p->comp_of + q0, f->perm, n, c1, G);
        GMM_CUDA_CHECK(cudaGetLastError());
        for (int p0 = c0; p0 < c1; p0 += PIECE_BLOCKS * block) {
            const int p1 = c1 - p0 < PIECE_BLOCKS * block ? c1 : p0 + PIECE_BLOCKS * block;
            for (int k = 0; k < K; k++) {
                const int64_t a = bounds[k] > q0 ? bounds[k] : q0,
                              b = bounds[k + 1] < q1 ? bounds[k + 1] : q1;
                if (b <= a) continue;
                gmm_gpu *lane = c->n_lanes > 0 ? gmm_gpu_lane(c->gpu, k % c->n_lanes) : NULL;
                status = gmm_gpu_dgemm(lane ? lane : c->gpu, false, false, (int)(b - a), p1 - p0,
                                       p1, 1.0, G + (size_t)(a - q0) * c1, c1,
                                       f->prec + (size_t)k * d * d + p0, d, 0.0,
                                       Z + (size_t)(a - q0) * zc + (p0 - c0), zc);
                if (status != GMM_OK) goto fail;
            }
        }
        squares_kernel<<<grid_for(n * 32, 32 * WARPS), 32 * WARPS>>>(
            Z, zc, zc, f->b, d, c0, p->row_of + q0, p->comp_of + q0, K, n, dist);
    }
fail:
    return status;
}

static bool prunes(const gmm_backend_ctx *c, int block)
{
    return c->type == GMM_COV_FULL && !c->single && c->tuning.estep_all_pairs <= 0 &&
           c->n_components >= 2 && block < c->dim && c->dim > 2 * block &&
           (c->estep_step >= PRUNE_MIN_ROWS || c->tuning.estep_all_pairs < 0) &&
           (int64_t)c->estep_step * c->n_components < 0x7fffffff;
}

gmm_status cuda_estep_prune_begin(gmm_backend_ctx *c, int block, bool *prune)
{
    c->prune_rest = false;
    *prune = false;
    /* also the first E-step after an initialisation's responsibilities, its candidates from
     * block 0 (8.1 million images, H200: 10 iterations 910 against 932 ms each forming every
     * pair in that one) */
    if (!prunes(c, block)) return GMM_OK;
    if (c->prune_wait > 0) {
        c->prune_wait--;
        return GMM_OK;
    }
    *prune = true;
    return orders(c) && !c->order_current ? make_order(c, block) : GMM_OK;
}

void cuda_estep_prune_end(gmm_backend_ctx *c)
{
    if (!c->prune_backoff) c->prune_backoff = 1;
    if (c->prune_rest) {
        c->prune_wait = c->prune_backoff;
        c->prune_backoff = c->prune_backoff < 16 ? 2 * c->prune_backoff : 16;
    } else {
        c->prune_backoff = 1;
    }
}

gmm_status cuda_estep_chunk_pruned(gmm_backend_ctx *c, const double *Xc, int64_t r0,
                                   int64_t rows, const double *U, int block, double *Y)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim, w0 = block;
    const int B = (d + block - 1) / block;
    double *dist = c->d_log_resp + r0 * K;
    /* the candidates named by the last E-step (its d_log_resp stays through the M-step) */
    const bool named = c->resp_state >= 1 && !c->resp_fresh;
    prune_buffers p;
    factor_set f = {NULL, c->d_prec, c->d_b, NULL};
    double *const xs = Y + (size_t)rows * K * w0;
    size_t buffer_bytes = 0;
    if (!c->h_prune_bounds && !(c->h_prune_bounds = (int *)malloc(sizeof(int) * (K + 1))))
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the E-step's pair bounds");
    status = prune_layout(c, c->estep_step, &p, &buffer_bytes);
    if (status != GMM_OK) goto fail;
    if (!c->d_prune) {
        DMALLOC(c->d_prune, buffer_bytes);
        status = prune_layout(c, c->estep_step, &p, &buffer_bytes);
        if (status != GMM_OK) goto fail;
    }
    if (c->order_usable) {
        order_buffers o;
        order_layout(c, block, &o);
        f = (factor_set){o.perm, o.prec, o.b, o.ucat0};
    }
    /* 2 (first half): those candidates, read before dist overwrites them */
    if (named) best_kernel<<<grid_for(rows, 256), 256>>>(dist, NULL, rows, K, p.best);
    /* 1: block 0 of every pair (in the order: the rows' first-block coordinates gathered into
     * the workspace after the product's rows x K block: it holds rows x K d) */
    if (f.perm) {
        gather_kernel<<<gather_blocks(rows), GATHER_THREADS>>>(Xc, d, NULL, NULL, f.perm, rows,
                                                              w0, xs);
        GMM_LAUNCH_CHECK("gather_kernel");
    }
    status = gmm_gpu_dgemm(c->gpu, false, false, (int)rows, K * w0, w0, 1.0,
                           f.perm ? xs : Xc, f.perm ? w0 : d, f.perm ? f.ucat0 : U, K * w0,
                           0.0, Y, K * w0);
    if (status != GMM_OK) goto fail;
    squares_kernel<<<grid_for(rows * K * 32, 32 * WARPS), 32 * WARPS>>>(
        Y, (int64_t)K * w0, w0, f.b, d, 0, NULL, NULL, K, rows * K, dist);
    if (!named)
        best_kernel<<<grid_for(rows, 256), 256>>>(dist, c->d_const, rows, K, p.best);
    /* 2: the candidates in full */
    if ((status = list_pairs(c, &p, dist, NULL, rows)) != GMM_OK) goto fail;
    if ((status = run_stage(c, Xc, w0, w0, d, &p, &f, dist)) != GMM_OK) goto fail;
    floor_kernel<<<grid_for(rows, 256), 256>>>(dist, c->d_const, p.best, rows, K, p.floors);
    /* 3: the others, stage by stage; more than half of them left for the last stage: the next
     * E-step forms every pair (then both cost about the same) */
    for (int J0 = 1, J1; J0 < B; J0 = J1) {
        J1 = J0 + PIECE_BLOCKS < B ? J0 + PIECE_BLOCKS : B;
        if ((status = list_pairs(c, &p, dist, p.floors, rows)) != GMM_OK) goto fail;
        if (c->h_prune_bounds[K] == 0) break;
        if (J1 == B && 2 * (int64_t)c->h_prune_bounds[K] > rows * (K - 1))
            c->prune_rest = true;
        const int c1 = J1 * w0 < d ? J1 * w0 : d;
        if ((status = run_stage(c, Xc, w0, J0 * w0, c1, &p, &f, dist)) != GMM_OK) goto fail;
    }
    GMM_CUDA_CHECK(cudaGetLastError());
    status = estep_rows_from_dist_cuda(c->d_const, (size_t)rows, K, dist, c->d_lpn + r0,
                                       gmm_gpu_stream(c->gpu));
fail:
    return status;
}
