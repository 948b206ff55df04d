/* The experiments gmm-bench runs, one function per operation (see bench.h for the row they fill),
 * and the helpers they share (bench/bench_common.c). Each bench_<op> returns 0 when it ran and its
 * results matched, a negative value when it could not run (not implemented, no GPU for the only
 * version it has), and a positive value when it failed (an error, or results out of bounds). */
#ifndef GMM_BENCH_OPS_H
#define GMM_BENCH_OPS_H

#include <stddef.h>

#include "bench/bench.h"
#include "data/dataset.h"
#include "kernels/gmm_status.h"

/* bench/bench_dense.c: the dense float64 operations and the matrix-vector product. */
int bench_matmul(const bench_config *config, bench_row *row);
int bench_covariance(const bench_config *config, bench_row *row);
int bench_wcov(const bench_config *config, bench_row *row);
int bench_cholesky(const bench_config *config, bench_row *row);
int bench_cholesky_batched(const bench_config *config, bench_row *row);
int bench_trsm(const bench_config *config, bench_row *row);
/* bench/bench_chol_inverse.c: the precision Cholesky factors (linalg/chol_inverse.h), and the
 * factorisations of bench/experiments/factorisation.cu (versions 1-6) against it. */
int bench_chol_inverse(const bench_config *config, bench_row *row);
int bench_factor_batched(const bench_config *config, bench_row *row);
int bench_factor_loop(const bench_config *config, bench_row *row);
int bench_factor_batched_trtri(const bench_config *config, bench_row *row);
int bench_factor_lanes_trtri(const bench_config *config, bench_row *row);
int bench_factor_lanes(const bench_config *config, bench_row *row);
int bench_factor_graph(const bench_config *config, bench_row *row);
int bench_matvec(const bench_config *config, bench_row *row);     /* float32 */
int bench_matvec_f64(const bench_config *config, bench_row *row);

/* bench/bench_data.c: the data-parallel operations. */
int bench_knn(const bench_config *config, bench_row *row);
int bench_knn_cpu_blas(const bench_config *config, bench_row *row); /* CPU only */
int bench_histogram(const bench_config *config, bench_row *row);
int bench_entropy(const bench_config *config, bench_row *row);
int bench_transpose(const bench_config *config, bench_row *row);
int bench_conv2d(const bench_config *config, bench_row *row);
int bench_estep_rows(const bench_config *config, bench_row *row); /* the E-step's row operation */

/* bench/bench_em_experiments.c: the CUDA backend's former tuning modes against the production
 * path (bench/experiments/cov_product.cu, estep_product.cu). */
int bench_cov_gemm(const bench_config *config, bench_row *row);
int bench_cov_syrk(const bench_config *config, bench_row *row);
int bench_cov_tiled(const bench_config *config, bench_row *row);
int bench_estep_kgemm(const bench_config *config, bench_row *row);
int bench_estep_fused(const bench_config *config, bench_row *row); /* E-step distances, fused DMMA */

/* bench/bench_em.c: `gmm-bench em ...`, the whole EM iteration; takes the command line after "em"
 * (argv[0] = "em") and returns the process exit code. */
int bench_em(int argc, char **argv);
/* For the embedding benchmarks (spectral, umap): the training images of dir (the first limit
 * when limit > 0) into ds, and *X their pixels / 255 in float32 (free it); 0, or 1 after the
 * error was printed under who. */
int bench_load_images(const char *who, const char *dir, int limit, dataset *ds, float **X);
/* dirs given, else $MNIST_DIR then $FASHION_MNIST_DIR (at most 2 added); the count, 0 after
 * printing what to give under who. */
int bench_data_dirs(const char *who, const char **dirs, int n_dirs);

/* bench/bench_spectral.c: `gmm-bench spectral ...`, the spectral embedding of the kNN graph. */
int bench_spectral(int argc, char **argv);
/* bench/bench_umap.c: `gmm-bench umap ...`, the UMAP embedding. */
int bench_umap(int argc, char **argv);
/* bench/bench_scale.c: `gmm-bench scale ...`, EM on byte images over 1..n GPUs, streamed or not. */
int bench_scale(int argc, char **argv);

/* ---- shared helpers (bench/bench_common.c) ---- */

/* A row with every time unset (-1) and the op name filled in. */
void bench_row_init(bench_row *row, const char *op);
/* 1 when the GPU columns can be run (CUDA built and a device present); cached. */
int bench_have_gpu(void);
/* Repeats for a CPU twin: config->repeats, capped at 3 (twins take up to seconds). */
int bench_cpu_repeats(const bench_config *config);
/* Median milliseconds of `repeats` calls of fn(ctx) on the host (one warm-up call first unless
 * warmup is 0); before(ctx), when not NULL, runs untimed before each call. Returns -1 when fn
 * fails. */
typedef gmm_status (*bench_host_work)(void *ctx);
double bench_time_host(bench_host_work fn, bench_host_work before, void *ctx, int warmup,
                       int repeats);
/* Median milliseconds of a GPU work function (bench/bench_gpu.h), or -1 on failure (the error
 * detail is left in gmm_error_message). */
typedef gmm_status (*bench_device_work)(void *ctx);
double bench_time_device(const bench_config *config, bench_device_work fn,
                         bench_device_work before, void *ctx);
/* Scaled size: max(minimum, round(full * config->scale)). */
size_t bench_scaled(const bench_config *config, size_t full, size_t minimum);
/* Appends to row->note (separated by "; "). */
void bench_note(bench_row *row, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* ||a - b|| / ||b||, INFINITY when a holds a NaN or infinity. */
double bench_rel_error(const double *a, const double *b, size_t n);
double bench_rel_error_f(const float *a, const float *b, size_t n);
/* Records err in row->max_rel_err and, above bound, notes it and returns 1 (else 0). */
int bench_judge(bench_row *row, const char *what, double err, double bound);
/* Uniform random data in [lo, hi), reproducible from seed whatever the thread count. */
uint64_t bench_rng_next(uint64_t *state);
double bench_rng_uniform(uint64_t *state);
void bench_fill(double *x, size_t n, double lo, double hi, uint64_t seed);
void bench_fill_f(float *x, size_t n, float lo, float hi, uint64_t seed);
/* Diagonally dominant symmetric matrices (so positive definite): off-diagonal in [-1, 1],
 * diagonal dim + 1 + [0, 1); batch of them back to back. */
void bench_fill_spd(double *A, int dim, int batch, uint64_t seed);

/* In a bench_<op> function with `int rc` and a `done:` label: a failed allocation or a failed
 * kernel call notes why in the row and ends the experiment. */
#define BENCH_CHECK_ALLOC(p)                                                                       \
    do {                                                                                           \
        if (!(p)) {                                                                                \
            bench_note(row, "out of host memory");                                                 \
            rc = 1;                                                                                \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#define BENCH_CHECK(expr)                                                                          \
    do {                                                                                           \
        gmm_status s_ = (expr);                                                                    \
        if (s_ != GMM_OK) {                                                                        \
            bench_note(row, "%s", gmm_error_message(s_));                                          \
            rc = 1;                                                                                \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

#endif
