/* PNG files through libpng: gray and RGB writing, gray reading for tests, captioned tile grids
 * in gray or with a colour map and a colour bar.
 * libpng reports errors by longjmp; every entry point catches them and returns GMM_ERR_IO. */
#include "data/png_write.h"

#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/colormap.h"
#include "data/file_write.h"
#include "data/font.h"

/* Our own ceiling on image size: far above any grid we draw, low enough that width * height and
 * the row arithmetic stay in range everywhere. */
#define PNG_MAX_PIXELS ((size_t)1 << 28)
#define PNG_MAX_SIDE 1000000

typedef struct {
    char message[256];
} png_error_ctx;

/* libpng must not return from its error handler; we keep its message and jump back. */
static void on_png_error(png_structp png, png_const_charp message)
{
    png_error_ctx *ctx = png_get_error_ptr(png);
    if (ctx) snprintf(ctx->message, sizeof ctx->message, "%s", message ? message : "unknown");
    png_longjmp(png, 1);
}

/* Library code never prints, and libpng's default warning handler writes to stderr. */
static void on_png_warning(png_structp png, png_const_charp message)
{
    (void)png;
    (void)message;
}

static gmm_status check_size(const char *path, int width, int height)
{
    if (width <= 0 || height <= 0 || width > PNG_MAX_SIDE || height > PNG_MAX_SIDE ||
        (size_t)width * (size_t)height > PNG_MAX_PIXELS)
        return gmm_error(GMM_ERR_ARG, "%s: invalid PNG size %d x %d", path, width, height);
    return GMM_OK;
}

/* The libpng part of writing, kept apart so that the only locals alive across its setjmp are
 * set before it and never changed after. Returns 0, or -1 when libpng could not start, or 1 after
 * a libpng error (message in err). */
static int encode_png(FILE *fp, png_bytep *row_ptrs, int width, int height, int channels,
                      png_error_ctx *err)
{
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, err, on_png_error,
                                              on_png_warning);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_write_struct(&png, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        return 1;
    }
    png_init_io(png, fp);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 channels == 1 ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    png_write_info(png, info);
    png_write_image(png, row_ptrs);
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

static gmm_status write_png(const char *path, const uint8_t *data, int width, int height,
                            int channels)
{
    gmm_status st = GMM_OK;
    png_error_ctx err = {{0}};
    png_bytep *row_ptrs = NULL;
    FILE *fp = NULL;

    if (!path || !data) return gmm_error(GMM_ERR_ARG, "png: NULL path or pixels");
    st = check_size(path, width, height);
    if (st != GMM_OK) return st;

    row_ptrs = malloc((size_t)height * sizeof *row_ptrs);
    if (!row_ptrs) return gmm_error(GMM_ERR_NOMEM, "%s: out of memory", path);
    for (int y = 0; y < height; y++)
        row_ptrs[y] = (png_bytep)(data + (size_t)y * (size_t)width * (size_t)channels);
    fp = file_write_open(path, &st); /* a temporary file, renamed into place when complete */
    if (!fp) goto fail;
    int rc = encode_png(fp, row_ptrs, width, height, channels, &err);
    if (rc < 0) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: cannot start libpng writer", path);
        goto fail;
    }
    if (rc > 0) { /* libpng says "Write Error"; the stream's errno says why */
        int why = errno;
        st = gmm_error(GMM_ERR_IO, "%s: writing PNG failed: %s%s%s", path, err.message,
                       ferror(fp) ? ": " : "", ferror(fp) ? strerror(why) : "");
        goto fail;
    }
    /* A full disk often shows only when the last buffer is flushed: file_write_close says so,
     * and leaves any previous file in place. */
    st = file_write_close(fp);
    fp = NULL;
    if (st != GMM_OK) goto fail;
    free(row_ptrs);
    return GMM_OK;

fail:
    file_write_abort(fp);
    free(row_ptrs);
    return st;
}

gmm_status png_write_gray(const char *path, const uint8_t *pixels, int width, int height)
{
    return write_png(path, pixels, width, height, 1);
}

