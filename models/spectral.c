/* The spectral embedding of the kNN graph and its Nyström extension (models/spectral.h). */
#include "models/spectral.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kernels/knn.h"
#include "kernels/knn_graph.h"

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void gmm_spectral_free(gmm_spectral *e)
{
    if (!e) return;
    free(e->embedding);
    free(e->eigenvalues);
    free(e->degrees);
    memset(e, 0, sizeof *e);
}

/* The k nearest training points of each query, on the device of gpu. */
static gmm_status nearest(const float *queries, int64_t m, const float *refs, int64_t n, int dim,
                          int k, gmm_gpu *gpu, int32_t *index)
{
    gmm_status status;
    float *dist = malloc(sizeof(float) * (size_t)m * k);
    if (!dist) return gmm_error(GMM_ERR_NOMEM, "spectral: out of memory for the kNN distances");
    if (gpu)
        status = knn_cuda_host(queries, (size_t)m, refs, (size_t)n, (size_t)dim, (size_t)k, gpu,
                               index, dist);
    else
        status = knn_cpu(queries, (size_t)m, refs, (size_t)n, (size_t)dim, (size_t)k, index, dist);
    free(dist);
    return status;
}

gmm_status gmm_spectral_embed(const float *X, int64_t n, int dim, const gmm_spectral_options *o,
                              gmm_gpu *gpu, gmm_spectral *out)
{
    gmm_status status = GMM_OK;
    memset(out, 0, sizeof *out);
    const int k = o && o->n_neighbors > 0 ? o->n_neighbors : 10;
    const int D = o && o->n_dims > 0 ? o->n_dims : 10;
    int32_t *nn = NULL;
    double *vecs = NULL, *vals = NULL;
    knn_graph graph = {0};
    if (!X || dim < 1 || n < 3)
        return gmm_error(GMM_ERR_ARG, "spectral embedding: needs at least 3 points");
    if (D + 1 >= n)
        return gmm_error(GMM_ERR_ARG, "spectral embedding: %d dimensions need more than %d points "
                                      "(got %lld)", D, D + 1, (long long)n);
    if (k < 2 || k > n || k > KNN_CUDA_MAX_K)
        return gmm_error(GMM_ERR_ARG, "spectral embedding: neighbours must be in [2, %lld], got %d",
                         (long long)(n < KNN_CUDA_MAX_K ? n : KNN_CUDA_MAX_K), k);

    double t0 = now_seconds();
    nn = malloc(sizeof(int32_t) * (size_t)n * k);
    if (!nn) goto nomem;
    if ((status = nearest(X, n, X, n, dim, k, gpu, nn)) != GMM_OK) goto fail;
    double t1 = now_seconds();
    if ((status = knn_graph_build(nn, n, k, &graph)) != GMM_OK) goto fail;
    knn_graph_normalise(&graph);
    double t2 = now_seconds();

    vecs = malloc(sizeof(double) * (size_t)n * (D + 1));
    vals = malloc(sizeof(double) * (D + 1));
    out->embedding = malloc(sizeof(double) * (size_t)n * D);
    out->eigenvalues = malloc(sizeof(double) * D);
    if (!vecs || !vals || !out->embedding || !out->eigenvalues) goto nomem;
    const csr_matrix S = {graph.n, graph.row_ptr, graph.col, graph.val};
    const lanczos_options lo = {.max_steps = o ? o->max_steps : 0, .tol = o ? o->tol : 0,
                                .seed = o ? o->seed : 0};
    if ((status = lanczos_largest(&S, D + 1, &lo, gpu, vals, vecs, &out->lanczos)) != GMM_OK)
        goto fail;

    /* u = v / sqrt(d); the sign that makes the largest |u_i| positive (the first such i) */
    for (int c = 0; c <= D; c++) {
        double best = -1, sign = 1;
        for (int64_t i = 0; i < n; i++) {
            double u = vecs[(size_t)i * (D + 1) + c] / sqrt(graph.degree[i]);
            vecs[(size_t)i * (D + 1) + c] = u;
            if (fabs(u) > best) {
                best = fabs(u);
                sign = u < 0 ? -1 : 1;
            }
        }
        if (c == 0) continue; /* the constant direction is dropped */
        for (int64_t i = 0; i < n; i++)
            out->embedding[(size_t)i * D + (c - 1)] = sign * vecs[(size_t)i * (D + 1) + c];
        out->eigenvalues[c - 1] = vals[c];
    }
    out->n = n;
    out->n_dims = D;
    out->n_neighbors = k;
    out->degrees = graph.degree;
    graph.degree = NULL;
    out->graph_components = graph.n_components;
    out->seconds_knn = t1 - t0;
    out->seconds_graph = t2 - t1;
    out->seconds_eigen = now_seconds() - t2;
    goto done;
nomem:
    status = gmm_error(GMM_ERR_NOMEM, "spectral embedding: out of memory for %lld points",
                       (long long)n);
fail:
    gmm_spectral_free(out);
done:
    free(nn);
    free(vecs);
    free(vals);
    knn_graph_free(&graph);
    return status;
}

