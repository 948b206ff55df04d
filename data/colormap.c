/* Cubehelix (see colormap.h): a helix around the gray diagonal of the RGB cube, with the
 * constants of Green's paper, over the part of it that is neither black nor white. */
#include "data/colormap.h"

#include <math.h>

#define HELIX_START 0.3       /* the starting hue: purple */
#define HELIX_ROTATIONS -0.75 /* turns of the hue from start to end: purple, blue, green, yellow */
#define HELIX_HUE 2.0         /* saturation of the colours */
#define HELIX_FROM 0.1        /* the brightness range used, away from black ... */
#define HELIX_TO 0.9          /* ... and from white */

static uint8_t to_byte(double x)
{
    if (!(x > 0)) return 0;
    if (x >= 1) return 255;
    return (uint8_t)lround(x * 255.0);
}

void colormap_entry(int i, uint8_t rgb[3])
{
    if (i < 0) i = 0;
    if (i > COLORMAP_SIZE - 1) i = COLORMAP_SIZE - 1;
    double lambda = HELIX_FROM + (HELIX_TO - HELIX_FROM) * i / (COLORMAP_SIZE - 1);
    double phi = 2 * M_PI * (HELIX_START / 3 + HELIX_ROTATIONS * lambda);
    double amp = HELIX_HUE * lambda * (1 - lambda) / 2, c = cos(phi), s = sin(phi);
    rgb[0] = to_byte(lambda + amp * (-0.14861 * c + 1.78277 * s));
    rgb[1] = to_byte(lambda + amp * (-0.29227 * c - 0.90649 * s));
    rgb[2] = to_byte(lambda + amp * (1.97294 * c));
}

void colormap_rgb(double v, uint8_t rgb[3])
{
    int i = 0;
    if (v >= 1) i = COLORMAP_SIZE - 1;
    else if (v > 0) i = (int)lround(v * (COLORMAP_SIZE - 1));
    colormap_entry(i, rgb);
}
