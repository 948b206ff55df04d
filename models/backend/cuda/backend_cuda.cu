/* The CUDA backend: the table of models/backend/backend.h over one GPU. This file creates the context
 * (the data on the device, the buffers, the chunk sizes from free memory and the options'
 * tuning) and moves parameters in and out; the steps live beside it: cuda_estep.cu (E-step),
 * cuda_mstep.cu (M-step), cuda_kmeans.cu (k-means++ seeding and Lloyd's iterations).
 *
 *   E-step  full/tied: Y = X_chunk [U_1 .. U_K] (one GEMM, N x d by d x Kd), then one fused
 *           kernel per row: ||y_k - mu_k U_k||^2, + log det + log w, log-sum-exp over k, all in
 *           float64. diag/spherical: the same fused kernel on X directly. Under fp32/TF32
 *           e_step_f64 (a fit's final scores) runs the same steps in float64 with float64
 *           factors made for the call, on the data converted chunk by chunk.
 *   M-step  resp = exp(log_resp); N_k (column sums); means = R^T X / N_k (GEMM; over data read
 *           in chunks the E-step forms resp and R^T X chunk by chunk on its pass); full: per
 *           component A_k^T A_k of sqrt(r_k)-scaled centred rows (lower block triangle of
 *           GEMMs, the K products concurrent on cuBLAS lanes), chunk by chunk into a float64
 *           accumulator; tied: X^T X - sum_k N_k mu_k mu_k^T as scikit-learn (float64) or the
 *           centred sum (float32); diag/spherical: one weighted centred column-sum kernel.
 *           reg_covar on the diagonal, then for all K at once the precision factors
 *           U = R^{-1} (linalg/chol_inverse.h, captured once into a CUDA graph).
 *
 * Rows are processed in chunks sized from free device memory (options.tuning.chunk_rows forces a
 * smaller chunk, for tests). Every reduction has a fixed order, so a fit is deterministic.
 * options.tuning holds sizes (chunk_rows, estep_rows, estep_blocks, memory_budget) and the
 * switches of paths the backend has anyway (no_compaction: the covariance products over every
 * row; kmeans_gemm: the k-means's GEMMs at any size); the paths that measured slower are
 * bench/experiments/, timed there against this one.
 *
 * Compaction (default; kernels/compact.h): per chunk, flags r_ik > 1e-20 (component-major),
 * one CUB exclusive scan, K + 1 packed bounds back to the host, then one kernel gathers the
 * sqrt(r)-scaled centred rows of the kept (i, k) into packed per-component blocks and the products
 * run over those rows only (responsibilities in 784 dimensions are nearly hard: ~N/K rows per
 * component).
 *
 * k-means (kmeans_lloyd): Lloyd iterations from host seeds with the distances as one GEMM
 * (||x||^2 - 2 x c^T + ||c||^2), labels and the changed count on the device, center sums as the
 * GEMM onehot^T X; the K x d sums and K counts come back each iteration (the empty-cluster rule,
 * the division and the shift run on the host exactly as models/core/init.c). */
#include "kernels/compact.h"
#include "models/backend/cuda/backend_cuda.cuh"
#include "models/bayes.h"

/* ---- table operations ---------------------------------------------------------------------- */

static bool cuda_available(void) { return gmm_gpu_count() > 0; }

static bool cuda_supports(gmm_cov_type type, gmm_precision precision)
{
    return (type == GMM_COV_FULL || type == GMM_COV_TIED || type == GMM_COV_DIAG ||
            type == GMM_COV_SPHERICAL) &&
           (precision == GMM_PRECISION_FP64 || precision == GMM_PRECISION_FP32 ||
            precision == GMM_PRECISION_TF32);
}

static gmm_gpu *cuda_resources(gmm_backend_ctx *c) { return c->gpu; }

/* Frees what depends on the number of components (everything but the data on the device and
 * the resources object), leaving the pointers NULL. */
