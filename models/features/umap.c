/* The UMAP embedding of a set of images (or of any float data) and the placing of new ones in it
 * (models/features/umap.h): the kernel layer's kNN, fuzzy simplicial set and SGD layout, with the
 * spectral start from linalg/lanczos.h, composed as umap-learn composes them. */
#include "models/features/umap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/clock.h"
#include "kernels/fuzzy_set.h"
#include "kernels/knn.h"
#include "kernels/rng.h"
#include "kernels/umap_sgd.h"
#include "models/features/pca.h"

/* The k nearest rows of refs for each query, nearest first, on the device of gpu. */
static gmm_status nearest(const float *queries, int64_t m, const float *refs, int64_t n, int dim,
                          int k, gmm_gpu *gpu, int32_t *index, float *dist)
{
    if (gpu)
        return knn_cuda_host(queries, (size_t)m, refs, (size_t)n, (size_t)dim, (size_t)k, gpu,
                             index, dist);
    return knn_cpu_blas(queries, (size_t)m, refs, (size_t)n, (size_t)dim, (size_t)k, index, dist);
}

/* sign(v) |v|^power: the space's knn_power, applied to every value before the neighbours. */
static double signed_power(double v, double power)
{
    if (power == 1.0) return v;
    const double m = power == 0.5 ? sqrt(fabs(v)) : pow(fabs(v), power);
    return v < 0 ? -m : m;
}

/* The PCA the neighbours are found in: fitted on the host (the same axes on either device) to
 * at most GMM_UMAP_PCA_SAMPLE evenly spaced rows of X, each value raised to power first. */
static gmm_status fit_knn_pca(const float *X, int64_t n, int dim, int axes, double power,
                              gmm_projection **out)
{
    const int64_t m = n < GMM_UMAP_PCA_SAMPLE ? n : GMM_UMAP_PCA_SAMPLE;
    double *sample = malloc(sizeof(double) * (size_t)m * dim);
    if (!sample) return gmm_error(GMM_ERR_NOMEM, "umap: out of memory for the PCA sample");
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < m; i++) {
        const float *row = X + (size_t)(i * n / m) * dim;
        for (int c = 0; c < dim; c++) sample[(size_t)i * dim + c] = signed_power(row[c], power);
    }
    gmm_status st = gmm_projection_fit(sample, m, dim, axes, 0, NULL, out);
    free(sample);
    return st;
}

/* The rows the neighbours are found among: X itself (*prepared NULL, *prepared_dim dim), or X
 * raised to the space's power, projected on its principal axes (the coordinates divided by
 * variance^(whiten/2)) and, for the cosine metric, scaled to unit length (*prepared: n x
 * *prepared_dim float32, the caller frees it). The projection's product runs on gpu when it is
 * not NULL (where the neighbours are searched): on the host, OpenBLAS's threads and these loops'
 * OpenMP threads took turns on the cores, and the search's time varied by 2-4x from run to run. */
