/* The cluster map of data/cluster_map.h: the input checked, the geometry, the 2-D layout scaled
 * into the panels, the dots, the mean-image thumbnails and captions placed apart, the class
 * numbers and the legends, drawn on an RGB canvas (data/canvas.h). */
#include "data/cluster_map.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/canvas.h"
#include "data/font.h"
#include "kernels/rng.h"

#define DOT_ALPHA 0.6
#define DOT_R_MIN 0.8
#define DOT_R_MAX 3.0
#define DOT_R_FACTOR 0.42 /* radius = factor * side / sqrt(n), clamped */
#define CLIP_LO 0.005     /* the percentiles that bound the scaled part of the layout */
#define CLIP_HI 0.995
#define PAD_FRACTION 16   /* a panel's padding around them: side / PAD_FRACTION */
#define LEGEND_SWATCH 14
#define THUMB_MIN 16      /* thumbnails narrower than this are left out (captions only) */
#define THUMB_COVER 0.22  /* the share of a panel the thumbnails may cover at most */
#define THUMB_BORDER 2
#define LABEL_SCALE 3
#define LABEL_HALO 2
#define BOX_GAP 3         /* pixels between placed boxes */
#define LEADER_SLACK 8    /* a box whose anchor is farther outside it than this gets a leader */
#define SHUFFLE_SEED 0x5eedULL
#define MAX_PIXELS_PER_IMAGE (1 << 20)

static const uint8_t white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
static const uint8_t frame_gray[3] = {150, 150, 150}, note_gray[3] = {100, 100, 100};
static const uint8_t outline[3] = {40, 40, 40};

/* ---- input and geometry --------------------------------------------------------------------- */

static gmm_status validate(const char *path, const cluster_map *m)
{
    if (!m) return gmm_error(GMM_ERR_ARG, "cluster map: no map given");
    if (!path) return gmm_error(GMM_ERR_ARG, "cluster map: no output path");
    if (m->n < 1)
        return gmm_error(GMM_ERR_ARG, "cluster map: no images (n = %lld)", (long long)m->n);
    if (!m->xy || !m->component)
        return gmm_error(GMM_ERR_ARG, "cluster map: no %s", !m->xy ? "positions" : "components");
    if (m->mean_images && (m->rows < 1 || m->cols < 1 ||
                           (int64_t)m->rows * m->cols > MAX_PIXELS_PER_IMAGE))
        return gmm_error(GMM_ERR_ARG, "cluster map: mean images of %d x %d pixels", m->rows,
                         m->cols);
    cluster_map_geometry g;
    gmm_status st = cluster_map_layout(m, &g);
    if (st != GMM_OK) return st;
    for (int64_t i = 0; i < m->n; i++) {
        if (m->component[i] < 0 || m->component[i] >= m->n_components)
            return gmm_error(GMM_ERR_ARG,
                             "cluster map: image %lld has component %d, outside [0, %d)",
                             (long long)i, m->component[i], m->n_components);
        if (m->labels && m->labels[i] >= m->n_classes)
            return gmm_error(GMM_ERR_ARG, "cluster map: image %lld has label %d, outside [0, %d)",
                             (long long)i, m->labels[i], m->n_classes);
        if (!isfinite(m->xy[2 * i]) || !isfinite(m->xy[2 * i + 1]))
            return gmm_error(GMM_ERR_ARG,
                             "cluster map: image %lld has a non-finite position (%g, %g)",
                             (long long)i, m->xy[2 * i], m->xy[2 * i + 1]);
    }
    for (int k = 0; m->matched_label && k < m->n_components; k++)
        if (m->matched_label[k] < -1 || (m->labels && m->matched_label[k] >= m->n_classes))
            return gmm_error(GMM_ERR_ARG, "cluster map: component %d is matched to label %d",
                             k, m->matched_label[k]);
    return GMM_OK;
}