static void free_component_buffers(gmm_backend_ctx *c)
{
    cuda_factor_graph_drop(c); /* it baked in some of these buffers */
    void **dev[] = {(void **)&c->d_log_resp, (void **)&c->d_resp, (void **)&c->d_lpn,
                    (void **)&c->d_weights, (void **)&c->d_means, (void **)&c->d_cov,
                    (void **)&c->d_prec, (void **)&c->d_const, (void **)&c->d_b, &c->d_ucat,
                    (void **)&c->d_acc, (void **)&c->d_nk, (void **)&c->d_info,
                    (void **)&c->d_stats, (void **)&c->d_chunk_sums, (void **)&c->d_ones, &c->d_tmp,
                    (void **)&c->d_partial, (void **)&c->d_scalar, &c->d_work,
                    &c->d_compact_ws, &c->d_prune, &c->d_order};
    for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
        cudaFree(*dev[i]); /* teardown: nothing to report, a NULL is a no-op */
        *dev[i] = NULL;
    }
    cuda_bayes_free(c);
    void **host[] = {(void **)&c->h_bounds, (void **)&c->h_nk, (void **)&c->h_info,
                     (void **)&c->h_prune_bounds, &c->h_order};
    for (size_t i = 0; i < sizeof host / sizeof host[0]; i++) {
        free(*host[i]);
        *host[i] = NULL;
    }
    c->resp_state = 0;
    c->have_params = false;
    c->order_source = c->order_current = c->order_usable = false;
}

static void cuda_destroy(gmm_backend_ctx *c)
{
    if (!c) return;
    free_component_buffers(c);
    cuda_factor_graph_free(c);
    cuda_data_free(c);
    if (c->owns_gpu)
        gmm_gpu_destroy(c->gpu);
    else if (c->gpu)
        gmm_gpu_set_tf32(c->gpu, c->caller_tf32); /* the caller's object goes back as it came */
    free(c);
}

/* The device's free and total bytes now. */
static gmm_status device_memory_info(size_t *free_bytes, size_t *total_bytes)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemGetInfo(free_bytes, total_bytes));
fail:
    return status;
}

/* The allocations remember their size, so that running out names it. */
#define CREATE_DMALLOC(ptr, bytes)                                                             \
    do {                                                                                       \
        *asked_bytes = (bytes);                                                                \
        DMALLOC(ptr, *asked_bytes);                                                            \
        c->held_bytes += *asked_bytes;                                                         \
    } while (0)

/* A failed cudaMalloc turned into an out-of-memory status that says what was asked for and what
 * is free. */
static gmm_status out_of_device_memory(gmm_status status, const gmm_backend_ctx *c,
                                       size_t asked_bytes)
{
    if (status != GMM_ERR_CUDA || !strstr(gmm_error_message(status), "cudaMalloc")) return status;
    char cause[256];
    snprintf(cause, sizeof cause, "%s", gmm_error_message(GMM_ERR_CUDA));
    size_t now_free = 0, now_total = 0;
    gmm_status info = device_memory_info(&now_free, &now_total);
    return gmm_error(GMM_ERR_NOMEM,
                     "out of device memory for N=%lld, d=%d, K=%d (%s): %zu bytes (%.2f GiB) "
                     "asked for, %s%zu bytes (%.2f GiB) free of %.2f GiB (%s)",
                     (long long)c->n_samples, c->dim, c->n_components, gmm_cov_type_name(c->type),
                     asked_bytes, asked_bytes / 1073741824.0,
                     info == GMM_OK ? "" : "free memory unknown: ", now_free,
                     now_free / 1073741824.0, now_total / 1073741824.0, cause);
}

/* Everything that depends on the number of components: parameters, responsibilities, the
 * per-component pointer arrays and lanes, the reduction partials, and the chunk workspaces
 * sized from the memory free now. */
