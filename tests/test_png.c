/* Check suite for data/png_write, data/colormap and data/font: exact round trips, the tile grid's
 * documented layout and pixels (gray and through the colour map, with its colour bar), captions,
 * captioned image stacks, and I/O errors returned rather than crashing. */
#include <check.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/colormap.h"
#include "data/font.h"
#include "data/png_write.h"
#include "tests/testutil.h"

static uint8_t *random_bytes(size_t n, uint64_t seed)
{
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)tu_rand_u64(&seed);
    return p;
}

START_TEST(test_gray_round_trip)
{
    const int w = 37, h = 23;
    uint8_t *pix = random_bytes((size_t)w * h, 1);
    pix[0] = 0;
    pix[1] = 255;
    char *p = strdup(tu_tmp_path("gray.png"));
    gmm_status st = png_write_gray(p, pix, w, h);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    uint8_t *back = NULL;
    int bw = 0, bh = 0;
    st = png_read_gray(p, &back, &bw, &bh);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(bw, w);
    ck_assert_int_eq(bh, h);
    ck_assert_mem_eq(back, pix, (size_t)w * h);
    free(back);
    free(pix);
    free(p);
}
END_TEST

START_TEST(test_rgb_round_trip)
{
    const int w = 19, h = 11;
    uint8_t *rgb = random_bytes((size_t)w * h * 3, 2);
    char *p = strdup(tu_tmp_path("rgb.png"));
    ck_assert_int_eq(png_write_rgb(p, rgb, w, h), GMM_OK);

    /* Exact colours, through libpng's simplified reader. */
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert(png_image_begin_read_from_file(&img, p));
    ck_assert_int_eq(img.width, w);
    ck_assert_int_eq(img.height, h);
    img.format = PNG_FORMAT_RGB;
    uint8_t *back = malloc(PNG_IMAGE_SIZE(img));
    ck_assert(png_image_finish_read(&img, NULL, back, 0, NULL));
    ck_assert_mem_eq(back, rgb, (size_t)w * h * 3);
    free(back);

    /* Gray pixels stored as RGB come back unchanged from png_read_gray. */
    for (int i = 0; i < w * h; i++) rgb[3 * i + 1] = rgb[3 * i + 2] = rgb[3 * i];
    ck_assert_int_eq(png_write_rgb(p, rgb, w, h), GMM_OK);
    uint8_t *gray = NULL;
    int bw, bh;
    gmm_status st = png_read_gray(p, &gray, &bw, &bh);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(bw, w);
    ck_assert_int_eq(bh, h);
    for (int i = 0; i < w * h; i++) ck_assert_int_eq(gray[i], rgb[3 * i]);
    free(gray);
    free(rgb);
    free(p);
}
END_TEST

START_TEST(test_unwritable_path)
{
    uint8_t pix[4] = {0, 1, 2, 3};
    const char *bad = "/nonexistent/dir/x.png";
    ck_assert_int_eq(png_write_gray(bad, pix, 2, 2), GMM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_IO), bad));
    ck_assert_int_eq(png_write_rgb(bad, pix, 1, 1), GMM_ERR_IO);
    double tile[4] = {0, 0.5, 1, 0.25};
    ck_assert_int_eq(png_write_tile_grid(bad, tile, 1, 2, 2, 2, NULL), GMM_ERR_IO);
    /* A directory cannot be written as a file either. */
    ck_assert_int_eq(png_write_gray(tu_tmp_path(""), pix, 2, 2), GMM_ERR_IO);
}
END_TEST

