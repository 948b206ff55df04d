/* The CUDA backend's k-means (see backend_cuda.cu): the device steps of the Lloyd and k-means++
 * loops of models/backend/cpu/kmeans.c (written once for both devices), over the CUDA versions of the steps
 * in kernels/kmeans.h. The data, labels, distances and the one-hot responsibilities stay on the
 * device; per Lloyd iteration the K x d centers and K counts cross, per k-means++ seed the draws
 * and the candidates' potentials. The data is read in float64 through the chunk loops of
 * cuda_chunks.cu (in place when it is resident float64; per-row results at the chunk's offset),
 * the chunks' k-means sums and counts added on the host. On data of up to KMEANS_GEMM_FREE_MOST
 * values Lloyd's steps make no cuBLAS call (the GEMM-free assignment and label sums), so that
 * cuBLAS's first call is made beside them; on more, and past KMEANS_LABEL_SUMS_MAX_K
 * components, the distances and sums are GEMMs. */
#include "kernels/kmeans.h"
#include "models/backend/cuda/backend_cuda.cuh"
#include "models/backend/cpu/kmeans.h"

/* The GEMM-free Lloyd steps up to this many data values (n x d: 85000 images of 784 pixels).
 * They let cuBLAS's first call (~45 ms) run beside the k-means, which wins on MNIST-sized data
 * (the initialisation 0.066-0.103 -> 0.045-0.061 s at 60000 x 784 on the H100 machine), but
 * they are slower than cuBLAS's GEMMs per pass: at 2 million x 784 the initialisation took
 * 1.72 s against 0.99 s. */
#define KMEANS_GEMM_FREE_MOST (64.0 * 1024 * 1024)

/* ---- Lloyd ------------------------------------------------------------------------------- */

typedef struct {
    gmm_backend_ctx *c;
    void *stream;             /* the resources object's stream (the GEMMs run there too) */
    double *d_x_norm;         /* N */
    double *d_min_dist;       /* N: c->d_lpn */
    double *d_dots;           /* N x K: c->d_log_resp (the GEMM path) */
    double *d_sum_work;       /* kmeans_label_sums_work(N, K, d); NULL: the GEMM path */
    double *d_onehot;         /* N x K: c->d_resp, the one-hot of the labels after every assign */
    double *d_centers;        /* K x d: c->d_means */
    double *d_c_norm;         /* K: c->d_const */
    double *d_sums;           /* K x d: c->d_acc */
    double *d_mean;           /* d: c->d_b */
    int *d_labels, *d_counts; /* N, K */
    unsigned long long *d_changed;
    int64_t *d_far;
    double *h_sums;           /* K x d: one chunk's sums on the host */
    int *h_counts;            /* K */
} gpu_lloyd;

/* The column sums, chunk by chunk (the data in float64), accumulated on the device in d_mean
 * and added to sums once. */
static gmm_status gpu_column_sums(void *ctx, double *sums)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int d = c->dim;
    cuda_chunk_loop L;
    double *h = (double *)malloc(sizeof(double) * d);
    if (!h) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
    GMM_CUDA_CHECK(cudaMemset(g->d_mean, 0, sizeof(double) * d));
    if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, c->n_samples, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status))
        if ((status = kmeans_column_sums_cuda((const double *)L.X, L.rows, d, g->d_mean,
                                              g->stream)) != GMM_OK)
            goto fail;
    if (status != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(h, g->d_mean, sizeof(double) * d, cudaMemcpyDeviceToHost));
    for (int j = 0; j < d; j++) sums[j] += h[j];
fail:
    free(h);
    return status;
}

