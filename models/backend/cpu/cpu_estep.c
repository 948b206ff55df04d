/* The CPU backend's triangle-blocked E-step product (see cpu_estep.h). */
#include "models/backend/cpu/cpu_estep.h"

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
