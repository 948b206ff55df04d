/* k-means written once (see kmeans.h): Lloyd's loop and greedy k-means++ over a table of device
 * steps, and the CPU steps over the kernels' CPU twins (the distances as one GEMM per row chunk
 * through kernels/blas_cpu.h). */
#include "models/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "kernels/kmeans.h"

/* rows per GEMM chunk of the CPU assignment: the dots of a chunk stay in cache */
#define KMEANS_CHUNK_ROWS 8192

gmm_status gmm_kmeans_run(const gmm_kmeans_steps *steps, int64_t n_samples, int dim,
                          int n_components, int max_iter, double *centers, int *n_iter)
{
    gmm_status status = GMM_OK;
    const int K = n_components;
    const size_t Kd = (size_t)K * dim;
    double *new_centers = NULL;
    int *counts = NULL;
    double var_sum = 0, tol;
    int it;
    if (!steps || !centers || n_samples < 1 || dim < 1 || K < 1 || max_iter < 1)
        return gmm_error(GMM_ERR_ARG, "k-means: bad arguments");
    new_centers = malloc(sizeof(double) * Kd);
    counts = malloc(sizeof(int) * K);
    if (!new_centers || !counts) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    /* tol as scikit-learn: 1e-4 times the mean over features of the variance */
    if ((status = steps->prepare(steps->ctx, &var_sum)) != GMM_OK) goto fail;
    tol = 1e-4 * var_sum / ((double)n_samples * dim);

    for (it = 1; it <= max_iter; it++) {
        int64_t changed = 0;
        double shift = 0;
        if ((status = steps->assign(steps->ctx, centers, &changed)) != GMM_OK) goto fail;
        if (changed == 0 && it > 1) break;
        if ((status = steps->update(steps->ctx, new_centers, counts)) != GMM_OK) goto fail;
        for (int k = 0; k < K; k++) {
            if (counts[k] == 0) {
                /* empty cluster: move it to the sample farthest from its center */
                status = steps->farthest(steps->ctx, new_centers + (size_t)k * dim);
                if (status != GMM_OK) goto fail;
                continue;
            }
            for (int j = 0; j < dim; j++) new_centers[(size_t)k * dim + j] /= counts[k];
        }
        for (size_t q = 0; q < Kd; q++)
            shift += (new_centers[q] - centers[q]) * (new_centers[q] - centers[q]);
        memcpy(centers, new_centers, sizeof(double) * Kd);
        if (shift <= tol) {
            status = steps->assign(steps->ctx, centers, NULL);
            if (status != GMM_OK) goto fail;
            break;
        }
    }
    if (n_iter) *n_iter = it > max_iter ? max_iter : it;
fail:
    free(new_centers);
    free(counts);
    return status;
}

int gmm_kpp_trials(int n_components)
{
    int n_trials = 2 + (int)log((double)n_components);
    return n_trials > KMEANS_PP_MAX_TRIALS ? KMEANS_PP_MAX_TRIALS : n_trials;
}

gmm_status gmm_kpp_run(const gmm_kpp_steps *steps, int64_t n_samples, int n_components,
                       gmm_rng *rng, int64_t *indices)
{
    gmm_status status = GMM_OK;
    const int n_trials = gmm_kpp_trials(n_components);
    double draws[KMEANS_PP_MAX_TRIALS], pots[KMEANS_PP_MAX_TRIALS], pot = 0;
    int64_t cand[KMEANS_PP_MAX_TRIALS];
    if (!steps || !rng || !indices || n_samples < 1 || n_components < 1)
        return gmm_error(GMM_ERR_ARG, "k-means++: bad arguments");
    indices[0] = (int64_t)gmm_rng_below(rng, (uint64_t)n_samples);
    if ((status = steps->first(steps->ctx, indices[0], &pot)) != GMM_OK) return status;
    for (int k = 1; k < n_components; k++) {
        for (int t = 0; t < n_trials; t++) draws[t] = gmm_rng_uniform(rng) * pot;
        status = steps->trials(steps->ctx, draws, n_trials, cand, pots);
        if (status != GMM_OK) return status;
        double best_pot = INFINITY;
        int best = 0;
        for (int t = 0; t < n_trials; t++) {
            if (pots[t] < best_pot) {
                best_pot = pots[t];
                best = t;
            }
        }
        indices[k] = cand[best];
        pot = best_pot;
        if ((status = steps->keep(steps->ctx, best)) != GMM_OK) return status;
    }
    return GMM_OK;
}