static gmm_status gpu_prepare(void *ctx, const double *mean, double *total_deviation)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int64_t N = c->n_samples;
    cuda_chunk_loop L;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_mean, mean, sizeof(double) * c->dim, cudaMemcpyHostToDevice));
    /* the deviations go to min_dist, summed, then overwritten by the first assignment */
    if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, N, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status))
        if ((status = kmeans_row_norms_cuda((const double *)L.X, L.rows, c->dim, g->d_mean,
                                            g->d_x_norm + L.r0, g->d_min_dist + L.r0,
                                            g->stream)) != GMM_OK)
            goto fail;
    if (status != GMM_OK) goto fail;
    if ((status = reduce_sum_cuda(g->d_min_dist, (size_t)N, 1.0, c->d_partial, c->d_scalar,
                                  g->stream)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(total_deviation, c->d_scalar, sizeof(double), cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemset(g->d_labels, 0xff, sizeof(int) * N)); /* -1 */
fail:
    return status;
}

static gmm_status gpu_assign(void *ctx, const double *centers, int64_t *n_changed)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int K = c->n_components, d = c->dim;
    unsigned long long changed = 0;
    int64_t total_changed = 0;
    cuda_chunk_loop L;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_centers, centers, sizeof(double) * K * d,
                              cudaMemcpyHostToDevice));
    if ((status = kmeans_sq_norms_cuda(g->d_centers, K, d, g->d_c_norm, g->stream)) != GMM_OK)
        goto fail;
    if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, c->n_samples, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status)) {
        const int64_t r0 = L.r0;
        /* the one-hot matrix is written on every pass, so after the loop it is the final
         * labels' */
        if (g->d_sum_work) {
            status = kmeans_assign_rows_cuda((const double *)L.X, L.rows, d, g->d_centers,
                                             g->d_x_norm + r0, g->d_c_norm, K, g->d_labels + r0,
                                             g->d_min_dist + r0, g->d_onehot + r0 * K,
                                             n_changed ? g->d_changed : NULL, g->stream);
        } else {
            status = gmm_gpu_dgemm(c->gpu, false, true, (int)L.rows, K, d, 1.0,
                                   (const double *)L.X, d, g->d_centers, d, 0.0,
                                   g->d_dots + r0 * K, K);
            if (status == GMM_OK)
                status = kmeans_assign_cuda(g->d_dots + r0 * K, g->d_x_norm + r0, g->d_c_norm,
                                            L.rows, K, g->d_labels + r0, g->d_min_dist + r0,
                                            g->d_onehot + r0 * K,
                                            n_changed ? g->d_changed : NULL, g->stream);
        }
        if (status != GMM_OK) goto fail;
        if (n_changed) {
            GMM_CUDA_CHECK(cudaMemcpy(&changed, g->d_changed, sizeof changed,
                                      cudaMemcpyDeviceToHost));
            total_changed += (int64_t)changed;
        }
    }
    if (status != GMM_OK) goto fail;
    if (n_changed) *n_changed = total_changed;
fail:
    return status;
}

static gmm_status gpu_update(void *ctx, double *sums, int *counts)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int K = c->n_components, d = c->dim;
    const size_t Kd = (size_t)K * d;
    cuda_chunk_loop L;
    if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, c->n_samples, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status)) {
        const bool first = L.r0 == 0;
        status = g->d_sum_work
                     ? kmeans_label_sums_cuda((const double *)L.X, L.rows, d, g->d_labels + L.r0,
                                              K, g->d_sums, g->d_counts, g->d_sum_work, g->stream)
                     : kmeans_sums_cuda(c->gpu, (const double *)L.X, L.rows, d,
                                        g->d_labels + L.r0, g->d_onehot + L.r0 * K, K, g->d_sums,
                                        g->d_counts);
        if (status != GMM_OK) goto fail;
        GMM_CUDA_CHECK(cudaMemcpy(first ? sums : g->h_sums, g->d_sums, sizeof(double) * Kd,
                                  cudaMemcpyDeviceToHost));
        GMM_CUDA_CHECK(cudaMemcpy(first ? counts : g->h_counts, g->d_counts, sizeof(int) * K,
                                  cudaMemcpyDeviceToHost));
        if (!first) {
            for (size_t e = 0; e < Kd; e++) sums[e] += g->h_sums[e];
            for (int k = 0; k < K; k++) counts[k] += g->h_counts[k];
        }
    }
fail:
    return status;
}

static gmm_status gpu_farthest(void *ctx, double *value, int64_t *index)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    if ((status = kmeans_argmax_cuda(g->d_min_dist, g->c->n_samples, g->d_far, g->stream)) !=
        GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(index, g->d_far, sizeof *index, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(value, g->d_min_dist + *index, sizeof(double),
                              cudaMemcpyDeviceToHost));
fail:
    return status;
}

static gmm_status gpu_take(void *ctx, int64_t index, double *row)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    if ((status = cuda_data_row_f64(g->c, index, row)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaMemset(g->d_min_dist + index, 0, sizeof(double)));
fail:
    return status;
}

