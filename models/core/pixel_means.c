/* A model's means in pixel space and the typical training images of a model whose space keeps
 * them (models/core/pixel_means.h). */
#include "models/core/pixel_means.h"

#include <stdlib.h>
#include <string.h>

#include "models/core/score.h"
#include "models/features/pca.h"

/* The training images a spectral or umap space keeps (bytes, or the float values a umap space
 * of the library keeps instead), with their coordinates in it. */
typedef struct {
    int64_t n;
    int p;
    const uint8_t *images; /* n x p bytes (pixel = byte / 255), or NULL when values is set */
    const float *values;   /* n x p values as given (a umap space without images) */
    const double *coords; /* n x model dim: the space's own (spectral) or a copy (umap) */
    double *owned;
} training_set;

static gmm_status training_set_get(const gmm_model *model, training_set *t)
{
    memset(t, 0, sizeof *t);
    const gmm_spectral_space *s = gmm_space_spectral(model->space);
    const gmm_umap_space *u = gmm_space_umap(model->space);
    if (s) {
        *t = (training_set){.n = s->n_train, .p = s->input_dim, .images = s->images,
                            .coords = s->embedding};
        return GMM_OK;
    }
    if (!u) return gmm_error(GMM_ERR_ARG, "the model's space keeps no training images");
    const size_t count = (size_t)u->n_train * (size_t)u->n_dims;
    t->owned = malloc(sizeof(double) * count);
    if (!t->owned) return gmm_error(GMM_ERR_NOMEM, "out of memory for the training coordinates");
    for (size_t i = 0; i < count; i++) t->owned[i] = u->embedding[i];
    *t = (training_set){.n = u->n_train, .p = u->input_dim, .images = u->images,
                        .values = u->values, .coords = t->owned, .owned = t->owned};
    return GMM_OK;
}

int gmm_space_keeps_images(const gmm_model *model)
{
    return gmm_space_spectral(model->space) || gmm_space_umap(model->space);
}

/* labels and log p(x) of the model's training images, from their coordinates */
static gmm_status score_training(const gmm_model *model, const training_set *t, double *ll,
                                 double *proba, int *labels)
{
    return gmm_score_samples(model, t->coords, t->n, GMM_DEVICE_CPU, ll, proba, labels);
}

gmm_status gmm_training_pixel_means(const gmm_model *model, double *out)
{
    training_set t;
    gmm_status st = training_set_get(model, &t);
    if (st != GMM_OK) return st;
    const int K = model->n_components, p = t.p;
    const int64_t n = t.n;
    double *proba = malloc(sizeof(double) * (size_t)n * K), *w = calloc((size_t)K, sizeof(double));
    if (!proba || !w) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the pixel means");
        goto done;
    }
    if ((st = score_training(model, &t, NULL, proba, NULL)) != GMM_OK) goto done;
    memset(out, 0, sizeof(double) * (size_t)K * p);
    for (int64_t i = 0; i < n; i++)
        for (int k = 0; k < K; k++) w[k] += proba[(size_t)i * K + k];
#pragma omp parallel for schedule(static)
    for (int k = 0; k < K; k++) {
        double *mean = out + (size_t)k * p;
        for (int64_t i = 0; i < n; i++) {
            const double r = proba[(size_t)i * K + k];
            if (r < 1e-12) continue;
            if (t.images) {
                const uint8_t *img = t.images + (size_t)i * p;
                for (int j = 0; j < p; j++) mean[j] += r * img[j];
            } else {
                const float *v = t.values + (size_t)i * p;
                for (int j = 0; j < p; j++) mean[j] += r * v[j];
            }
        }
        const double unit = t.images ? 255.0 : 1.0; /* bytes to [0, 1]; values as they are */
        for (int j = 0; j < p; j++) mean[j] = w[k] > 0 ? mean[j] / (unit * w[k]) : 0;
    }
done:
    free(proba);
    free(w);
    free(t.owned);
    return st;
}

gmm_status gmm_training_typical(const gmm_model *model, int per, int64_t *indices)
{
    if (per < 1) return gmm_error(GMM_ERR_ARG, "gmm_training_typical: per must be >= 1");
    training_set t;
    gmm_status st = training_set_get(model, &t);
    if (st != GMM_OK) return st;
    const int K = model->n_components;
    const int64_t n = t.n;
    double *ll = malloc(sizeof(double) * (size_t)n);
    int *labels = malloc(sizeof(int) * (size_t)n);
    if (!ll || !labels) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the typical images");
        goto done;
    }
    if ((st = score_training(model, &t, ll, NULL, labels)) != GMM_OK) goto done;
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
    free(t.owned);
    return st;
}

gmm_status gmm_model_pixel_means(const gmm_model *model, double *out)
{
    if (!model || !out) return gmm_error(GMM_ERR_ARG, "gmm_model_pixel_means: NULL argument");
    switch (model->space ? model->space->kind : 0) {
    case GMM_SPACE_PCA:
        return gmm_projection_inverse(model->space->as.pca, model->means, model->n_components, out);
    case GMM_SPACE_SPECTRAL:
    case GMM_SPACE_UMAP:
        return gmm_training_pixel_means(model, out);
    }
    memcpy(out, model->means, sizeof(double) * (size_t)model->n_components * model->dim);
    return GMM_OK;
}