static int decimal_digits(int v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* A legend of count entries numbered 0..count-1: the distance between entries and how many fit
 * in a row of side pixels. */
static int legend_pitch(int count)
{
    return LEGEND_SWATCH + 4 + (decimal_digits(count - 1) * FONT_ADVANCE - 1) * 2 + 14;
}

static int legend_rows(int count, int side)
{
    int per_row = side / legend_pitch(count);
    if (per_row < 1) per_row = 1;
    int rows = (count + per_row - 1) / per_row;
    return rows > CLUSTER_MAP_LEGEND_MAX_ROWS ? 0 : rows;
}

gmm_status cluster_map_layout(const cluster_map *m, cluster_map_geometry *g)
{
    if (!m || !g) return gmm_error(GMM_ERR_ARG, "cluster map: no map given");
    memset(g, 0, sizeof *g);
    int width = m->width ? m->width : CLUSTER_MAP_DEFAULT_WIDTH;
    if (width < CLUSTER_MAP_MIN_WIDTH || width > CLUSTER_MAP_MAX_WIDTH)
        return gmm_error(GMM_ERR_ARG, "cluster map: width %d outside [%d, %d]", m->width,
                         CLUSTER_MAP_MIN_WIDTH, CLUSTER_MAP_MAX_WIDTH);
    if (m->n_components < 1)
        return gmm_error(GMM_ERR_ARG, "cluster map: %d components", m->n_components);
    if (m->labels && (m->n_classes < 1 || m->n_classes > 256))
        return gmm_error(GMM_ERR_ARG, "cluster map: %d classes, outside [1, 256]", m->n_classes);
    g->width = width;
    g->n_panels = m->labels ? 2 : 1;
    g->side = m->labels ? (width - 3 * CLUSTER_MAP_MARGIN) / 2 : width - 2 * CLUSTER_MAP_MARGIN;
    g->panel_x[0] = CLUSTER_MAP_MARGIN;
    g->panel_x[1] = m->labels ? 2 * CLUSTER_MAP_MARGIN + g->side : -1;
    g->panel_y = CLUSTER_MAP_MARGIN + (m->title ? CLUSTER_MAP_TITLE_BAND : 0) +
                 CLUSTER_MAP_HEADER_BAND;
    g->legend_y = g->panel_y + g->side + CLUSTER_MAP_LEGEND_GAP;
    g->legend_rows = legend_rows(m->n_components, g->side);
    if (m->labels && legend_rows(m->n_classes, g->side) > g->legend_rows)
        g->legend_rows = legend_rows(m->n_classes, g->side);
    g->height = g->legend_y + g->legend_rows * CLUSTER_MAP_LEGEND_ROW + CLUSTER_MAP_MARGIN;
    return GMM_OK;
}

/* ---- positions ------------------------------------------------------------------------------ */

/* The k-th smallest of a[0..n) (reorders a). */
static float kth_smallest(float *a, int64_t n, int64_t k)
{
    int64_t lo = 0, hi = n - 1;
    while (lo < hi) {
        float x = a[lo], y = a[lo + (hi - lo) / 2], z = a[hi];
        float pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
        int64_t i = lo, j = hi;
        while (i <= j) {
            while (a[i] < pivot) i++;
            while (a[j] > pivot) j--;
            if (i <= j) {
                float t = a[i];
                a[i++] = a[j];
                a[j--] = t;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else return a[k];
    }
    return a[k];
}

/* The dots' centres relative to a panel's top-left corner, px and py (n each), in the panel's
 * inside less the radius r: the clipped percentile box scaled into the padded panel. */
static void scale_positions(const cluster_map *m, int side, double r, float *buf, float *px,
                            float *py)
{
    double lo[2], hi[2];
    int64_t klo = (int64_t)floor(CLIP_LO * (m->n - 1)), khi = (int64_t)ceil(CLIP_HI * (m->n - 1));
    for (int axis = 0; axis < 2; axis++) {
        for (int64_t i = 0; i < m->n; i++) buf[i] = m->xy[2 * i + axis];
        lo[axis] = kth_smallest(buf, m->n, klo);
        hi[axis] = kth_smallest(buf, m->n, khi);
    }
    double span = fmax(hi[0] - lo[0], hi[1] - lo[1]);
    if (!(span > 0)) span = 1; /* every point in one place */
    double pad = (double)side / PAD_FRACTION, scale = (side - 2 * pad) / span;
    double mx = (lo[0] + hi[0]) / 2, my = (lo[1] + hi[1]) / 2;
    double min = 1 + r, max = side - 1 - r;
    for (int64_t i = 0; i < m->n; i++) {
        double x = side / 2.0 + (m->xy[2 * i] - mx) * scale;
        double y = side / 2.0 - (m->xy[2 * i + 1] - my) * scale;
        px[i] = (float)(x < min ? min : x > max ? max : x);
        py[i] = (float)(y < min ? min : y > max ? max : y);
    }
}

/* For each group g in [0, n_groups): its number of points, and the median of their px and py
 * (lower middle); group(i) is groups32[i] or groups8[i]. buf holds 2 n floats. */
static gmm_status group_medians(const float *px, const float *py, int64_t n,
                                const int32_t *groups32, const uint8_t *groups8, int n_groups,
                                float *buf, int64_t *count, double *mx, double *my)
{
    int64_t *start = calloc((size_t)n_groups + 1, sizeof *start);
    if (!start) return gmm_error(GMM_ERR_NOMEM, "cluster map: out of memory");
    memset(count, 0, (size_t)n_groups * sizeof *count);
    for (int64_t i = 0; i < n; i++) count[groups32 ? groups32[i] : groups8[i]]++;
    for (int g = 0; g < n_groups; g++) start[g + 1] = start[g] + count[g];
    float *bx = buf, *by = buf + n;
    int64_t *fill = start; /* each group's next free slot */
    for (int64_t i = 0; i < n; i++) {
        int g = groups32 ? groups32[i] : groups8[i];
        bx[fill[g]] = px[i];
        by[fill[g]++] = py[i];
    }
    int64_t at = 0;
    for (int g = 0; g < n_groups; g++) {
        if (count[g] > 0) {
            mx[g] = kth_smallest(bx + at, count[g], (count[g] - 1) / 2);
            my[g] = kth_smallest(by + at, count[g], (count[g] - 1) / 2);
        } else {
            mx[g] = my[g] = NAN;
        }
        at += count[g];
    }
    free(start);
    return GMM_OK;
}

/* ---- drawing -------------------------------------------------------------------------------- */

static void draw_dots(rgb_canvas *c, const cluster_map *m, int ox, int oy, int side,
                      const float *px, const float *py, const int64_t *order, double r,
                      const uint8_t *colors, int by_label)
{
    canvas_clip(c, ox + 1, oy + 1, ox + side - 2, oy + side - 2);
    for (int64_t t = 0; t < m->n; t++) {
        int64_t i = order[t];
        int g = by_label ? m->labels[i] : m->component[i];
        canvas_disc(c, ox + px[i], oy + py[i], r, colors + 3 * g, DOT_ALPHA);
    }
    canvas_unclip(c);
}

/* A leader from an anchor to a box that was moved off it, with a marker at the anchor. */
static void leader(rgb_canvas *c, const canvas_box *b, const uint8_t color[3])
{
    if (fabs(b->ax - b->x) <= b->w / 2 + LEADER_SLACK &&
        fabs(b->ay - b->y) <= b->h / 2 + LEADER_SLACK)
        return;
    int ax = (int)lround(b->ax), ay = (int)lround(b->ay);
    int x = (int)lround(b->x), y = (int)lround(b->y);
    canvas_line(c, ax, ay, x, y, outline);
    canvas_line(c, ax + 1, ay, x + 1, y, outline);
    canvas_disc(c, b->ax, b->ay, 4.0, outline, 1);
    canvas_disc(c, b->ax, b->ay, 2.8, color, 1);
}

static void box_corner(const canvas_box *b, int *x, int *y)
{
    *x = (int)lround(b->x - b->w / 2);
    *y = (int)lround(b->y - b->h / 2);
}

typedef struct {
    int64_t count;
    int group;
} group_size;

static int larger_first(const void *a, const void *b)
{
    const group_size *x = a, *y = b;
    if (x->count != y->count) return x->count > y->count ? -1 : 1;
    return x->group - y->group;
}

/* The groups with points, largest first (the placement gives them the spots nearest their
 * points); returns how many. */
static int by_size(const int64_t *count, int n_groups, group_size *out)
{
    int n = 0;
    for (int g = 0; g < n_groups; g++)
        if (count[g] > 0) out[n++] = (group_size){count[g], g};
    qsort(out, (size_t)n, sizeof *out, larger_first);
    return n;
}

typedef struct {
    int tw, th;         /* the thumbnail (0: captions only) */
    int text_scale;
    int caption_height; /* the caption strip under the thumbnail */
} thumb_style;

static thumb_style thumbnail_style(const cluster_map *m, int side, int n_present)
{
    thumb_style s = {0, 0, 2, 0};
    if (m->mean_images) {
        double t = side / 10.0;
        double cover = side * sqrt(THUMB_COVER / (1.3 * (n_present > 0 ? n_present : 1)));
        if (cover < t) t = cover;
        int tw = (int)t;
        if (tw >= m->cols && tw - tw / m->cols * m->cols <= 0.15 * tw) tw = tw / m->cols * m->cols;
        int th = (int)lround((double)tw * m->rows / m->cols);
        if (tw >= THUMB_MIN && th >= 1 && th <= side / 3) {
            s.tw = tw;
            s.th = th;
            s.text_scale = tw >= 44 ? 2 : 1;
        }
    }
    s.caption_height = FONT_GLYPH_HEIGHT * s.text_scale + 2 * s.text_scale + 2;
    return s;
}

static void caption_of(const cluster_map *m, int k, char *buf, size_t size)
{
    if (m->matched_label && m->matched_label[k] >= 0)
        snprintf(buf, size, "%d->%d", k, m->matched_label[k]);
    else
        snprintf(buf, size, "%d", k);
}

/* The left panel's thumbnails (or captions) at their components' medians, placed apart. */
static gmm_status draw_components(rgb_canvas *c, const cluster_map *m,
                                  const cluster_map_geometry *g, const int64_t *count,
                                  const double *mx, const double *my, const uint8_t *colors)
{
    int K = m->n_components;
    canvas_box *box = malloc((size_t)K * sizeof *box);
    group_size *order = malloc((size_t)K * sizeof *order);
    if (!box || !order) {
        free(box);
        free(order);
        return gmm_error(GMM_ERR_NOMEM, "cluster map: out of memory");
    }
    int nb = by_size(count, K, order);
    thumb_style s = thumbnail_style(m, g->side, nb);
    int ox = g->panel_x[0], oy = g->panel_y;
    char cap[32];
    for (int i = 0; i < nb; i++) {
        int k = order[i].group;
        caption_of(m, k, cap, sizeof cap);
        int text_w = font_text_width(cap, s.text_scale);
        int inner_w = s.tw > text_w + 4 ? s.tw : text_w + 4;
        canvas_box b = {0};
        b.ax = ox + mx[k];
        b.ay = oy + my[k];
        b.w = inner_w + 2 * THUMB_BORDER + 2;
        b.h = (s.tw ? s.th + THUMB_BORDER : 0) + s.caption_height + THUMB_BORDER + 2;
        box[i] = b;
    }
    canvas_place_boxes(box, nb, ox + 3, oy + 3, ox + g->side - 4, oy + g->side - 4, BOX_GAP);
    canvas_clip(c, ox + 1, oy + 1, ox + g->side - 2, oy + g->side - 2);
    for (int i = 0; i < nb; i++) leader(c, &box[i], colors + 3 * order[i].group);
    for (int i = nb - 1; i >= 0; i--) { /* the largest on top where they must overlap */
        int k = order[i].group, x, y, w = (int)box[i].w, h = (int)box[i].h;
        const uint8_t *col = colors + 3 * k;
        box_corner(&box[i], &x, &y);
        canvas_fill_rect(c, x, y, x + w - 1, y + h - 1, col);
        canvas_frame(c, x, y, x + w - 1, y + h - 1, 1, outline);
        int inner_x = x + 1 + THUMB_BORDER, inner_w = w - 2 * THUMB_BORDER - 2;
        int cap_y = y + 1 + THUMB_BORDER;
        if (s.tw) {
            int tx = inner_x + (inner_w - s.tw) / 2;
            canvas_fill_rect(c, inner_x, cap_y, inner_x + inner_w - 1, cap_y + s.th - 1, white);
            canvas_ink_image(c, tx, cap_y, s.tw, s.th,
                             m->mean_images + (size_t)k * m->rows * m->cols, m->rows, m->cols);
            cap_y += s.th;
        }
        caption_of(m, k, cap, sizeof cap);
        uint8_t ink[3];
        canvas_text_color_on(col, ink);
        canvas_text(c, inner_x + (inner_w - font_text_width(cap, s.text_scale)) / 2,
                    cap_y + s.text_scale + 1, cap, s.text_scale, ink, 0, NULL);
    }
    canvas_unclip(c);
    free(box);
    free(order);
    return GMM_OK;
}

/* The right panel's class numbers at their classes' medians, placed apart. */
static gmm_status draw_classes(rgb_canvas *c, const cluster_map *m, const cluster_map_geometry *g,
                               const int64_t *count, const double *mx, const double *my)
{
    canvas_box *box = malloc((size_t)m->n_classes * sizeof *box);
    group_size *order = malloc((size_t)m->n_classes * sizeof *order);
    if (!box || !order) {
        free(box);
        free(order);
        return gmm_error(GMM_ERR_NOMEM, "cluster map: out of memory");
    }
    int ox = g->panel_x[1], oy = g->panel_y, nb = by_size(count, m->n_classes, order);
    char text[16];
    for (int i = 0; i < nb; i++) {
        snprintf(text, sizeof text, "%d", order[i].group);
        canvas_box b = {0};
        b.ax = ox + mx[order[i].group];
        b.ay = oy + my[order[i].group];
        b.w = font_text_width(text, LABEL_SCALE) + 2 * LABEL_HALO;
        b.h = FONT_GLYPH_HEIGHT * LABEL_SCALE + 2 * LABEL_HALO;
        box[i] = b;
    }
    canvas_place_boxes(box, nb, ox + 3, oy + 3, ox + g->side - 4, oy + g->side - 4, 1);
    canvas_clip(c, ox + 1, oy + 1, ox + g->side - 2, oy + g->side - 2);
    for (int i = 0; i < nb; i++) {
        int x, y;
        box_corner(&box[i], &x, &y);
        snprintf(text, sizeof text, "%d", order[i].group);
        canvas_text(c, x + LABEL_HALO, y + LABEL_HALO, text, LABEL_SCALE, black, LABEL_HALO, white);
    }
    canvas_unclip(c);
    free(box);
    free(order);
    return GMM_OK;
}

static void draw_legend(rgb_canvas *c, const cluster_map_geometry *g, int x0, int count,
                        const uint8_t *colors)
{
    if (legend_rows(count, g->side) == 0) return;
    int pitch = legend_pitch(count), per_row = g->side / pitch;
    if (per_row < 1) per_row = 1;
    char text[16];
    for (int i = 0; i < count; i++) {
        int x = x0 + (i % per_row) * pitch;
        int y = g->legend_y + (i / per_row) * CLUSTER_MAP_LEGEND_ROW;
        canvas_fill_rect(c, x, y, x + LEGEND_SWATCH - 1, y + LEGEND_SWATCH - 1, colors + 3 * i);
        canvas_frame(c, x, y, x + LEGEND_SWATCH - 1, y + LEGEND_SWATCH - 1, 1, outline);
        snprintf(text, sizeof text, "%d", i);
        canvas_text(c, x + LEGEND_SWATCH + 4, y, text, 2, black, 0, NULL);
    }
}

static void draw_header(rgb_canvas *c, const cluster_map_geometry *g, int x0, const char *name,
                        const char *note)
{
    int y = g->panel_y - CLUSTER_MAP_HEADER_BAND + 3;
    canvas_text(c, x0 + 1, y, name, 2, black, 0, NULL);
    canvas_text(c, x0 + g->side - font_text_width(note, 1), y + 7, note, 1, note_gray, 0, NULL);
}

/* ---- the whole picture ---------------------------------------------------------------------- */

static gmm_status draw_map(rgb_canvas *c, const cluster_map *m, const cluster_map_geometry *g,
                           float *px, float *py, int64_t *order, float *buf)
{
    int K = m->n_components, C = m->labels ? m->n_classes : 0, G = K > C ? K : C;
    gmm_status st = GMM_ERR_NOMEM;
    uint8_t *colors = malloc((size_t)G * 3);
    int64_t *count = malloc((size_t)G * sizeof *count);
    double *mx = malloc((size_t)G * sizeof *mx), *my = malloc((size_t)G * sizeof *my);
    if (!colors || !count || !mx || !my) {
        st = gmm_error(GMM_ERR_NOMEM, "cluster map: out of memory");
        goto done;
    }
    for (int k = 0; k < G; k++) canvas_palette(k, colors + 3 * k);

    double r = DOT_R_FACTOR * g->side / sqrt((double)m->n);
    r = r < DOT_R_MIN ? DOT_R_MIN : r > DOT_R_MAX ? DOT_R_MAX : r;
    scale_positions(m, g->side, r, buf, px, py);
    gmm_rng rng;
    gmm_rng_seed(&rng, SHUFFLE_SEED);
    for (int64_t i = 0; i < m->n; i++) order[i] = i;
    for (int64_t i = m->n - 1; i > 0; i--) {
        int64_t j = (int64_t)gmm_rng_below(&rng, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }

    char note[96];
    draw_dots(c, m, g->panel_x[0], g->panel_y, g->side, px, py, order, r, colors, 0);
    st = group_medians(px, py, m->n, m->component, NULL, K, buf, count, mx, my);
    if (st != GMM_OK) goto done;
    st = draw_components(c, m, g, count, mx, my, colors);
    if (st != GMM_OK) goto done;
    draw_legend(c, g, g->panel_x[0], K, colors);
    snprintf(note, sizeof note, "%lld images, %d component%s", (long long)m->n, K,
             K == 1 ? "" : "s");
    draw_header(c, g, g->panel_x[0], "clusters (component: colour)", note);
    if (m->labels) {
        draw_dots(c, m, g->panel_x[1], g->panel_y, g->side, px, py, order, r, colors, 1);
        st = group_medians(px, py, m->n, NULL, m->labels, C, buf, count, mx, my);
        if (st != GMM_OK) goto done;
        st = draw_classes(c, m, g, count, mx, my);
        if (st != GMM_OK) goto done;
        draw_legend(c, g, g->panel_x[1], C, colors);
        snprintf(note, sizeof note, "%d class%s", C, C == 1 ? "" : "es");
        draw_header(c, g, g->panel_x[1], "labels (class: colour)", note);
    }
    for (int p = 0; p < g->n_panels; p++)
        canvas_frame(c, g->panel_x[p], g->panel_y, g->panel_x[p] + g->side - 1,
                     g->panel_y + g->side - 1, 1, frame_gray);
    if (m->title)
        canvas_text(c, (g->width - font_text_width(m->title, 2)) / 2, CLUSTER_MAP_MARGIN,
                    m->title, 2, black, 0, NULL);
    st = GMM_OK;
done:
    free(colors);
    free(count);
    free(mx);
    free(my);
    return st;
}

gmm_status cluster_map_write(const char *path, const cluster_map *map)
{
    gmm_status st = validate(path, map);
    if (st != GMM_OK) return st;
    cluster_map_geometry g;
    cluster_map_layout(map, &g);
    size_t n = (size_t)map->n;
    float *px = malloc(n * sizeof *px), *py = malloc(n * sizeof *py);
    float *buf = malloc(2 * n * sizeof *buf);
    int64_t *order = malloc(n * sizeof *order);
    rgb_canvas c = {0};
    if (!px || !py || !buf || !order) {
        st = gmm_error(GMM_ERR_NOMEM, "cluster map: out of memory for %lld images",
                       (long long)map->n);
        goto done;
    }
    st = canvas_open(&c, g.width, g.height);
    if (st != GMM_OK) goto done;
    st = draw_map(&c, map, &g, px, py, order, buf);
    if (st == GMM_OK) st = canvas_write(&c, path);
done:
    canvas_close(&c);
    free(px);
    free(py);
    free(buf);
    free(order);
    return st;
}
