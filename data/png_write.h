/* PNG output with libpng: grayscale and RGB images, grids of labelled image tiles (in gray, or
 * through a colour map with a colour bar), and stacks of images each under its own caption. */
#ifndef GMM_PNG_WRITE_H
#define GMM_PNG_WRITE_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* width x height bytes, row-major. */
gmm_status png_write_gray(const char *path, const uint8_t *pixels, int width, int height);
/* width x height x 3 bytes, row-major RGB. */
gmm_status png_write_rgb(const char *path, const uint8_t *rgb, int width, int height);

/* Reads a PNG back as 8-bit (gray or RGB converted to gray); used by tests. *pixels is malloc'd. */
gmm_status png_read_gray(const char *path, uint8_t **pixels, int *width, int *height);

/* A grid of n_tiles images (each rows x cols, values in [0, 1] clamped, row-major, one after the
 * other in tiles), upscaled by scale with nearest neighbour, each tile with a caption under it
 * (captions[i], drawn with a built-in bitmap font; NULL for none).
 *
 * Layout (png_tile_grid_layout computes it): a white background; grid_cols = ceil(sqrt(n_tiles))
 * columns and ceil(n_tiles / grid_cols) rows of cells, tile i in cell (i / grid_cols,
 * i % grid_cols), PNG_TILE_MARGIN white pixels around and between cells. A tile is drawn as gray
 * round(255 * clamp(v, 0, 1)) (NaN as 0), each value a scale x scale block, centred
 * horizontally in its cell at the cell's top. When captions is not NULL every cell has a caption
 * band under its tile (also for tiles whose caption is NULL) holding the caption in black, at
 * font scale 2 when scale >= 6 and 1 otherwise, centred; the cell is widened to the widest
 * caption so that none is cut. */
gmm_status png_write_tile_grid(const char *path, const double *tiles, int n_tiles, int rows,
                               int cols, int scale, const char *const *captions);

#define PNG_TILE_MARGIN 4

typedef struct {
    int grid_cols, grid_rows;    /* cells across and down */
    int tile_width, tile_height; /* cols * scale, rows * scale */
    int cell_width, cell_height; /* a tile plus its caption band (0 high without captions) */
    int caption_height;          /* the band: text height plus padding; 0 when captions == NULL */
    int text_scale;              /* the font's integer scale */
    int width, height;           /* the whole image */
} png_tile_layout;

/* The layout png_write_tile_grid uses for these arguments; GMM_ERR_ARG for non-positive sizes or
 * an image too large (over 2^28 pixels). */
gmm_status png_tile_grid_layout(int n_tiles, int rows, int cols, int scale,
                                const char *const *captions, png_tile_layout *layout);
/* Top-left pixel of tile i's image (not its caption) in that layout. */
void png_tile_origin(const png_tile_layout *layout, int i, int *x, int *y);

/* The tile grid in colour: as png_write_tile_grid (the same layout, captions, scale and gray
 * values), except that every pixel of a tile whose mask entry is nonzero is drawn through the
 * built-in colour map (data/colormap.h: entry round(255 * clamp(v, 0, 1)), NaN as entry 0), and
 * that a colour bar may go under the grid. Written as an RGB PNG. */
typedef struct {
    const uint8_t *mask;   /* rows x cols, the same for every tile; NULL: every pixel in colour */
    const char *bar_label; /* a colour bar under the grid, with this label under it; NULL: none */
    double bar_lo, bar_hi; /* the values of colour map entries 0 and 255, printed at the bar's
                              ends (and their mean at its middle) */
} png_color_style;

gmm_status png_write_tile_grid_color(const char *path, const double *tiles, int n_tiles, int rows,
                                     int cols, int scale, const char *const *captions,
                                     const png_color_style *style);

#define PNG_COLORBAR_THICKNESS 10 /* the bar's height in font-scale units */

/* Where the colour bar goes: a horizontal gradient from colour map entry 0 (left) to the last
 * entry (right) at (x, y), width x height pixels, in an image_width x image_height picture (the
 * tile grid's layout at the top). */
typedef struct {
    int x, y, width, height;
    int image_width, image_height;
} png_colorbar;

gmm_status png_colorbar_geometry(const png_tile_layout *layout, const char *bar_label,
                                 png_colorbar *bar);

/* Images stacked top to bottom, each under its own caption (a row header), with optional column
 * labels once at the top: n_images images of rows x cols (values as in png_write_tile_grid, one
 * after the other in images), upscaled by scale. Layout (png_image_stack_layout computes it): a
 * white background with PNG_TILE_MARGIN around; when n_labels > 0 a band holding each label
 * centred over its image columns; then per image a caption band (the caption in black,
 * left-aligned with the image, at font scale 2 when scale >= 6 and 1 otherwise; the band is
 * there also when captions or captions[i] is NULL) and the image under it, PNG_TILE_MARGIN
 * between one image and the next caption. The width fits the widest caption. */
typedef struct {
    int from_col, to_col; /* image columns [from_col, to_col) */
    const char *text;
} png_column_label;

typedef struct {
    int image_x;                    /* left edge of every image */
    int labels_y, labels_height;    /* the column labels' band (0 high without labels) */
    int first_y;                    /* top of the first caption band */
    int caption_height;             /* each caption band; the image starts right under it */
    int row_pitch;                  /* from one caption band to the next */
    int image_width, image_height;  /* cols * scale, rows * scale */
    int text_scale;
    int width, height;              /* the whole picture */
} png_stack_layout;

gmm_status png_image_stack_layout(int n_images, int rows, int cols, int scale,
                                  const char *const *captions, const png_column_label *labels,
                                  int n_labels, png_stack_layout *layout);
gmm_status png_write_image_stack(const char *path, const double *images, int n_images, int rows,
                                 int cols, int scale, const char *const *captions,
                                 const png_column_label *labels, int n_labels);

#ifdef __cplusplus
}
#endif
#endif
