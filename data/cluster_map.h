/* The map of the clusters (gmm-train/gmm-predict --map): every image a dot at its 2-D position
 * (a 2-D UMAP layout of the images), coloured by the mixture component it was assigned to, each
 * component's mean image drawn as a thumbnail at the centre of its points with its index (and
 * the label matched to it, when known); when the images have labels, a second panel beside it
 * coloured by label, so that one sees which clusters merge which classes. Drawn with the built-in
 * font (data/font.h) and written as an RGB PNG (data/png_write.h). */
#ifndef GMM_CLUSTER_MAP_H
#define GMM_CLUSTER_MAP_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const float *xy;            /* n x 2 positions */
    int64_t n;
    const int32_t *component;   /* n: the component of each image, in [0, n_components) */
    int n_components;
    const uint8_t *labels;      /* n class labels, or NULL (then one panel) */
    int n_classes;              /* labels in [0, n_classes) */
    const double *mean_images;  /* n_components x rows x cols, pixels in [0, 1] (NULL: no
                                   thumbnails, the index alone is drawn) */
    int rows, cols;
    const int *matched_label;   /* n_components: the label matched to each component (-1: none),
                                   or NULL */
    const char *title;          /* drawn above the panels (NULL: none) */
    int width;                  /* of the whole picture in pixels (0: 1200) */
} cluster_map;

/* Writes the map to path (PNG). GMM_ERR_ARG for n < 1, a component or label out of range or
 * non-finite positions; GMM_ERR_IO when the file cannot be written. */
gmm_status cluster_map_write(const char *path, const cluster_map *map);

#ifdef __cplusplus
}
#endif
#endif
