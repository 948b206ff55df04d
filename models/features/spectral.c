/* The spectral embedding of the kNN graph and its Nyström extension (models/features/spectral.h). */
#include "models/features/spectral.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/clock.h"
#include "kernels/knn.h"
#include "kernels/knn_graph.h"

void gmm_spectral_free(gmm_spectral *e)
{
    if (!e) return;
    free(e->embedding);
    free(e->eigenvalues);
    free(e->degrees);
    memset(e, 0, sizeof *e);
}

/* The k nearest training points of each query, on the device of gpu, else on the CPU in the
 * GEMM form (knn_cpu_blas: knn_cpu's result, some 20 times sooner). */
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
        status = knn_cpu_blas(queries, (size_t)m, refs, (size_t)n, (size_t)dim, (size_t)k, index,
                              dist);
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

    double t0 = gmm_clock_seconds();
    nn = malloc(sizeof(int32_t) * (size_t)n * k);
    if (!nn) goto nomem;
    if ((status = nearest(X, n, X, n, dim, k, gpu, nn)) != GMM_OK) goto fail;
    double t1 = gmm_clock_seconds();
    if ((status = knn_graph_build(nn, n, k, &graph)) != GMM_OK) goto fail;
    knn_graph_normalise(&graph);
    double t2 = gmm_clock_seconds();

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
    out->seconds_eigen = gmm_clock_seconds() - t2;
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
