/* The CUDA backend's k-means (see backend_cuda.cu): the device steps of the Lloyd and k-means++
 * loops of models/kmeans.c (written once for both devices), over the CUDA versions of the steps
 * in kernels/kmeans.h. The data, labels, distances and the one-hot responsibilities stay on the
 * device; per Lloyd iteration the K x d centers and K counts cross, per k-means++ seed the draws
 * and the candidates' potentials. */
#include "kernels/kmeans.h"
#include "models/backend_cuda.cuh"
#include "models/kmeans.h"

/* ---- Lloyd ------------------------------------------------------------------------------- */

typedef struct {
    gmm_backend_ctx *c;
    void *stream;             /* the resources object's stream (the GEMMs run there too) */
    const double *d_X;        /* the data in float64 (a converted copy under fp32/TF32) */
    double *d_x_norm;         /* N */
    double *d_min_dist;       /* N: c->d_lpn */
    double *d_dots;           /* N x K: c->d_log_resp */
    double *d_onehot;         /* N x K: c->d_resp, the one-hot of the labels after every assign */
    double *d_centers;        /* K x d: c->d_means */
    double *d_c_norm;         /* K: c->d_const */
    double *d_sums;           /* K x d: c->d_acc */
    double *d_mean;           /* d: c->d_b */
    int *d_labels, *d_counts; /* N, K */
    unsigned long long *d_changed;
    int64_t *d_far;
} gpu_lloyd;

/* The column sums as N x the column means of kmeans_column_means_cuda (the driver divides by
 * the total again: the mean within an ulp of the device's). */
static gmm_status gpu_column_sums(void *ctx, double *sums)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int d = c->dim;
    double *mean = (double *)malloc(sizeof(double) * d);
    if (!mean) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
    if ((status = kmeans_column_means_cuda(g->d_X, c->n_samples, d, g->d_mean, g->stream)) !=
        GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(mean, g->d_mean, sizeof(double) * d, cudaMemcpyDeviceToHost));
    for (int j = 0; j < d; j++) sums[j] += mean[j] * (double)c->n_samples;
fail:
    free(mean);
    return status;
}

static gmm_status gpu_prepare(void *ctx, const double *mean, double *total_deviation)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int64_t N = c->n_samples;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_mean, mean, sizeof(double) * c->dim, cudaMemcpyHostToDevice));
    /* the deviations go to min_dist, summed, then overwritten by the first assignment */
    if ((status = kmeans_row_norms_cuda(g->d_X, N, c->dim, g->d_mean, g->d_x_norm, g->d_min_dist,
                                        g->stream)) != GMM_OK)
        goto fail;
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
    const int64_t N = c->n_samples;
    unsigned long long changed = 0;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_centers, centers, sizeof(double) * K * d,
                              cudaMemcpyHostToDevice));
    if ((status = kmeans_sq_norms_cuda(g->d_centers, K, d, g->d_c_norm, g->stream)) != GMM_OK)
        goto fail;
    if ((status = gmm_gpu_dgemm(c->gpu, false, true, (int)N, K, d, 1.0, g->d_X, d, g->d_centers,
                                d, 0.0, g->d_dots, K)) != GMM_OK)
        goto fail;
    /* the one-hot matrix is written on every pass, so after the loop it is the final labels' */
    if ((status = kmeans_assign_cuda(g->d_dots, g->d_x_norm, g->d_c_norm, N, K, g->d_labels,
                                     g->d_min_dist, g->d_onehot,
                                     n_changed ? g->d_changed : NULL, g->stream)) != GMM_OK)
        goto fail;
    if (n_changed) {
        GMM_CUDA_CHECK(cudaMemcpy(&changed, g->d_changed, sizeof changed, cudaMemcpyDeviceToHost));
        *n_changed = (int64_t)changed;
    }
fail:
    return status;
}