/* Lloyd's k-means on the device with gmm_kmeans_run's semantics (see backend.h). */
gmm_status cuda_kmeans_lloyd(gmm_backend_ctx *c, int max_iter, double *centers, double *resp)
{
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    int *labels = NULL;
    gpu_lloyd g;
    memset(&g, 0, sizeof g);
    const gmm_kmeans_steps steps = {&g,          gpu_column_sums, gpu_prepare, gpu_assign,
                                    gpu_update, gpu_farthest,    gpu_take};

    c->have_params = false;
    c->resp_state = 0;
    gmm_gpu_blas_warm_up_start(c->gpu); /* (when no k-means++ started it) */
    g.c = c;
    g.stream = gmm_gpu_stream(c->gpu);
    g.d_min_dist = c->d_lpn;
    g.d_dots = c->d_log_resp;
    g.d_onehot = c->d_resp;
    g.d_centers = c->d_means;
    g.d_c_norm = c->d_const;
    g.d_sums = c->d_acc;
    g.d_mean = c->d_b;
    g.h_sums = (double *)malloc(sizeof(double) * K * d);
    g.h_counts = (int *)malloc(sizeof(int) * K);
    if (resp) labels = (int *)malloc(sizeof(int) * N);
    if (!g.h_sums || !g.h_counts || (resp && !labels)) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    DMALLOC(g.d_x_norm, sizeof(double) * N);
    DMALLOC(g.d_labels, sizeof(int) * N);
    DMALLOC(g.d_counts, sizeof(int) * K);
    DMALLOC(g.d_changed, sizeof(unsigned long long));
    DMALLOC(g.d_far, sizeof(int64_t));
    if (!c->tuning.kmeans_gemm && (double)N * d <= KMEANS_GEMM_FREE_MOST &&
        kmeans_label_sums_work(N, K, d) > 0)
        DMALLOC(g.d_sum_work, sizeof(double) * kmeans_label_sums_work(N, K, d));

    if ((status = gmm_kmeans_run(&steps, c->comm, c->n_total, d, K, max_iter, centers,
                                 NULL)) != GMM_OK)
        goto fail;
    if (resp) {
        GMM_CUDA_CHECK(cudaMemcpy(labels, g.d_labels, sizeof(int) * N, cudaMemcpyDeviceToHost));
        memset(resp, 0, sizeof(double) * N * K);
        for (int64_t i = 0; i < N; i++) resp[i * K + labels[i]] = 1.0;
    } else {
        /* d_resp holds the one-hot matrix of the final labels (every assignment writes it), as
         * set_resp would have loaded it */
        c->resp_state = 1;
        c->resp_fresh = true;
    }
fail:
    cudaFree(g.d_x_norm);
    cudaFree(g.d_labels);
    cudaFree(g.d_counts);
    cudaFree(g.d_changed);
    cudaFree(g.d_far);
    cudaFree(g.d_sum_work);
    free(g.h_sums);
    free(g.h_counts);
    free(labels);
    return status;
}

/* ---- k-means++ --------------------------------------------------------------------------- */

typedef struct {
    gmm_backend_ctx *c;
    void *stream;
    double *d_closest;        /* N */
    double *d_cand_dist;      /* n_trials x N */
    double *d_draws;          /* n_trials */
    double *d_pots;           /* n_trials */
    double *d_pot_work;       /* kmeans_pp_potentials_work(N, n_trials) */
    double *d_pick_work;      /* kmeans_pp_pick_work(N) */
    int64_t *d_cand;          /* n_trials */
    double *d_rows;           /* n_trials x d: the candidates */
} gpu_kpp;

/* The distances to n_rows host rows (float64), min'd with d_closest when it is not NULL, into
 * d_out (n_rows x N), chunk by chunk (one call per row when the data comes in several chunks:
 * the kernel writes a chunk's rows contiguously). */
static gmm_status gpu_kpp_distances(gpu_kpp *g, const double *rows, int n_rows,
                                    const double *d_closest, double *d_out)
{
    gmm_status status = GMM_OK;
    gmm_backend_ctx *c = g->c;
    const int64_t N = c->n_samples;
    cuda_chunk_loop L;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_rows, rows, sizeof(double) * n_rows * c->dim,
                              cudaMemcpyHostToDevice));
    if ((status = cuda_chunks_begin(c, GMM_ELEM_F64, N, &L)) != GMM_OK) goto fail;
    while (cuda_chunks_next(&L, &status)) {
        if (L.rows == N) {
            status = kmeans_pp_distances_rows_cuda(L.X, GMM_ELEM_F64, N, c->dim, g->d_rows,
                                                   n_rows, d_closest, d_out, g->stream);
        } else {
            for (int t = 0; t < n_rows && status == GMM_OK; t++)
                status = kmeans_pp_distances_rows_cuda(
                    L.X, GMM_ELEM_F64, L.rows, c->dim, g->d_rows + (size_t)t * c->dim, 1,
                    d_closest ? d_closest + L.r0 : NULL, d_out + (size_t)t * N + L.r0,
                    g->stream);
        }
        if (status != GMM_OK) goto fail;
    }
fail:
    return status;
}