gmm_status gmm_spectral_extend(const gmm_spectral *e, const float *X, int dim, const float *Y,
                               int64_t m, gmm_gpu *gpu, double *out)
{
    gmm_status status = GMM_OK;
    if (!e || !e->embedding || !X || !Y || !out || m < 0)
        return gmm_error(GMM_ERR_ARG, "spectral extension: bad arguments");
    if (m == 0) return GMM_OK;
    const int k = e->n_neighbors, D = e->n_dims;
    int32_t *nn = malloc(sizeof(int32_t) * (size_t)m * k);
    if (!nn) return gmm_error(GMM_ERR_NOMEM, "spectral extension: out of memory");
    if ((status = nearest(Y, m, X, e->n, dim, k, gpu, nn)) != GMM_OK) goto fail;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < m; q++)
        for (int c = 0; c < D; c++) {
            double s = 0;
            for (int j = 0; j < k; j++) s += e->embedding[(size_t)nn[q * k + j] * D + c];
            out[(size_t)q * D + c] = s / k / e->eigenvalues[c];
        }
fail:
    free(nn);
    return status;
}

gmm_status gmm_spectral_space_from(const gmm_spectral *e, const uint8_t *images, int input_dim,
                                   gmm_spectral_space **out)
{
    gmm_status st = gmm_spectral_space_alloc(e->n, input_dim, e->n_neighbors, e->n_dims, out);
    if (st != GMM_OK) return st;
    gmm_spectral_space *s = *out;
    memcpy(s->images, images, (size_t)e->n * (size_t)input_dim);
    memcpy(s->embedding, e->embedding, sizeof(double) * (size_t)e->n * e->n_dims);
    memcpy(s->eigenvalues, e->eigenvalues, sizeof(double) * e->n_dims);
    memcpy(s->degrees, e->degrees, sizeof(double) * (size_t)e->n);
    return GMM_OK;
}

gmm_status gmm_init_spectral(const double *X, int64_t n, int dim, const gmm_options *o,
                             double *resp)
{
    gmm_status st;
    gmm_spectral e = {0};
    gmm_model m = {0};
    gmm_fit_scores scores = {0};
    float *Xf = malloc(sizeof(float) * (size_t)n * dim);
    if (!Xf) return gmm_error(GMM_ERR_NOMEM, "init=spectral: out of memory for the images");
    for (size_t i = 0; i < (size_t)n * dim; i++) Xf[i] = (float)X[i];
    const gmm_spectral_options so = {.n_neighbors = o->knn_neighbors, .n_dims = o->spectral_dims,
                                     .seed = o->seed};
    const double t0 = now_seconds();
    st = gmm_spectral_embed(Xf, n, dim, &so, o->gpu, &e);
    free(Xf);
    if (st != GMM_OK) return st;
    const double t1 = now_seconds();
    /* the mixture in the embedding, with the library's defaults for what the embedding's scale
     * decides (reg_covar, tol: the coordinates are about 1 / sqrt(n)) */
    gmm_options eo;
    gmm_options_default(&eo);
    eo.n_components = o->n_components;
    eo.n_init = o->n_init;
    eo.seed = o->seed;
    eo.device = o->device;
    eo.gpu = o->gpu;
    eo.should_stop = o->should_stop;
    eo.user = o->user;
    if ((st = gmm_fit_scored(e.embedding, n, e.n_dims, &eo, &m, &scores)) != GMM_OK) goto done;
    memcpy(resp, scores.proba, sizeof(double) * (size_t)n * o->n_components);
    if (o->on_notice) {
        char msg[256];
        snprintf(msg, sizeof msg, "init=spectral: a %d-dimensional embedding of the %d-nearest-"
                 "neighbour graph (%.2f s), a mixture fitted in it (%d iterations, %.2f s)",
                 e.n_dims, e.n_neighbors, t1 - t0, m.n_iter, now_seconds() - t1);
        o->on_notice(o->user, msg);
    }
done:
    gmm_fit_scores_free(&scores);
    gmm_model_free(&m);
    gmm_spectral_free(&e);
    return st;
}

