/* Line plots and histograms rendered into an RGB buffer and written with png_write_rgb. */
#include "data/plot.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/font.h"
#include "data/png_write.h"

#define MARGIN_LEFT 78
#define MARGIN_RIGHT 20
#define MARGIN_TOP 44
#define MARGIN_BOTTOM 52
#define N_TICKS_WANTED 5

static const uint8_t tab10[10][3] = {
    {31, 119, 180}, {214, 39, 40}, {44, 160, 44}, {255, 127, 14}, {148, 103, 189},
    {140, 86, 75}, {227, 119, 194}, {127, 127, 127}, {188, 189, 34}, {23, 190, 207}};

/* The canvas: RGB pixels plus a text mask drawn with the font, merged in black at the end. */
typedef struct {
    uint8_t *rgb;
    uint8_t *text;
    double x_lo, x_hi, y_lo, y_hi; /* data range shown */
} canvas;

static void put(canvas *c, int x, int y, const uint8_t *color)
{
    if (x < 0 || y < 0 || x >= PLOT_WIDTH || y >= PLOT_HEIGHT) return;
    memcpy(c->rgb + 3 * ((size_t)y * PLOT_WIDTH + x), color, 3);
}

static void fill_rect(canvas *c, int x0, int y0, int x1, int y1, const uint8_t *color)
{
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) put(c, x, y, color);
}

/* Bresenham, two pixels thick */
static void line(canvas *c, int x0, int y0, int x1, int y1, const uint8_t *color)
{
    int dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1, dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        put(c, x0, y0, color);
        put(c, x0, y0 + 1, color);
        if (x0 == x1 && y0 == y1) break;
        int e2 = 2 * err;
        if (e2 >= dy) { err += dy; x0 += sx; }
        if (e2 <= dx) { err += dx; y0 += sy; }
    }
}

static int px(const canvas *c, double x)
{
    double t = (x - c->x_lo) / (c->x_hi - c->x_lo);
    return MARGIN_LEFT + (int)lround(t * (PLOT_WIDTH - MARGIN_LEFT - MARGIN_RIGHT - 1));
}

static int py(const canvas *c, double y)
{
    double t = (y - c->y_lo) / (c->y_hi - c->y_lo);
    return PLOT_HEIGHT - MARGIN_BOTTOM - (int)lround(t * (PLOT_HEIGHT - MARGIN_TOP - MARGIN_BOTTOM - 1));
}

static void text(canvas *c, int x, int y, const char *s, int scale)
{
    font_draw_text(c->text, PLOT_WIDTH, PLOT_HEIGHT, x, y, s, scale, 255);
}

/* A tick step of 1, 2 or 5 times a power of ten giving about N_TICKS_WANTED ticks. */
static double nice_step(double range)
{
    double raw = range / N_TICKS_WANTED, p = pow(10, floor(log10(raw))), f = raw / p;
    return (f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10) * p;
}

static void tick_label(char *buf, size_t size, double v, double step)
{
    if (fabs(v) < step * 1e-6) v = 0;
    if (fabs(v) >= 1e5 || (fabs(v) < 1e-3 && v != 0)) {
        /* enough significant digits that neighbouring ticks differ (-1.85e+07, -1.9e+07) */
        int digits = (int)floor(log10(fabs(v))) - (int)floor(log10(step)) + 1;
        if (digits < 2) digits = 2;
        if (digits > 6) digits = 6;
        snprintf(buf, size, "%.*g", digits, v);
    } else {
        snprintf(buf, size, "%.6g", v);
    }
}

static void axes(canvas *c, const char *title, const char *x_label, const char *y_label)
{
    static const uint8_t black[3] = {0, 0, 0}, grid[3] = {225, 225, 225};
    int left = MARGIN_LEFT, right = PLOT_WIDTH - MARGIN_RIGHT - 1;
    int top = MARGIN_TOP, bottom = PLOT_HEIGHT - MARGIN_BOTTOM - 1;
    char buf[32];
    double step = nice_step(c->x_hi - c->x_lo);
    for (double v = ceil(c->x_lo / step) * step; v <= c->x_hi + step * 1e-9; v += step) {
        int x = px(c, v);
        fill_rect(c, x, top, x, bottom, grid);
        fill_rect(c, x, bottom, x, bottom + 4, black);
        tick_label(buf, sizeof buf, v, step);
        text(c, x - font_text_width(buf, 1) / 2, bottom + 8, buf, 1);
    }
    step = nice_step(c->y_hi - c->y_lo);
    for (double v = ceil(c->y_lo / step) * step; v <= c->y_hi + step * 1e-9; v += step) {
        int y = py(c, v);
        fill_rect(c, left, y, right, y, grid);
        fill_rect(c, left - 4, y, left, y, black);
        tick_label(buf, sizeof buf, v, step);
        text(c, left - 8 - font_text_width(buf, 1), y - FONT_GLYPH_HEIGHT / 2, buf, 1);
    }
    fill_rect(c, left, top, left, bottom, black);
    fill_rect(c, left, bottom, right, bottom, black);
    if (title) text(c, (PLOT_WIDTH - font_text_width(title, 2)) / 2, 8, title, 2);
    if (x_label)
        text(c, left + (right - left - font_text_width(x_label, 1)) / 2, bottom + 24, x_label, 1);
    if (y_label) text(c, 6, top - 14, y_label, 1);
}

static void legend_entry(canvas *c, int row, const char *label, const uint8_t *color, int bar)
{
    if (!label) return;
    int w = font_text_width(label, 1);
    int x = PLOT_WIDTH - MARGIN_RIGHT - 8 - w - 24, y = MARGIN_TOP + 6 + row * 12;
    if (bar) fill_rect(c, x, y, x + 16, y + 6, color);
    else line(c, x, y + 3, x + 16, y + 3, color);
    text(c, x + 22, y, label, 1);
}

