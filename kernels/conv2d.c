/* CPU twins of the valid-region 2-D convolution (see conv2d.h). */
#include "kernels/conv2d.h"

static gmm_status check_args(const void *in, size_t n_rows, size_t n_cols, const void *filter,
                             int filter_size, const void *out, const char *name)
{
    if (!in || !filter || !out)
        return gmm_error(GMM_ERR_ARG, "%s: NULL array", name);
    if (filter_size != 3 && filter_size != 5)
        return gmm_error(GMM_ERR_ARG, "%s: filter_size %d (3 or 5 supported)", name, filter_size);
    if (n_rows < (size_t)filter_size || n_cols < (size_t)filter_size)
        return gmm_error(GMM_ERR_ARG, "%s: %zu x %zu input is smaller than the %d x %d filter",
                         name, n_rows, n_cols, filter_size, filter_size);
    return GMM_OK;
}

gmm_status conv2d_i32_cpu(const int32_t *in, size_t n_rows, size_t n_cols,
                          const int32_t *filter, int filter_size, int32_t *out)
{
    gmm_status st = check_args(in, n_rows, n_cols, filter, filter_size, out, "conv2d_i32_cpu");
    if (st != GMM_OK) return st;
    const size_t fs = (size_t)filter_size, out_rows = n_rows - fs + 1, out_cols = n_cols - fs + 1;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)out_rows; i++)
        for (size_t j = 0; j < out_cols; j++) {
            uint32_t acc = 0;
            for (size_t a = 0; a < fs; a++)
                for (size_t b = 0; b < fs; b++)
                    acc += (uint32_t)in[((size_t)i + a) * n_cols + j + b] * (uint32_t)filter[a * fs + b];
            out[(size_t)i * out_cols + j] = (int32_t)acc;
        }
    return GMM_OK;
}

gmm_status conv2d_f32_cpu(const float *in, size_t n_rows, size_t n_cols, const float *filter,
                          int filter_size, float *out)
{
    gmm_status st = check_args(in, n_rows, n_cols, filter, filter_size, out, "conv2d_f32_cpu");
    if (st != GMM_OK) return st;
    const size_t fs = (size_t)filter_size, out_rows = n_rows - fs + 1, out_cols = n_cols - fs + 1;
#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)out_rows; i++)
        for (size_t j = 0; j < out_cols; j++) {
            float acc = 0.0f;
            for (size_t a = 0; a < fs; a++)
                for (size_t b = 0; b < fs; b++)
                    acc += in[((size_t)i + a) * n_cols + j + b] * filter[a * fs + b];
            out[(size_t)i * out_cols + j] = acc;
        }
    return GMM_OK;
}
