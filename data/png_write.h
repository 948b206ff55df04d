/* PNG output with libpng: grayscale and RGB images, grids of labelled image tiles. */
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
 * (captions[i], drawn with a built-in bitmap font; NULL for none). */
gmm_status png_write_tile_grid(const char *path, const double *tiles, int n_tiles, int rows,
                               int cols, int scale, const char *const *captions);

#ifdef __cplusplus
}
#endif
#endif