static gmm_status gpu_update(void *ctx, double *sums, int *counts)
{
    gmm_status status = GMM_OK;
    gpu_lloyd *g = (gpu_lloyd *)ctx;
    gmm_backend_ctx *c = g->c;
    const int K = c->n_components, d = c->dim;
    if ((status = kmeans_sums_cuda(c->gpu, g->d_X, c->n_samples, d, g->d_labels, g->d_onehot, K,
                                   g->d_sums, g->d_counts)) != GMM_OK)
        goto fail;
    GMM_CUDA_CHECK(cudaMemcpy(sums, g->d_sums, sizeof(double) * K * d, cudaMemcpyDeviceToHost));
    GMM_CUDA_CHECK(cudaMemcpy(counts, g->d_counts, sizeof(int) * K, cudaMemcpyDeviceToHost));
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
    const int d = g->c->dim;
    GMM_CUDA_CHECK(cudaMemcpy(row, g->d_X + index * d, sizeof(double) * d,
                              cudaMemcpyDeviceToHost));
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
    const size_t Kd = (size_t)K * d;
    double *own_X = NULL;
    int *labels = NULL;
    gpu_lloyd g;
    memset(&g, 0, sizeof g);
    const gmm_kmeans_steps steps = {&g,          gpu_column_sums, gpu_prepare, gpu_assign,
                                    gpu_update, gpu_farthest,    gpu_take};

    c->have_params = false;
    c->resp_state = 0;
    g.c = c;
    g.stream = gmm_gpu_stream(c->gpu);
    g.d_min_dist = c->d_lpn;
    g.d_dots = c->d_log_resp;
    g.d_onehot = c->d_resp;
    g.d_centers = c->d_means;
    g.d_c_norm = c->d_const;
    g.d_sums = c->d_acc;
    g.d_mean = c->d_b;
    if (resp) {
        labels = (int *)malloc(sizeof(int) * N);
        if (!labels) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
            goto fail;
        }
    }
    if (!c->single) {
        g.d_X = (const double *)c->d_X;
    } else {
        /* float data: the distances in float64 from a float64 copy */
        double *dX;
        if (c->d_work && (size_t)c->chunk_rows * (c->type == GMM_COV_FULL ? Kd : (size_t)d) *
                                 elem_size(c) >= sizeof(double) * N * d)
            dX = (double *)c->d_work;
        else {
            DMALLOC(own_X, sizeof(double) * N * d);
            dX = own_X;
        }
        if ((status = kmeans_to_double_cuda((const float *)c->d_X, (size_t)N * d, dX,
                                            g.stream)) != GMM_OK)
            goto fail;
        g.d_X = dX;
    }
    DMALLOC(g.d_x_norm, sizeof(double) * N);
    DMALLOC(g.d_labels, sizeof(int) * N);
    DMALLOC(g.d_counts, sizeof(int) * K);
    DMALLOC(g.d_changed, sizeof(unsigned long long));
    DMALLOC(g.d_far, sizeof(int64_t));

    if ((status = gmm_kmeans_run(&steps, c->comm, c->n_total, d, K, max_iter, centers, NULL)) != GMM_OK) goto fail;
    if (resp) {
        GMM_CUDA_CHECK(cudaMemcpy(labels, g.d_labels, sizeof(int) * N, cudaMemcpyDeviceToHost));
        memset(resp, 0, sizeof(double) * N * K);
        for (int64_t i = 0; i < N; i++) resp[i * K + labels[i]] = 1.0;
    } else {
        /* d_resp holds the one-hot matrix of the final labels (every assignment writes it), as
         * set_resp would have loaded it */
        c->resp_state = 1;
    }
fail:
    cudaFree(own_X);
    cudaFree(g.d_x_norm);
    cudaFree(g.d_labels);
    cudaFree(g.d_counts);
    cudaFree(g.d_changed);
    cudaFree(g.d_far);
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

/* The distances to n_rows host rows (float64), min'd with d_closest when it is not NULL. */
static gmm_status gpu_kpp_distances(gpu_kpp *g, const double *rows, int n_rows,
                                    const double *d_closest, double *d_out)
{
    gmm_status status = GMM_OK;
    gmm_backend_ctx *c = g->c;
    GMM_CUDA_CHECK(cudaMemcpy(g->d_rows, rows, sizeof(double) * n_rows * c->dim,
                              cudaMemcpyHostToDevice));
    status = kmeans_pp_distances_rows_cuda(c->d_X, c->single ? GMM_ELEM_F32 : GMM_ELEM_F64,
                                           c->n_samples, c->dim, g->d_rows, n_rows, d_closest,
                                           d_out, g->stream);
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

/* Row `index` in float64 (exactly the stored value, float data widened). */
static gmm_status gpu_kpp_row(void *ctx, int64_t index, double *row)
{
    gmm_status status = GMM_OK;
    gpu_kpp *g = (gpu_kpp *)ctx;
    gmm_backend_ctx *c = g->c;
    const int d = c->dim;
    if (!c->single) {
        GMM_CUDA_CHECK(cudaMemcpy(row, (const double *)c->d_X + index * d, sizeof(double) * d,
                                  cudaMemcpyDeviceToHost));
    } else {
        float *f = (float *)malloc(sizeof(float) * d);
        if (!f) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means++");
        cudaError_t e = cudaMemcpy(f, (const float *)c->d_X + index * d, sizeof(float) * d,
                                   cudaMemcpyDeviceToHost);
        for (int j = 0; j < d; j++) row[j] = (double)f[j];
        free(f);
        GMM_CUDA_CHECK(e);
    }
fail:
    return status;
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