static gmm_status prepare_rows(const gmm_umap_space *s, const float *X, int64_t n, gmm_gpu *gpu,
                               float **prepared, int *prepared_dim)
{
    const int dim = s->input_dim, p = s->knn_pca ? s->knn_pca->n_axes : dim;
    *prepared = NULL;
    *prepared_dim = p;
    if (!s->knn_pca && s->metric == GMM_UMAP_EUCLIDEAN && s->knn_power == 1.0) return GMM_OK;
    enum { CHUNK = 4096 };
    float *out = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1) * p);
    double *in = s->knn_pca ? malloc(sizeof(double) * CHUNK * dim) : NULL;
    double *z = s->knn_pca ? malloc(sizeof(double) * CHUNK * p) : NULL;
    double *scale = s->knn_pca ? malloc(sizeof(double) * p) : NULL;
    gmm_status st = GMM_OK;
    if (!out || (s->knn_pca && (!in || !z || !scale))) {
        st = gmm_error(GMM_ERR_NOMEM, "umap: out of memory for %lld projected images",
                       (long long)n);
        goto done;
    }
    /* an axis without variance (all the PCA's sample alike along it) is left out when whitening */
    for (int c = 0; c < p && s->knn_pca; c++) {
        const double var = s->knn_pca->explained_variance[c];
        scale[c] = s->knn_whiten == 0.0 ? 1.0 : var > 0 ? pow(var, -s->knn_whiten / 2) : 0.0;
    }
    for (int64_t i0 = 0; i0 < n && s->knn_pca; i0 += CHUNK) {
        const int64_t rows = n - i0 < CHUNK ? n - i0 : CHUNK;
        const int64_t values = rows * dim, coords = rows * p;
#pragma omp parallel for schedule(static)
        for (int64_t e = 0; e < values; e++)
            in[e] = signed_power(X[(size_t)i0 * dim + e], s->knn_power);
        if ((st = gmm_projection_apply(s->knn_pca, in, rows, gpu, z)) != GMM_OK) goto done;
#pragma omp parallel for schedule(static)
        for (int64_t e = 0; e < coords; e++)
            out[(size_t)i0 * p + e] = (float)(z[e] * scale[e % p]);
    }
    const int64_t all = n * dim;
    if (!s->knn_pca)
#pragma omp parallel for schedule(static)
        for (int64_t e = 0; e < all; e++) out[e] = (float)signed_power(X[e], s->knn_power);
    if (s->metric == GMM_UMAP_COSINE)
#pragma omp parallel for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            float *row = out + (size_t)i * p;
            double sq = 0;
            for (int c = 0; c < p; c++) sq += (double)row[c] * row[c];
            /* a row at the origin stays there: at cosine distance 1/2 from every other */
            const double unit = sq > 0 ? 1 / sqrt(sq) : 0;
            for (int c = 0; c < p; c++) row[c] = (float)(row[c] * unit);
        }
    *prepared = out;
    out = NULL;
done:
    free(out);
    free(in);
    free(z);
    free(scale);
    return st;
}

gmm_status gmm_umap_neighbours(const gmm_umap_space *s, const float *queries, int64_t m,
                               const float *train, int k, gmm_gpu *gpu, int32_t *index,
                               float *dist)
{
    if (!s || !queries || !train || !index || !dist || m < 1 || k < 1 || k > s->n_train)
        return gmm_error(GMM_ERR_ARG, "umap neighbours: bad arguments");
    float *pq = NULL, *pt = NULL; /* the prepared rows (NULL: the rows as given) */
    int p;
    gmm_status st = prepare_rows(s, queries, m, gpu, &pq, &p);
    if (st == GMM_OK && queries != train) st = prepare_rows(s, train, s->n_train, gpu, &pt, &p);
    if (st == GMM_OK) {
        const float *q = pq ? pq : queries;
        const float *r = queries == train ? q : (pt ? pt : train);
        st = nearest(q, m, r, s->n_train, p, k, gpu, index, dist);
    }
    if (st == GMM_OK && s->metric == GMM_UMAP_COSINE)
        for (size_t e = 0; e < (size_t)m * k; e++) dist[e] = dist[e] * dist[e] / 2;
    free(pq);
    free(pt);
    return st;
}

static gmm_status memberships(const int32_t *index, const float *dist, int64_t n, int k,
                              double local_connectivity, int bipartite, gmm_gpu *gpu, double *w)
{
    double *rho = malloc(sizeof(double) * (size_t)n), *sigma = malloc(sizeof(double) * (size_t)n);
    gmm_status st;
    if (!rho || !sigma) st = gmm_error(GMM_ERR_NOMEM, "umap: out of memory for the fuzzy set");
    else if (gpu)
        st = fuzzy_memberships_cuda(index, dist, n, k, local_connectivity, bipartite, rho, sigma, w);
    else
        st = fuzzy_memberships_cpu(index, dist, n, k, local_connectivity, bipartite, rho, sigma, w);
    free(rho);
    free(sigma);
    return st;
}