gmm_status png_write_rgb(const char *path, const uint8_t *rgb, int width, int height)
{
    return write_png(path, rgb, width, height, 3);
}

/* The libpng part of reading, apart for the same reason as encode_png. On success *pixels is a
 * malloc'd w x h gray image. Returns 0, -1 when out of memory, 1 after a libpng error or a PNG
 * that cannot become 8-bit gray (message in err). The pointers that change after setjmp live in
 * *pixels and *row_store, which the caller frees, so none is lost by the longjmp. */
static int decode_png(FILE *fp, png_error_ctx *err, uint8_t **pixels, png_bytep **row_store,
                      png_uint_32 *width, png_uint_32 *height)
{
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, err, on_png_error,
                                             on_png_warning);
    if (!png) return -1;
    png_infop info = png_create_info_struct(png);
    if (!info) {
        png_destroy_read_struct(&png, NULL, NULL);
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        return 1;
    }
    png_init_io(png, fp);
    png_set_sig_bytes(png, 8);
    png_set_user_limits(png, PNG_MAX_SIDE, PNG_MAX_SIDE);
    png_read_info(png, info);
    png_set_expand(png); /* palette and low bit depths to 8-bit samples */
    png_set_strip_16(png);
    png_set_strip_alpha(png);
    if (png_get_color_type(png, info) & PNG_COLOR_MASK_COLOR)
        png_set_rgb_to_gray_fixed(png, 1, -1, -1);
    png_read_update_info(png, info);
    const png_uint_32 w = png_get_image_width(png, info), h = png_get_image_height(png, info);
    if (png_get_channels(png, info) != 1 || png_get_bit_depth(png, info) != 8)
        png_error(png, "cannot convert this PNG to 8-bit gray");
    if ((size_t)w * h > PNG_MAX_PIXELS) png_error(png, "image too large");
    *pixels = malloc((size_t)w * h);
    *row_store = malloc((size_t)h * sizeof **row_store);
    if (!*pixels || !*row_store) {
        png_destroy_read_struct(&png, &info, NULL);
        return -1;
    }
    for (png_uint_32 y = 0; y < h; y++) (*row_store)[y] = *pixels + (size_t)y * w;
    png_read_image(png, *row_store);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    *width = w;
    *height = h;
    return 0;
}

gmm_status png_read_gray(const char *path, uint8_t **pixels, int *width, int *height)
{
    gmm_status st = GMM_OK;
    png_error_ctx err = {{0}};
    uint8_t *buf = NULL;
    png_bytep *row_ptrs = NULL;
    FILE *fp = NULL;

    if (!pixels || !width || !height || !path)
        return gmm_error(GMM_ERR_ARG, "png_read_gray: NULL argument");
    *pixels = NULL;
    *width = *height = 0;

    fp = fopen(path, "rb");
    if (!fp) return gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
    unsigned char sig[8];
    if (fread(sig, 1, sizeof sig, fp) != sizeof sig || png_sig_cmp(sig, 0, sizeof sig) != 0) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: not a PNG file", path);
        goto fail;
    }
    png_uint_32 w = 0, h = 0;
    int rc = decode_png(fp, &err, &buf, &row_ptrs, &w, &h);
    if (rc < 0) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: out of memory reading PNG", path);
        goto fail;
    }
    if (rc > 0) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: reading PNG failed: %s", path, err.message);
        goto fail;
    }
    fclose(fp);
    free(row_ptrs);
    *pixels = buf;
    *width = (int)w;
    *height = (int)h;
    return GMM_OK;

fail:
    if (fp) fclose(fp);
    free(row_ptrs);
    free(buf);
    return st;
}

