/* k-means written once (see kmeans.h): Lloyd's loop and greedy k-means++ over a table of device
 * steps and a communicator (the sums over the ranks of a distributed fit), and the CPU steps
 * over the kernels' CPU twins on a data view (the distances as one GEMM per row chunk through
 * kernels/blas_cpu.h; bytes and float32 converted chunk by chunk). */
#include "models/backend/cpu/kmeans.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "kernels/kmeans.h"

/* rows per GEMM chunk of the CPU assignment: the dots of a chunk stay in cache */
#define KMEANS_CHUNK_ROWS 8192

/* The rank holding global row `row`, from every rank's first row (starts, size values). */
static int owner_of(const double *starts, int size, int64_t row)
{
    int r = 0;
    while (r + 1 < size && (double)row >= starts[r + 1]) r++;
    return r;
}

/* The first rank (lowest rows: the first sample on ties) whose value is the largest. */
static int first_max(const double *values, int size)
{
    int best = 0;
    for (int r = 1; r < size; r++)
        if (values[r] > values[best]) best = r;
    return best;
}

gmm_status gmm_kmeans_run(const gmm_kmeans_steps *steps, gmm_comm *comm, int64_t n_total,
                          int dim, int n_components, int max_iter, double *centers, int *n_iter)
{
    gmm_status status = GMM_OK;
    const int K = n_components, size = gmm_comm_size(comm), rank = gmm_comm_rank(comm);
    const size_t Kd = (size_t)K * dim;
    double *new_centers = NULL, *stats = NULL, *values = NULL, *mean = NULL;
    int *counts = NULL;
    double var_sum = 0, tol;
    int it;
    if (!steps || !centers || n_total < 1 || dim < 1 || K < 1 || max_iter < 1)
        return gmm_error(GMM_ERR_ARG, "k-means: bad arguments");
    new_centers = malloc(sizeof(double) * Kd);
    stats = malloc(sizeof(double) * (Kd + K + 1));
    counts = malloc(sizeof(int) * K);
    values = malloc(sizeof(double) * size);
    mean = calloc(dim, sizeof(double));
    if (!new_centers || !stats || !counts || !values || !mean) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    /* tol as scikit-learn: 1e-4 times the mean over features of the variance */
    if ((status = steps->column_sums(steps->ctx, mean)) != GMM_OK) goto fail;
    if ((status = gmm_comm_sum(comm, mean, dim)) != GMM_OK) goto fail;
    for (int j = 0; j < dim; j++) mean[j] /= (double)n_total;
    if ((status = steps->prepare(steps->ctx, mean, &var_sum)) != GMM_OK) goto fail;
    if ((status = gmm_comm_sum(comm, &var_sum, 1)) != GMM_OK) goto fail;
    tol = 1e-4 * var_sum / ((double)n_total * dim);

    for (it = 1; it <= max_iter; it++) {
        int64_t changed = 0;
        double shift = 0;
        if ((status = steps->assign(steps->ctx, centers, &changed)) != GMM_OK) goto fail;
        /* the label changes and the stop request (options.h) summed over the ranks in one go:
         * every rank stops together */
        double polled[2] = {(double)changed, gmm_stop_requested() ? 1.0 : 0.0};
        if ((status = gmm_comm_sum(comm, polled, 2)) != GMM_OK) goto fail;
        if (polled[1] > 0) {
            status = gmm_error(GMM_INTERRUPTED, "interrupted in Lloyd iteration %d of the k-means "
                               "initialisation", it);
            goto fail;
        }
        double changed_all = polled[0];
        if (changed_all == 0 && it > 1) break;
        if ((status = steps->update(steps->ctx, stats, counts)) != GMM_OK) goto fail;
        for (int k = 0; k < K; k++) stats[Kd + k] = counts[k];
        if ((status = gmm_comm_sum(comm, stats, Kd + K)) != GMM_OK) goto fail;
        memcpy(new_centers, stats, sizeof(double) * Kd);
        for (int k = 0; k < K; k++) {
            double count = stats[Kd + k];
            if (count == 0) {
                /* empty cluster: move it to the sample farthest from its center, of all ranks */
                double far_value;
                int64_t far = 0;
                if ((status = steps->farthest(steps->ctx, &far_value, &far)) != GMM_OK) goto fail;
                if ((status = gmm_comm_gather1(comm, far_value, values)) != GMM_OK) goto fail;
                int owner = first_max(values, size);
                double *row = new_centers + (size_t)k * dim;
                if (rank == owner && (status = steps->take(steps->ctx, far, row)) != GMM_OK)
                    goto fail;
                if ((status = gmm_comm_broadcast(comm, owner, row, dim)) != GMM_OK) goto fail;
                continue;
            }
            for (int j = 0; j < dim; j++) new_centers[(size_t)k * dim + j] /= count;
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
    free(stats);
    free(counts);
    free(values);
    free(mean);
    return status;
}

int gmm_kpp_trials(int n_components)
{
    int n_trials = 2 + (int)log((double)n_components);
    return n_trials > KMEANS_PP_MAX_TRIALS ? KMEANS_PP_MAX_TRIALS : n_trials;
}

/* The rank whose share of the potential holds the draw (shares in rank order, prefix[r] their
 * sums before rank r, total the whole): the last rank with a share when rounding puts the draw
 * past the end. */
static int rank_of_draw(const double *share, const double *prefix, int size, double draw)
{
    int r = 0, last = 0;
    for (int q = 0; q < size; q++)
        if (share[q] > 0) last = q;
    while (r < size && !(share[r] > 0 && draw < prefix[r] + share[r])) r++;
    return r < size ? r : last;
}

gmm_status gmm_kpp_run(const gmm_kpp_steps *steps, gmm_comm *comm, int64_t first_row,
                       int64_t n_rows, int64_t n_total, int dim, int n_components, gmm_rng *rng,
                       int64_t *indices, double *centers)
{
    gmm_status status = GMM_OK;
    const int n_trials = gmm_kpp_trials(n_components), size = gmm_comm_size(comm);
    const int rank = gmm_comm_rank(comm);
    const size_t T = (size_t)n_trials;
    double draws[KMEANS_PP_MAX_TRIALS], local_draws[KMEANS_PP_MAX_TRIALS];
    int64_t picks[KMEANS_PP_MAX_TRIALS];
    int draw_rank[KMEANS_PP_MAX_TRIALS];
    double *starts = NULL, *share = NULL, *prefix = NULL, *cand = NULL, *pots = NULL;
    if (!steps || !rng || !indices || !centers || n_rows < 1 || n_total < n_rows ||
        n_components < 1 || dim < 1)
        return gmm_error(GMM_ERR_ARG, "k-means++: bad arguments");
    starts = malloc(sizeof(double) * size);
    share = malloc(sizeof(double) * size);
    prefix = malloc(sizeof(double) * size);
    cand = malloc(sizeof(double) * T * (dim + 1)); /* the candidates' rows, then their indices */
    pots = malloc(sizeof(double) * T * size);      /* rank r's potential of trial t at r T + t */
    if (!starts || !share || !prefix || !cand || !pots) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means++");
        goto fail;
    }
    if ((status = gmm_comm_gather1(comm, (double)first_row, starts)) != GMM_OK) goto fail;

    /* the first seed: uniform over all rows, its row from the rank that holds it */
    indices[0] = (int64_t)gmm_rng_below(rng, (uint64_t)n_total);
    int owner = owner_of(starts, size, indices[0]);
    if (rank == owner &&
        (status = steps->row(steps->ctx, indices[0] - first_row, centers)) != GMM_OK)
        goto fail;
    if ((status = gmm_comm_broadcast(comm, owner, centers, dim)) != GMM_OK) goto fail;
    double pot;
    if ((status = steps->first(steps->ctx, centers, &pot)) != GMM_OK) goto fail;
    if ((status = gmm_comm_gather1(comm, pot, share)) != GMM_OK) goto fail;

    for (int k = 1; k < n_components; k++) {
        int stop = gmm_stop_requested(); /* options.h: every rank stops together */
        if ((status = gmm_comm_any(comm, &stop)) != GMM_OK) goto fail;
        if (stop) {
            status = gmm_error(GMM_INTERRUPTED, "interrupted at seed %d of %d of the k-means++ "
                               "initialisation", k + 1, n_components);
            goto fail;
        }
        double total = 0;
        for (int r = 0; r < size; r++) {
            prefix[r] = total;
            total += share[r];
        }
        for (int t = 0; t < n_trials; t++) draws[t] = gmm_rng_uniform(rng) * total;
        /* each draw to the rank whose share holds it, which picks its candidate */
        int n_local = 0;
        for (int t = 0; t < n_trials; t++) {
            draw_rank[t] = rank_of_draw(share, prefix, size, draws[t]);
            if (draw_rank[t] == rank) local_draws[n_local++] = draws[t] - prefix[rank];
        }
        if (n_local > 0 &&
            (status = steps->pick(steps->ctx, local_draws, n_local, picks)) != GMM_OK)
            goto fail;
        memset(cand, 0, sizeof(double) * T * (dim + 1));
        for (int t = 0, l = 0; t < n_trials; t++) {
            if (draw_rank[t] != rank) continue;
            int64_t p = picks[l++];
            if ((status = steps->row(steps->ctx, p, cand + (size_t)t * dim)) != GMM_OK) goto fail;
            cand[T * dim + t] = (double)(first_row + p);
        }
        if ((status = gmm_comm_sum(comm, cand, T * (dim + 1))) != GMM_OK) goto fail;
        /* every rank's potentials of every candidate; the totals summed in rank order */
        memset(pots, 0, sizeof(double) * T * size);
        if ((status = steps->trials(steps->ctx, cand, n_trials, pots + (size_t)rank * T)) !=
            GMM_OK)
            goto fail;
        if ((status = gmm_comm_sum(comm, pots, T * size)) != GMM_OK) goto fail;
        double best_pot = INFINITY;
        int best = 0;
        for (int t = 0; t < n_trials; t++) {
            double p = 0;
            for (int r = 0; r < size; r++) p += pots[(size_t)r * T + t];
            if (p < best_pot) {
                best_pot = p;
                best = t;
            }
        }
        indices[k] = (int64_t)cand[T * dim + best];
        memcpy(centers + (size_t)k * dim, cand + (size_t)best * dim, sizeof(double) * dim);
        for (int r = 0; r < size; r++) share[r] = pots[(size_t)r * T + best];
        if ((status = steps->keep(steps->ctx, best)) != GMM_OK) goto fail;
    }
fail:
    free(starts);
    free(share);
    free(prefix);
    free(cand);
    free(pots);
    return status;
}

/* ---- the CPU steps ------------------------------------------------------------------------ */

/* Chunks of a view: the whole of a float64 view at once (the sums add in the same order as
 * before views existed), else chunk_rows converted into buf. */
typedef struct {
    const gmm_data_view *data;
    int64_t chunk_rows;
    double *buf; /* chunk_rows x dim, NULL for a float64 view */
} view_chunks;

static gmm_status view_chunks_init(view_chunks *v, const gmm_data_view *data)
{
    v->data = data;
    v->buf = NULL;
    if (data->elem == GMM_ELEM_F64) {
        v->chunk_rows = data->n_rows;
        return GMM_OK;
    }
    v->chunk_rows = data->n_rows < KMEANS_CHUNK_ROWS ? data->n_rows : KMEANS_CHUNK_ROWS;
    v->buf = malloc(sizeof(double) * (size_t)v->chunk_rows * data->dim);
    return v->buf ? GMM_OK : gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
}

static const double *view_chunk(const view_chunks *v, int64_t r0, int64_t *rows)
{
    *rows = v->data->n_rows - r0 < v->chunk_rows ? v->data->n_rows - r0 : v->chunk_rows;
    return gmm_data_view_f64_rows(v->data, r0, *rows, v->buf);
}

#define FOR_EACH_CHUNK(v, r0, rows, Xc)                                                         \
    for (int64_t r0 = 0, rows = 0; r0 < (v)->data->n_rows; r0 += rows)                          \
        for (const double *Xc = view_chunk((v), r0, &rows); Xc; Xc = NULL)

typedef struct {
    view_chunks chunks;
    int64_t n_samples; /* this rank's */
    int dim, n_components;
    int *labels;        /* the caller's */
    double *x_norm;     /* n_samples */
    double *min_dist;   /* n_samples */
    double *c_norm;     /* K */
    double *dots;       /* KMEANS_CHUNK_ROWS x K */
    double *sums;       /* K x dim: one chunk's sums */
    int *counts;        /* K */
} cpu_lloyd;

static gmm_status cpu_column_sums(void *ctx, double *sums)
{
    cpu_lloyd *c = ctx;
    const int d = c->dim;
    FOR_EACH_CHUNK(&c->chunks, r0, rows, Xc) {
        gmm_status status = kmeans_column_sums_cpu(Xc, rows, d, sums);
        if (status != GMM_OK) return status;
    }
    return GMM_OK;
}

static gmm_status cpu_prepare(void *ctx, const double *mean, double *total_deviation)
{
    cpu_lloyd *c = ctx;
    double var_sum = 0;
    /* the deviations go to min_dist, summed in index order (deterministic), then overwritten */
    FOR_EACH_CHUNK(&c->chunks, r0, rows, Xc) {
        gmm_status status = kmeans_row_norms_cpu(Xc, rows, c->dim, mean, c->x_norm + r0,
                                                 c->min_dist + r0);
        if (status != GMM_OK) return status;
    }
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
    FOR_EACH_CHUNK(&c->chunks, b0, brows, Xb) {
        /* GEMM chunks of KMEANS_CHUNK_ROWS rows within the view's chunk */
        for (int64_t s0 = 0; s0 < brows; s0 += KMEANS_CHUNK_ROWS) {
            int64_t rows = brows - s0 < KMEANS_CHUNK_ROWS ? brows - s0 : KMEANS_CHUNK_ROWS;
            int64_t r0 = b0 + s0, chunk_changed = 0;
            la_dgemm(false, true, (int)rows, K, d, 1.0, Xb + (size_t)s0 * d, d, centers, d, 0.0,
                     c->dots, K);
            status = kmeans_assign_cpu(c->dots, c->x_norm + r0, c->c_norm, rows, K,
                                       c->labels + r0, c->min_dist + r0, NULL, &chunk_changed);
            if (status != GMM_OK) return status;
            changed += chunk_changed;
        }
    }
    if (n_changed) *n_changed = changed;
    return GMM_OK;
}

static gmm_status cpu_update(void *ctx, double *sums, int *counts)
{
    cpu_lloyd *c = ctx;
    const size_t Kd = (size_t)c->n_components * c->dim;
    memset(sums, 0, sizeof(double) * Kd);
    memset(counts, 0, sizeof(int) * c->n_components);
    FOR_EACH_CHUNK(&c->chunks, r0, rows, Xc) {
        gmm_status status = kmeans_sums_cpu(Xc, rows, c->dim, c->labels + r0, c->n_components,
                                            c->sums, c->counts);
        if (status != GMM_OK) return status;
        for (size_t q = 0; q < Kd; q++) sums[q] += c->sums[q];
        for (int k = 0; k < c->n_components; k++) counts[k] += c->counts[k];
    }
    return GMM_OK;
}

static gmm_status cpu_farthest(void *ctx, double *value, int64_t *index)
{
    cpu_lloyd *c = ctx;
    gmm_status status = kmeans_argmax_cpu(c->min_dist, c->n_samples, index);
    if (status == GMM_OK) *value = c->min_dist[*index];
    return status;
}

static gmm_status cpu_take(void *ctx, int64_t index, double *row)
{
    cpu_lloyd *c = ctx;
    gmm_data_view_row_f64(c->chunks.data, index, row);
    c->min_dist[index] = 0;
    return GMM_OK;
}

gmm_status gmm_kmeans_lloyd_view(const gmm_data_view *data, gmm_comm *comm, int n_components,
                                 int max_iter, double *centers, int *labels, int *n_iter)
{
    gmm_status status = GMM_OK;
    const int K = n_components;
    if (!data || !data->rows || !labels || data->n_rows < 1 || data->dim < 1 || K < 1)
        return gmm_error(GMM_ERR_ARG, "k-means: bad arguments");
    const int64_t n = data->n_rows;
    cpu_lloyd c = {.n_samples = n, .dim = data->dim, .n_components = K, .labels = labels};
    const gmm_kmeans_steps steps = {&c, cpu_column_sums, cpu_prepare, cpu_assign, cpu_update,
                                    cpu_farthest, cpu_take};
    if ((status = view_chunks_init(&c.chunks, data)) != GMM_OK) return status;
    c.x_norm = malloc(sizeof(double) * n);
    c.min_dist = malloc(sizeof(double) * n);
    c.c_norm = malloc(sizeof(double) * K);
    c.dots = malloc(sizeof(double) * (size_t)KMEANS_CHUNK_ROWS * K);
    c.sums = malloc(sizeof(double) * (size_t)K * data->dim);
    c.counts = malloc(sizeof(int) * K);
    if (!c.x_norm || !c.min_dist || !c.c_norm || !c.dots || !c.sums || !c.counts) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means");
        goto fail;
    }
    status = gmm_kmeans_run(&steps, comm, data->n_total, data->dim, K, max_iter, centers, n_iter);
fail:
    free(c.chunks.buf);
    free(c.x_norm);
    free(c.min_dist);
    free(c.c_norm);
    free(c.dots);
    free(c.sums);
    free(c.counts);
    return status;
}