/* umap-learn's pruning: weights below the largest / n_epochs are never sampled; dropped here. */
static void prune_graph(fuzzy_graph *g, int n_epochs)
{
    double max_w = 0;
    for (int64_t e = 0; e < g->nnz; e++)
        if (g->val[e] > max_w) max_w = g->val[e];
    const double cut = max_w / n_epochs;
    int64_t out = 0, start = 0;
    for (int64_t i = 0; i < g->n; i++) {
        const int64_t end = g->row_ptr[i + 1];
        for (int64_t e = start; e < end; e++)
            if (!(g->val[e] < cut)) {
                g->col[out] = g->col[e];
                g->val[out] = g->val[e];
                out++;
            }
        start = end;
        g->row_ptr[i + 1] = out;
    }
    g->nnz = out;
}

/* The spectral start of the layouts: the leading eigenvectors of D^-1/2 W D^-1/2 (the smallest of
 * the normalised Laplacian, umap-learn's spectral_layout), the first (constant) one dropped;
 * vectors gets n x dims. */
static gmm_status spectral_start(const fuzzy_graph *g, int dims, uint64_t seed, gmm_gpu *gpu,
                                 double *vectors, lanczos_report *report)
{
    const int64_t n = g->n;
    double *deg = calloc((size_t)n, sizeof(double)), *val = malloc(sizeof(double) * (size_t)g->nnz);
    double *vals = malloc(sizeof(double) * (dims + 1));
    double *vecs = malloc(sizeof(double) * (size_t)n * (dims + 1));
    gmm_status st = GMM_OK;
    if (!deg || !val || !vals || !vecs) {
        st = gmm_error(GMM_ERR_NOMEM, "umap: out of memory for the spectral start");
        goto done;
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++) deg[i] += g->val[e];
    for (int64_t i = 0; i < n; i++) {
        if (!(deg[i] > 0)) {
            st = gmm_error(GMM_ERR_NUMERIC, "umap: image %lld has no neighbour in the fuzzy graph "
                           "(all its neighbours are duplicates of it?)", (long long)i);
            goto done;
        }
        for (int64_t e = g->row_ptr[i]; e < g->row_ptr[i + 1]; e++)
            val[e] = g->val[e] / sqrt(deg[i] * deg[g->col[e]]);
    }
    const csr_matrix S = {n, g->row_ptr, g->col, val};
    const lanczos_options lo = {.tol = 1e-8, .seed = seed};
    if ((st = lanczos_largest(&S, dims + 1, &lo, gpu, vals, vecs, report)) != GMM_OK) goto done;
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < dims; c++)
            vectors[(size_t)i * dims + c] = vecs[(size_t)i * (dims + 1) + c + 1];
done:
    free(deg);
    free(val);
    free(vals);
    free(vecs);
    return st;
}

/* umap-learn's scaling of the spectral start: the largest |coordinate| made 10, N(0, 1e-4)
 * jitter, then each axis rescaled to [0, 10]. out (n x dims float32) from the first dims
 * columns of vectors (n x stride). */
static void scale_start(const double *vectors, int64_t n, int stride, int dims, uint64_t seed,
                        float *out)
{
    double largest = 0;
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < dims; c++)
            if (fabs(vectors[(size_t)i * stride + c]) > largest)
                largest = fabs(vectors[(size_t)i * stride + c]);
    const double expansion = largest > 0 ? 10.0 / largest : 1.0;
    gmm_rng rng;
    gmm_rng_seed(&rng, seed);
    for (int64_t i = 0; i < n; i++)
        for (int c = 0; c < dims; c++)
            out[(size_t)i * dims + c] = (float)(vectors[(size_t)i * stride + c] * expansion) +
                                        (float)(1e-4 * gmm_rng_normal(&rng));
    for (int c = 0; c < dims; c++) {
        float lo = INFINITY, hi = -INFINITY;
        for (int64_t i = 0; i < n; i++) {
            const float v = out[(size_t)i * dims + c];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        const float range = hi > lo ? hi - lo : 1.0f;
        for (int64_t i = 0; i < n; i++)
            out[(size_t)i * dims + c] = 10.0f * (out[(size_t)i * dims + c] - lo) / range;
    }
}

