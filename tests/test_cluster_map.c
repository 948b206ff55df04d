/* Check suite for data/cluster_map (and the canvas under it, data/canvas): the documented
 * geometry, a white picture with each component's tab10 colour where its points are and each
 * label's colour there in the second panel, thumbnails drawn, one panel without labels,
 * outliers that do not squash the map, boxes placed apart, and bad input refused. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/canvas.h"
#include "data/cluster_map.h"
#include "tests/testutil.h"

#define N_BLOB 3000
#define N_POINTS (3 * N_BLOB)
#define SIDE 28

/* tab10's first three colours: blue, orange, green */
static const uint8_t tab10[3][3] = {{31, 119, 180}, {255, 127, 14}, {44, 160, 44}};
/* the blobs' centres: bottom left, bottom right, top middle */
static const double blob_x[3] = {0, 10, 5}, blob_y[3] = {0, 0, 8.66};

typedef struct {
    float xy[2 * N_POINTS + 20];
    int32_t component[N_POINTS + 10];
    uint8_t labels[N_POINTS + 10];
    double means[3 * SIDE * SIDE];
    int matched[3];
    cluster_map map;
} fixture;

/* Point i is in blob i % 3 (spread 0.8), its component the blob's and its label (blob + 1) % 3;
 * mean image k is a solid square, matched_label k -> (k + 1) % 3. */
static fixture *make_fixture(int with_labels, int with_means)
{
    fixture *f = calloc(1, sizeof *f);
    uint64_t seed = 42;
    for (int i = 0; i < N_POINTS; i++) {
        int b = i % 3;
        f->xy[2 * i] = (float)(blob_x[b] + 0.8 * tu_rand_normal(&seed));
        f->xy[2 * i + 1] = (float)(blob_y[b] + 0.8 * tu_rand_normal(&seed));
        f->component[i] = b;
        f->labels[i] = (uint8_t)((b + 1) % 3);
    }
    for (int k = 0; k < 3; k++) {
        for (int r = 6; r < 22; r++)
            for (int c = 8; c < 20; c++) f->means[(k * SIDE + r) * SIDE + c] = 0.8;
        f->matched[k] = (k + 1) % 3;
    }
    f->map = (cluster_map){.xy = f->xy, .n = N_POINTS, .component = f->component,
                           .n_components = 3, .labels = with_labels ? f->labels : NULL,
                           .n_classes = 3, .mean_images = with_means ? f->means : NULL,
                           .rows = SIDE, .cols = SIDE, .matched_label = f->matched,
                           .title = "three blobs", .width = 0};
    return f;
}

static int near(const uint8_t *p, const uint8_t *color, int tolerance)
{
    for (int k = 0; k < 3; k++)
        if (abs(p[k] - color[k]) > tolerance) return 0;
    return 1;
}

/* Pixels of about this colour inside [x0, x1) x [y0, y1), their number and centroid. */
static int colour_centroid(const uint8_t *rgb, int width, int x0, int y0, int x1, int y1,
                           const uint8_t *color, double *cx, double *cy)
{
    int count = 0;
    double sx = 0, sy = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++)
            if (near(rgb + 3 * ((size_t)y * width + x), color, 24)) {
                count++;
                sx += x;
                sy += y;
            }
    *cx = count ? sx / count : NAN;
    *cy = count ? sy / count : NAN;
    return count;
}

static int dark_pixels(const uint8_t *rgb, int width, int x0, int y0, int x1, int y1)
{
    int n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            const uint8_t *p = rgb + 3 * ((size_t)y * width + x);
            n += p[0] < 60 && p[1] < 60 && p[2] < 60;
        }
    return n;
}

static uint8_t *write_and_read(const char *name, const cluster_map *map, cluster_map_geometry *g,
                               int *w, int *h)
{
    const char *path = tu_tmp_path(name);
    TU_CHECK_OK(cluster_map_write(path, map));
    TU_CHECK_OK(cluster_map_layout(map, g));
    uint8_t *rgb = tu_read_png_rgb(path, w, h);
    ck_assert_int_eq(*w, g->width);
    ck_assert_int_eq(*h, g->height);
    return rgb;
}