gmm_status png_tile_grid_layout(int n_tiles, int rows, int cols, int scale,
                                const char *const *captions, png_tile_layout *layout)
{
    if (!layout) return gmm_error(GMM_ERR_ARG, "png_tile_grid_layout: NULL layout");
    memset(layout, 0, sizeof *layout);
    if (n_tiles <= 0 || rows <= 0 || cols <= 0 || scale <= 0)
        return gmm_error(GMM_ERR_ARG, "tile grid: invalid sizes (%d tiles of %d x %d, scale %d)",
                         n_tiles, rows, cols, scale);
    /* 64-bit arithmetic throughout so that absurd arguments are refused, not wrapped. */
    int64_t grid_cols = (int64_t)ceil(sqrt((double)n_tiles));
    while (grid_cols * grid_cols < n_tiles) grid_cols++; /* guard sqrt rounding */
    while ((grid_cols - 1) * (grid_cols - 1) >= n_tiles) grid_cols--;
    int64_t grid_rows = (n_tiles + grid_cols - 1) / grid_cols;
    int64_t tile_w = (int64_t)cols * scale, tile_h = (int64_t)rows * scale;
    int text_scale = scale >= 6 ? 2 : 1;
    int64_t caption_h = 0, cell_w = tile_w;
    if (captions) {
        caption_h = (int64_t)(FONT_GLYPH_HEIGHT + 4) * text_scale;
        for (int i = 0; i < n_tiles; i++) {
            if (!captions[i]) continue;
            size_t len = strlen(captions[i]);
            if (len > 4096)
                return gmm_error(GMM_ERR_ARG, "tile grid: caption %d is too long", i);
            int64_t w = (int64_t)font_text_width(captions[i], text_scale);
            if (w > cell_w) cell_w = w;
        }
    }
    int64_t cell_h = tile_h + caption_h;
    int64_t width = PNG_TILE_MARGIN + grid_cols * (cell_w + PNG_TILE_MARGIN);
    int64_t height = PNG_TILE_MARGIN + grid_rows * (cell_h + PNG_TILE_MARGIN);
    if (tile_w > PNG_MAX_SIDE || tile_h > PNG_MAX_SIDE || width > PNG_MAX_SIDE ||
        height > PNG_MAX_SIDE || width * height > (int64_t)PNG_MAX_PIXELS)
        return gmm_error(GMM_ERR_ARG,
                         "tile grid: %d tiles of %d x %d at scale %d make an image too large "
                         "(%lld x %lld)",
                         n_tiles, rows, cols, scale, (long long)width, (long long)height);
    layout->grid_cols = (int)grid_cols;
    layout->grid_rows = (int)grid_rows;
    layout->tile_width = (int)tile_w;
    layout->tile_height = (int)tile_h;
    layout->cell_width = (int)cell_w;
    layout->cell_height = (int)cell_h;
    layout->caption_height = (int)caption_h;
    layout->text_scale = text_scale;
    layout->width = (int)width;
    layout->height = (int)height;
    return GMM_OK;
}

void png_tile_origin(const png_tile_layout *layout, int i, int *x, int *y)
{
    int gc = layout->grid_cols > 0 ? layout->grid_cols : 1;
    int cell_x = PNG_TILE_MARGIN + (i % gc) * (layout->cell_width + PNG_TILE_MARGIN);
    int cell_y = PNG_TILE_MARGIN + (i / gc) * (layout->cell_height + PNG_TILE_MARGIN);
    if (x) *x = cell_x + (layout->cell_width - layout->tile_width) / 2;
    if (y) *y = cell_y;
}

static uint8_t to_gray(double v)
{
    if (!(v > 0.0)) return 0; /* also NaN */
    if (v >= 1.0) return 255;
    return (uint8_t)lround(v * 255.0);
}

/* The tile grid of lay drawn in gray into a new canvas_width x canvas_height image (at least
 * the layout's size; the rest white), or NULL when out of memory. */
