/* The programs' UMAP space: gmm-train --space umap embeds the training images
 * (models/features/umap.h) and hands the fit their coordinates; gmm-predict places new images in
 * the space the model keeps; both draw the map of the clusters (data/cluster_map.h) from the 2-D
 * layout. The pixel images are kept for the pictures, which stay in pixel space. */
#ifndef GMM_APP_UMAP_SPACE_H
#define GMM_APP_UMAP_SPACE_H

#include <stdint.h>

#include "app/gmm_train_args.h"
#include "data/dataset.h"
#include "models/core/em.h"
#include "models/core/score.h"

/* Replaces *X (the n x *dim pixels of ds, blurred as fitted) with their UMAP coordinates and *dim
 * with the embedding's dimensions; the pixels move to *pixels (free both) and *space gets what
 * the model keeps (with the 2-D map layout when args->map_path is not ""). Prints the steps as
 * they start and what it did, unless quiet. Returns an exit code (the message printed). */
int umap_train_apply(const dataset *ds, const gmm_train_args *args, const gmm_options *options,
                     double **X, int *dim, gmm_gpu *gpu, int quiet, gmm_umap_space **space,
                     double **pixels);

/* For a model with a UMAP space: *X (n x its input dimension, blurred as the model says) is
 * replaced with the images' coordinates, the pixels move to *pixels (free both), and *map (when
 * map is not NULL and the space keeps a map) gets the n x 2 places in the map (free it); without
 * such a space, nothing. Returns an exit code. */
int umap_predict_apply(const gmm_model *model, double **X, int64_t n_samples, gmm_gpu *gpu,
                       double **pixels, float **map);

/* The map of the clusters at path: the n images at map (n x 2), coloured by their component
 * (assignments) and, when labels is not NULL, by label beside it; the model's pixel means and
 * matched labels drawn at the clusters. Prints where it went. Returns an exit code. */
int umap_map_write(const char *path, const gmm_model *model, const float *map, int64_t n,
                   const int *assignments, const uint8_t *labels, const char *title);

#endif