static gmm_status alloc_component_buffers(gmm_backend_ctx *c, int n_components, size_t *asked_bytes)
{
    gmm_status status = GMM_OK;
    size_t N = (size_t)c->n_samples, d = (size_t)c->dim, K = (size_t)n_components;
    size_t es = elem_size(c), dd = d * d;
    size_t free_b = 0, total_b = 0, budget, row_bytes, ws_bytes, w_e, row_e, row_m, prod_es;
    int64_t rows;
    c->n_components = n_components;
    c->n_mats = c->type == GMM_COV_FULL ? n_components : c->type == GMM_COV_TIED ? 1 : 0;
    c->cov_n = gmm_cov_size(c->type, n_components, c->dim);
    CREATE_DMALLOC(c->d_log_resp, sizeof(double) * N * K);
    CREATE_DMALLOC(c->d_resp, sizeof(double) * N * K);
    CREATE_DMALLOC(c->d_lpn, sizeof(double) * N);
    CREATE_DMALLOC(c->d_weights, sizeof(double) * K);
    CREATE_DMALLOC(c->d_means, sizeof(double) * K * d);
    CREATE_DMALLOC(c->d_cov, sizeof(double) * c->cov_n);
    CREATE_DMALLOC(c->d_prec, sizeof(double) * c->cov_n);
    CREATE_DMALLOC(c->d_const, sizeof(double) * K);
    CREATE_DMALLOC(c->d_b, sizeof(double) * K * d);
    CREATE_DMALLOC(c->d_acc, sizeof(double) * (c->cov_n > K * d ? c->cov_n : K * d));
    CREATE_DMALLOC(c->d_nk, sizeof(double) * (K + 1));
    CREATE_DMALLOC(c->d_stats, sizeof(double) * (K + K * d));
    CREATE_DMALLOC(c->d_chunk_sums, sizeof(double) * K * d);
    CREATE_DMALLOC(c->d_ones, sizeof(double) * K);
    CREATE_DMALLOC(c->d_info, sizeof(int) * K);
    CREATE_DMALLOC(c->d_scalar, sizeof(double));
    GMM_CUDA_CHECK(cudaMemset(c->d_info, 0, sizeof(int) * K));
    GMM_CUDA_CHECK(cudaMemset(c->d_lpn, 0, sizeof(double) * N));
    GMM_CUDA_CHECK(cudaMemset(c->d_log_resp, 0, sizeof(double) * N * K));
    c->h_nk = (double *)malloc(sizeof(double) * (K + 1));
    c->h_info = (int *)malloc(sizeof(int) * K);
    if (!c->h_nk || !c->h_info) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (size_t k = 0; k < K; k++) c->h_nk[k] = 1.0;
    GMM_CUDA_CHECK(cudaMemcpy(c->d_ones, c->h_nk, sizeof(double) * K, cudaMemcpyHostToDevice));
    if ((status = cuda_bayes_alloc(c)) != GMM_OK) goto fail;
    if (c->n_mats > 0) {
        CREATE_DMALLOC(c->d_ucat, es * dd * c->n_mats);
        c->n_lanes = c->n_mats < 12 ? c->n_mats : 12;
        for (int l = 0; l < c->n_lanes; l++)
            if (!gmm_gpu_lane(c->gpu, l)) {
                status = GMM_ERR_CUDA;
                goto fail;
            }
    }
    /* the per-component products are float32 under TF32, float64 otherwise */
    prod_es = c->precision == GMM_PRECISION_TF32 ? sizeof(float) : sizeof(double);
    if ((c->type == GMM_COV_FULL && c->precision == GMM_PRECISION_TF32) ||
        (c->type == GMM_COV_TIED && c->single))
        CREATE_DMALLOC(c->d_tmp, prod_es * dd * K);
    /* reduction partials: the weighted column sums use up to 256 slabs of K x d */
    c->partial_n = 256 * K * d;
    if (c->partial_n < REDUCE_BLOCKS) c->partial_n = REDUCE_BLOCKS;
    if (c->partial_n > (size_t)64 << 20) c->partial_n = (size_t)64 << 20;
    if (c->partial_n < K * d) c->partial_n = K * d;
    CREATE_DMALLOC(c->d_partial, sizeof(double) * c->partial_n);

    /* The chunk workspace: E-step GEMM output (rows x Kd, tied rows x d) and M-step scaled rows
     * (rows x d), sized from what is free now, leaving room for cuBLAS/cuSOLVER workspaces. */
    w_e = c->type == GMM_COV_FULL ? K * d : c->type == GMM_COV_TIED ? d : 0;
    row_e = w_e * es;
    row_m = (c->type == GMM_COV_FULL || (c->type == GMM_COV_TIED && c->single)) ? K * d * prod_es : 0;
    row_bytes = row_e > row_m ? row_e : row_m;
    if (row_bytes > 0) {
        GMM_CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
        size_t reserve = ((size_t)1 << 30) + total_b / 20;
        budget = free_b > reserve ? free_b - reserve : free_b / 4;
        /* a memory budget of the caller's bounds the chunk workspace too (what is left of it,
         * or one row when nothing is) */
        if (c->tuning.memory_budget > 0) {
            /* what is left of the caller's bound, but never below the staged chunk (the
             * loops' step) or 256 rows: a one-row workspace would only multiply launches */
            const size_t bound = (size_t)c->tuning.memory_budget;
            size_t left = bound > c->held_bytes ? bound - c->held_bytes : 0;
            size_t floor_rows = (size_t)(c->stage_rows > 256 ? c->stage_rows : 256);
            if (left < floor_rows * row_bytes) left = floor_rows * row_bytes;
            if (left < budget) budget = left;
        }
        rows = (int64_t)(budget / row_bytes);
        if (w_e && (size_t)rows * w_e > (size_t)INT32_MAX) rows = (int64_t)(INT32_MAX / w_e);
        if (rows > c->n_samples) rows = c->n_samples;
        if (c->tuning.chunk_rows > 0 && c->tuning.chunk_rows < rows) rows = c->tuning.chunk_rows;
        if (rows < 1) {
            status = gmm_error(GMM_ERR_NOMEM,
                               "not enough free device memory for one row of %zu bytes",
                               row_bytes);
            goto fail;
        }
        c->chunk_rows = rows;
        ws_bytes = (size_t)rows * row_bytes;
        CREATE_DMALLOC(c->d_work, ws_bytes);
        c->work_bytes = ws_bytes;
        c->mstep_rows = row_m ? (int64_t)(ws_bytes / row_m) : c->n_samples;
        if ((size_t)c->mstep_rows * d > (size_t)INT32_MAX) c->mstep_rows = INT32_MAX / d;
        if (c->mstep_rows > c->n_samples) c->mstep_rows = c->n_samples;
        if (c->tuning.chunk_rows > 0 && c->tuning.chunk_rows < c->mstep_rows)
            c->mstep_rows = c->tuning.chunk_rows;
    } else {
        c->work_bytes = 0;
        c->chunk_rows = c->n_samples;
        c->mstep_rows = c->n_samples;
    }
    c->estep_step = c->tuning.estep_rows > 0 && c->tuning.estep_rows < c->chunk_rows
                        ? c->tuning.estep_rows
                        : c->chunk_rows;
    /* compaction buffers for the covariance products (full; tied in float32/TF32) */
    c->compact = row_m > 0 && !c->tuning.no_compaction &&
                 (size_t)c->mstep_rows * K + 1 < (size_t)INT32_MAX;
    if (c->compact) {
        if ((status = compact_rows_workspace_bytes((size_t)c->mstep_rows, c->n_components,
                                                   &c->compact_ws_bytes)) != GMM_OK)
            goto fail;
        CREATE_DMALLOC(c->d_compact_ws, c->compact_ws_bytes);
        c->h_bounds = (int *)malloc(sizeof(int) * (K + 1));
        if (!c->h_bounds) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory");
            goto fail;
        }
    }
