/* The UMAP space's storage and its check: allocation, freeing, copying and what a loaded space
 * must satisfy (models/features/umap_space.h). */
#include "models/features/umap_space.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gmm_status gmm_umap_space_alloc(int64_t n_train, int input_dim, int n_neighbors, int n_dims,
                                int map_dims, gmm_umap_storage storage, gmm_umap_space **out)
{
    *out = NULL;
    if (n_train < 1 || input_dim < 1 || n_dims < 1 || n_neighbors < 1 ||
        (map_dims != 0 && map_dims != 2) ||
        (storage != GMM_UMAP_KEEPS_IMAGES && storage != GMM_UMAP_KEEPS_VALUES))
        return gmm_error(GMM_ERR_ARG, "umap space: invalid sizes %lld x %d, k = %d, %d dims, "
                         "map %d", (long long)n_train, input_dim, n_neighbors, n_dims, map_dims);
    gmm_umap_space *s = calloc(1, sizeof *s);
    if (!s) return gmm_error(GMM_ERR_NOMEM, "out of memory for the umap space");
    *s = (gmm_umap_space){.n_train = n_train, .input_dim = input_dim, .n_neighbors = n_neighbors,
                          .n_dims = n_dims, .map_dims = map_dims, .metric = GMM_UMAP_EUCLIDEAN,
                          .knn_power = 1.0};
    const size_t inputs = (size_t)n_train * (size_t)input_dim;
    if (storage == GMM_UMAP_KEEPS_IMAGES) s->images = calloc(inputs, 1);
    else s->values = calloc(inputs, sizeof(float));
    s->embedding = calloc((size_t)n_train * (size_t)n_dims, sizeof(float));
    if (map_dims) s->map = calloc((size_t)n_train * (size_t)map_dims, sizeof(float));
    if ((!s->images && !s->values) || !s->embedding || (map_dims && !s->map)) {
        gmm_umap_space_free(s);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the umap space of %lld images",
                         (long long)n_train);
    }
    *out = s;
    return GMM_OK;
}

void gmm_umap_space_free(gmm_umap_space *s)
{
    if (!s) return;
    free(s->images);
    free(s->values);
    free(s->embedding);
    free(s->map);
    gmm_projection_free(s->knn_pca);
    free(s);
}

gmm_umap_storage gmm_umap_space_storage(const gmm_umap_space *s)
{
    return s->images ? GMM_UMAP_KEEPS_IMAGES : GMM_UMAP_KEEPS_VALUES;
}

gmm_status gmm_umap_space_copy(const gmm_umap_space *src, gmm_umap_space **out)
{
    gmm_status st = gmm_umap_space_alloc(src->n_train, src->input_dim, src->n_neighbors,
                                         src->n_dims, src->map_dims,
                                         gmm_umap_space_storage(src), out);
    if (st != GMM_OK) return st;
    gmm_umap_space *s = *out;
    uint8_t *images = s->images;
    float *values = s->values, *embedding = s->embedding, *map = s->map;
    *s = *src; /* the settings; the arrays are the copy's own */
    s->images = images;
    s->values = values;
    s->embedding = embedding;
    s->map = map;
    s->knn_pca = NULL;
    if (src->knn_pca && (st = gmm_projection_copy(src->knn_pca, &s->knn_pca)) != GMM_OK) {
        gmm_umap_space_free(s);
        *out = NULL;
        return st;
    }
    const size_t n = (size_t)src->n_train;
    if (images) memcpy(s->images, src->images, n * (size_t)src->input_dim);
    else memcpy(s->values, src->values, n * (size_t)src->input_dim * sizeof(float));
    memcpy(s->embedding, src->embedding, n * (size_t)src->n_dims * sizeof(float));
    if (src->map_dims) memcpy(s->map, src->map, n * (size_t)src->map_dims * sizeof(float));
    return GMM_OK;
}

static gmm_status check_coordinates(const char *what, const float *x, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || fabsf(x[i]) > 1e30f)
            return gmm_error(GMM_ERR_FORMAT, "umap space: %s value %zu is %g", what, i,
                             (double)x[i]);
    return GMM_OK;
}

gmm_status gmm_umap_space_check(const gmm_umap_space *s, int model_dim)
{
    if (s->n_dims != model_dim || s->n_dims > 100 || s->n_neighbors < 2 || s->n_neighbors > 128 ||
        s->n_train < s->n_neighbors || s->input_dim < 1 || (s->map_dims != 0 && s->map_dims != 2))
        return gmm_error(GMM_ERR_FORMAT, "umap space: %d dimensions (model: %d; at most 100), %d neighbours "
                         "(2..128), %lld images of %d values, map of %d dimensions", s->n_dims,
                         model_dim, s->n_neighbors, (long long)s->n_train, s->input_dim,
                         s->map_dims);
    if (!(s->a > 0 && s->a < 1e6 && s->b > 0 && s->b <= 2 && s->spread > 0 &&
          s->spread < 1e6 && s->min_dist >= 0 && s->min_dist <= s->spread) ||
        s->n_epochs < 1 || s->n_epochs > 100000)
        return gmm_error(GMM_ERR_FORMAT, "umap space: curve a = %g, b = %g, min_dist %g, spread "
                         "%g, %d epochs out of range", s->a, s->b, s->min_dist, s->spread,
                         s->n_epochs);
    if (s->metric != GMM_UMAP_EUCLIDEAN && s->metric != GMM_UMAP_COSINE)
        return gmm_error(GMM_ERR_FORMAT, "umap space: metric %d (1: euclidean, 2: cosine)",
                         (int)s->metric);
    if (!(s->knn_power > 0 && s->knn_power <= 1) ||
        !(s->knn_whiten >= 0 && s->knn_whiten <= 1) || (s->knn_whiten > 0 && !s->knn_pca))
        return gmm_error(GMM_ERR_FORMAT, "umap space: power %g (must be in (0, 1]) and whitening "
                         "%g (in [0, 1]; 0 without principal axes, and it has %s)", s->knn_power,
                         s->knn_whiten, s->knn_pca ? "them" : "none");
    if (s->knn_pca) {
        if (s->knn_pca->input_dim != s->input_dim || s->knn_pca->whiten)
            return gmm_error(GMM_ERR_FORMAT, "umap space: the neighbours' projection is from %d "
                             "values%s, the space's images have %d", s->knn_pca->input_dim,
                             s->knn_pca->whiten ? " and whitened" : "", s->input_dim);
        gmm_status pst = gmm_projection_check(s->knn_pca, s->knn_pca->n_axes);
        if (pst != GMM_OK) return pst;
    }
    if (!s->images == !s->values)
        return gmm_error(GMM_ERR_FORMAT, "umap space: it keeps %s of images and values (one of "
                         "them is needed)", s->images ? "both" : "neither");
    gmm_status st = check_coordinates("embedding", s->embedding, (size_t)s->n_train * s->n_dims);
    if (st == GMM_OK && s->values)
        st = check_coordinates("training", s->values, (size_t)s->n_train * s->input_dim);
    if (st == GMM_OK && s->map_dims)
        st = check_coordinates("map", s->map, (size_t)s->n_train * s->map_dims);
    return st;
}