static uint8_t *render_tile_grid(const png_tile_layout *lay, int canvas_width, int canvas_height,
                                 const double *tiles, int n_tiles, int rows, int cols, int scale,
                                 const char *const *captions)
{
    uint8_t *image = malloc((size_t)canvas_width * (size_t)canvas_height);
    if (!image) return NULL;
    memset(image, 255, (size_t)canvas_width * (size_t)canvas_height);
    const size_t tile_len = (size_t)rows * (size_t)cols;
    for (int i = 0; i < n_tiles; i++) {
        int x0, y0;
        png_tile_origin(lay, i, &x0, &y0);
        const double *tile = tiles + (size_t)i * tile_len;
        for (int y = 0; y < lay->tile_height; y++) {
            const double *src = tile + (size_t)(y / scale) * (size_t)cols;
            uint8_t *dst = image + (size_t)(y0 + y) * (size_t)canvas_width + (size_t)x0;
            for (int x = 0; x < lay->tile_width; x++) dst[x] = to_gray(src[x / scale]);
        }
        if (captions && captions[i]) {
            int cell_x = PNG_TILE_MARGIN + (i % lay->grid_cols) * (lay->cell_width + PNG_TILE_MARGIN);
            int text_w = font_text_width(captions[i], lay->text_scale);
            int tx = cell_x + (lay->cell_width - text_w) / 2;
            int ty = y0 + lay->tile_height + 2 * lay->text_scale;
            font_draw_text(image, canvas_width, canvas_height, tx, ty, captions[i],
                           lay->text_scale, 0);
        }
    }
    return image;
}

gmm_status png_write_tile_grid(const char *path, const double *tiles, int n_tiles, int rows,
                               int cols, int scale, const char *const *captions)
{
    if (!path || !tiles) return gmm_error(GMM_ERR_ARG, "tile grid: NULL path or tiles");
    png_tile_layout lay;
    gmm_status st = png_tile_grid_layout(n_tiles, rows, cols, scale, captions, &lay);
    if (st != GMM_OK) return st;
    uint8_t *image = render_tile_grid(&lay, lay.width, lay.height, tiles, n_tiles, rows, cols,
                                      scale, captions);
    if (!image) return gmm_error(GMM_ERR_NOMEM, "%s: out of memory for the tile grid", path);
    st = png_write_gray(path, image, lay.width, lay.height);
    free(image);
    return st;
}

/* A short label for a colour bar value: up to three significant digits, "0" for zero. */
static void bar_value(char *buf, size_t size, double v)
{
    snprintf(buf, size, "%.3g", fabs(v) < 5e-324 ? 0.0 : v);
}

gmm_status png_colorbar_geometry(const png_tile_layout *layout, const char *bar_label,
                                 png_colorbar *bar)
{
    if (!layout || !bar_label || !bar)
        return gmm_error(GMM_ERR_ARG, "colour bar: NULL argument");
    int ts = layout->text_scale, text_h = FONT_GLYPH_HEIGHT * ts;
    memset(bar, 0, sizeof *bar);
    bar->x = 2 * PNG_TILE_MARGIN + font_text_width("0000", ts);
    bar->y = layout->height + PNG_TILE_MARGIN;
    bar->height = PNG_COLORBAR_THICKNESS * ts;
    int label_w = font_text_width(bar_label, ts);
    int min_width = 2 * bar->x + (label_w > COLORMAP_SIZE ? label_w : COLORMAP_SIZE);
    bar->image_width = layout->width > min_width ? layout->width : min_width;
    bar->width = bar->image_width - 2 * bar->x;
    /* the bar, its ticks, the values under them, the label, a margin */
    bar->image_height = bar->y + bar->height + 3 * ts + 2 * ts + text_h + 3 * ts + text_h +
                        2 * PNG_TILE_MARGIN;
    if ((int64_t)bar->image_width * bar->image_height > (int64_t)PNG_MAX_PIXELS ||
        bar->image_height > PNG_MAX_SIDE || bar->image_width > PNG_MAX_SIDE)
        return gmm_error(GMM_ERR_ARG, "colour bar: image too large");
    return GMM_OK;
}