fail:
    return status;
}

/* The table's set_n_components: the data stays on the device, the rest is made again. */
static gmm_status cuda_set_n_components(gmm_backend_ctx *c, int n_components)
{
    size_t asked_bytes = 0;
    if (n_components < 1)
        return gmm_error(GMM_ERR_ARG, "set_n_components: n_components=%d must be >= 1",
                         n_components);
    free_component_buffers(c);
    c->held_bytes = c->data_bytes_held;
    gmm_status status = alloc_component_buffers(c, n_components, &asked_bytes);
    return out_of_device_memory(status, c, asked_bytes);
}

static gmm_status cuda_create(gmm_backend_ctx **out, const gmm_backend_config *cfg)
{
    gmm_status status = GMM_OK;
    gmm_backend_ctx *c = NULL;
    const gmm_data_view *v = &cfg->data;
    const int64_t n_samples = v->n_rows;
    const int dim = v->dim, n_components = cfg->n_components;
    const gmm_cov_type type = cfg->type;
    const gmm_precision precision = cfg->precision;
    size_t asked_n = 0; /* the last cudaMalloc's request, for the out-of-memory message */
    size_t *asked_bytes = &asked_n;
    const gmm_tuning tuning = cfg->tuning ? *cfg->tuning : (gmm_tuning){};
    *out = NULL;
    if ((status = gmm_data_view_check(v)) != GMM_OK) return status;
    if (n_components < 1 || n_samples > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "CUDA backend: bad sizes N=%lld d=%d K=%d",
                         (long long)n_samples, dim, n_components);
    if (!cuda_available()) return gmm_error(GMM_ERR_NO_DEVICE, "no CUDA GPU is available");
    c = (gmm_backend_ctx *)calloc(1, sizeof *c);
    if (!c) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    c->n_samples = n_samples;
    c->first_row = v->first_row;
    c->n_total = v->n_total;
    c->comm = cfg->comm;
    c->dim = dim;
    c->n_components = n_components;
    c->type = type;
    c->precision = precision;
    c->tuning = tuning;
    c->bayes_prior = cfg->bayes;
    c->single = precision != GMM_PRECISION_FP64;
    /* column blocks of about 112 (7 at d = 784: 57% of the one GEMM's work; on the H100 at
     * K = 10, N = 60000 the E-step took 8.9 ms against 13.3 for one GEMM in float64, 2.35
     * against 3.06 under TF32), one plain GEMM a block over all components */
    c->estep_blocks = tuning.estep_blocks > 0 ? tuning.estep_blocks
                      : dim < 224             ? 1
                                              : (dim + 111) / 112;
    if (c->estep_blocks > dim) c->estep_blocks = dim;

    if (cfg->gpu) {
        c->gpu = cfg->gpu;
        c->caller_tf32 = gmm_gpu_tf32(c->gpu);
    } else {
        if ((status = gmm_gpu_create(&c->gpu)) != GMM_OK) goto fail;
        c->owns_gpu = true;
    }
    if ((status = gmm_gpu_set_tf32(c->gpu, precision == GMM_PRECISION_TF32)) != GMM_OK) goto fail;

    /* the data in its stored type, on the device or streamed from host memory (cuda_chunks.cu) */
    if ((status = cuda_data_place(c, v, asked_bytes)) != GMM_OK) goto fail;
    c->data_bytes_held = c->held_bytes;
    if ((status = alloc_component_buffers(c, n_components, asked_bytes)) != GMM_OK) goto fail;
    *out = c;
    return GMM_OK;
fail:
    status = out_of_device_memory(status, c, asked_n);
    cuda_destroy(c);
    return status;
}

