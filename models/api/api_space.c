/* The library's "umap" space (models/api/api_space.h): the embedding of a fit's data and the
 * placing of new data in it, from the public interface's arrays. */
#include "models/api/api_space.h"

#include <stdlib.h>

#include "include/gmm/gmm.h"
#include "models/api/api_data.h"
#include "models/backend/backend.h"
#include "models/features/umap.h"

void gmm_api_space_default(gmm_api_space *s)
{
    *s = (gmm_api_space){.umap = 0, .n_neighbors = GMM_UMAP_NEIGHBORS,
                         .embed_dims = GMM_UMAP_DIMS, .n_epochs = 0, .min_dist = 0.0};
}

static double *widen(const float *x, size_t count)
{
    double *d = malloc(sizeof(double) * (count ? count : 1));
    if (d)
        for (size_t i = 0; i < count; i++) d[i] = x[i];
    return d;
}

gmm_status gmm_api_umap_embed(const void *X, int64_t n, int dim, int dtype, double scale,
                              const gmm_api_space *p, uint64_t seed, gmm_gpu *gpu,
                              gmm_umap_space **umap, double **coords)
{
    *umap = NULL;
    *coords = NULL;
    const float *xf;
    float *owned;
    gmm_status st = gmm_api_as_float32(X, n, dim, dtype, scale, &xf, &owned);
    if (st != GMM_OK) return st;
    /* bytes / 255 are images as the programs read them: the space keeps the bytes */
    const uint8_t *images = dtype == GMM_DTYPE_UINT8 && scale == 1.0 / 255 ? X : NULL;
    const gmm_umap_options o = {.n_neighbors = p->n_neighbors, .n_dims = p->embed_dims,
                                .min_dist = p->min_dist, .n_epochs = p->n_epochs,
                                .metric = (gmm_umap_metric)p->metric, .knn_pca = p->knn_pca,
                                .knn_power = p->knn_power, .knn_whiten = p->knn_whiten,
                                .map_dims = 0, .seed = seed};
    st = gmm_umap_embed(xf, n, dim, images, &o, gpu, umap, NULL);
    free(owned);
    if (st != GMM_OK) return st;
    *coords = widen((*umap)->embedding, (size_t)n * (size_t)(*umap)->n_dims);
    if (!*coords) {
        gmm_umap_space_free(*umap);
        *umap = NULL;
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the %lld samples' coordinates",
                         (long long)n);
    }
    return GMM_OK;
}

gmm_status gmm_api_umap_place(const gmm_model *model, const void *Y, int64_t m, int dim,
                              int dtype, double scale, gmm_device device, double **coords)
{
    *coords = NULL;
    const gmm_umap_space *s = gmm_space_umap(model->space);
    if (!s) return gmm_error(GMM_ERR_ARG, "the model was not fitted in a umap space");
    if (model->blur_sigma > 0)
        return gmm_error(GMM_ERR_UNSUPPORTED, "the model was fitted on images blurred with "
                         "sigma %g (gmm-train --blur), which the library does not do: predict "
                         "with gmm-predict, or train with --blur 0", model->blur_sigma);
    if (dim != s->input_dim)
        return gmm_error(GMM_ERR_ARG, "the data has %d features per sample but the model's "
                         "umap space was made from %d", dim, s->input_dim);
    const float *yf;
    float *y_owned = NULL, *train_owned = NULL, *placed = NULL;
    gmm_gpu *gpu = NULL;
    gmm_status st = gmm_api_as_float32(Y, m, dim, dtype, scale, &yf, &y_owned);
    if (st != GMM_OK) return st;
    const size_t inputs = (size_t)s->n_train * (size_t)s->input_dim;
    const float *train = s->values;
    if (!train) { /* the images as the fit saw them: bytes times 1/255, as gmm_api_as_float32 */
        if (!(train_owned = malloc(sizeof(float) * inputs))) goto nomem;
        for (size_t i = 0; i < inputs; i++)
            train_owned[i] = (float)((double)s->images[i] * (1.0 / 255));
        train = train_owned;
    }
    if (!(placed = malloc(sizeof(float) * (size_t)m * (size_t)s->n_dims))) goto nomem;
    if ((st = gmm_device_open(device, &gpu, NULL)) != GMM_OK ||
        (st = gmm_umap_transform(s, train, yf, m, gpu, placed, NULL)) != GMM_OK)
        goto done;
    if (!(*coords = widen(placed, (size_t)m * (size_t)s->n_dims))) goto nomem;
    goto done;
nomem:
    st = gmm_error(GMM_ERR_NOMEM, "out of memory placing %lld samples in the umap space",
                   (long long)m);
done:
    gmm_gpu_destroy(gpu);
    free(y_owned);
    free(train_owned);
    free(placed);
    return st;
}