/* ---- the CPU steps ------------------------------------------------------------------------ */

typedef struct {
    const double *X;
    int64_t n_samples;
    int dim, n_components;
    int *labels;        /* the caller's */
    double *x_norm;     /* n_samples */
    double *min_dist;   /* n_samples */
    double *c_norm;     /* K */
    double *dots;       /* KMEANS_CHUNK_ROWS x K */
} cpu_lloyd;

static gmm_status cpu_prepare(void *ctx, double *total_deviation)
{
    cpu_lloyd *c = ctx;
    gmm_status status;
    double *mean = malloc(sizeof(double) * c->dim), var_sum = 0;
    if (!mean) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
    status = kmeans_column_means_cpu(c->X, c->n_samples, c->dim, mean);
    /* the deviations go to min_dist, summed in index order (deterministic), then overwritten */
    if (status == GMM_OK)
        status = kmeans_row_norms_cpu(c->X, c->n_samples, c->dim, mean, c->x_norm, c->min_dist);
    free(mean);
    if (status != GMM_OK) return status;
    for (int64_t i = 0; i < c->n_samples; i++) var_sum += c->min_dist[i];
    for (int64_t i = 0; i < c->n_samples; i++) c->labels[i] = -1;
    *total_deviation = var_sum;
    return GMM_OK;
}

static gmm_status cpu_assign(void *ctx, const double *centers, int64_t *n_changed)
{
    cpu_lloyd *c = ctx;
    const int K = c->n_components, d = c->dim;
    int64_t changed = 0;
    gmm_status status = kmeans_sq_norms_cpu(centers, K, d, c->c_norm);
    if (status != GMM_OK) return status;
    for (int64_t r0 = 0; r0 < c->n_samples; r0 += KMEANS_CHUNK_ROWS) {
        int64_t rows = c->n_samples - r0 < KMEANS_CHUNK_ROWS ? c->n_samples - r0 : KMEANS_CHUNK_ROWS;
        int64_t chunk_changed = 0;
        la_dgemm(false, true, (int)rows, K, d, 1.0, c->X + (size_t)r0 * d, d, centers, d, 0.0,
                 c->dots, K);
        status = kmeans_assign_cpu(c->dots, c->x_norm + r0, c->c_norm, rows, K, c->labels + r0,
                                   c->min_dist + r0, NULL, &chunk_changed);
        if (status != GMM_OK) return status;
        changed += chunk_changed;
    }
    if (n_changed) *n_changed = changed;
    return GMM_OK;
}

static gmm_status cpu_update(void *ctx, double *sums, int *counts)
{
    cpu_lloyd *c = ctx;
    return kmeans_sums_cpu(c->X, c->n_samples, c->dim, c->labels, c->n_components, sums, counts);
}

static gmm_status cpu_farthest(void *ctx, double *row)
{
    cpu_lloyd *c = ctx;
    int64_t far = 0;
    gmm_status status = kmeans_argmax_cpu(c->min_dist, c->n_samples, &far);
    if (status != GMM_OK) return status;
    memcpy(row, c->X + far * c->dim, sizeof(double) * c->dim);
    c->min_dist[far] = 0;
    return GMM_OK;
}