static void draw_series(canvas *c, const plot_series *s, const uint8_t *color)
{
    int have_prev = 0, x0 = 0, y0 = 0;
    for (int i = 0; i < s->n; i++) {
        if (!isfinite(s->x[i]) || !isfinite(s->y[i])) {
            have_prev = 0;
            continue;
        }
        int x = px(c, s->x[i]), y = py(c, s->y[i]);
        if (have_prev) line(c, x0, y0, x, y, color);
        else put(c, x, y, color);
        x0 = x;
        y0 = y;
        have_prev = 1;
    }
}

static void range_of(const plot_series *series, int n_series, double *x_lo, double *x_hi,
                     double *y_lo, double *y_hi)
{
    for (int s = 0; s < n_series; s++)
        for (int i = 0; i < series[s].n; i++) {
            double x = series[s].x[i], y = series[s].y[i];
            if (!isfinite(x) || !isfinite(y)) continue;
            if (x < *x_lo) *x_lo = x;
            if (x > *x_hi) *x_hi = x;
            if (y < *y_lo) *y_lo = y;
            if (y > *y_hi) *y_hi = y;
        }
}

static void widen(double *lo, double *hi)
{
    if (!isfinite(*lo) || !isfinite(*hi)) {
        *lo = 0;
        *hi = 1;
    } else if (*hi <= *lo) {
        double pad = fabs(*lo) > 0 ? fabs(*lo) * 0.1 : 1;
        *lo -= pad;
        *hi += pad;
    }
}

static gmm_status canvas_open(canvas *c)
{
    c->rgb = malloc((size_t)PLOT_WIDTH * PLOT_HEIGHT * 3);
    c->text = calloc((size_t)PLOT_WIDTH * PLOT_HEIGHT, 1);
    if (!c->rgb || !c->text) {
        free(c->rgb);
        free(c->text);
        return gmm_error(GMM_ERR_NOMEM, "out of memory for a plot");
    }
    memset(c->rgb, 255, (size_t)PLOT_WIDTH * PLOT_HEIGHT * 3);
    return GMM_OK;
}

static gmm_status canvas_write(canvas *c, const char *path)
{
    for (size_t i = 0; i < (size_t)PLOT_WIDTH * PLOT_HEIGHT; i++)
        if (c->text[i]) c->rgb[3 * i] = c->rgb[3 * i + 1] = c->rgb[3 * i + 2] = 0;
    gmm_status st = png_write_rgb(path, c->rgb, PLOT_WIDTH, PLOT_HEIGHT);
    free(c->rgb);
    free(c->text);
    return st;
}

gmm_status plot_lines(const char *path, const char *title, const char *x_label,
                      const char *y_label, const plot_series *series, int n_series)
{
    if (n_series < 0 || (n_series > 0 && !series))
        return gmm_error(GMM_ERR_ARG, "plot: no series");
    canvas c;
    gmm_status st = canvas_open(&c);
    if (st != GMM_OK) return st;
    c.x_lo = c.y_lo = INFINITY;
    c.x_hi = c.y_hi = -INFINITY;
    range_of(series, n_series, &c.x_lo, &c.x_hi, &c.y_lo, &c.y_hi);
    widen(&c.x_lo, &c.x_hi);
    widen(&c.y_lo, &c.y_hi);
    double pad = 0.05 * (c.y_hi - c.y_lo);
    c.y_lo -= pad;
    c.y_hi += pad;
    axes(&c, title, x_label, y_label);
    for (int s = 0; s < n_series; s++) {
        draw_series(&c, &series[s], tab10[s % 10]);
        legend_entry(&c, s, series[s].label, tab10[s % 10], 0);
    }
    return canvas_write(&c, path);
}

gmm_status plot_histogram(const char *path, const char *title, const char *x_label,
                          const char *y_label, double lo, double hi, const double *heights,
                          int n_bins, const char *bar_label, const plot_series *overlay,
                          int n_overlay)
{
    static const uint8_t bar_color[3] = {170, 170, 170};
    if (!(hi > lo) || n_bins < 1 || !heights)
        return gmm_error(GMM_ERR_ARG, "histogram plot: need hi > lo and n_bins >= 1");
    canvas c;
    gmm_status st = canvas_open(&c);
    if (st != GMM_OK) return st;
    c.x_lo = lo;
    c.x_hi = hi;
    c.y_lo = 0;
    c.y_hi = -INFINITY;
    for (int b = 0; b < n_bins; b++)
        if (isfinite(heights[b]) && heights[b] > c.y_hi) c.y_hi = heights[b];
    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY;
    range_of(overlay, overlay ? n_overlay : 0, &x_lo, &x_hi, &y_lo, &c.y_hi);
    if (!(c.y_hi > 0)) c.y_hi = 1;
    c.y_hi *= 1.08;
    axes(&c, title, x_label, y_label);
    double w = (hi - lo) / n_bins;
    for (int b = 0; b < n_bins; b++) {
        if (!isfinite(heights[b]) || heights[b] <= 0) continue;
        int x0 = px(&c, lo + b * w), x1 = px(&c, lo + (b + 1) * w) - 1;
        if (x1 < x0) x1 = x0;
        fill_rect(&c, x0, py(&c, heights[b]), x1, py(&c, 0) - 1, bar_color);
    }
    int row = 0;
    if (bar_label) legend_entry(&c, row++, bar_label, bar_color, 1);
    for (int s = 0; overlay && s < n_overlay; s++) {
        draw_series(&c, &overlay[s], tab10[(s + 1) % 10]);
        legend_entry(&c, row++, overlay[s].label, tab10[(s + 1) % 10], 0);
    }
    return canvas_write(&c, path);
}