gmm_status png_write_tile_grid_color(const char *path, const double *tiles, int n_tiles, int rows,
                                     int cols, int scale, const char *const *captions,
                                     const png_color_style *style)
{
    if (!path || !tiles || !style)
        return gmm_error(GMM_ERR_ARG, "tile grid: NULL path, tiles or style");
    png_tile_layout lay;
    gmm_status st = png_tile_grid_layout(n_tiles, rows, cols, scale, captions, &lay);
    if (st != GMM_OK) return st;
    png_colorbar bar = {0};
    int width = lay.width, height = lay.height;
    if (style->bar_label) {
        if ((st = png_colorbar_geometry(&lay, style->bar_label, &bar)) != GMM_OK) return st;
        width = bar.image_width;
        height = bar.image_height;
    }
    uint8_t *rgb = NULL;
    uint8_t *gray = render_tile_grid(&lay, width, height, tiles, n_tiles, rows, cols, scale,
                                     captions);
    if (!gray) return gmm_error(GMM_ERR_NOMEM, "%s: out of memory for the tile grid", path);
    int ts = lay.text_scale;
    if (style->bar_label) {
        /* the values at the ends and the middle, centred under their ticks, then the label */
        int ty = bar.y + bar.height + 3 * ts + 2 * ts;
        for (int t = 0; t < 3; t++) {
            char buf[32];
            bar_value(buf, sizeof buf, style->bar_lo + (style->bar_hi - style->bar_lo) * t / 2.0);
            int tx = bar.x + (bar.width - 1) * t / 2 - font_text_width(buf, ts) / 2;
            font_draw_text(gray, width, height, tx, ty, buf, ts, 0);
            for (int y = bar.y + bar.height; y < bar.y + bar.height + 3 * ts; y++)
                for (int x = 0; x < ts; x++)
                    gray[(size_t)y * width + bar.x + (bar.width - ts) * t / 2 + x] = 0;
        }
        ty += FONT_GLYPH_HEIGHT * ts + 3 * ts;
        font_draw_text(gray, width, height, (width - font_text_width(style->bar_label, ts)) / 2,
                       ty, style->bar_label, ts, 0);
    }
    rgb = malloc((size_t)width * height * 3);
    if (!rgb) {
        free(gray);
        return gmm_error(GMM_ERR_NOMEM, "%s: out of memory for the tile grid", path);
    }
    for (size_t i = 0; i < (size_t)width * height; i++) rgb[3 * i] = rgb[3 * i + 1] = rgb[3 * i + 2] = gray[i];
    const size_t tile_len = (size_t)rows * (size_t)cols;
    for (int i = 0; i < n_tiles; i++) {
        int x0, y0;
        png_tile_origin(&lay, i, &x0, &y0);
        const double *tile = tiles + (size_t)i * tile_len;
        for (int y = 0; y < lay.tile_height; y++)
            for (int x = 0; x < lay.tile_width; x++) {
                size_t j = (size_t)(y / scale) * (size_t)cols + (size_t)(x / scale);
                if (style->mask && !style->mask[j]) continue;
                colormap_rgb(tile[j], rgb + 3 * ((size_t)(y0 + y) * width + x0 + x));
            }
    }
    for (int x = 0; style->bar_label && x < bar.width; x++) {
        uint8_t c[3];
        colormap_entry((int)lround((double)x * (COLORMAP_SIZE - 1) / (bar.width - 1)), c);
        for (int y = bar.y; y < bar.y + bar.height; y++)
            memcpy(rgb + 3 * ((size_t)y * width + bar.x + x), c, 3);
    }
    st = png_write_rgb(path, rgb, width, height);
    free(gray);
    free(rgb);
    return st;
}

/* ---- image stacks ----------------------------------------------------------------------- */

