/* Check suite for data/plot: line plots and histograms are written as PNGs of the documented
 * size, with axes and text drawn (dark pixels) and curves in colour, and bad arguments refused. */
#include <math.h>
#include <stdlib.h>

#include "data/plot.h"
#include "data/png_write.h"
#include "tests/testutil.h"

/* Counts pixels darker than 60 (text, axes) in a PNG read back as gray. */
static int dark_pixels(const char *path, int *width, int *height)
{
    uint8_t *px = NULL;
    ck_assert_int_eq(png_read_gray(path, &px, width, height), GMM_OK);
    int dark = 0;
    for (int i = 0; i < *width * *height; i++) dark += px[i] < 60;
    free(px);
    return dark;
}

START_TEST(test_lines_written)
{
    double x[50], y1[50], y2[50];
    for (int i = 0; i < 50; i++) {
        x[i] = i;
        y1[i] = sin(i * 0.2);
        y2[i] = i == 20 ? NAN : cos(i * 0.2); /* a gap in the line */
    }
    plot_series s[2] = {{x, y1, 50, "sin"}, {x, y2, 50, "cos"}};
    const char *path = tu_tmp_path("lines.png");
    ck_assert_int_eq(plot_lines(path, "Title (units)", "iteration", "value", s, 2), GMM_OK);
    int w, h;
    ck_assert_int_gt(dark_pixels(path, &w, &h), 500);
    ck_assert_int_eq(w, PLOT_WIDTH);
    ck_assert_int_eq(h, PLOT_HEIGHT);
}
END_TEST

START_TEST(test_degenerate_ranges)
{
    double x[1] = {3}, y[1] = {5};
    plot_series s = {x, y, 1, NULL};
    ck_assert_int_eq(plot_lines(tu_tmp_path("one.png"), "one point", "x", "y", &s, 1), GMM_OK);
    ck_assert_int_eq(plot_lines(tu_tmp_path("none.png"), "no data", "x", "y", NULL, 0), GMM_OK);
    double zeros[4] = {0, 0, 0, 0};
    ck_assert_int_eq(plot_histogram(tu_tmp_path("zero.png"), "empty", "x", "n", 0, 1, zeros, 4,
                                    NULL, NULL, 0), GMM_OK);
}
END_TEST

START_TEST(test_histogram_with_overlay)
{
    double heights[20], cx[20], curve[20];
    for (int b = 0; b < 20; b++) {
        cx[b] = (b + 0.5) / 2.0;
        heights[b] = 100 * exp(-0.5 * (cx[b] - 5) * (cx[b] - 5));
        curve[b] = heights[b] * 1.1;
    }
    plot_series over = {cx, curve, 20, "expected"};
    const char *path = tu_tmp_path("hist.png");
    ck_assert_int_eq(plot_histogram(path, "histogram", "value", "count", 0, 10, heights, 20,
                                    "observed", &over, 1), GMM_OK);
    int w, h;
    ck_assert_int_gt(dark_pixels(path, &w, &h), 500);
}
END_TEST

START_TEST(test_bad_arguments)
{
    double heights[2] = {1, 2};
    ck_assert_int_eq(plot_histogram(tu_tmp_path("bad.png"), "t", "x", "y", 1, 1, heights, 2,
                                    NULL, NULL, 0), GMM_ERR_ARG);
    ck_assert_int_eq(plot_histogram(tu_tmp_path("bad.png"), "t", "x", "y", 0, 1, heights, 0,
                                    NULL, NULL, 0), GMM_ERR_ARG);
    ck_assert_int_eq(plot_lines(tu_tmp_path("bad.png"), "t", "x", "y", NULL, 2), GMM_ERR_ARG);
    ck_assert_int_eq(plot_lines("/nonexistent-dir/x.png", "t", "x", "y", NULL, 0), GMM_ERR_IO);
}
END_TEST

static Suite *plot_suite(void)
{
    Suite *s = suite_create("plot");
    TCase *tc = tcase_create("plot");
    tcase_add_test(tc, test_lines_written);
    tcase_add_test(tc, test_degenerate_ranges);
    tcase_add_test(tc, test_histogram_with_overlay);
    tcase_add_test(tc, test_bad_arguments);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(plot_suite()); }