static gmm_status layout(const umap_edges *edges, float *head, const float *tail, int dims,
                         const umap_sgd_options *o, gmm_gpu *gpu)
{
    return gpu ? umap_sgd_cuda(edges, head, tail, dims, o) : umap_sgd_cpu(edges, head, tail, dims, o);
}

static void step(const gmm_umap_options *o, const char *what, double t0)
{
    if (o && o->on_step) o->on_step(o->user, what, gmm_clock_seconds() - t0);
}

gmm_status gmm_umap_embed(const float *X, int64_t n, int dim, const uint8_t *images,
                          const gmm_umap_options *o, gmm_gpu *gpu, gmm_umap_space **out,
                          gmm_umap_report *report)
{
    *out = NULL;
    gmm_umap_report rep = {0};
    const int k = o && o->n_neighbors > 0 ? o->n_neighbors : GMM_UMAP_NEIGHBORS;
    const int D = o && o->n_dims > 0 ? o->n_dims : GMM_UMAP_DIMS;
    const double min_dist = o ? o->min_dist : 0.0, spread = o && o->spread > 0 ? o->spread : 1.0;
    const int map_dims = o ? o->map_dims : 0;
    const uint64_t seed = o ? o->seed : 0;
    const int epochs = o && o->n_epochs > 0 ? o->n_epochs : GMM_UMAP_EPOCHS;
    const int asked_pca = o ? o->knn_pca : 0;
    const int pca_axes = asked_pca < 0   ? 0
                         : asked_pca > 0 ? asked_pca
                         : dim > GMM_UMAP_PCA ? GMM_UMAP_PCA : 0;
    const gmm_umap_metric metric = o && o->metric ? o->metric
                                   : (pca_axes ? GMM_UMAP_COSINE : GMM_UMAP_EUCLIDEAN);
    if (!X || dim < 1) return gmm_error(GMM_ERR_ARG, "umap embedding: no data");
    if (metric != GMM_UMAP_EUCLIDEAN && metric != GMM_UMAP_COSINE)
        return gmm_error(GMM_ERR_ARG, "umap embedding: metric %d (0: auto, 1: euclidean, 2: "
                         "cosine)", (int)metric);
    if (pca_axes > dim || pca_axes > n)
        return gmm_error(GMM_ERR_ARG, "umap embedding: %d principal axes for the neighbours, but "
                         "the data have %d values per sample and %lld samples", pca_axes, dim,
                         (long long)n);
    const double asked_power = o ? o->knn_power : 0, asked_whiten = o ? o->knn_whiten : 0;
    if (!(asked_power >= 0 && asked_power <= 1))
        return gmm_error(GMM_ERR_ARG, "umap embedding: the power %g must be in (0, 1] (0: "
                         "automatic)", asked_power);
    if (!(asked_whiten <= 1))
        return gmm_error(GMM_ERR_ARG, "umap embedding: the whitening %g must be at most 1",
                         asked_whiten);
    if (asked_whiten > 0 && !pca_axes)
        return gmm_error(GMM_ERR_ARG, "umap embedding: the whitening %g scales principal axes, "
                         "and the neighbours are found without them (the data have %d values; "
                         "knn_pca %d)", asked_whiten, dim, asked_pca);
    const double power = asked_power > 0 ? asked_power : pca_axes && images ? GMM_UMAP_POWER : 1.0;
    const double whiten = asked_whiten > 0 ? asked_whiten
                          : asked_whiten == 0 && pca_axes ? GMM_UMAP_WHITEN : 0.0;
    if (k < 2 || k > 128 || n < k + 2 || D + 1 >= n || D > 100 || (map_dims != 0 && map_dims != 2))
        return gmm_error(GMM_ERR_ARG, "umap embedding: %lld images, %d neighbours (2..128, fewer "
                         "than the images less 1) and %d dimensions (1..100)", (long long)n, k, D);
    double a, b;
    gmm_status st = umap_find_ab(spread, min_dist, &a, &b);
    if (st != GMM_OK) return st;

    int32_t *nn = malloc(sizeof(int32_t) * (size_t)n * k);
    float *nd = malloc(sizeof(float) * (size_t)n * k);
    double *w = malloc(sizeof(double) * (size_t)n * k);
    const int start_dims = D > map_dims ? D : map_dims;
    double *start = NULL;
    fuzzy_graph g = {0};
    gmm_umap_space *s = NULL;
    if (!nn || !nd || !w) goto nomem;
    const double t0 = gmm_clock_seconds();
    /* the space first: its metric and projection are what the neighbours are found by */
    if ((st = gmm_umap_space_alloc(n, dim, k, D, map_dims,
                                   images ? GMM_UMAP_KEEPS_IMAGES : GMM_UMAP_KEEPS_VALUES, &s)) !=
        GMM_OK)
        goto fail;
    *s = (gmm_umap_space){.n_train = n, .input_dim = dim, .n_neighbors = k, .n_dims = D,
                          .map_dims = map_dims, .n_epochs = epochs, .min_dist = min_dist,
                          .spread = spread, .a = a, .b = b, .seed = seed, .metric = metric,
                          .knn_power = power, .knn_whiten = whiten,
                          .images = s->images, .values = s->values, .embedding = s->embedding,
                          .map = s->map};
    if (pca_axes) {
        step(o, "principal axes", t0);
        if ((st = fit_knn_pca(X, n, dim, pca_axes, power, &s->knn_pca)) != GMM_OK) goto fail;
    }
    const double t_pca = gmm_clock_seconds();
    step(o, "neighbours", t0);
    if ((st = gmm_umap_neighbours(s, X, n, X, k, gpu, nn, nd)) != GMM_OK) goto fail;
    const double t1 = gmm_clock_seconds();
    step(o, "fuzzy graph", t0);
    if ((st = memberships(nn, nd, n, k, 1.0, 0, gpu, w)) != GMM_OK ||
        (st = fuzzy_union_cpu(nn, w, n, k, &g)) != GMM_OK)
        goto fail;
    prune_graph(&g, epochs);
    free(nn);
    free(nd);
    free(w);
    nn = NULL, nd = NULL, w = NULL;
    const double t2 = gmm_clock_seconds();
    step(o, "spectral start", t0);
    if (!(start = malloc(sizeof(double) * (size_t)n * start_dims))) goto nomem;
    if ((st = spectral_start(&g, start_dims, seed, gpu, start, &rep.lanczos)) != GMM_OK) goto fail;
    if (images) memcpy(s->images, images, (size_t)n * dim);
    else memcpy(s->values, X, sizeof(float) * (size_t)n * dim);
    scale_start(start, n, start_dims, D, seed ^ 0x9e3779b97f4a7c15ull, s->embedding);
    const double t3 = gmm_clock_seconds();
    step(o, "layout", t0);
    const umap_edges edges = {n, n, g.row_ptr, g.col, g.val};
    umap_sgd_options so = {.a = a, .b = b, .gamma = 1, .initial_alpha = 1,
                           .negative_sample_rate = 5, .n_epochs = epochs, .seed = seed};
    if ((st = layout(&edges, s->embedding, NULL, D, &so, gpu)) != GMM_OK) goto fail;
    const double t4 = gmm_clock_seconds();
    if (map_dims) {
        step(o, "map layout", t0);
        scale_start(start, n, start_dims, 2, seed ^ 0x6a09e667f3bcc909ull, s->map);
        so.seed = seed + 1;
        if ((st = layout(&edges, s->map, NULL, 2, &so, gpu)) != GMM_OK) goto fail;
    }
    rep.seconds_pca = t_pca - t0;
    rep.seconds_knn = t1 - t_pca;
    rep.seconds_graph = t2 - t1;
    rep.seconds_init = t3 - t2;
    rep.seconds_layout = t4 - t3;
    rep.seconds_map = gmm_clock_seconds() - t4;
    rep.n_edges = g.nnz;
    rep.n_epochs = epochs;
    if (report) *report = rep;
    *out = s;
    s = NULL;
    goto done;
nomem:
    st = gmm_error(GMM_ERR_NOMEM, "umap embedding: out of memory for %lld images", (long long)n);
fail:
done:
    gmm_umap_space_free(s);
    free(nn);
    free(nd);
    free(w);
    free(start);
    fuzzy_graph_free(&g);
    return st;
}