static gmm_status cuda_set_params(gmm_backend_ctx *c, const gmm_model *m)
{
    gmm_status status = GMM_OK;
    size_t K = c->n_components, d = c->dim;
    if (m->n_components != c->n_components || m->dim != c->dim || m->covariance_type != c->type)
        return gmm_error(GMM_ERR_ARG, "set_params: the model's shape does not match the context");
    GMM_CUDA_CHECK(cudaMemcpy(c->d_weights, m->weights, sizeof(double) * K, cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_means, m->means, sizeof(double) * K * d, cudaMemcpyHostToDevice));
    if (m->covariances)
        GMM_CUDA_CHECK(cudaMemcpy(c->d_cov, m->covariances, sizeof(double) * c->cov_n,
                                  cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(c->d_prec, m->precisions_cholesky, sizeof(double) * c->cov_n,
                              cudaMemcpyHostToDevice));
    if (c->bayes && (status = gmm_bayes_from_model(c->bayes, m)) != GMM_OK) goto fail;
    /* the covariances may be absent or another's: the data's order */
    c->order_source = c->order_current = c->order_usable = false;
    status = cuda_prepare_estep(c);
fail:
    return status;
}

static gmm_status cuda_get_params(gmm_backend_ctx *c, gmm_model *m)
{
    gmm_status status = GMM_OK;
    size_t K = c->n_components, d = c->dim;
    GMM_CUDA_CHECK(cudaMemcpy(m->weights, c->d_weights, sizeof(double) * K, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(m->means, c->d_means, sizeof(double) * K * d, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(m->covariances, c->d_cov, sizeof(double) * c->cov_n,
                              cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(m->precisions_cholesky, c->d_prec, sizeof(double) * c->cov_n,
                              cudaMemcpyDeviceToHost));
    if (c->bayes) status = gmm_bayes_to_model(c->bayes, m);
fail:
    return status;
}

static gmm_status cuda_set_resp(gmm_backend_ctx *c, const double *resp)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaMemcpy(c->d_resp, resp, sizeof(double) * c->n_samples * c->n_components,
                              cudaMemcpyHostToDevice));
    c->resp_state = 1;
    c->resp_fresh = true;
fail:
    return status;
}

static bool cuda_streams(gmm_backend_ctx *c) { return c->streams; }

extern "C" const gmm_backend gmm_backend_cuda = {
    "cuda",
    cuda_available,
    cuda_supports,
    cuda_create,
    cuda_destroy,
    cuda_resources,
    cuda_set_params,
    cuda_get_params,
    cuda_set_resp,
    cuda_e_step,
    cuda_m_step,
    cuda_get_estep,
    cuda_kmeans_lloyd,
    cuda_kmeans_plusplus,
    cuda_set_n_components,
    NULL, /* set_rows: a GPU scores per call (models/core/score.h) */
    cuda_streams,
    cuda_e_step_f64,
    cuda_get_log_resp_rows,
};
