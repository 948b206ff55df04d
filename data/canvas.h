/* An RGB drawing surface for the pictures that need colour and placement (the cluster map,
 * data/cluster_map.h): alpha-blended dots, rectangles, frames, lines, text of the built-in font
 * (data/font.h) with a halo, gray images scaled into a box, a categorical palette, and the
 * placement of boxes (thumbnails, captions) near their anchors without overlapping. Written as a
 * PNG with png_write_rgb. */
#ifndef GMM_CANVAS_H
#define GMM_CANVAS_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint8_t *rgb;      /* width x height x 3 bytes, row-major */
    int width, height;
    int clip_x0, clip_y0, clip_x1, clip_y1; /* every drawing call is limited to this rectangle
                                               (inclusive corners) */
} rgb_canvas;

/* A white canvas with no clip; GMM_ERR_NOMEM when it cannot be allocated. */
gmm_status canvas_open(rgb_canvas *c, int width, int height);
void canvas_close(rgb_canvas *c); /* accepts a zeroed or closed canvas */
/* Limits drawing to [x0, x1] x [y0, y1] (inclusive, intersected with the image). */
void canvas_clip(rgb_canvas *c, int x0, int y0, int x1, int y1);
void canvas_unclip(rgb_canvas *c);
/* png_write_rgb of the pixels. */
gmm_status canvas_write(const rgb_canvas *c, const char *path);

/* Colour i (>= 0) of the categorical palette: matplotlib's tab10 for 0..9, the dark half of
 * tab20b for 10..18 (navy, periwinkle, olive, lime, ochre, gold, maroon, salmon, plum), a dark
 * teal for 19, then hues 0.618 of a turn apart at alternating saturation and brightness. None
 * is close to white. */
void canvas_palette(int i, uint8_t rgb[3]);
/* Black or white, whichever reads better on bg. */
void canvas_text_color_on(const uint8_t bg[3], uint8_t rgb[3]);

void canvas_fill_rect(rgb_canvas *c, int x0, int y0, int x1, int y1, const uint8_t rgb[3]);
/* The outline of [x0, x1] x [y0, y1], thickness pixels wide inward. */
void canvas_frame(rgb_canvas *c, int x0, int y0, int x1, int y1, int thickness,
                  const uint8_t rgb[3]);
/* A one-pixel line (Bresenham). */
void canvas_line(rgb_canvas *c, int x0, int y0, int x1, int y1, const uint8_t rgb[3]);
/* A disc centred at (x, y) (pixel (i, j) spans [i, i + 1) x [j, j + 1)) of radius r, blended
 * over what is there with opacity alpha, its edge antialiased. */
void canvas_disc(rgb_canvas *c, double x, double y, double r, const uint8_t rgb[3], double alpha);
/* Text with its top-left corner at (x, y), each font pixel a scale x scale block; with halo > 0
 * every block is first widened by halo pixels in halo_rgb, so that the text reads over dots. */
void canvas_text(rgb_canvas *c, int x, int y, const char *text, int scale, const uint8_t rgb[3],
                 int halo, const uint8_t halo_rgb[3]);
/* A rows x cols image of ink in [0, 1] (NaN as 0), stretched so that its largest value is 1,
 * drawn as dark ink on white into the w x h box at (x, y): nearest neighbour when w and h are
 * whole multiples of cols and rows, bilinear otherwise. */
void canvas_ink_image(rgb_canvas *c, int x, int y, int w, int h, const double *image, int rows,
                      int cols);

/* A box to place: w x h, its centre (x, y) starting at its anchor (ax, ay). */
typedef struct {
    double x, y, w, h;
    double ax, ay;
} canvas_box;

/* Places the n boxes in their order (put the most important first) inside [x0, x1] x [y0, y1],
 * each at least gap pixels from the boxes placed before it: at its anchor when that spot is free
 * (moved inside the bounds first), else at the nearest free spot on a grid of about an eighth of
 * its smaller side around it. When there is no free spot left, a box stays at its anchor,
 * overlapping; a box larger than the bounds is centred on them. */
void canvas_place_boxes(canvas_box *boxes, int n, double x0, double y0, double x1, double y1,
                        double gap);

#ifdef __cplusplus
}
#endif
#endif
