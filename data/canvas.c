/* The RGB canvas of data/canvas.h: clipped pixel drawing, the categorical palette, text through
 * the font's glyph bits, scaled ink images and the push-apart placement of boxes. */
#include "data/canvas.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "data/font.h"
#include "data/png_write.h"

gmm_status canvas_open(rgb_canvas *c, int width, int height)
{
    memset(c, 0, sizeof *c);
    if (width < 1 || height < 1) return gmm_error(GMM_ERR_ARG, "canvas of %d x %d", width, height);
    c->rgb = malloc((size_t)width * height * 3);
    if (!c->rgb)
        return gmm_error(GMM_ERR_NOMEM, "out of memory for a %d x %d picture", width, height);
    memset(c->rgb, 255, (size_t)width * height * 3);
    c->width = width;
    c->height = height;
    canvas_unclip(c);
    return GMM_OK;
}

void canvas_close(rgb_canvas *c)
{
    free(c->rgb);
    memset(c, 0, sizeof *c);
}

void canvas_unclip(rgb_canvas *c)
{
    c->clip_x0 = c->clip_y0 = 0;
    c->clip_x1 = c->width - 1;
    c->clip_y1 = c->height - 1;
}

void canvas_clip(rgb_canvas *c, int x0, int y0, int x1, int y1)
{
    c->clip_x0 = x0 > 0 ? x0 : 0;
    c->clip_y0 = y0 > 0 ? y0 : 0;
    c->clip_x1 = x1 < c->width - 1 ? x1 : c->width - 1;
    c->clip_y1 = y1 < c->height - 1 ? y1 : c->height - 1;
}

gmm_status canvas_write(const rgb_canvas *c, const char *path)
{
    return png_write_rgb(path, c->rgb, c->width, c->height);
}

static const uint8_t palette_fixed[20][3] = {
    /* tab10 */
    {31, 119, 180}, {255, 127, 14}, {44, 160, 44}, {214, 39, 40}, {148, 103, 189},
    {140, 86, 75}, {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207},
    /* tab20b, every other entry */
    {57, 59, 121}, {107, 110, 207}, {99, 121, 57}, {181, 207, 107}, {140, 109, 49},
    {231, 186, 82}, {132, 60, 57}, {214, 97, 107}, {123, 65, 115}, {0, 109, 119}};

void canvas_palette(int i, uint8_t rgb[3])
{
    if (i < 0) i = 0;
    if (i < 20) {
        memcpy(rgb, palette_fixed[i], 3);
        return;
    }
    /* HSV with the golden-ratio hue sequence */
    double h = fmod(0.05 + (i - 20) * 0.6180339887, 1.0) * 6;
    double s = (i & 1) ? 0.55 : 0.85, v = (i & 2) ? 0.95 : 0.70;
    int sector = (int)h;
    double f = h - sector, p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r, g, b;
    switch (sector % 6) {
    case 0: r = v; g = t; b = p; break;
    case 1: r = q; g = v; b = p; break;
    case 2: r = p; g = v; b = t; break;
    case 3: r = p; g = q; b = v; break;
    case 4: r = t; g = p; b = v; break;
    default: r = v; g = p; b = q; break;
    }
    rgb[0] = (uint8_t)lround(255 * r);
    rgb[1] = (uint8_t)lround(255 * g);
    rgb[2] = (uint8_t)lround(255 * b);
}

void canvas_text_color_on(const uint8_t bg[3], uint8_t rgb[3])
{
    double luma = 0.299 * bg[0] + 0.587 * bg[1] + 0.114 * bg[2];
    memset(rgb, luma > 150 ? 0 : 255, 3);
}

static inline int inside(const rgb_canvas *c, int x, int y)
{
    return x >= c->clip_x0 && x <= c->clip_x1 && y >= c->clip_y0 && y <= c->clip_y1;
}

static inline void put(rgb_canvas *c, int x, int y, const uint8_t rgb[3])
{
    if (inside(c, x, y)) memcpy(c->rgb + 3 * ((size_t)y * c->width + x), rgb, 3);
}

void canvas_fill_rect(rgb_canvas *c, int x0, int y0, int x1, int y1, const uint8_t rgb[3])
{
    if (x0 < c->clip_x0) x0 = c->clip_x0;
    if (y0 < c->clip_y0) y0 = c->clip_y0;
    if (x1 > c->clip_x1) x1 = c->clip_x1;
    if (y1 > c->clip_y1) y1 = c->clip_y1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) memcpy(c->rgb + 3 * ((size_t)y * c->width + x), rgb, 3);
}