gmm_status gmm_kmeans_lloyd(const double *X, int64_t n_samples, int dim, int n_components,
                            int max_iter, double *centers, int *labels, int *n_iter)
{
    if (!X) return gmm_error(GMM_ERR_ARG, "k-means: bad arguments");
    gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
    return gmm_kmeans_lloyd_view(&data, NULL, n_components, max_iter, centers, labels, n_iter);
}

typedef struct {
    view_chunks chunks;
    int64_t n_samples;
    int dim;
    double *closest;   /* n_samples */
    double *cand_dist; /* n_trials x n_samples */
    double *cumsum;    /* n_samples */
} cpu_kpp;

static gmm_status cpu_kpp_first(void *ctx, const double *row, double *potential)
{
    cpu_kpp *c = ctx;
    FOR_EACH_CHUNK(&c->chunks, r0, rows, Xc) {
        gmm_status status = kmeans_pp_distances_rows_cpu(Xc, rows, c->dim, row, 1, NULL,
                                                         c->closest + r0, c->n_samples);
        if (status != GMM_OK) return status;
    }
    return kmeans_pp_potentials_cpu(c->closest, c->n_samples, 1, potential);
}

static gmm_status cpu_kpp_pick(void *ctx, const double *draws, int n_draws, int64_t *picks)
{
    cpu_kpp *c = ctx;
    return kmeans_pp_pick_cpu(c->closest, c->n_samples, draws, n_draws, picks, c->cumsum);
}

