/* A model's means in pixel space and a spectral model's typical training images
 * (models/core/pixel_means.h). */
#include "models/core/pixel_means.h"

#include <stdlib.h>
#include <string.h>

#include "models/core/score.h"
#include "models/features/pca.h"

/* labels and log p(x) of the model's training images, from their coordinates */
static gmm_status score_training(const gmm_model *model, double *ll, double *proba, int *labels)
{
    const gmm_spectral_space *s = gmm_space_spectral(model->space);
    if (!s) return gmm_error(GMM_ERR_ARG, "the model has no spectral space");
    return gmm_score_samples(model, s->embedding, s->n_train, GMM_DEVICE_CPU, ll, proba, labels);
}

gmm_status gmm_spectral_pixel_means(const gmm_model *model, double *out)
{
    const gmm_spectral_space *s = gmm_space_spectral(model->space);
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
    const gmm_spectral_space *s = gmm_space_spectral(model->space);
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

gmm_status gmm_model_pixel_means(const gmm_model *model, double *out)
{
    if (!model || !out) return gmm_error(GMM_ERR_ARG, "gmm_model_pixel_means: NULL argument");
    switch (model->space ? model->space->kind : 0) {
    case GMM_SPACE_PCA:
        return gmm_projection_inverse(model->space->as.pca, model->means, model->n_components, out);
    case GMM_SPACE_SPECTRAL:
        return gmm_spectral_pixel_means(model, out);
    }
    memcpy(out, model->means, sizeof(double) * (size_t)model->n_components * model->dim);
    return GMM_OK;
}
