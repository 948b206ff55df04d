/* The programs' PCA step: gmm-train --pca D [--whiten] fits the projection and hands the fit the
 * projected images; gmm-predict applies a model's projection. The pixel images are kept for the
 * pictures, which stay in pixel space. */
#ifndef GMM_PCA_APPLY_H
#define GMM_PCA_APPLY_H

#include <stdint.h>

#include "models/core/em.h"
#include "models/core/score.h"

/* With pca_axes > 0: fits the projection to *X (n_samples x *dim pixels), then replaces *X with
 * the projected images (n_samples x pca_axes; the pixels move to *pixels, free both) and *dim
 * with pca_axes; prints one line saying so unless quiet. pca_axes 0: nothing (*projection and
 * *pixels NULL). Returns an exit code: 1 for --pca larger than the image dimension, 2 for more
 * axes than images or a failed computation (the message printed). */
int pca_train_apply(int pca_axes, int whiten, double **X, int64_t n_samples, int *dim,
                    gmm_gpu *gpu, int quiet, gmm_projection **projection, double **pixels);

/* For a model with a projection: *X (n_samples x its input dimension) is replaced with the
 * projected images and the pixels move to *pixels (free both); without one, nothing. Returns an
 * exit code. */
int pca_predict_apply(const gmm_model *model, double **X, int64_t n_samples, gmm_gpu *gpu,
                      double **pixels);

#endif
