/* The data view's helpers (see data_view.h). */
#include "models/data_view.h"

#include <string.h>

gmm_data_view gmm_data_view_f64(const double *X, int64_t n, int dim)
{
    return (gmm_data_view){.elem = GMM_ELEM_F64, .rows = X, .n_rows = n, .dim = dim,
                           .first_row = 0, .n_total = n};
}

gmm_status gmm_data_view_check(const gmm_data_view *v)
{
    if (!v || !v->rows) return gmm_error(GMM_ERR_ARG, "the data view has no rows");
    if (v->elem != GMM_ELEM_F64 && v->elem != GMM_ELEM_F32 && v->elem != GMM_ELEM_U8)
        return gmm_error(GMM_ERR_ARG, "the data view's element type %d is unknown", (int)v->elem);
    if (v->n_rows < 1 || v->dim < 1)
        return gmm_error(GMM_ERR_ARG, "the data view has %lld rows of %d values",
                         (long long)v->n_rows, v->dim);
    if (v->first_row < 0 || v->n_total < v->n_rows || v->first_row > v->n_total - v->n_rows)
        return gmm_error(GMM_ERR_ARG, "the data view's rows [%lld, %lld) are not within the %lld "
                         "rows of the data set", (long long)v->first_row,
                         (long long)(v->first_row + v->n_rows), (long long)v->n_total);
    return GMM_OK;
}

const double *gmm_data_view_f64_rows(const gmm_data_view *v, int64_t r0, int64_t n, double *buf)
{
    const size_t d = (size_t)v->dim;
    if (v->elem == GMM_ELEM_F64) return (const double *)v->rows + (size_t)r0 * d;
    const char *src = (const char *)v->rows + (size_t)r0 * d * gmm_elem_size(v->elem);
    /* the arguments are the view's own: the conversion cannot refuse them */
    (void)convert_rows_cpu(src, v->elem, (size_t)n * d, buf, GMM_ELEM_F64);
    return buf;
}

void gmm_data_view_row_f64(const gmm_data_view *v, int64_t row, double *out)
{
    const double *x = gmm_data_view_f64_rows(v, row, 1, out);
    if (x != out) memcpy(out, x, sizeof(double) * (size_t)v->dim);
}
