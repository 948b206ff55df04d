/* PNG charts drawn with the built-in bitmap font: line plots and histograms (bars, optionally
 * with reference curves over them), with a title, axis labels, numbered ticks and a legend. */
#ifndef GMM_PLOT_H
#define GMM_PLOT_H

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PLOT_WIDTH 640
#define PLOT_HEIGHT 420

/* One curve: n points (x[i], y[i]); non-finite points are skipped (the line breaks there).
 * label goes in the legend (NULL for none). */
typedef struct {
    const double *x;
    const double *y;
    int n;
    const char *label;
} plot_series;

/* Line plot of n_series curves in tab10 colours, axes fitted to the finite points.
 * Text uses the font's characters only (digits, letters, space and . , : = - + % ( ) / _). */
gmm_status plot_lines(const char *path, const char *title, const char *x_label,
                      const char *y_label, const plot_series *series, int n_series);

/* n_bins bars of equal width over [lo, hi] with the given heights (gray), and n_overlay curves
 * drawn over them (overlay may be NULL). bar_label names the bars in the legend (may be NULL). */
gmm_status plot_histogram(const char *path, const char *title, const char *x_label,
                          const char *y_label, double lo, double hi, const double *heights,
                          int n_bins, const char *bar_label, const plot_series *overlay,
                          int n_overlay);

#ifdef __cplusplus
}
#endif
#endif
