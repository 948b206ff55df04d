/* The feature space as one tagged type (models/features/feature_space.h): construction and the
 * generic operations every variant answers (each variant's own code beside it). */
#include "models/features/feature_space.h"

#include <stdlib.h>
#include <string.h>


static gmm_status wrap(gmm_space_kind kind, void *variant, gmm_feature_space **out)
{
    *out = calloc(1, sizeof **out);
    if (!*out) return gmm_error(GMM_ERR_NOMEM, "out of memory for a feature space");
    (*out)->kind = kind;
    if (kind == GMM_SPACE_PCA) (*out)->as.pca = variant;
    else if (kind == GMM_SPACE_SPECTRAL) (*out)->as.spectral = variant;
    else (*out)->as.umap = variant;
    return GMM_OK;
}

gmm_status gmm_feature_space_from_pca(gmm_projection *projection, gmm_feature_space **out)
{
    gmm_status st = wrap(GMM_SPACE_PCA, projection, out);
    if (st != GMM_OK) gmm_projection_free(projection);
    return st;
}

gmm_status gmm_feature_space_from_spectral(gmm_spectral_space *spectral, gmm_feature_space **out)
{
    gmm_status st = wrap(GMM_SPACE_SPECTRAL, spectral, out);
    if (st != GMM_OK) gmm_spectral_space_free(spectral);
    return st;
}

gmm_status gmm_feature_space_from_umap(gmm_umap_space *umap, gmm_feature_space **out)
{
    gmm_status st = wrap(GMM_SPACE_UMAP, umap, out);
    if (st != GMM_OK) gmm_umap_space_free(umap);
    return st;
}

void gmm_feature_space_free(gmm_feature_space *space)
{
    if (!space) return;
    switch (space->kind) {
    case GMM_SPACE_PCA: gmm_projection_free(space->as.pca); break;
    case GMM_SPACE_SPECTRAL: gmm_spectral_space_free(space->as.spectral); break;
    case GMM_SPACE_UMAP: gmm_umap_space_free(space->as.umap); break;
    }
    free(space);
}

gmm_status gmm_feature_space_copy(const gmm_feature_space *src, gmm_feature_space **out)
{
    *out = NULL;
    if (!src) return GMM_OK;
    gmm_status st = GMM_OK;
    switch (src->kind) {
    case GMM_SPACE_PCA: {
        gmm_projection *p = NULL;
        if ((st = gmm_projection_copy(src->as.pca, &p)) != GMM_OK) return st;
        return gmm_feature_space_from_pca(p, out);
    }
    case GMM_SPACE_SPECTRAL: {
        gmm_spectral_space *s = NULL;
        if ((st = gmm_spectral_space_copy(src->as.spectral, &s)) != GMM_OK) return st;
        return gmm_feature_space_from_spectral(s, out);
    }
    case GMM_SPACE_UMAP: {
        gmm_umap_space *u = NULL;
        if ((st = gmm_umap_space_copy(src->as.umap, &u)) != GMM_OK) return st;
        return gmm_feature_space_from_umap(u, out);
    }
    }
    return gmm_error(GMM_ERR_ARG, "unknown feature space kind %d", (int)src->kind);
}

int gmm_feature_space_input_dim(const gmm_feature_space *space)
{
    if (!space) return 0;
    switch (space->kind) {
    case GMM_SPACE_PCA: return space->as.pca->input_dim;
    case GMM_SPACE_SPECTRAL: return space->as.spectral->input_dim;
    case GMM_SPACE_UMAP: return space->as.umap->input_dim;
    }
    return 0;
}

int gmm_feature_space_dim(const gmm_feature_space *space)
{
    if (!space) return 0;
    switch (space->kind) {
    case GMM_SPACE_PCA: return space->as.pca->n_axes;
    case GMM_SPACE_SPECTRAL: return space->as.spectral->n_dims;
    case GMM_SPACE_UMAP: return space->as.umap->n_dims;
    }
    return 0;
}

gmm_projection *gmm_space_pca(const gmm_feature_space *space)
{
    return space && space->kind == GMM_SPACE_PCA ? space->as.pca : NULL;
}

gmm_spectral_space *gmm_space_spectral(const gmm_feature_space *space)
{
    return space && space->kind == GMM_SPACE_SPECTRAL ? space->as.spectral : NULL;
}

gmm_umap_space *gmm_space_umap(const gmm_feature_space *space)
{
    return space && space->kind == GMM_SPACE_UMAP ? space->as.umap : NULL;
}

gmm_status gmm_feature_space_check(const gmm_feature_space *space, int model_dim)
{
    switch (space->kind) {
    case GMM_SPACE_PCA: return gmm_projection_check(space->as.pca, model_dim);
    case GMM_SPACE_SPECTRAL: return gmm_spectral_space_check(space->as.spectral, model_dim);
    case GMM_SPACE_UMAP: return gmm_umap_space_check(space->as.umap, model_dim);
    }
    return gmm_error(GMM_ERR_FORMAT, "unknown feature space kind %d", (int)space->kind);
}

const char *gmm_feature_space_name(const gmm_feature_space *space)
{
    if (!space) return "pixels";
    switch (space->kind) {
    case GMM_SPACE_PCA: return "pca";
    case GMM_SPACE_SPECTRAL: return "spectral";
    case GMM_SPACE_UMAP: return "umap";
    }
    return "unknown";
}
