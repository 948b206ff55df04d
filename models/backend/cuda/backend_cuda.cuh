/* Internal to the CUDA backend (backend_cuda.cu, cuda_estep.cu, cuda_mstep.cu, cuda_kmeans.cu):
 * the context that one fit keeps on the device, and the steps each file implements. */
#ifndef GMM_BACKEND_CUDA_CUH
#define GMM_BACKEND_CUDA_CUH

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/convert.h"
#include "kernels/cuda_check.h"
#include "kernels/grid.cuh"
#include "kernels/gpu_info.h"
#include "kernels/gpu.h"
#include "kernels/reduce.cuh" /* warp_sum, warp_max, block_sum, reduce_stage1/2_kernel, REDUCE_* */
#include "models/backend/backend.h"

/* The factorisation (cuda_factorise.cu): chol_inverse_cuda's calls on lane 0, captured once
 * into a CUDA graph on a stream of the context's own, and replayed. */
typedef struct {
    cudaStream_t origin;     /* blocking: the graph is captured on it and launched into it */
    cudaEvent_t fork, join;  /* origin -> lane 0, lane 0 -> origin inside the capture */
    cudaGraph_t graph;
    cudaGraphExec_t exec;    /* NULL: not captured yet, or dropped */
    /* what the graph baked in, compared before each replay (a change: capture again) */
    const double *cov, *acc, *prec;
    const int *info;
    int dim, n_mats;
    void *lane_workspace;    /* lane 0's workspace when captured */
    bool failed;             /* a capture or launch failed: the calls directly from then on */
    char failure[200];       /* why (for a debugger: nothing reads it) */
} cuda_factor_graph;

struct gmm_backend_ctx {
    int64_t n_samples;        /* this rank's rows */
    int64_t first_row;        /* the global index of row 0 */
    int64_t n_total;          /* the rows of every rank */
    gmm_comm *comm;           /* NULL: one rank */
    int dim, n_components;
    gmm_cov_type type;
    gmm_precision precision;
    gmm_tuning tuning;        /* the options' tuning (set_n_components sizes the chunks again) */
    bool single;      /* data and GEMMs in float32 */
    int n_mats;       /* d x d matrices: K (full), 1 (tied), 0 */
    size_t cov_n;     /* doubles in covariances / precisions_cholesky */
    gmm_gpu *gpu;            /* the resources object: the caller's, or our own (owns_gpu) */
    bool owns_gpu;
    bool caller_tf32;        /* the caller's object's TF32 setting, given back by destroy (a
                                context made beside another on one object leaves it as it was) */

    /* The data in its stored type (data_elem; kernels/convert.h): resident on the device (d_X),
     * or, when it does not fit the memory budget, left in host memory (h_rows, pinned) and
     * streamed chunk by chunk through d_raw[2] on copy_stream (cuda_chunks.cu). */
    gmm_elem data_elem;
    const void *view_rows;   /* the view's host rows as given (the caller keeps them alive) */
    gmm_elem view_elem;      /* and their type: float64 rows kept as a float32 copy under
                                fp32/TF32 are read from here again by the float64 E-step */
    void *d_X;               /* N x d stored values (NULL when streaming) */
    bool streams;
    const void *h_rows;      /* the view's rows (or h_pinned_copy) */
    void *h_pinned_copy;     /* a pinned copy when the view could not be registered */
    bool h_registered;       /* the view's rows are registered (cudaHostRegister) */
    void *d_raw[2];          /* streaming: two chunks of stored values */
    void *d_conv;            /* a chunk converted to float64 or float32 */
    int64_t stage_rows;      /* rows of one staged (converted or streamed) chunk */
    cudaStream_t copy_stream; /* non-blocking: the host-to-device copies */
    cudaEvent_t ev_copied[2], ev_free[2];
    size_t held_bytes;       /* device bytes this context allocated (the budget's measure) */
    size_t data_bytes_held;  /* of which the data and its staging buffers */
    double *d_log_resp;      /* N x K */
    double *d_resp;          /* N x K */
    double *d_lpn;           /* N: log p(x_i) */
    int resp_state;          /* 0: none, 1: d_resp valid (set_resp), 2: d_log_resp valid,
                                3: d_log_resp valid and the E-step also formed d_resp and the
                                means' sums (d_stats + K) of them (cuda_estep_sums_means) */
    bool resp_fresh;         /* d_resp set by an initialisation (set_resp, the k-means), no
                                E-step since: d_log_resp is not this fit's (otherwise, under
                                resp_state 1 after such an E-step's M-step, it is) */
    bool have_params;

