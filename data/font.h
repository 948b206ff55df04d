/* A small built-in 5x7 bitmap font for captions in PNG output (digits, a-z, A-Z, space and
 * . , : = - + % ( ) / _ < > ?), so that drawing a label needs no font library. */
#ifndef GMM_FONT_H
#define GMM_FONT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FONT_GLYPH_WIDTH 5
#define FONT_GLYPH_HEIGHT 7
#define FONT_ADVANCE 6 /* glyph width plus one column of spacing */

/* FONT_GLYPH_HEIGHT rows, top first; bit 4 is the leftmost column. A character without a glyph
 * gets the '?' glyph. */
const uint8_t *font_glyph(char c);
/* Whether c has a glyph of its own (rather than the '?' stand-in). */
bool font_has_glyph(char c);

/* Width in pixels of text drawn at this integer scale (no trailing spacing column); 0 for "". */
int font_text_width(const char *text, int scale);

/* Draws text into a width x height 8-bit gray image with its top-left corner at (x, y), each font
 * pixel a scale x scale block set to value; whatever falls outside the image is clipped. */
void font_draw_text(uint8_t *image, int width, int height, int x, int y, const char *text,
                    int scale, uint8_t value);

#ifdef __cplusplus
}
#endif
#endif
