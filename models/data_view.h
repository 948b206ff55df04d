/* A data view: the rows a fit reads, in the form they are stored (image bytes, float32 or
 * float64; kernels/convert.h), without a float64 copy of the whole set. On one rank it is the
 * whole data set; in a distributed fit (models/dist/comm.h) each rank's view is its row range of
 * the set, first_row giving the place of its row 0 and n_total the size of the whole. The rows
 * are host memory (a memory-mapped IDX file does): the backends convert them chunk by chunk. */
#ifndef GMM_DATA_VIEW_H
#define GMM_DATA_VIEW_H

#include <stdint.h>

#include "kernels/convert.h"
#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    gmm_elem elem;      /* how the values are stored: GMM_ELEM_U8 is byte / 255 */
    const void *rows;   /* n_rows x dim values, row-major */
    int64_t n_rows;     /* the rows of this view (this rank's) */
    int dim;
    int64_t first_row;  /* the index of row 0 in the whole data set */
    int64_t n_total;    /* the rows of the whole data set (n_rows on one rank) */
} gmm_data_view;

/* The whole of a float64 matrix (n x dim) as a view. */
gmm_data_view gmm_data_view_f64(const double *X, int64_t n, int dim);

/* GMM_ERR_ARG naming what is wrong when the view cannot be a fit's data. */
gmm_status gmm_data_view_check(const gmm_data_view *view);

/* Rows [r0, r0 + n) of the view in float64: a pointer into the view when it is float64, else
 * the rows converted into buf (n x dim doubles), which is returned. */
const double *gmm_data_view_f64_rows(const gmm_data_view *view, int64_t r0, int64_t n,
                                     double *buf);

/* Row `row` of the view into out (dim doubles). */
void gmm_data_view_row_f64(const gmm_data_view *view, int64_t row, double *out);

#ifdef __cplusplus
}
#endif
#endif