    double *d_weights, *d_means, *d_cov, *d_prec; /* current parameters */
    double *d_const;         /* K: log w_k + log det U_k - d/2 log 2 pi */
    double *d_b;             /* K x d: mu_k U_k (full, tied) */
    void *d_ucat;            /* full: d x Kd [U_1 .. U_K]; tied: d x d U (double or float) */
    double *d_acc;           /* cov_n (>= K d): accumulators, then the factorisation's scratch */
    double *d_nk;            /* K+1: N_k, then their sum */
    double *d_stats;         /* K + K d: sum_i r_ik, then R^T X (sums split over chunks/ranks) */
    double *d_chunk_sums;    /* K d: one chunk's weighted sums */
    double *d_ones;          /* K ones: the divisors of plain weighted sums */
    int *d_info;             /* K: the factorisation's failing orders (diag/spherical: the
                                first variance that is not positive) */
    void *d_tmp;             /* per-component products before their float64 sum (TF32 full,
                                tied in float32/TF32): K d x d of the product's type */
    int n_lanes;             /* concurrent cuBLAS lanes for the per-component products */
    double *d_partial;       /* reduction partials */
    size_t partial_n;
    double *d_scalar;        /* 1 */
    void *d_work;            /* chunk workspace */
    size_t work_bytes;       /* its size */
    int64_t chunk_rows;      /* E-step rows per chunk (the workspace's) */
    int64_t estep_step;      /* E-step rows per pass: chunk_rows, or tuning.estep_rows */
    int64_t mstep_rows;      /* M-step rows per chunk (full, tied in float32): rows x K x d
                                scaled centred values fill the workspace */

    /* M-step compaction (full, tied float32): rows with r_ik <= 1e-20 are left out of
     * component k's product (kernels/compact.h), as the CPU's wcov_blas does */
    bool compact;            /* false under tuning.no_compaction */
    void *d_compact_ws;      /* compact_rows_cuda's workspace for mstep_rows rows */
    size_t compact_ws_bytes;
    int *h_bounds;           /* K + 1: packed start of each component */

    int estep_blocks;        /* column blocks of the triangular E-step product (1: one GEMM) */
    /* the E-step's pairs of no weight left partial (cuda_estep_pruned.cu), made at its first
     * use: flags, scan, row lists, candidates, floors and the scan's temporary */
    void *d_prune;
    int *h_prune_bounds;     /* K + 1: a stage's list bounds */
    bool prune_rest;         /* this E-step left more than half its pairs to the last stage */
    int prune_wait;          /* E-steps still to form every pair after one that did so */
    int prune_backoff;       /* the next such wait: 1, doubled up to 16 while they keep doing
                                so, back to 1 after one that paid (0: not yet set) */
    /* its coordinate order (full float64 fits of ORDER_MIN_ROWS rows or more): each
     * component's covariance reordered, factored again (d_order: permutations, factors, centres,
     * the packed first block; h_order: the host's share), made from d_cov at the first such
     * E-step after each M-step; not after set_params, whose d_cov may not be d_prec's source */
    void *d_order;
    void *h_order;
    bool order_source;       /* d_cov holds what d_prec was factored from (an M-step's) */
    bool order_current;      /* made (usable or not) from the current parameters */
    bool order_usable;       /* made, and every reordered covariance factored */
    cuda_factor_graph factor_graph;
    double *h_nk;
    int *h_info;

    /* a variational fit (models/bayes.h, cuda_bayes.cu): NULL otherwise */
    const gmm_bayes *bayes_prior; /* the configuration's priors */
    gmm_bayes *bayes;        /* the current posterior (host) */
    double *d_cov_prior;     /* Psi_0 */
    double *d_bayes_diff;    /* K x d: xbar_k - m_0 */
    double *d_bayes_coef;    /* 3K: kernels/bayes_covariance.h's coefficients */
    double *h_bayes;         /* host scratch: means K d, diff K d, coef 3K, weights K, log det K,
                                constants K */
    double entropy;          /* -sum r log r of the last E-step (every rank's rows) */
};