/* labels and log p(x) of the model's training images, from their coordinates */
static gmm_status score_training(const gmm_model *model, double *ll, double *proba, int *labels)
{
    const gmm_spectral_space *s = model->spectral;
    if (!s) return gmm_error(GMM_ERR_ARG, "the model has no spectral space");
    return gmm_score_samples(model, s->embedding, s->n_train, GMM_DEVICE_CPU, ll, proba, labels);
}

gmm_status gmm_spectral_pixel_means(const gmm_model *model, double *out)
{
    const gmm_spectral_space *s = model->spectral;
    if (!s) return gmm_error(GMM_ERR_ARG, "the model has no spectral space");
    const int K = model->n_components, p = s->input_dim;
    const int64_t n = s->n_train;
    double *proba = malloc(sizeof(double) * (size_t)n * K), *w = calloc((size_t)K, sizeof(double));
    gmm_status st = GMM_OK;
    if (!proba || !w) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the pixel means");
        goto done;
    }
    if ((st = score_training(model, NULL, proba, NULL)) != GMM_OK) goto done;
    memset(out, 0, sizeof(double) * (size_t)K * p);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < K; k++) w[k] += proba[(size_t)i * K + k];
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; k++) {
        double *mean = out + (size_t)k * p;
        for (int64_t i = 0; i < n; i++) {
            const double r = proba[(size_t)i * K + k];
            if (r < 1e-12) continue;
            const uint8_t *img = s->images + (size_t)i * p;
            for (int j = 0; j < p; j++) mean[j] += r * img[j];
        }
        for (int j = 0; j < p; j++) mean[j] = w[k] > 0 ? mean[j] / (255.0 * w[k]) : 0;
    }
done:
    free(proba);
    free(w);
    return st;
}

gmm_status gmm_spectral_typical(const gmm_model *model, int per, int64_t *indices)
{
    const gmm_spectral_space *s = model->spectral;
    if (!s || per < 1) return gmm_error(GMM_ERR_ARG, "gmm_spectral_typical: bad arguments");
    const int K = model->n_components;
    const int64_t n = s->n_train;
    double *ll = malloc(sizeof(double) * (size_t)n);
    int *labels = malloc(sizeof(int) * (size_t)n);
    gmm_status st = GMM_OK;
    if (!ll || !labels) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the typical images");
        goto done;
    }
    if ((st = score_training(model, ll, NULL, labels)) != GMM_OK) goto done;
    for (size_t q = 0; q < (size_t)K * per; q++) indices[q] = -1;
    for (int64_t i = 0; i < n; i++) { /* insertion into each component's best `per` */
        int64_t *best = indices + (size_t)labels[i] * per;
        int pos = per;
        while (pos > 0 && (best[pos - 1] < 0 || ll[best[pos - 1]] < ll[i])) pos--;
        if (pos == per) continue;
        memmove(best + pos + 1, best + pos, sizeof(int64_t) * (size_t)(per - pos - 1));
        best[pos] = i;
    }
done:
    free(ll);
    free(labels);
    return st;
}
