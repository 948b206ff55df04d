/* The CPU backend's triangle-blocked E-step product (see cpu_estep.h). */
#include "models/backend/cpu/cpu_estep.h"

#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "kernels/parallel.h"

/* block J covers columns [J * CPU_ESTEP_BLOCK, j1), j1 = min(dim, (J + 1) * CPU_ESTEP_BLOCK) */
static int block_end(int j0, int dim)
{
    return j0 + CPU_ESTEP_BLOCK < dim ? j0 + CPU_ESTEP_BLOCK : dim;
}

size_t cpu_estep_packed_size(int n_mats, int dim)
{
    size_t n = 0;
    for (int j0 = 0; j0 < dim; j0 = block_end(j0, dim))
        n += (size_t)block_end(j0, dim) * (size_t)n_mats * (size_t)(block_end(j0, dim) - j0);
    return n;
}

/* Block J of the packed factors: j1 rows of n_mats * width values, [U_1[r, J] .. U_M[r, J]]. */
#define PACK_BODY(T)                                                                           \
    size_t off = 0;                                                                            \
    size_t dd = (size_t)dim * dim;                                                             \
    for (int j0 = 0; j0 < dim; j0 = block_end(j0, dim)) {                                      \
        int j1 = block_end(j0, dim), w = j1 - j0;                                              \
        for (int r = 0; r < j1; r++)                                                           \
            for (int m = 0; m < n_mats; m++)                                                   \
                for (int t = 0; t < w; t++)                                                    \
                    packed[off + (size_t)r * n_mats * w + (size_t)m * w + t] =                 \
                        (T)U[m * dd + (size_t)r * dim + j0 + t];                               \
        off += (size_t)j1 * n_mats * w;                                                        \
    }

void cpu_estep_pack_f64(const double *U, int n_mats, int dim, double *packed) { PACK_BODY(double) }

void cpu_estep_pack_f32(const double *U, int n_mats, int dim, float *packed) { PACK_BODY(float) }

void cpu_estep_centers(const double *means, const double *U, int n_mats, int n_components,
                       int dim, int f32, double *centers)
{
    size_t dd = (size_t)dim * dim;
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)n_components * dim * dim))
    for (int k = 0; k < n_components; k++) {
        const double *mu = means + (size_t)k * dim, *Uk = U + (n_mats > 1 ? k * dd : 0);
        double *c = centers + (size_t)k * dim;
        /* c[l] = sum_{j <= l} mu[j] U[j][l], each sum in index order as a loop over j for each
         * l would add it, but row by row: U is read along its rows, not down its columns (a
         * column walk of K factors of 784^2 took 15-30 ms of every scoring call) */
        for (int l = 0; l < dim; l++) c[l] = 0;
        for (int j = 0; j < dim; j++) {
            const double *u = Uk + (size_t)j * dim;
            if (f32)
                for (int l = j; l < dim; l++) c[l] += mu[j] * (double)(float)u[l];
            else
                for (int l = j; l < dim; l++) c[l] += mu[j] * u[l];
        }
    }
}

/* One GEMM per column block into work (ldw = n_mats * dim; block J at column n_mats * j0), then
 * per row and component the float64 sum over j in index order. */
#define DIST_BODY(T, GEMM)                                                                     \
    const int ldw = n_mats * dim;                                                              \
    size_t off = 0;                                                                            \
    for (int j0 = 0; j0 < dim; j0 = block_end(j0, dim)) {                                      \
        int j1 = block_end(j0, dim), w = j1 - j0;                                              \
        GEMM(false, false, (int)rows, n_mats * w, j1, 1, X, dim, packed + off, n_mats * w, 0,   \
             work + (size_t)n_mats * j0, ldw);                                                 \
        off += (size_t)j1 * n_mats * w;                                                        \
    }                                                                                          \
    _Pragma("omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(3.0 * rows * ldw))")     \
    for (int64_t i = 0; i < rows; i++) {                                                       \
        const T *row = work + (size_t)i * ldw;                                                 \
        for (int k = 0; k < n_components; k++) {                                               \
            const double *c = centers + (size_t)k * dim;                                       \
            int m = n_mats > 1 ? k : 0;                                                        \
            double s = 0;                                                                      \
            for (int j0 = 0; j0 < dim; j0 = block_end(j0, dim)) {                              \
                int w = block_end(j0, dim) - j0;                                               \
                const T *y = row + (size_t)n_mats * j0 + (size_t)m * w;                        \
                for (int t = 0; t < w; t++) {                                                  \
                    double e = (double)y[t] - c[j0 + t];                                       \
                    s += e * e;                                                                \
                }                                                                              \
            }                                                                                  \
            dist[(size_t)i * n_components + k] = s;                                            \
        }                                                                                      \
    }

void cpu_estep_dist_f64(const double *X, int64_t rows, int dim, int n_mats, int n_components,
                        const double *packed, const double *centers, double *work, double *dist)
{
    DIST_BODY(double, la_dgemm)
}

void cpu_estep_dist_f32(const float *X, int64_t rows, int dim, int n_mats, int n_components,
                        const float *packed, const double *centers, float *work, double *dist)
{
    DIST_BODY(float, la_sgemm)
}

/* dist[i, k] += sum over block [j0, j0 + w) of (Z[r, t] - c_k[j0 + t])^2 for the rows
 * rows_of[r] (r < n): the block's squares added in index order, as DIST_BODY adds them. */
