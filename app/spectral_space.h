/* The programs' spectral space: gmm-train --space spectral embeds the training images (the kNN
 * graph's Laplacian eigenmaps, models/features/spectral.h) and hands the fit their coordinates;
 * gmm-predict embeds new images by the Nyström extension against the training images the model
 * keeps. The pixel images are kept for the pictures, which stay in pixel space. */
#ifndef GMM_SPECTRAL_SPACE_H
#define GMM_SPECTRAL_SPACE_H

#include <stdint.h>

#include "data/dataset.h"
#include "models/core/em.h"
#include "models/core/score.h"

/* Replaces *X (the n x *dim pixels of ds, blurred as fitted) with their spectral coordinates
 * (n x options->spectral_dims) and *dim with that; the pixels move to *pixels (free both) and
 * *space gets what the model keeps (the images of ds as read). Prints what it did unless quiet.
 * Returns an exit code (the message printed). */
int spectral_train_apply(const dataset *ds, const gmm_options *options, double **X, int *dim,
                         gmm_gpu *gpu, int quiet, gmm_spectral_space **space, double **pixels);

/* For a model with a spectral space: *X (n x its input dimension, blurred as the model says)
 * is replaced with the images' coordinates and the pixels move to *pixels (free both); without
 * one, nothing (*pixels untouched). Returns an exit code. */
int spectral_predict_apply(const gmm_model *model, double **X, int64_t n_samples, gmm_gpu *gpu,
                           double **pixels);

#endif