static gmm_status cpu_kpp_trials(void *ctx, const double *rows_in, int n_rows, double *potentials)
{
    cpu_kpp *c = ctx;
    FOR_EACH_CHUNK(&c->chunks, r0, rows, Xc) {
        gmm_status status = kmeans_pp_distances_rows_cpu(Xc, rows, c->dim, rows_in, n_rows,
                                                         c->closest + r0, c->cand_dist + r0,
                                                         c->n_samples);
        if (status != GMM_OK) return status;
    }
    return kmeans_pp_potentials_cpu(c->cand_dist, c->n_samples, n_rows, potentials);
}

static gmm_status cpu_kpp_keep(void *ctx, int best)
{
    cpu_kpp *c = ctx;
    memcpy(c->closest, c->cand_dist + (size_t)best * c->n_samples, sizeof(double) * c->n_samples);
    return GMM_OK;
}

static gmm_status cpu_kpp_row(void *ctx, int64_t index, double *row)
{
    cpu_kpp *c = ctx;
    if (index < 0 || index >= c->n_samples) return gmm_error(GMM_ERR_ARG, "k-means++: row range");
    gmm_data_view_row_f64(c->chunks.data, index, row);
    return GMM_OK;
}

gmm_status gmm_kmeans_plusplus_view(const gmm_data_view *data, gmm_comm *comm, int n_components,
                                    gmm_rng *rng, int64_t *indices, double *centers)
{
    gmm_status status = GMM_OK;
    if (!data || !data->rows || data->n_rows < 1 || data->dim < 1 || !centers)
        return gmm_error(GMM_ERR_ARG, "k-means++: bad arguments");
    const int n_trials = gmm_kpp_trials(n_components);
    const int64_t n = data->n_rows;
    cpu_kpp c = {.n_samples = n, .dim = data->dim};
    const gmm_kpp_steps steps = {&c, cpu_kpp_first, cpu_kpp_pick, cpu_kpp_trials, cpu_kpp_keep,
                                 cpu_kpp_row};
    if ((status = view_chunks_init(&c.chunks, data)) != GMM_OK) return status;
    c.closest = malloc(sizeof(double) * n);
    c.cand_dist = malloc(sizeof(double) * n * n_trials);
    c.cumsum = malloc(sizeof(double) * n);
    if (!c.closest || !c.cand_dist || !c.cumsum) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in k-means++");
        goto fail;
    }
    status = gmm_kpp_run(&steps, comm, data->first_row, n, data->n_total, data->dim,
                         n_components, rng, indices, centers);
fail:
    free(c.chunks.buf);
    free(c.closest);
    free(c.cand_dist);
    free(c.cumsum);
    return status;
}

gmm_status gmm_kmeans_plusplus(const double *X, int64_t n_samples, int dim, int n_components,
                               gmm_rng *rng, int64_t *indices)
{
    if (!X || n_samples < 1 || dim < 1 || n_components < 1)
        return gmm_error(GMM_ERR_ARG, "k-means++: bad arguments");
    gmm_data_view data = gmm_data_view_f64(X, n_samples, dim);
    double *centers = malloc(sizeof(double) * (size_t)n_components * dim);
    if (!centers) return gmm_error(GMM_ERR_NOMEM, "out of memory in k-means++");
    gmm_status status = gmm_kmeans_plusplus_view(&data, NULL, n_components, rng, indices, centers);
    free(centers);
    return status;
}