gmm_status gmm_umap_transform(const gmm_umap_space *s, const float *train, const float *Y,
                              int64_t m, gmm_gpu *gpu, float *coords, float *map)
{
    if (!s || !train || !Y || !coords || m < 0 || (map && !s->map_dims))
        return gmm_error(GMM_ERR_ARG, "umap transform: bad arguments");
    if (m == 0) return GMM_OK;
    const int k = s->n_neighbors, D = s->n_dims;
    /* umap-learn's transform: 100 epochs up to 10000 training images, 30 above */
    const int epochs = s->n_train <= 10000 ? 100 : 30;
    int32_t *nn = malloc(sizeof(int32_t) * (size_t)m * k);
    float *nd = malloc(sizeof(float) * (size_t)m * k);
    double *w = malloc(sizeof(double) * (size_t)m * k);
    int64_t *row_ptr = malloc(sizeof(int64_t) * (size_t)(m + 1));
    gmm_status st = GMM_OK;
    if (!nn || !nd || !w || !row_ptr) {
        st = gmm_error(GMM_ERR_NOMEM, "umap transform: out of memory for %lld images",
                       (long long)m);
        goto done;
    }
    if ((st = gmm_umap_neighbours(s, Y, m, train, k, gpu, nn, nd)) != GMM_OK ||
        (st = memberships(nn, nd, m, k, 0.0, 1, gpu, w)) != GMM_OK)
        goto done;
    double max_w = 0;
    for (size_t e = 0; e < (size_t)m * k; e++) max_w = w[e] > max_w ? w[e] : max_w;
    /* the start: the membership-weighted mean of the neighbours' places (before pruning, as
     * umap-learn's init_graph_transform) */
    for (int pass = 0; pass < (map ? 2 : 1); pass++) {
        const int dims = pass ? 2 : D;
        const float *tail = pass ? s->map : s->embedding;
        float *head = pass ? map : coords;
#pragma omp parallel for schedule(static)
        for (int64_t q = 0; q < m; q++) {
            double sum_w = 0, acc[128] = {0};
            for (int j = 0; j < k; j++) {
                const double wj = w[(size_t)q * k + j];
                sum_w += wj;
                for (int c = 0; c < dims; c++) acc[c] += wj * tail[(size_t)nn[q * k + j] * dims + c];
            }
            for (int c = 0; c < dims; c++)
                head[(size_t)q * dims + c] = sum_w > 0 ? (float)(acc[c] / sum_w)
                                                       : tail[(size_t)nn[q * k] * dims + c];
        }
    }
    for (size_t e = 0; e < (size_t)m * k; e++)
        if (w[e] < max_w / epochs) w[e] = 0; /* never sampled, as umap-learn drops them */
    for (int64_t q = 0; q <= m; q++) row_ptr[q] = q * k;
    const umap_edges edges = {m, s->n_train, row_ptr, nn, w};
    umap_sgd_options so = {.a = s->a, .b = s->b, .gamma = 1, .initial_alpha = 0.25,
                           .negative_sample_rate = 5, .n_epochs = epochs,
                           .seed = s->seed ^ 0xbb67ae8584caa73bull};
    if ((st = layout(&edges, coords, s->embedding, D, &so, gpu)) != GMM_OK) goto done;
    if (map) {
        so.seed += 1;
        st = layout(&edges, map, s->map, 2, &so, gpu);
    }
done:
    free(nn);
    free(nd);
    free(w);
    free(row_ptr);
    return st;
}