static gmm_status gpu_kpp_first(void *ctx, const double *row, double *potential)
{
    gmm_status status = GMM_OK;
    gpu_kpp *g = (gpu_kpp *)ctx;
    const int64_t N = g->c->n_samples;
    if ((status = gpu_kpp_distances(g, row, 1, NULL, g->d_closest)) != GMM_OK) goto fail;
    if ((status = kmeans_pp_potentials_cuda(g->d_closest, N, 1, g->d_pots, g->d_pot_work,
                                            g->stream)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(potential, g->d_pots, sizeof(double), cudaMemcpyDeviceToHost));
fail:
    return status;
}

static gmm_status gpu_kpp_pick(void *ctx, const double *draws, int n_draws, int64_t *picks)
{
    gmm_status status = GMM_OK;
    gpu_kpp *g = (gpu_kpp *)ctx;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_draws, draws, sizeof(double) * n_draws,
                              cudaMemcpyHostToDevice));
    if ((status = kmeans_pp_pick_cuda(g->d_closest, g->c->n_samples, g->d_draws, n_draws,
                                      g->d_cand, g->d_pick_work, g->stream)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(picks, g->d_cand, sizeof(int64_t) * n_draws,
                              cudaMemcpyDeviceToHost));
fail:
    return status;
}

static gmm_status gpu_kpp_trials(void *ctx, const double *rows, int n_rows, double *potentials)
{
    gmm_status status = GMM_OK;
    gpu_kpp *g = (gpu_kpp *)ctx;
    const int64_t N = g->c->n_samples;
    if ((status = gpu_kpp_distances(g, rows, n_rows, g->d_closest, g->d_cand_dist)) != GMM_OK)
        goto fail;
    if ((status = kmeans_pp_potentials_cuda(g->d_cand_dist, N, n_rows, g->d_pots,
                                            g->d_pot_work, g->stream)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(potentials, g->d_pots, sizeof(double) * n_rows,
                              cudaMemcpyDeviceToHost));
fail:
    return status;
}

/* Row `index` in float64 (exactly the stored value, as the CPU converts it). */
static gmm_status gpu_kpp_row(void *ctx, int64_t index, double *row)
{
    return cuda_data_row_f64(((gpu_kpp *)ctx)->c, index, row);
}

static gmm_status gpu_kpp_keep(void *ctx, int best)
{
    gmm_status status = GMM_OK;
    gpu_kpp *g = (gpu_kpp *)ctx;
    const int64_t N = g->c->n_samples;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_closest, g->d_cand_dist + (size_t)best * N, sizeof(double) * N,
                              cudaMemcpyDeviceToDevice));
fail:
    return status;
}

/* Greedy k-means++ on the device with gmm_kmeans_plusplus's draws (gmm_kpp_run). */
gmm_status cuda_kmeans_plusplus(gmm_backend_ctx *c, gmm_rng *rng, int64_t *indices,
                                double *centers)
{
    gmm_status status = GMM_OK;
    const int64_t N = c->n_samples;
    const int T = gmm_kpp_trials(c->n_components);
    gpu_kpp g;
    memset(&g, 0, sizeof g);
    const gmm_kpp_steps steps = {&g, gpu_kpp_first, gpu_kpp_pick, gpu_kpp_trials, gpu_kpp_keep,
                                 gpu_kpp_row};
    g.c = c;
    g.stream = gmm_gpu_stream(c->gpu);
    /* k-means++ makes no cuBLAS call (nor Lloyd up to KMEANS_GEMM_FREE_MOST values): cuBLAS's
     * first one runs beside them */
    gmm_gpu_blas_warm_up_start(c->gpu);
    DMALLOC(g.d_closest, sizeof(double) * N);
    DMALLOC(g.d_cand_dist, sizeof(double) * N * T);
    DMALLOC(g.d_draws, sizeof(double) * T);
    DMALLOC(g.d_pots, sizeof(double) * T);
    DMALLOC(g.d_pot_work, sizeof(double) * kmeans_pp_potentials_work(N, T));
    DMALLOC(g.d_pick_work, sizeof(double) * kmeans_pp_pick_work(N));
    DMALLOC(g.d_cand, sizeof(int64_t) * T);
    DMALLOC(g.d_rows, sizeof(double) * T * c->dim);
    status = gmm_kpp_run(&steps, c->comm, c->first_row, N, c->n_total, c->dim, c->n_components,
                         rng, indices, centers);
fail:
    cudaFree(g.d_closest);
    cudaFree(g.d_cand_dist);
    cudaFree(g.d_draws);
    cudaFree(g.d_pots);
    cudaFree(g.d_pot_work);
    cudaFree(g.d_pick_work);
    cudaFree(g.d_cand);
    cudaFree(g.d_rows);
    return status;
}