gmm_status gmm_kmeans_lloyd(const double *X, int64_t n_samples, int dim, int n_components,
                            int max_iter, double *centers, int *labels, int *n_iter)
{
    gmm_status status = GMM_OK;
    const int K = n_components;
    cpu_lloyd c = {X, n_samples, dim, K, labels, NULL, NULL, NULL, NULL};
    const gmm_kmeans_steps steps = {&c, cpu_prepare, cpu_assign, cpu_update, cpu_farthest};
    if (!X || !labels || n_samples < 1 || dim < 1 || K < 1)
        return gmm_error(GMM_ERR_ARG, "k-means: bad arguments");
    c.x_norm = malloc(sizeof(double) * n_samples);
    c.min_dist = malloc(sizeof(double) * n_samples);
    c.c_norm = malloc(sizeof(double) * K);
    c.dots = malloc(sizeof(double) * (size_t)KMEANS_CHUNK_ROWS * K);
    if (!c.x_norm || !c.min_dist || !c.c_norm || !c.dots) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    status = gmm_kmeans_run(&steps, n_samples, dim, K, max_iter, centers, n_iter);
fail:
    free(c.x_norm);
    free(c.min_dist);
    free(c.c_norm);
    free(c.dots);
    return status;
}

typedef struct {
    const double *X;
    int64_t n_samples;
    int dim;
    double *closest;   /* n_samples */
    double *cand_dist; /* n_trials x n_samples */
    double *cumsum;    /* n_samples */
} cpu_kpp;

static gmm_status cpu_kpp_first(void *ctx, int64_t first, double *potential)
{
    cpu_kpp *c = ctx;
    gmm_status status =
        kmeans_pp_distances_cpu(c->X, c->n_samples, c->dim, &first, 1, NULL, c->closest);
    if (status != GMM_OK) return status;
    return kmeans_pp_potentials_cpu(c->closest, c->n_samples, 1, potential);
}

static gmm_status cpu_kpp_trials(void *ctx, const double *draws, int n_trials,
                                 int64_t *candidates, double *potentials)
{
    cpu_kpp *c = ctx;
    gmm_status status =
        kmeans_pp_pick_cpu(c->closest, c->n_samples, draws, n_trials, candidates, c->cumsum);
    if (status == GMM_OK)
        status = kmeans_pp_distances_cpu(c->X, c->n_samples, c->dim, candidates, n_trials,
                                         c->closest, c->cand_dist);
    if (status == GMM_OK)
        status = kmeans_pp_potentials_cpu(c->cand_dist, c->n_samples, n_trials, potentials);
    return status;
}

static gmm_status cpu_kpp_keep(void *ctx, int best)
{
    cpu_kpp *c = ctx;
    memcpy(c->closest, c->cand_dist + (size_t)best * c->n_samples, sizeof(double) * c->n_samples);
    return GMM_OK;
}

gmm_status gmm_kmeans_plusplus(const double *X, int64_t n_samples, int dim, int n_components,
                               gmm_rng *rng, int64_t *indices)
{
    gmm_status status = GMM_OK;
    const int n_trials = gmm_kpp_trials(n_components);
    cpu_kpp c = {X, n_samples, dim, NULL, NULL, NULL};
    const gmm_kpp_steps steps = {&c, cpu_kpp_first, cpu_kpp_trials, cpu_kpp_keep};
    if (!X || n_samples < 1 || dim < 1) return gmm_error(GMM_ERR_ARG, "k-means++: bad arguments");
    c.closest = malloc(sizeof(double) * n_samples);
    c.cand_dist = malloc(sizeof(double) * n_samples * n_trials);
    c.cumsum = malloc(sizeof(double) * n_samples);
    if (!c.closest || !c.cand_dist || !c.cumsum) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means++");
        goto fail;
    }
    status = gmm_kpp_run(&steps, n_samples, n_components, rng, indices);
fail:
    free(c.closest);
    free(c.cand_dist);
    free(c.cumsum);
    return status;
}