gmm_status png_image_stack_layout(int n_images, int rows, int cols, int scale,
                                  const char *const *captions, const png_column_label *labels,
                                  int n_labels, png_stack_layout *layout)
{
    if (!layout) return gmm_error(GMM_ERR_ARG, "image stack: NULL layout");
    memset(layout, 0, sizeof *layout);
    if (n_images <= 0 || rows <= 0 || cols <= 0 || scale <= 0 || n_labels < 0 ||
        (n_labels > 0 && !labels))
        return gmm_error(GMM_ERR_ARG, "image stack: invalid sizes (%d images of %d x %d, scale %d)",
                         n_images, rows, cols, scale);
    int ts = scale >= 6 ? 2 : 1;
    int64_t image_w = (int64_t)cols * scale, image_h = (int64_t)rows * scale, content_w = image_w;
    for (int i = 0; captions && i < n_images; i++) {
        if (!captions[i]) continue;
        if (strlen(captions[i]) > 4096)
            return gmm_error(GMM_ERR_ARG, "image stack: caption %d is too long", i);
        int64_t w = font_text_width(captions[i], ts);
        if (w > content_w) content_w = w;
    }
    for (int i = 0; i < n_labels; i++)
        if (!labels[i].text || labels[i].from_col < 0 || labels[i].to_col > cols ||
            labels[i].from_col >= labels[i].to_col || strlen(labels[i].text) > 4096)
            return gmm_error(GMM_ERR_ARG, "image stack: column label %d is invalid", i);
    int64_t band = (int64_t)(FONT_GLYPH_HEIGHT + 4) * ts;
    int64_t labels_h = n_labels > 0 ? band : 0;
    int64_t pitch = band + image_h + PNG_TILE_MARGIN;
    int64_t width = 2 * PNG_TILE_MARGIN + content_w;
    int64_t height = PNG_TILE_MARGIN + labels_h + (int64_t)n_images * pitch;
    if (image_w > PNG_MAX_SIDE || image_h > PNG_MAX_SIDE || width > PNG_MAX_SIDE ||
        height > PNG_MAX_SIDE || width * height > (int64_t)PNG_MAX_PIXELS)
        return gmm_error(GMM_ERR_ARG, "image stack: %d images of %d x %d at scale %d make an "
                         "image too large", n_images, rows, cols, scale);
    layout->image_x = PNG_TILE_MARGIN;
    layout->labels_y = PNG_TILE_MARGIN;
    layout->labels_height = (int)labels_h;
    layout->first_y = PNG_TILE_MARGIN + (int)labels_h;
    layout->caption_height = (int)band;
    layout->row_pitch = (int)pitch;
    layout->image_width = (int)image_w;
    layout->image_height = (int)image_h;
    layout->text_scale = ts;
    layout->width = (int)width;
    layout->height = (int)height;
    return GMM_OK;
}

gmm_status png_write_image_stack(const char *path, const double *images, int n_images, int rows,
                                 int cols, int scale, const char *const *captions,
                                 const png_column_label *labels, int n_labels)
{
    if (!path || !images) return gmm_error(GMM_ERR_ARG, "image stack: NULL path or images");
    png_stack_layout lay;
    gmm_status st = png_image_stack_layout(n_images, rows, cols, scale, captions, labels,
                                           n_labels, &lay);
    if (st != GMM_OK) return st;
    uint8_t *image = malloc((size_t)lay.width * (size_t)lay.height);
    if (!image) return gmm_error(GMM_ERR_NOMEM, "%s: out of memory for the image stack", path);
    memset(image, 255, (size_t)lay.width * (size_t)lay.height);
    int ts = lay.text_scale;
    for (int i = 0; i < n_labels; i++) {
        int from = lay.image_x + labels[i].from_col * scale, to = lay.image_x + labels[i].to_col * scale;
        int tx = from + (to - from - font_text_width(labels[i].text, ts)) / 2;
        font_draw_text(image, lay.width, lay.height, tx, lay.labels_y + ts, labels[i].text, ts, 0);
    }
    for (int i = 0; i < n_images; i++) {
        int y_caption = lay.first_y + i * lay.row_pitch, y0 = y_caption + lay.caption_height;
        if (captions && captions[i])
            font_draw_text(image, lay.width, lay.height, lay.image_x, y_caption + ts, captions[i],
                           ts, 0);
        const double *src_image = images + (size_t)i * rows * cols;
        for (int y = 0; y < lay.image_height; y++) {
            const double *src = src_image + (size_t)(y / scale) * cols;
            uint8_t *dst = image + (size_t)(y0 + y) * lay.width + lay.image_x;
            for (int x = 0; x < lay.image_width; x++) dst[x] = to_gray(src[x / scale]);
        }
    }
    st = png_write_gray(path, image, lay.width, lay.height);
    free(image);
    return st;
}
