/* The spectral space's storage and its check: allocation, freeing, copying and what a loaded
 * space must satisfy (models/features/spectral_space.h). */
#include "models/features/spectral_space.h"

#include "models/features/finite_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

gmm_status gmm_spectral_space_alloc(int64_t n_train, int input_dim, int n_neighbors, int n_dims,
                                    gmm_spectral_space **out)
{
    *out = NULL;
    if (n_train < 1 || input_dim < 1 || n_dims < 1 || n_neighbors < 1)
        return gmm_error(GMM_ERR_ARG, "spectral space: invalid sizes %lld x %d, k = %d, %d dims",
                         (long long)n_train, input_dim, n_neighbors, n_dims);
    gmm_spectral_space *s = calloc(1, sizeof *s);
    if (!s) return gmm_error(GMM_ERR_NOMEM, "out of memory for the spectral space");
    *s = (gmm_spectral_space){.n_train = n_train, .input_dim = input_dim,
                              .n_neighbors = n_neighbors, .n_dims = n_dims};
    s->images = calloc((size_t)n_train * (size_t)input_dim, 1);
    s->embedding = calloc((size_t)n_train * (size_t)n_dims, sizeof(double));
    s->eigenvalues = calloc((size_t)n_dims, sizeof(double));
    s->degrees = calloc((size_t)n_train, sizeof(double));
    if (!s->images || !s->embedding || !s->eigenvalues || !s->degrees) {
        gmm_spectral_space_free(s);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the spectral space of %lld images",
                         (long long)n_train);
    }
    *out = s;
    return GMM_OK;
}

void gmm_spectral_space_free(gmm_spectral_space *s)
{
    if (!s) return;
    free(s->images);
    free(s->embedding);
    free(s->eigenvalues);
    free(s->degrees);
    free(s);
}

gmm_status gmm_spectral_space_copy(const gmm_spectral_space *src, gmm_spectral_space **out)
{
    gmm_status st = gmm_spectral_space_alloc(src->n_train, src->input_dim, src->n_neighbors,
                                             src->n_dims, out);
    if (st != GMM_OK) return st;
    const size_t n = (size_t)src->n_train;
    memcpy((*out)->images, src->images, n * (size_t)src->input_dim);
    memcpy((*out)->embedding, src->embedding, n * (size_t)src->n_dims * sizeof(double));
    memcpy((*out)->eigenvalues, src->eigenvalues, (size_t)src->n_dims * sizeof(double));
    memcpy((*out)->degrees, src->degrees, n * sizeof(double));
    return GMM_OK;
}

/* The spectral space the mixture was fitted in: sizes that agree with the model, finite
 * coordinates, eigenvalues in [-1, 1] (1 again when the graph has several components) and away
 * from 0 (the Nyström extension divides by them),
 * degrees in (0, n_train]. */
gmm_status gmm_spectral_space_check(const gmm_spectral_space *s, int model_dim)
{
    if (s->n_dims != model_dim || s->n_neighbors < 2 || s->n_neighbors > 128 ||
        s->n_train <= s->n_dims || s->input_dim < 1)
        return gmm_error(GMM_ERR_FORMAT, "spectral space: %d dimensions (model: %d), %d "
                         "neighbours (2..128), %lld images of %d values", s->n_dims, model_dim,
                         s->n_neighbors, (long long)s->n_train, s->input_dim);
    gmm_status st;
    if ((st = gmm_check_finite("spectral embedding", s->embedding, (size_t)s->n_train * s->n_dims, 0)) !=
            GMM_OK ||
        (st = gmm_check_finite("spectral eigenvalues", s->eigenvalues, (size_t)s->n_dims, 0)) != GMM_OK ||
        (st = gmm_check_finite("spectral degrees", s->degrees, (size_t)s->n_train, 0)) != GMM_OK)
        return st;
    for (int c = 0; c < s->n_dims; c++)
        if (!(fabs(s->eigenvalues[c]) <= 1 + 1e-9 && fabs(s->eigenvalues[c]) > 1e-12))
            return gmm_error(GMM_ERR_FORMAT, "spectral space: eigenvalue %d is %g, must be in "
                             "[-1, 1] and not 0", c, s->eigenvalues[c]);
    for (int64_t i = 0; i < s->n_train; i++)
        if (!(s->degrees[i] > 0 && s->degrees[i] <= (double)s->n_train))
            return gmm_error(GMM_ERR_FORMAT, "spectral space: image %lld has degree %g, must be "
                             "in (0, %lld]", (long long)i, s->degrees[i], (long long)s->n_train);
    return GMM_OK;
}
