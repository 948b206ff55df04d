/* The feature space a mixture is fitted in, as one tagged type below the model: pixels (no
 * space), a PCA projection (models/features/pca.h), the spectral embedding of the kNN graph
 * (models/features/spectral.h) or its UMAP embedding (models/features/umap.h). The model owns one gmm_feature_space (NULL: pixels); everything
 * that depends on which space it is (the input size, freeing, copying, mapping images in) asks
 * this type, so a new space is one more variant here and one module beside it. */
#ifndef GMM_FEATURE_SPACE_H
#define GMM_FEATURE_SPACE_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "models/features/pca.h"
#include "models/features/spectral_space.h"
#include "models/features/umap_space.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef enum {
    GMM_SPACE_PCA = 1,      /* a linear projection: gmm_projection */
    GMM_SPACE_SPECTRAL = 2, /* the spectral embedding of the kNN graph: gmm_spectral_space */
    GMM_SPACE_UMAP = 3,     /* the UMAP embedding of the fuzzy kNN graph: gmm_umap_space */
} gmm_space_kind;

typedef struct {
    gmm_space_kind kind;
    union {
        gmm_projection *pca;          /* kind == GMM_SPACE_PCA */
        gmm_spectral_space *spectral; /* kind == GMM_SPACE_SPECTRAL */
        gmm_umap_space *umap;         /* kind == GMM_SPACE_UMAP */
    } as;
} gmm_feature_space;

/* A space owning the given variant (on success the space owns it; on failure it is freed). */
gmm_status gmm_feature_space_from_pca(gmm_projection *projection, gmm_feature_space **out);
gmm_status gmm_feature_space_from_spectral(gmm_spectral_space *spectral, gmm_feature_space **out);
gmm_status gmm_feature_space_from_umap(gmm_umap_space *umap, gmm_feature_space **out);
void gmm_feature_space_free(gmm_feature_space *space); /* accepts NULL; frees the variant too */
gmm_status gmm_feature_space_copy(const gmm_feature_space *src, gmm_feature_space **out); /* NULL src: *out = NULL */
/* Pixels per image the space takes (0 for NULL: the model's own dim). */
int gmm_feature_space_input_dim(const gmm_feature_space *space);
/* Dimensions the space maps an image to (the model's dim; 0 for NULL). */
int gmm_feature_space_dim(const gmm_feature_space *space);
/* The variant when the space is of that kind, else NULL (NULL space included). */
gmm_projection *gmm_space_pca(const gmm_feature_space *space);
gmm_spectral_space *gmm_space_spectral(const gmm_feature_space *space);
gmm_umap_space *gmm_space_umap(const gmm_feature_space *space);
/* What a loaded space must satisfy under a mixture of dimension model_dim (the variant's check). */
gmm_status gmm_feature_space_check(const gmm_feature_space *space, int model_dim);
/* The space's name as --space spells it: "pixels", "pca", "spectral", "umap". */
const char *gmm_feature_space_name(const gmm_feature_space *space);

#ifdef __cplusplus
}
#endif
#endif