START_TEST(test_geometry_as_documented)
{
    fixture *f = make_fixture(1, 1);
    cluster_map_geometry g;
    TU_CHECK_OK(cluster_map_layout(&f->map, &g));
    /* two panels of (1200 - 3 * 16) / 2 = 576; 16 + 30 + 24 + 576 + 10 + 20 + 16 */
    ck_assert_int_eq(g.width, 1200);
    ck_assert_int_eq(g.n_panels, 2);
    ck_assert_int_eq(g.side, 576);
    ck_assert_int_eq(g.panel_x[0], 16);
    ck_assert_int_eq(g.panel_x[1], 608);
    ck_assert_int_eq(g.panel_y, 70);
    ck_assert_int_eq(g.legend_rows, 1);
    ck_assert_int_eq(g.height, 692);
    ck_assert_int_eq(g.height, 2 * CLUSTER_MAP_MARGIN + CLUSTER_MAP_TITLE_BAND +
                                   CLUSTER_MAP_HEADER_BAND + g.side + CLUSTER_MAP_LEGEND_GAP +
                                   CLUSTER_MAP_LEGEND_ROW);
    f->map.title = NULL;
    TU_CHECK_OK(cluster_map_layout(&f->map, &g));
    ck_assert_int_eq(g.height, 692 - CLUSTER_MAP_TITLE_BAND);
    /* one panel 1200 - 2 * 16 wide without labels */
    f->map.labels = NULL;
    f->map.title = "t";
    TU_CHECK_OK(cluster_map_layout(&f->map, &g));
    ck_assert_int_eq(g.n_panels, 1);
    ck_assert_int_eq(g.side, 1168);
    ck_assert_int_eq(g.height, 16 + 30 + 24 + 1168 + 10 + 20 + 16);
    /* 40 components: "39" is 22 pixels at scale 2, 14 + 4 + 22 + 14 = 54 per entry, 10 a row */
    f->map.n_components = 40;
    f->map.width = 600;
    TU_CHECK_OK(cluster_map_layout(&f->map, &g));
    ck_assert_int_eq(g.side, 568);
    ck_assert_int_eq(g.legend_rows, 4);
    free(f);
}
END_TEST