void canvas_frame(rgb_canvas *c, int x0, int y0, int x1, int y1, int thickness,
                  const uint8_t rgb[3])
{
    for (int t = 0; t < thickness; t++) {
        canvas_fill_rect(c, x0 + t, y0 + t, x1 - t, y0 + t, rgb);
        canvas_fill_rect(c, x0 + t, y1 - t, x1 - t, y1 - t, rgb);
        canvas_fill_rect(c, x0 + t, y0 + t, x0 + t, y1 - t, rgb);
        canvas_fill_rect(c, x1 - t, y0 + t, x1 - t, y1 - t, rgb);
    }
}

void canvas_line(rgb_canvas *c, int x0, int y0, int x1, int y1, const uint8_t rgb[3])
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        put(c, x0, y0, rgb);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * err;
        if (e2 >= dy) { err += dy; x0 += sx; }
        if (e2 <= dx) { err += dx; y0 += sy; }
    }
}

void canvas_disc(rgb_canvas *c, double x, double y, double r, const uint8_t rgb[3], double alpha)
{
    if (!(r > 0) || !(alpha > 0)) return;
    /* below half a pixel the disc keeps half a pixel's footprint and fades instead */
    double rr = r < 0.5 ? 0.5 : r;
    if (r < 0.5) alpha *= (r / rr) * (r / rr);
    if (alpha > 1) alpha = 1;
    int i0 = (int)floor(x - rr - 1), i1 = (int)ceil(x + rr + 1);
    int j0 = (int)floor(y - rr - 1), j1 = (int)ceil(y + rr + 1);
    if (i0 < c->clip_x0) i0 = c->clip_x0;
    if (j0 < c->clip_y0) j0 = c->clip_y0;
    if (i1 > c->clip_x1) i1 = c->clip_x1;
    if (j1 > c->clip_y1) j1 = c->clip_y1;
    for (int j = j0; j <= j1; j++)
        for (int i = i0; i <= i1; i++) {
            double dx = i + 0.5 - x, dy = j + 0.5 - y;
            double cover = rr + 0.5 - sqrt(dx * dx + dy * dy);
            if (cover <= 0) continue;
            double a = alpha * (cover < 1 ? cover : 1);
            uint8_t *p = c->rgb + 3 * ((size_t)j * c->width + i);
            for (int k = 0; k < 3; k++) p[k] = (uint8_t)lround(p[k] + a * (rgb[k] - p[k]));
        }
}

void canvas_text(rgb_canvas *c, int x, int y, const char *text, int scale, const uint8_t rgb[3],
                 int halo, const uint8_t halo_rgb[3])
{
    if (!text || scale < 1) return;
    for (int pass = halo > 0 ? 0 : 1; pass < 2; pass++) {
        int grow = pass == 0 ? halo : 0;
        const uint8_t *color = pass == 0 ? halo_rgb : rgb;
        for (int k = 0; text[k]; k++) {
            const uint8_t *rows = font_glyph(text[k]);
            int gx = x + k * FONT_ADVANCE * scale;
            for (int r = 0; r < FONT_GLYPH_HEIGHT; r++)
                for (int col = 0; col < FONT_GLYPH_WIDTH; col++) {
                    if (!(rows[r] >> (FONT_GLYPH_WIDTH - 1 - col) & 1)) continue;
                    int bx = gx + col * scale, by = y + r * scale;
                    canvas_fill_rect(c, bx - grow, by - grow, bx + scale - 1 + grow,
                                     by + scale - 1 + grow, color);
                }
        }
    }
}

static double ink_at(const double *image, int cols, int r, int col, double top)
{
    double v = image[(size_t)r * cols + col];
    if (!(v > 0)) return 0; /* NaN and negatives */
    v /= top;
    return v > 1 ? 1 : v;
}