/* ---- helpers ------------------------------------------------------------------------------- */

static inline int grid_for(int64_t n, int threads) { return kernel_grid_for(n, threads); }

static inline size_t elem_size(const gmm_backend_ctx *c) { return c->single ? sizeof(float) : sizeof(double); }

#define DMALLOC(ptr, bytes) GMM_CUDA_CHECK(cudaMalloc((void **)&(ptr), (bytes)))

/* ---- the data, chunk by chunk (cuda_chunks.cu) ---------------------------------------------
 * Every reader of the data goes through a chunk loop:
 *     cuda_chunk_loop L;
 *     if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, step, &L)) != GMM_OK) goto fail;
 *     while (cuda_chunks_next(&L, &status)) { ... L.X: rows [L.r0, L.r0 + L.rows) ... }
 *     if (status != GMM_OK) goto fail;
 * L.X points straight into d_X when the data is resident in the asked type (one chunk of
 * `step` rows: today's speed), else at the chunk converted on the legacy stream; when the data
 * streams, chunk i + 1 is copied on copy_stream while chunk i's work runs. L.X is valid for the
 * work queued on the legacy stream (or streams that sync with it) until the next call. */
typedef struct {
    gmm_backend_ctx *c;
    gmm_elem want;
    int64_t step;       /* rows per chunk */
    int64_t r0, rows;   /* the current chunk */
    int64_t next_r0;
    int index;          /* chunks handed out so far */
    /* cuda_chunks_begin_f64_exact on a float32 copy of other values: 1: image bytes recovered
     * from it on the device, 2: float64 rows copied again from the view's host rows */
    int exact_from;
    const void *X;
} cuda_chunk_loop;

gmm_status cuda_chunks_begin(gmm_backend_ctx *c, gmm_elem want, int64_t step, cuda_chunk_loop *L);
bool cuda_chunks_next(cuda_chunk_loop *L, gmm_status *status);
/* A chunk loop in float64 with exactly the view's values (what the CPU's conversion gives):
 * cuda_chunks_begin(c, GMM_ELEM_F64, step, L), unless the device holds a float32 copy made once
 * under fp32/TF32 of other values (rounded): of image bytes, each chunk's bytes are recovered
 * from it exactly on the device; of float64 rows, each chunk is copied again from the view's
 * host rows. */
gmm_status cuda_chunks_begin_f64_exact(gmm_backend_ctx *c, int64_t step, cuda_chunk_loop *L);
/* The row count a chunk loop of at most `step` rows will use. */
int64_t cuda_chunk_step(const gmm_backend_ctx *c, gmm_elem want, int64_t step);
/* Row `index` of this rank's rows in float64 (host), exactly as the CPU converts it. */
gmm_status cuda_data_row_f64(gmm_backend_ctx *c, int64_t index, double *row);
/* Places the data (resident or streamed) and the staging buffers; cuda_data_free undoes it. */
gmm_status cuda_data_place(gmm_backend_ctx *c, const gmm_data_view *v, size_t *asked_bytes);
void cuda_data_free(gmm_backend_ctx *c);
/* The sum over the ranks of n device doubles (a no-op on one rank): comm->sum_device, else
 * through the host and gmm_comm_sum. */
gmm_status cuda_comm_sum(gmm_backend_ctx *c, double *d_buf, size_t n);
/* The compute type of the fit's E-step and M-step. */
static inline gmm_elem compute_elem(const gmm_backend_ctx *c)
{
    return c->single ? GMM_ELEM_F32 : GMM_ELEM_F64;
}

/* cuda_estep.cu */
gmm_status cuda_prepare_estep(gmm_backend_ctx *c);
/* The float64 E-step's packed factors (the column blocks of [U_1 .. U_K] for the columns
 * [0, cols), cuda_estep.cu's layout) into ucat and b = mu_k U_k into b, from factors prec and
 * means: the context's own, or the pruned E-step's reordered ones. */
