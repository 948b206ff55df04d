/* A model's pictures in pixel space: its means mapped back from the feature space it was
 * fitted in (the projection's inverse, or the responsibility-weighted training images of a
 * space that keeps them: spectral and umap), and such a model's most typical training images.
 * Above the scores (models/core/score.h), which those spaces' weights come from. */
#ifndef GMM_PIXEL_MEANS_H
#define GMM_PIXEL_MEANS_H

#include <stdint.h>

#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's K means in pixel space (K x gmm_model_input_dim doubles): mapped back through its
 * projection, the responsibility-weighted means of its training images for a spectral or umap
 * space (models/features/spectral.h, umap.h), or copied when it has neither. */
gmm_status gmm_model_pixel_means(const gmm_model *model, double *out);

/* For a model fitted in a space that keeps its training images (spectral, umap): each
 * component's mean in pixel space, the mean of the training images weighted by their
 * responsibilities (K x input_dim, pixels in [0, 1]; for a umap space that keeps float values
 * instead of images, the weighted mean of those values, in their own units). */
gmm_status gmm_training_pixel_means(const gmm_model *model, double *out);

/* Whether the model's space keeps its training images (spectral, umap). */
int gmm_space_keeps_images(const gmm_model *model);

/* For a model fitted in a space that keeps its training images (spectral, umap): per component
 * the indices of its `per` most typical training images (labelled k, highest log p(x)), best
 * first; -1 where it has fewer (K x per). */
gmm_status gmm_training_typical(const gmm_model *model, int per, int64_t *indices);

#ifdef __cplusplus
}
#endif
#endif