START_TEST(test_bad_arguments_and_files)
{
    uint8_t pix[4] = {0};
    char *p = strdup(tu_tmp_path("arg.png"));
    ck_assert_int_eq(png_write_gray(p, pix, 0, 2), GMM_ERR_ARG);
    ck_assert_int_eq(png_write_gray(p, NULL, 2, 2), GMM_ERR_ARG);
    double tile[4] = {0};
    ck_assert_int_eq(png_write_tile_grid(p, tile, 0, 2, 2, 2, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(png_write_tile_grid(p, tile, 1, 2, 2, 0, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(png_write_tile_grid(p, tile, 1, 1 << 20, 1 << 20, 4, NULL), GMM_ERR_ARG);

    uint8_t *back = NULL;
    int w, h;
    ck_assert_int_eq(png_read_gray(tu_tmp_path("missing.png"), &back, &w, &h), GMM_ERR_IO);
    FILE *f = fopen(p, "wb");
    fputs("this is not a PNG file at all", f);
    fclose(f);
    ck_assert_int_eq(png_read_gray(p, &back, &w, &h), GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), "not a PNG"));
    ck_assert_ptr_null(back);

    /* A real PNG cut in half: libpng's error must come back as a status, not a crash. */
    uint8_t *big = random_bytes(64 * 64, 4);
    ck_assert_int_eq(png_write_gray(p, big, 64, 64), GMM_OK);
    f = fopen(p, "rb");
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *bytes = malloc((size_t)len);
    ck_assert_int_eq(fread(bytes, 1, (size_t)len, f), len);
    fclose(f);
    f = fopen(p, "wb");
    fwrite(bytes, 1, (size_t)len / 2, f);
    fclose(f);
    ck_assert_int_eq(png_read_gray(p, &back, &w, &h), GMM_ERR_FORMAT);
    ck_assert_ptr_null(back);
    free(bytes);
    free(big);
    free(p);
}
END_TEST

START_TEST(test_grid_layout)
{
    png_tile_layout lay;
    /* 5 tiles -> 3 columns (ceil(sqrt(5))) and 2 rows. */
    ck_assert_int_eq(png_tile_grid_layout(5, 3, 4, 2, NULL, &lay), GMM_OK);
    ck_assert_int_eq(lay.grid_cols, 3);
    ck_assert_int_eq(lay.grid_rows, 2);
    ck_assert_int_eq(lay.tile_width, 8);
    ck_assert_int_eq(lay.tile_height, 6);
    ck_assert_int_eq(lay.caption_height, 0);
    ck_assert_int_eq(lay.width, PNG_TILE_MARGIN + 3 * (8 + PNG_TILE_MARGIN));
    ck_assert_int_eq(lay.height, PNG_TILE_MARGIN + 2 * (6 + PNG_TILE_MARGIN));
    int cases[][3] = {{1, 1, 1}, {2, 2, 1}, {4, 2, 2}, {9, 3, 3}, {10, 4, 3}, {16, 4, 4},
                      {17, 5, 4}, {100, 10, 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(png_tile_grid_layout(cases[i][0], 28, 28, 1, NULL, &lay), GMM_OK);
        ck_assert_int_eq(lay.grid_cols, cases[i][1]);
        ck_assert_int_eq(lay.grid_rows, cases[i][2]);
    }
    /* Captions add a band and widen cells to the widest caption. */
    const char *caps[2] = {"k=10 w=0.112", NULL};
    ck_assert_int_eq(png_tile_grid_layout(2, 2, 2, 1, caps, &lay), GMM_OK);
    ck_assert_int_eq(lay.text_scale, 1);
    ck_assert_int_eq(lay.caption_height, (FONT_GLYPH_HEIGHT + 4) * 1);
    ck_assert_int_eq(lay.cell_width, font_text_width(caps[0], 1));
    ck_assert_int_eq(lay.cell_height, 2 + lay.caption_height);
    ck_assert_int_eq(png_tile_grid_layout(2, 28, 28, 8, caps, &lay), GMM_OK);
    ck_assert_int_eq(lay.text_scale, 2);
    ck_assert_int_eq(lay.cell_width, 28 * 8);
}
END_TEST

START_TEST(test_grid_pixels)
{
    const int n = 5, rows = 3, cols = 4, scale = 3;
    double tiles[5 * 3 * 4];
    tu_fill_uniform(tiles, sizeof tiles / sizeof tiles[0], -0.2, 1.2, 42); /* some get clamped */
    tiles[1] = NAN;
    char *p = strdup(tu_tmp_path("grid.png"));
    gmm_status st = png_write_tile_grid(p, tiles, n, rows, cols, scale, NULL);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    png_tile_layout lay;
    ck_assert_int_eq(png_tile_grid_layout(n, rows, cols, scale, NULL, &lay), GMM_OK);
    uint8_t *img = NULL;
    int w, h;
    ck_assert_int_eq(png_read_gray(p, &img, &w, &h), GMM_OK);
    ck_assert_int_eq(w, lay.width);
    ck_assert_int_eq(h, lay.height);

    size_t covered = 0;
    for (int t = 0; t < n; t++) {
        int x0, y0;
        png_tile_origin(&lay, t, &x0, &y0);
        for (int y = 0; y < rows * scale; y++)
            for (int x = 0; x < cols * scale; x++) {
                double v = tiles[t * rows * cols + (y / scale) * cols + x / scale];
                double c = isnan(v) ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
                int want = (int)lround(c * 255.0);
                ck_assert_msg(img[(size_t)(y0 + y) * w + x0 + x] == want,
                              "tile %d pixel (%d,%d): %d, expected %d", t, x, y,
                              img[(size_t)(y0 + y) * w + x0 + x], want);
                covered++;
            }
    }
    /* Everything outside the tiles is white background. */
    size_t white = 0;
    for (int i = 0; i < w * h; i++) white += img[i] == 255;
    ck_assert_uint_ge(white, (size_t)w * h - covered);
    ck_assert_int_eq(img[0], 255);
    ck_assert_int_eq(img[(size_t)w * h - 1], 255); /* the empty sixth cell */
    free(img);
    free(p);
}
END_TEST

/* Counts dark pixels in the caption band of tile t. */
static int dark_in_band(const uint8_t *img, int w, const png_tile_layout *lay, int t)
{
    int x0, y0;
    png_tile_origin(lay, t, &x0, &y0);
    int cell_x = PNG_TILE_MARGIN + (t % lay->grid_cols) * (lay->cell_width + PNG_TILE_MARGIN);
    int dark = 0;
    for (int y = y0 + lay->tile_height; y < y0 + lay->cell_height; y++)
        for (int x = cell_x; x < cell_x + lay->cell_width; x++) dark += img[(size_t)y * w + x] < 128;
    return dark;
}

START_TEST(test_grid_captions)
{
    const int n = 3, rows = 28, cols = 28, scale = 3;
    double *tiles = malloc(sizeof(double) * n * rows * cols);
    tu_fill_uniform(tiles, (size_t)n * rows * cols, 0, 1, 9);
    const char *with[3] = {"k=3 w=0.112", NULL, "Mean: 12.5%"};
    const char *without[3] = {NULL, NULL, NULL};
    char *pa = strdup(tu_tmp_path("cap.png")), *pb = strdup(tu_tmp_path("nocap.png"));
    ck_assert_int_eq(png_write_tile_grid(pa, tiles, n, rows, cols, scale, with), GMM_OK);
    ck_assert_int_eq(png_write_tile_grid(pb, tiles, n, rows, cols, scale, without), GMM_OK);
    png_tile_layout la, lb;
    ck_assert_int_eq(png_tile_grid_layout(n, rows, cols, scale, with, &la), GMM_OK);
    ck_assert_int_eq(png_tile_grid_layout(n, rows, cols, scale, without, &lb), GMM_OK);
    ck_assert_int_eq(la.width, lb.width);
    ck_assert_int_eq(la.height, lb.height);

    uint8_t *a = NULL, *b = NULL;
    int wa, ha, wb, hb;
    ck_assert_int_eq(png_read_gray(pa, &a, &wa, &ha), GMM_OK);
    ck_assert_int_eq(png_read_gray(pb, &b, &wb, &hb), GMM_OK);
    ck_assert_int_eq(wa, la.width);
    ck_assert_int_eq(ha, la.height);
    ck_assert_int_eq(wa, wb);
    ck_assert_int_eq(ha, hb);
    ck_assert(memcmp(a, b, (size_t)wa * ha) != 0);
    ck_assert_int_gt(dark_in_band(a, wa, &la, 0), 20);
    ck_assert_int_eq(dark_in_band(a, wa, &la, 1), 0);
    ck_assert_int_gt(dark_in_band(a, wa, &la, 2), 20);
    for (int t = 0; t < n; t++) ck_assert_int_eq(dark_in_band(b, wb, &lb, t), 0);
    /* The tiles themselves are identical: captions only touch their band. */
    for (int t = 0; t < n; t++) {
        int x0, y0;
        png_tile_origin(&la, t, &x0, &y0);
        for (int y = y0; y < y0 + la.tile_height; y++)
            ck_assert_mem_eq(a + (size_t)y * wa + x0, b + (size_t)y * wb + x0, la.tile_width);
    }
    free(a);
    free(b);

    /* With no caption array at all there is no band. */
    png_tile_layout lc;
    ck_assert_int_eq(png_tile_grid_layout(n, rows, cols, scale, NULL, &lc), GMM_OK);
    ck_assert_int_lt(lc.height, la.height);
    free(tiles);
    free(pa);
    free(pb);
}
END_TEST

START_TEST(test_caption_wider_than_tile)
{
    double tile[4] = {1, 1, 1, 1};
    const char *caps[1] = {"a rather long caption"};
    char *p = strdup(tu_tmp_path("wide.png"));
    ck_assert_int_eq(png_write_tile_grid(p, tile, 1, 2, 2, 1, caps), GMM_OK);
    png_tile_layout lay;
    ck_assert_int_eq(png_tile_grid_layout(1, 2, 2, 1, caps, &lay), GMM_OK);
    uint8_t *img = NULL;
    int w, h;
    ck_assert_int_eq(png_read_gray(p, &img, &w, &h), GMM_OK);
    ck_assert_int_eq(w, lay.width);
    /* The last character ('n') reaches the right edge of the cell: nothing was cut. */
    int right = PNG_TILE_MARGIN + lay.cell_width - 1, dark = 0;
    for (int y = 0; y < h; y++) dark += img[(size_t)y * w + right] < 128;
    ck_assert_int_gt(dark, 0);
    free(img);
    free(p);
}
END_TEST

START_TEST(test_font)
{
    const char *needed = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ .:=-%<>";
    for (const char *c = needed; *c; c++) {
        ck_assert_msg(font_has_glyph(*c), "no glyph for '%c'", *c);
        for (const char *d = c + 1; *d; d++)
            ck_assert_msg(memcmp(font_glyph(*c), font_glyph(*d), FONT_GLYPH_HEIGHT) != 0,
                          "'%c' and '%c' look the same", *c, *d);
        const uint8_t *g = font_glyph(*c);
        for (int r = 0; r < FONT_GLYPH_HEIGHT; r++) ck_assert_uint_lt(g[r], 1u << FONT_GLYPH_WIDTH);
    }
    ck_assert(!font_has_glyph('~'));
    ck_assert_mem_eq(font_glyph('~'), font_glyph('?'), FONT_GLYPH_HEIGHT);
    ck_assert_int_eq(font_text_width("", 1), 0);
    ck_assert_int_eq(font_text_width("ab", 1), 11);
    ck_assert_int_eq(font_text_width("ab", 2), 22);

    /* Drawing is clipped at every edge and exact inside. */
    uint8_t img[10 * 9];
    memset(img, 0, sizeof img);
    font_draw_text(img, 10, 9, 1, 1, "1", 1, 200);
    const uint8_t *one = font_glyph('1');
    for (int r = 0; r < FONT_GLYPH_HEIGHT; r++)
        for (int c = 0; c < FONT_GLYPH_WIDTH; c++)
            ck_assert_int_eq(img[(1 + r) * 10 + 1 + c], (one[r] >> (4 - c) & 1) ? 200 : 0);
    font_draw_text(img, 10, 9, -3, -4, "Wide text", 3, 9);
    font_draw_text(img, 10, 9, 8, 7, "%%", 2, 9);
}
END_TEST

/* The colour map is ordered by brightness, starts and ends where documented, and colormap_rgb
 * picks entry round(255 v) with clamping. */
START_TEST(test_colormap)
{
    uint8_t c[3], d[3];
    double prev = -1;
    for (int i = 0; i < COLORMAP_SIZE; i++) {
        colormap_entry(i, c);
        double lum = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
        ck_assert_msg(lum > prev, "entry %d is not brighter than entry %d", i, i - 1);
        prev = lum;
    }
    colormap_entry(0, c);
    ck_assert(!(c[0] == c[1] && c[1] == c[2])); /* a colour, not a gray */
    colormap_rgb(0.0, d);
    ck_assert_mem_eq(c, d, 3);
    colormap_rgb(-3.0, d);
    ck_assert_mem_eq(c, d, 3);
    colormap_rgb(NAN, d);
    ck_assert_mem_eq(c, d, 3);
    colormap_entry(COLORMAP_SIZE - 1, c);
    colormap_rgb(1.0, d);
    ck_assert_mem_eq(c, d, 3);
    colormap_rgb(7.0, d);
    ck_assert_mem_eq(c, d, 3);
    colormap_entry(128, c);
    colormap_rgb(128 / 255.0, d);
    ck_assert_mem_eq(c, d, 3);
}
END_TEST

/* The colour grid: gray where the mask is 0 (the same values as the gray grid), the colour map
 * where it is 1, and a colour bar from entry 0 to the last entry under the grid. */
START_TEST(test_grid_color)
{
    const int n = 3, rows = 2, cols = 5, scale = 3;
    double tiles[3 * 2 * 5];
    tu_fill_uniform(tiles, sizeof tiles / sizeof tiles[0], -0.1, 1.1, 5);
    tiles[7] = NAN;
    const uint8_t mask[2 * 5] = {0, 0, 1, 1, 1, 0, 0, 1, 1, 1};
    const char *caps[3] = {"k=0", "k=1", NULL};
    png_color_style style = {.mask = mask, .bar_label = "entropy, nats", .bar_lo = 0,
                             .bar_hi = 2.7725887};
    char *p = strdup(tu_tmp_path("color.png"));
    gmm_status st = png_write_tile_grid_color(p, tiles, n, rows, cols, scale, caps, &style);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    png_tile_layout lay;
    png_colorbar bar;
    ck_assert_int_eq(png_tile_grid_layout(n, rows, cols, scale, caps, &lay), GMM_OK);
    ck_assert_int_eq(png_colorbar_geometry(&lay, style.bar_label, &bar), GMM_OK);
    int w, h;
    uint8_t *img = tu_read_png_rgb(p, &w, &h);
    ck_assert_int_eq(w, bar.image_width);
    ck_assert_int_eq(h, bar.image_height);
    ck_assert_int_gt(h, lay.height + bar.height);
    for (int t = 0; t < n; t++) {
        int x0, y0;
        png_tile_origin(&lay, t, &x0, &y0);
        for (int y = 0; y < rows * scale; y++)
            for (int x = 0; x < cols * scale; x++) {
                int j = (y / scale) * cols + x / scale;
                double v = tiles[t * rows * cols + j];
                uint8_t want[3];
                if (mask[j]) {
                    colormap_rgb(v, want);
                } else {
                    double c = isnan(v) ? 0 : v < 0 ? 0 : v > 1 ? 1 : v;
                    want[0] = want[1] = want[2] = (uint8_t)lround(c * 255.0);
                }
                ck_assert_mem_eq(img + 3 * ((size_t)(y0 + y) * w + x0 + x), want, 3);
            }
    }
    uint8_t first[3], last[3];
    colormap_entry(0, first);
    colormap_entry(COLORMAP_SIZE - 1, last);
    for (int y = bar.y; y < bar.y + bar.height; y++) {
        ck_assert_mem_eq(img + 3 * ((size_t)y * w + bar.x), first, 3);
        ck_assert_mem_eq(img + 3 * ((size_t)y * w + bar.x + bar.width - 1), last, 3);
    }
    /* the values and the label under the bar are drawn: dark pixels below it */
    int dark = 0;
    for (size_t i = (size_t)(bar.y + bar.height + 1) * w; i < (size_t)w * h; i++)
        dark += img[3 * i] < 64 && img[3 * i + 1] < 64 && img[3 * i + 2] < 64;
    ck_assert_int_gt(dark, 50);
    free(img);

    /* no mask: every tile pixel in colour; no bar: the gray grid's size */
    png_color_style plain = {0};
    ck_assert_int_eq(png_write_tile_grid_color(p, tiles, n, rows, cols, scale, caps, &plain), GMM_OK);
    img = tu_read_png_rgb(p, &w, &h);
    ck_assert_int_eq(w, lay.width);
    ck_assert_int_eq(h, lay.height);
    int x0, y0;
    png_tile_origin(&lay, 0, &x0, &y0);
    uint8_t want[3];
    colormap_rgb(tiles[0], want);
    ck_assert_mem_eq(img + 3 * ((size_t)y0 * w + x0), want, 3);
    free(img);
    ck_assert_int_eq(png_write_tile_grid_color(p, tiles, n, rows, cols, scale, caps, NULL),
                     GMM_ERR_ARG);
    free(p);
}
END_TEST

/* Counts black pixels in rows [y0, y1) of a gray image, failing when any pixel there is neither
 * black nor white (text only, no image). */
static int text_pixels(const uint8_t *img, int w, int y0, int y1)
{
    int dark = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0; x < w; x++) {
            uint8_t v = img[(size_t)y * w + x];
            ck_assert_msg(v == 0 || v == 255, "pixel (%d,%d) = %d in a text band", x, y, v);
            dark += v == 0;
        }
    return dark;
}

/* The image stack: each image exact under its caption band, captions only where given, the
 * column labels once at the top, the width grown to the widest caption. */
START_TEST(test_image_stack)
{
    const int n = 3, rows = 4, cols = 9, scale = 2;
    double images[3 * 4 * 9];
    tu_fill_uniform(images, sizeof images / sizeof images[0], 0.05, 0.95, 17);
    const char *caps[3] = {"component 0 (weight 0.500)", NULL, "component 2 (weight 0.250)"};
    const png_column_label labels[2] = {{0, 4, "most"}, {5, 9, "least"}};
    char *p = strdup(tu_tmp_path("stack.png"));
    gmm_status st = png_write_image_stack(p, images, n, rows, cols, scale, caps, labels, 2);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    png_stack_layout lay;
    ck_assert_int_eq(png_image_stack_layout(n, rows, cols, scale, caps, labels, 2, &lay), GMM_OK);
    ck_assert_int_eq(lay.width, 2 * PNG_TILE_MARGIN + font_text_width(caps[0], 1));
    uint8_t *img = NULL;
    int w, h;
    ck_assert_int_eq(png_read_gray(p, &img, &w, &h), GMM_OK);
    ck_assert_int_eq(w, lay.width);
    ck_assert_int_eq(h, lay.height);
    ck_assert_int_gt(text_pixels(img, w, lay.labels_y, lay.labels_y + lay.labels_height), 20);
    for (int i = 0; i < n; i++) {
        int yc = lay.first_y + i * lay.row_pitch, y0 = yc + lay.caption_height;
        int dark = text_pixels(img, w, yc, y0);
        if (caps[i]) ck_assert_int_gt(dark, 50);
        else ck_assert_int_eq(dark, 0);
        for (int y = 0; y < rows * scale; y++)
            for (int x = 0; x < cols * scale; x++) {
                double v = images[(i * rows + y / scale) * cols + x / scale];
                ck_assert_int_eq(img[(size_t)(y0 + y) * w + lay.image_x + x], (int)lround(v * 255));
            }
    }
    free(img);
    /* without labels the first caption starts at the margin */
    ck_assert_int_eq(png_image_stack_layout(n, rows, cols, scale, NULL, NULL, 0, &lay), GMM_OK);
    ck_assert_int_eq(lay.labels_height, 0);
    ck_assert_int_eq(lay.first_y, PNG_TILE_MARGIN);
    ck_assert_int_eq(lay.width, 2 * PNG_TILE_MARGIN + cols * scale);
    const png_column_label bad[1] = {{3, 10, "x"}};
    ck_assert_int_eq(png_image_stack_layout(n, rows, cols, scale, NULL, bad, 1, &lay), GMM_ERR_ARG);
    ck_assert_int_eq(png_write_image_stack(p, images, 0, rows, cols, scale, NULL, NULL, 0),
                     GMM_ERR_ARG);
    free(p);
}
END_TEST

static Suite *png_suite(void)
{
    Suite *s = suite_create("png");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_gray_round_trip);
    tcase_add_test(tc, test_rgb_round_trip);
    tcase_add_test(tc, test_colormap);
    tcase_add_test(tc, test_grid_color);
    tcase_add_test(tc, test_image_stack);
    tcase_add_test(tc, test_unwritable_path);
    tcase_add_test(tc, test_bad_arguments_and_files);
    tcase_add_test(tc, test_grid_layout);
    tcase_add_test(tc, test_grid_pixels);
    tcase_add_test(tc, test_grid_captions);
    tcase_add_test(tc, test_caption_wider_than_tile);
    tcase_add_test(tc, test_font);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(png_suite()); }
