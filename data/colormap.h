/* The built-in colour map for heat maps: Green's cubehelix (Bull. Astr. Soc. India 39, 2011),
 * computed from its formula, so that it needs no table or library. Its brightness rises
 * steadily from dark purple through blue, teal and green to a pale yellow (much as viridis), so
 * that it reads in order and survives printing in gray; it is never black or white, so a heat
 * map stands apart from the gray images beside it. */
#ifndef GMM_COLORMAP_H
#define GMM_COLORMAP_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COLORMAP_SIZE 256

/* RGB of entry i (clamped to 0..COLORMAP_SIZE-1); entry 0 is the darkest. */
void colormap_entry(int i, uint8_t rgb[3]);

/* RGB of a value in [0, 1] (clamped; NaN as 0): entry round(255 v), as a gray pixel would be. */
void colormap_rgb(double v, uint8_t rgb[3]);

#ifdef __cplusplus
}
#endif
#endif