START_TEST(test_two_panels)
{
    fixture *f = make_fixture(1, 1);
    cluster_map_geometry g;
    int w, h;
    uint8_t *rgb = write_and_read("two.png", &f->map, &g, &w, &h);
    const uint8_t white[3] = {255, 255, 255};
    /* white around and between the panels, a gray frame */
    ck_assert(near(rgb, white, 0));
    ck_assert(near(rgb + 3 * ((size_t)(h - 1) * w + w - 1), white, 0));
    ck_assert(near(rgb + 3 * ((size_t)(g.panel_y + g.side / 2) * w + g.panel_x[1] - 8), white, 0));
    const uint8_t *frame = rgb + 3 * ((size_t)(g.panel_y + 5) * w + g.panel_x[0]);
    ck_assert(frame[0] < 220 && frame[0] == frame[1] && frame[1] == frame[2]);
    /* the white majority: dots and thumbnails cover well under half of the picture */
    int n_white = 0;
    for (int i = 0; i < w * h; i++) n_white += near(rgb + 3 * i, white, 0);
    ck_assert_int_gt(n_white, w * h / 2);

    /* Left panel: component k's colour gathers where blob k is (0 bottom left, 1 bottom right,
       2 top middle), the others scarce there. The data (about -1.7..11.7 by -1.7..10.4) is scaled
       by its x span (the 0.5 to 99.5 percentiles: -1.74..11.74) into the panel less side / 16
       padding: 504 / 13.48 = 37.4 pixels a unit. */
    double cx[2][3], cy[2][3];
    for (int p = 0; p < 2; p++)
        for (int k = 0; k < 3; k++) {
            int x0 = g.panel_x[p];
            int count = colour_centroid(rgb, w, x0, g.panel_y, x0 + g.side, g.panel_y + g.side,
                                        tab10[k], &cx[p][k], &cy[p][k]);
            ck_assert_msg(count > 2000, "panel %d, colour %d: %d pixels", p, k, count);
            cx[p][k] -= x0;
            cy[p][k] -= g.panel_y;
        }
    for (int k = 0; k < 3; k++) {
        double ex = 0.5 * g.side + (blob_x[k] - 5) * 37.4,
               ey = 0.5 * g.side - (blob_y[k] - 4.33) * 37.4;
        ck_assert_msg(fabs(cx[0][k] - ex) < 40 && fabs(cy[0][k] - ey) < 40,
                      "component %d drawn around (%.0f, %.0f), expected about (%.0f, %.0f)", k,
                      cx[0][k], cy[0][k], ex, ey);
        /* right panel: blob k carries label (k + 1) % 3 and that colour */
        int l = (k + 1) % 3;
        ck_assert_msg(fabs(cx[1][l] - ex) < 40 && fabs(cy[1][l] - ey) < 40,
                      "label %d drawn around (%.0f, %.0f), expected about (%.0f, %.0f)", l,
                      cx[1][l], cy[1][l], ex, ey);
        /* around blob k only colour k (left) and label colour l (right) are frequent */
        int x = g.panel_x[0] + (int)ex, y = g.panel_y + (int)ey;
        double ux, uy;
        int own = colour_centroid(rgb, w, x - 50, y - 50, x + 50, y + 50, tab10[k], &ux, &uy);
        for (int o = 0; o < 3; o++)
            if (o != k)
                ck_assert_int_lt(colour_centroid(rgb, w, x - 50, y - 50, x + 50, y + 50,
                                                 tab10[o], &ux, &uy), own / 10);
        /* the thumbnail (dark ink) and its caption at the blob on the left; the big label
           number on the right */
        ck_assert_int_gt(dark_pixels(rgb, w, x - 50, y - 50, x + 50, y + 50), 400);
        x += g.panel_x[1] - g.panel_x[0];
        int dark = dark_pixels(rgb, w, x - 50, y - 50, x + 50, y + 50);
        ck_assert_msg(dark > 40 && dark < 400, "label %d: %d dark pixels", l, dark);
    }
    free(rgb);
    free(f);
}
END_TEST

START_TEST(test_one_panel_without_labels)
{
    fixture *f = make_fixture(0, 0);
    cluster_map_geometry g;
    int w, h;
    uint8_t *rgb = write_and_read("one.png", &f->map, &g, &w, &h);
    ck_assert_int_eq(w, 1200);
    ck_assert_int_eq(h, 16 + 30 + 24 + 1168 + 10 + 20 + 16);
    /* the frame's right edge at the picture's right margin */
    const uint8_t *p = rgb + 3 * ((size_t)(g.panel_y + g.side / 2) * w + w - 1 - 16);
    ck_assert(p[0] < 220 && p[0] == p[1] && p[1] == p[2]);
    double scale = (1168 - 2 * 1168 / 16.0) / 13.48;
    for (int k = 0; k < 3; k++) {
        double cx, cy;
        ck_assert_int_gt(colour_centroid(rgb, w, g.panel_x[0], g.panel_y, g.panel_x[0] + g.side,
                                         g.panel_y + g.side, tab10[k], &cx, &cy), 2000);
        double ex = g.panel_x[0] + 0.5 * g.side + (blob_x[k] - 5) * scale;
        ck_assert_msg(fabs(cx - ex) < 60, "component %d at x %.0f, expected %.0f", k, cx, ex);
    }
    /* without mean images only a caption (small) at each blob, with them a thumbnail's ink */
    int x = (int)(g.panel_x[0] + 0.5 * g.side - 5 * scale);
    int y = (int)(g.panel_y + 0.5 * g.side + 4.33 * scale);
    int captions_only = dark_pixels(rgb, w, x - 60, y - 60, x + 60, y + 60);
    free(rgb);
    f->map.mean_images = f->means;
    rgb = write_and_read("one_means.png", &f->map, &g, &w, &h);
    int thumbnails = dark_pixels(rgb, w, x - 60, y - 60, x + 60, y + 60);
    ck_assert_msg(captions_only < 600 && thumbnails > 2000, "%d dark pixels, %d with means",
                  captions_only, thumbnails);
    free(rgb);
    free(f);
}
END_TEST