void canvas_ink_image(rgb_canvas *c, int x, int y, int w, int h, const double *image, int rows,
                      int cols)
{
    if (w < 1 || h < 1 || rows < 1 || cols < 1) return;
    double top = 0;
    for (size_t i = 0; i < (size_t)rows * cols; i++)
        if (image[i] > top) top = image[i]; /* NaN compares false */
    if (!(top > 0) || !isfinite(top)) top = 1;
    int nearest = w % cols == 0 && h % rows == 0;
    for (int oy = 0; oy < h; oy++)
        for (int ox = 0; ox < w; ox++) {
            double v;
            if (nearest) {
                v = ink_at(image, cols, oy * rows / h, ox * cols / w, top);
            } else {
                double sx = (ox + 0.5) * cols / w - 0.5, sy = (oy + 0.5) * rows / h - 0.5;
                if (sx < 0) sx = 0;
                if (sy < 0) sy = 0;
                if (sx > cols - 1) sx = cols - 1;
                if (sy > rows - 1) sy = rows - 1;
                int c0 = (int)sx, r0 = (int)sy;
                int c1 = c0 + 1 < cols ? c0 + 1 : c0, r1 = r0 + 1 < rows ? r0 + 1 : r0;
                double fx = sx - c0, fy = sy - r0;
                v = (1 - fy) * ((1 - fx) * ink_at(image, cols, r0, c0, top) +
                                fx * ink_at(image, cols, r0, c1, top)) +
                    fy * ((1 - fx) * ink_at(image, cols, r1, c0, top) +
                          fx * ink_at(image, cols, r1, c1, top));
            }
            uint8_t g = (uint8_t)lround(255 * (1 - v)), px[3] = {g, g, g};
            put(c, x + ox, y + oy, px);
        }
}

static void keep_inside(canvas_box *b, double x0, double y0, double x1, double y1)
{
    if (b->w >= x1 - x0) b->x = (x0 + x1) / 2;
    else if (b->x - b->w / 2 < x0) b->x = x0 + b->w / 2;
    else if (b->x + b->w / 2 > x1) b->x = x1 - b->w / 2;
    if (b->h >= y1 - y0) b->y = (y0 + y1) / 2;
    else if (b->y - b->h / 2 < y0) b->y = y0 + b->h / 2;
    else if (b->y + b->h / 2 > y1) b->y = y1 - b->h / 2;
}

/* Whether box b centred at (x, y) keeps gap pixels from every box placed before it. */
static int free_at(const canvas_box *boxes, int b, double x, double y, double gap)
{
    for (int j = 0; j < b; j++)
        if (fabs(x - boxes[j].x) < (boxes[b].w + boxes[j].w) / 2 + gap &&
            fabs(y - boxes[j].y) < (boxes[b].h + boxes[j].h) / 2 + gap)
            return 0;
    return 1;
}

static int fits(const canvas_box *b, double x, double y, double x0, double y0, double x1,
                double y1)
{
    return x - b->w / 2 >= x0 && x + b->w / 2 <= x1 && y - b->h / 2 >= y0 && y + b->h / 2 <= y1;
}

void canvas_place_boxes(canvas_box *boxes, int n, double x0, double y0, double x1, double y1,
                        double gap)
{
    for (int i = 0; i < n; i++) {
        canvas_box *b = &boxes[i];
        b->x = b->ax;
        b->y = b->ay;
        keep_inside(b, x0, y0, x1, y1);
        if (free_at(boxes, i, b->x, b->y, gap)) continue;
        /* square rings of candidates around the start, step pixels apart; the nearest free one
           wins, which is certain once a ring's inner distance exceeds the best found */
        double step = fmin(b->w, b->h) / 8, sx = b->x, sy = b->y, best_d = INFINITY;
        if (step < 1) step = 1;
        double bx = sx, by = sy;
        int max_ring = (int)ceil(fmax(x1 - x0, y1 - y0) / step) + 1;
        for (int r = 1; r <= max_ring && r * step < best_d; r++)
            for (int k = 0; k < 8 * r; k++) {
                int side = k / (2 * r), t = k % (2 * r) - r; /* the ring's four sides */
                int dx = side == 0 ? t : side == 1 ? r : side == 2 ? -t : -r;
                int dy = side == 0 ? -r : side == 1 ? t : side == 2 ? r : -t;
                double x = sx + dx * step, y = sy + dy * step, d = hypot(x - sx, y - sy);
                if (d >= best_d || !fits(b, x, y, x0, y0, x1, y1)) continue;
                if (!free_at(boxes, i, x, y, gap)) continue;
                best_d = d;
                bx = x;
                by = y;
            }
        b->x = bx; /* no room anywhere: the start, overlapping */
        b->y = by;
    }
}
