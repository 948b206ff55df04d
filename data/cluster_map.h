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
    int n_classes;              /* labels in [0, n_classes), n_classes in [1, 256] */
    const double *mean_images;  /* n_components x rows x cols, pixels in [0, 1], ink = 1 (NULL:
                                   no thumbnails, the caption alone is drawn) */
    int rows, cols;
    const int *matched_label;   /* n_components: the label matched to each component (-1: none),
                                   or NULL */
    const char *title;          /* drawn above the panels (NULL: none) */
    int width;                  /* of the whole picture in pixels (0: 1200) */
} cluster_map;

/* The picture (cluster_map_layout gives its geometry):
 *
 * - width map->width (0: CLUSTER_MAP_DEFAULT_WIDTH), white, CLUSTER_MAP_MARGIN pixels around;
 *   the title (when not NULL) centred at the top in a band CLUSTER_MAP_TITLE_BAND high; then
 *   one square panel per view, side pixels wide and high, each under a header band
 *   (CLUSTER_MAP_HEADER_BAND) that names it, with a thin gray frame: with labels two panels
 *   side by side, CLUSTER_MAP_MARGIN apart (side = (width - 3 * CLUSTER_MAP_MARGIN) / 2), else
 *   one (side = width - 2 * CLUSTER_MAP_MARGIN); under the panels, CLUSTER_MAP_LEGEND_GAP lower,
 *   the legends, legend_rows rows of CLUSTER_MAP_LEGEND_ROW pixels. So
 *     height = 2 * MARGIN + (title ? TITLE_BAND : 0) + HEADER_BAND + side + LEGEND_GAP
 *              + legend_rows * LEGEND_ROW.
 * - Positions: per axis the 0.5 and 99.5 percentiles bound the part of the layout that fills a
 *   panel (less a padding of side / 16 on each side), at one scale for x and y (the aspect is
 *   kept), y upwards. Outliers beyond are drawn where they fall when that is inside the panel,
 *   else on its border (clamped), never dropped.
 * - Dots: every image a small disc (radius from 0.8 to 3 pixels, smaller as n grows; about 1.7 at
 *   n = 20000 in a 576-pixel panel) at opacity 0.6, in one shuffled order (deterministic) for
 *   both panels, so that no colour systematically hides another. Colours: the categorical
 *   palette of data/canvas.h (tab10 first), component k in colour k on the left, class c in
 *   colour c on the right.
 * - Left panel ("clusters (component: colour)"): each component's mean image as a thumbnail
 *   (about side / 10 pixels wide, smaller when many components would cover the panel; dark ink
 *   on white, stretched so that its strongest pixel is black) in a frame of the component's
 *   colour with a caption strip under it in that colour: "k" or, with matched_label, "k->c".
 *   Each thumbnail starts centred on the median position of its component's points; the
 *   thumbnails are then pushed apart until none overlaps and kept inside the panel; one moved off
 *   its points gets a leader line from a marker at that median. Without mean_images (or when the
 *   thumbnails would be under 16 pixels) the caption alone is placed the same way. A component
 *   with no points gets no thumbnail.
 * - Right panel ("labels (class: colour)", only with labels): dots by class, each class's number
 *   drawn large (font scale 3) in black with a white halo at the median of its points (placed
 *   apart the same way).
 * - Legends: under each panel a colour swatch and number per component (per class on the right),
 *   in rows across the panel's width; none for a panel with more than
 *   CLUSTER_MAP_LEGEND_MAX_ROWS rows' worth of entries. */
#define CLUSTER_MAP_DEFAULT_WIDTH 1200
#define CLUSTER_MAP_MIN_WIDTH 320
#define CLUSTER_MAP_MAX_WIDTH 16384
#define CLUSTER_MAP_MARGIN 16
#define CLUSTER_MAP_TITLE_BAND 30
#define CLUSTER_MAP_HEADER_BAND 24
#define CLUSTER_MAP_LEGEND_GAP 10
#define CLUSTER_MAP_LEGEND_ROW 20
#define CLUSTER_MAP_LEGEND_MAX_ROWS 8

typedef struct {
    int width, height;     /* of the whole picture */
    int n_panels;          /* 2 with labels, else 1 */
    int side;              /* each panel is side x side pixels, its frame included */
    int panel_x[2];        /* left edges: [0] the components, [1] the labels (when 2 panels) */
    int panel_y;           /* top edge of the panels */
    int legend_y;          /* top of the legend rows */
    int legend_rows;       /* the most rows either legend takes (0: no legend) */
} cluster_map_geometry;

/* The geometry cluster_map_write uses; it depends on width, title, labels (NULL or not),
 * n_components and n_classes only. GMM_ERR_ARG for a width outside [CLUSTER_MAP_MIN_WIDTH,
 * CLUSTER_MAP_MAX_WIDTH] (0 stands for the default), n_components < 1, or labels with
 * n_classes outside [1, 256]. */
gmm_status cluster_map_layout(const cluster_map *map, cluster_map_geometry *geometry);

/* Writes the map to path (PNG). GMM_ERR_ARG (with a detail naming the first bad value) for a
 * NULL map, path, xy or component, n < 1, a component or label out of range, a non-finite
 * position, matched_label below -1, rows or cols < 1 with mean_images, or a geometry that
 * cluster_map_layout refuses; GMM_ERR_NOMEM; the PNG writer's error (GMM_ERR_IO) when the file
 * cannot be written. */
gmm_status cluster_map_write(const char *path, const cluster_map *map);

#ifdef __cplusplus
}
#endif
#endif