START_TEST(test_outliers_and_degenerate_input)
{
    fixture *f = make_fixture(1, 1);
    /* a few far outliers do not squash the blobs into a corner */
    for (int i = 0; i < 5; i++) {
        f->xy[2 * (N_POINTS + i)] = 1e6f * (i + 1);
        f->xy[2 * (N_POINTS + i) + 1] = -1e6f;
        f->component[N_POINTS + i] = 0;
        f->labels[N_POINTS + i] = 0;
    }
    f->map.n = N_POINTS + 5;
    cluster_map_geometry g;
    int w, h;
    uint8_t *rgb = write_and_read("outliers.png", &f->map, &g, &w, &h);
    double cx0, cy0, cx1, cy1;
    colour_centroid(rgb, w, 16, g.panel_y, 16 + g.side, g.panel_y + g.side, tab10[0], &cx0, &cy0);
    colour_centroid(rgb, w, 16, g.panel_y, 16 + g.side, g.panel_y + g.side, tab10[1], &cx1, &cy1);
    ck_assert_msg(cx1 - cx0 > 250, "blobs 0 and 1 only %.0f pixels apart", cx1 - cx0);
    free(rgb);
    /* one point; every point in one place; components without points */
    f->map.n = 1;
    TU_CHECK_OK(cluster_map_write(tu_tmp_path("one_point.png"), &f->map));
    for (int i = 0; i < 100; i++) f->xy[2 * i] = f->xy[2 * i + 1] = 3;
    f->map.n = 100;
    f->map.n_components = 12;
    f->map.matched_label = NULL;
    TU_CHECK_OK(cluster_map_write(tu_tmp_path("same_place.png"), &f->map));
    /* the same input gives the same bytes */
    f->map.n = N_POINTS;
    TU_CHECK_OK(cluster_map_write(tu_tmp_path("again1.png"), &f->map));
    TU_CHECK_OK(cluster_map_write(tu_tmp_path("again2.png"), &f->map));
    int w2, h2;
    uint8_t *a = tu_read_png_rgb(tu_tmp_path("again1.png"), &w, &h);
    uint8_t *b = tu_read_png_rgb(tu_tmp_path("again2.png"), &w2, &h2);
    ck_assert_mem_eq(a, b, (size_t)w * h * 3);
    free(a);
    free(b);
    free(f);
}
END_TEST

static void expect_arg(const cluster_map *map, const char *needle)
{
    const char *path = tu_tmp_path("bad.png");
    unlink(path);
    gmm_status st = cluster_map_write(path, map);
    ck_assert_int_eq(st, GMM_ERR_ARG);
    ck_assert_msg(strstr(gmm_error_message(st), needle), "'%s' lacks '%s'",
                  gmm_error_message(st), needle);
    ck_assert_int_ne(access(path, F_OK), 0);
}