gmm_status cuda_pack_factors_f64(gmm_backend_ctx *c, const double *prec, const double *means,
                                 int cols, double *ucat, double *b);
gmm_status cuda_e_step(gmm_backend_ctx *c, double *mean_log_likelihood);
/* The table's e_step_f64 (models/backend/backend.h): on a float64 context the E-step without
 * the M-step's sums (the final scores: no M-step follows). */
gmm_status cuda_e_step_f64(gmm_backend_ctx *c, double *mean_log_likelihood);
gmm_status cuda_get_estep(gmm_backend_ctx *c, double *log_likelihood, double *log_resp);
/* cuda_estep_pruned.cu: at the start of an E-step, whether it leaves the pairs of no weight
 * partial (a float64 full context, column blocks of width `block`, not waiting after one that
 * did not pay; the coordinate order made when due); at its end (when it did), the wait before
 * the next try; rows [r0, r0 + rows) (Xc) so: distances, then the row operation into
 * d_log_resp and d_lpn (U: the packed factors, Y: the workspace). */
gmm_status cuda_estep_prune_begin(gmm_backend_ctx *c, int block, bool *prunes);
void cuda_estep_prune_end(gmm_backend_ctx *c);
gmm_status cuda_estep_chunk_pruned(gmm_backend_ctx *c, const double *Xc, int64_t r0,
                                   int64_t rows, const double *U, int block, double *Y);
gmm_status cuda_get_log_resp_rows(gmm_backend_ctx *c, int64_t r0, int64_t n, double *log_resp);
/* cuda_mstep.cu */
gmm_status cuda_m_step(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report);
/* Whether the E-step sums the next M-step's means chunk by chunk (cuda_estep_chunk_sums): the
 * M-step's sums are split (over chunks: data streamed from host memory or converted chunk by
 * chunk, as 8.1 million image bytes are; or over ranks) and the E-step's chunks are the
 * M-step's. The M-step then makes one pass over the data fewer (a copy from host memory or a
 * conversion of every chunk); one rank with the data resident in the compute type is left as
 * it was (one chunk, divided at once). */
bool cuda_estep_sums_means(const gmm_backend_ctx *c);
/* For rows [r0, r0 + rows) of an E-step (X: the chunk in the compute type): d_resp =
 * exp(d_log_resp) and the means' sums sum_i r_ik x_i into d_stats + K, as the M-step's pass
 * would form them (the first chunk sets them, the next add to them). */
gmm_status cuda_estep_chunk_sums(gmm_backend_ctx *c, const void *X, int64_t r0, int64_t rows);
/* cuda_factorise.cu: the precision factors into d_prec from the covariances in d_cov (d_acc:
 * scratch); GMM_ERR_CHOLESKY names a covariance that is not positive definite. */
gmm_status cuda_factorise(gmm_backend_ctx *c, double reg_covar);
/* Drops the captured graph (its buffers are about to change); cuda_factor_graph_free also
 * destroys its stream and events. Both keep factor_graph.failed. */
void cuda_factor_graph_drop(gmm_backend_ctx *c);
void cuda_factor_graph_free(gmm_backend_ctx *c);
/* cuda_bayes.cu: a variational fit's buffers (made with the K-sized ones, freed with them), the
 * posterior from the plain M-step's statistics and covariances (before the factorisation), the
 * E-step constants from the posterior (after it), and the entropy of the last E-step. */
gmm_status cuda_bayes_alloc(gmm_backend_ctx *c);
void cuda_bayes_free(gmm_backend_ctx *c);
gmm_status cuda_bayes_posterior(gmm_backend_ctx *c);
gmm_status cuda_bayes_constants(gmm_backend_ctx *c);
gmm_status cuda_bayes_entropy(gmm_backend_ctx *c);
/* The lower bound after an M-step (cuda_bayes_constants has run). */
double cuda_bayes_lower_bound(const gmm_backend_ctx *c);
/* cuda_kmeans.cu */
gmm_status cuda_kmeans_lloyd(gmm_backend_ctx *c, int max_iter, double *centers, double *resp);
gmm_status cuda_kmeans_plusplus(gmm_backend_ctx *c, gmm_rng *rng, int64_t *indices,
                                double *centers);

#endif