static void add_block_squares(const double *Z, int64_t n, int w, const int64_t *rows_of, int k,
                              int n_components, const double *center, double *dist)
{
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(3.0 * n * w))
    for (int64_t r = 0; r < n; r++) {
        const double *z = Z + (size_t)r * w;
        double s = dist[(size_t)rows_of[r] * n_components + k];
        for (int t = 0; t < w; t++) {
            double e = z[t] - center[t];
            s += e * e;
        }
        dist[(size_t)rows_of[r] * n_components + k] = s;
    }
}

/* Component k's blocks from block 1 on for the rows rows_of[0 .. n) (gathered into G, dim
 * values each), the rows whose bound log_const[k] - dist / 2 falls below floors[row] dropped
 * after each block when floors is given (G and rows_of compacted in order). */
static void finish_component(const double *X, int dim, int n_components, int k,
                             const double *packed, const double *centers,
                             const double *log_const, const double *floors, int64_t *rows_of,
                             int64_t n, double *G, double *Z, double *dist)
{
    const int K = n_components, w0 = block_end(0, dim);
    for (int64_t r = 0; r < n; r++)
        memcpy(G + (size_t)r * dim, X + (size_t)rows_of[r] * dim, sizeof(double) * dim);
    size_t off = (size_t)w0 * K * w0;
    for (int j0 = w0; j0 < dim && n > 0; j0 = block_end(j0, dim)) {
        const int j1 = block_end(j0, dim), w = j1 - j0;
        la_dgemm(false, false, (int)n, w, j1, 1, G, dim, packed + off + (size_t)k * w, K * w, 0,
                 Z, w);
        off += (size_t)j1 * K * w;
        add_block_squares(Z, n, w, rows_of, k, K, centers + (size_t)k * dim + j0, dist);
        if (!floors || j1 == dim) continue;
        int64_t kept = 0;
        for (int64_t r = 0; r < n; r++) {
            const int64_t i = rows_of[r];
            if (log_const[k] - 0.5 * dist[(size_t)i * K + k] < floors[i]) continue;
            if (kept != r) {
                rows_of[kept] = i;
                memcpy(G + (size_t)kept * dim, G + (size_t)r * dim, sizeof(double) * dim);
            }
            kept++;
        }
        n = kept;
    }
}

/* The largest of v[0 .. K) (cst NULL: previous log responsibilities) or of the bounds
 * cst[k] - v[k] / 2 (v: block-0 distances), the first on ties; the CUDA twin's best_kernel. */
static int best_of(const double *v, const double *cst, int K)
{
    int b = 0;
    double top = cst ? cst[0] - 0.5 * v[0] : v[0];
    for (int k = 1; k < K; k++) {
        const double x = cst ? cst[k] - 0.5 * v[k] : v[k];
        if (x > top) top = x, b = k;
    }
    return b;
}

gmm_status cpu_estep_dist_pruned_f64(const double *X, int64_t rows, int dim, int n_components,
                                     const double *packed, const double *centers,
                                     const double *log_const, const double *previous,
                                     double *work, double *dist)
{
    const int K = n_components, w0 = block_end(0, dim);
    int *best = malloc(sizeof(int) * (size_t)rows);
    int64_t *rows_of = malloc(sizeof(int64_t) * (size_t)rows);
    double *floors = malloc(sizeof(double) * (size_t)rows);
    if (!best || !rows_of || !floors) {
        free(best), free(rows_of), free(floors);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the E-step's row lists (%lld rows)",
                         (long long)rows);
    }
    /* the candidate of each row: the previous responsibilities' largest, read before dist
     * (which may be the same buffer) is written */
    for (int64_t i = 0; previous && i < rows; i++)
        best[i] = best_of(previous + (size_t)i * K, NULL, K);
    /* block 0 for every pair */
    la_dgemm(false, false, (int)rows, K * w0, w0, 1, X, dim, packed, K * w0, 0, work, K * w0);
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(3.0 * rows * K * w0))
    for (int64_t i = 0; i < rows; i++)
        for (int k = 0; k < K; k++) {
            const double *y = work + (size_t)i * K * w0 + (size_t)k * w0,
                         *c = centers + (size_t)k * dim;
            double s = 0;
            for (int t = 0; t < w0; t++) {
                double e = y[t] - c[t];
                s += e * e;
            }
            dist[(size_t)i * K + k] = s;
        }
    for (int64_t i = 0; !previous && i < rows; i++)
        best[i] = best_of(dist + (size_t)i * K, log_const, K);
    double *G = work, *Z = work + (size_t)rows * dim;
    /* each row's candidate in full: its log-probability bounds log p(x_i) from below */
    for (int k = 0; k < K; k++) {
        int64_t n = 0;
        for (int64_t i = 0; i < rows; i++)
            if (best[i] == k) rows_of[n++] = i;
        finish_component(X, dim, K, k, packed, centers, log_const, NULL, rows_of, n, G, Z, dist);
    }
    for (int64_t i = 0; i < rows; i++)
        floors[i] = log_const[best[i]] - 0.5 * dist[(size_t)i * K + best[i]] -
                   GMM_ESTEP_PRUNE_MARGIN;
    /* the other pairs block by block while their bound stays above the floor */
    for (int k = 0; k < K; k++) {
        int64_t n = 0;
        for (int64_t i = 0; i < rows; i++)
            if (best[i] != k && log_const[k] - 0.5 * dist[(size_t)i * K + k] >= floors[i])
                rows_of[n++] = i;
        finish_component(X, dim, K, k, packed, centers, log_const, floors, rows_of, n, G, Z, dist);
    }
    free(best), free(rows_of), free(floors);
    return GMM_OK;
}