START_TEST(test_bad_input)
{
    fixture *f = make_fixture(1, 1);
    f->component[17] = 3;
    expect_arg(&f->map, "image 17 has component 3");
    f->component[17] = -1;
    expect_arg(&f->map, "component -1");
    f->component[17] = 2;
    f->labels[5] = 3;
    expect_arg(&f->map, "image 5 has label 3");
    f->labels[5] = 1;
    f->xy[2 * 9 + 1] = NAN;
    expect_arg(&f->map, "image 9 has a non-finite position");
    f->xy[2 * 9 + 1] = INFINITY;
    expect_arg(&f->map, "non-finite");
    f->xy[2 * 9 + 1] = 0;
    f->matched[1] = -2;
    expect_arg(&f->map, "matched to label -2");
    f->matched[1] = 3;
    expect_arg(&f->map, "matched to label 3");
    f->matched[1] = 2;

    cluster_map m = f->map;
    m.n = 0;
    expect_arg(&m, "no images");
    m = f->map;
    m.xy = NULL;
    expect_arg(&m, "no positions");
    m = f->map;
    m.component = NULL;
    expect_arg(&m, "no components");
    m = f->map;
    m.width = 100;
    expect_arg(&m, "width 100");
    m = f->map;
    m.n_classes = 0;
    expect_arg(&m, "0 classes");
    m = f->map;
    m.rows = 0;
    expect_arg(&m, "mean images");
    ck_assert_int_eq(cluster_map_write(NULL, &f->map), GMM_ERR_ARG);
    ck_assert_int_eq(cluster_map_write(tu_tmp_path("x.png"), NULL), GMM_ERR_ARG);
    /* the writer's error when the file cannot be written */
    ck_assert_int_eq(cluster_map_write("/nonexistent-dir/map.png", &f->map), GMM_ERR_IO);
    TU_CHECK_OK(cluster_map_write(tu_tmp_path("fine.png"), &f->map));
    free(f);
}
END_TEST

START_TEST(test_place_boxes)
{
    /* twelve boxes on one anchor, one far away: none overlaps, all inside, the lone one and
       the first of the crowd stay on their anchors */
    canvas_box b[13];
    for (int i = 0; i < 13; i++)
        b[i] = (canvas_box){.w = 50, .h = 60, .ax = i == 12 ? 350 : 120, .ay = i == 12 ? 350 : 110};
    b[5].ax = -500; /* an anchor outside the bounds */
    canvas_place_boxes(b, 13, 10, 20, 400, 410, 3);
    for (int i = 0; i < 13; i++) {
        ck_assert(b[i].x - b[i].w / 2 >= 10 && b[i].x + b[i].w / 2 <= 400);
        ck_assert(b[i].y - b[i].h / 2 >= 20 && b[i].y + b[i].h / 2 <= 410);
        for (int j = 0; j < i; j++)
            ck_assert_msg(fabs(b[i].x - b[j].x) >= 53 || fabs(b[i].y - b[j].y) >= 63,
                          "boxes %d and %d overlap", i, j);
    }
    ck_assert(b[0].x == 120 && b[0].y == 110);
    ck_assert(b[12].x == 350 && b[12].y == 350);
    /* too many to fit: they stay inside the bounds */
    canvas_box many[40];
    for (int i = 0; i < 40; i++) many[i] = (canvas_box){.w = 50, .h = 50, .ax = 100, .ay = 100};
    canvas_place_boxes(many, 40, 0, 0, 200, 200, 2);
    for (int i = 0; i < 40; i++)
        ck_assert(many[i].x >= 25 && many[i].x <= 175 && many[i].y >= 25 && many[i].y <= 175);
}
END_TEST

START_TEST(test_palette)
{
    uint8_t rgb[3], seen[60][3];
    for (int i = 0; i < 60; i++) {
        canvas_palette(i, rgb);
        if (i < 3) ck_assert_mem_eq(rgb, tab10[i], 3);
        ck_assert_msg(rgb[0] + rgb[1] + rgb[2] < 3 * 235, "colour %d is nearly white", i);
        memcpy(seen[i], rgb, 3);
        for (int j = 0; j < i && j < 20 && i < 20; j++)
            ck_assert_msg(abs(seen[i][0] - seen[j][0]) + abs(seen[i][1] - seen[j][1]) +
                              abs(seen[i][2] - seen[j][2]) > 40,
                          "colours %d and %d are alike", i, j);
    }
}
END_TEST

static Suite *cluster_map_suite(void)
{
    Suite *s = suite_create("cluster_map");
    TCase *tc = tcase_create("cluster_map");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_geometry_as_documented);
    tcase_add_test(tc, test_two_panels);
    tcase_add_test(tc, test_one_panel_without_labels);
    tcase_add_test(tc, test_outliers_and_degenerate_input);
    tcase_add_test(tc, test_bad_input);
    tcase_add_test(tc, test_place_boxes);
    tcase_add_test(tc, test_palette);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(cluster_map_suite()); }
