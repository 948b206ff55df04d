/* A model's pictures in pixel space: its means mapped back from the feature space it was
 * fitted in (the projection's inverse, or the responsibility-weighted training images of a
 * spectral space), and a spectral model's most typical training images. Above the scores
 * (models/core/score.h), which the spectral space's weights come from. */
#ifndef GMM_PIXEL_MEANS_H
#define GMM_PIXEL_MEANS_H

#include <stdint.h>

#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The model's K means in pixel space (K x gmm_model_input_dim doubles): mapped back through its
 * projection, the responsibility-weighted means of its training images for a spectral space
 * (models/features/spectral.h), or copied when it has neither. */
gmm_status gmm_model_pixel_means(const gmm_model *model, double *out);

/* For a model fitted in a spectral space: each component's mean in pixel space, the mean of the
 * training images weighted by their responsibilities (K x input_dim, pixels in [0, 1]). */
gmm_status gmm_spectral_pixel_means(const gmm_model *model, double *out);

/* For a model fitted in a spectral space: per component the indices of its `per` most typical
 * training images (labelled k, highest log p(x)), best first; -1 where it has fewer
 * (K x per). */
gmm_status gmm_spectral_typical(const gmm_model *model, int per, int64_t *indices);

#ifdef __cplusplus
}
#endif
#endif
