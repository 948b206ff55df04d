/* CPU version of the element conversion (see convert.h). */
#include "kernels/convert.h"

#include <stdint.h>
#include <string.h>

size_t gmm_elem_size(gmm_elem elem)
{
    return elem == GMM_ELEM_F64 ? sizeof(double) : elem == GMM_ELEM_F32 ? sizeof(float) : 1;
}

gmm_status convert_rows_cpu(const void *in, gmm_elem in_elem, size_t n, void *out,
                            gmm_elem out_elem)
{
    if ((!in || !out) && n > 0) return gmm_error(GMM_ERR_ARG, "convert_rows_cpu: NULL array");
    if (out_elem != GMM_ELEM_F64 && out_elem != GMM_ELEM_F32)
        return gmm_error(GMM_ERR_ARG, "convert_rows_cpu: the output must be float64 or float32");
    if (in_elem == out_elem) {
        if (n > 0 && in != out) memcpy(out, in, n * gmm_elem_size(in_elem));
        return GMM_OK;
    }
    const int64_t m = (int64_t)n;
    if (out_elem == GMM_ELEM_F64) {
        double *o = out;
        if (in_elem == GMM_ELEM_U8) {
            const uint8_t *x = in;
#pragma omp parallel for schedule(static) if (m > 65536)
            for (int64_t i = 0; i < m; i++) o[i] = x[i] / 255.0;
        } else {
            const float *x = in;
#pragma omp parallel for schedule(static) if (m > 65536)
            for (int64_t i = 0; i < m; i++) o[i] = (double)x[i];
        }
    } else {
        float *o = out;
        if (in_elem == GMM_ELEM_U8) {
            const uint8_t *x = in;
#pragma omp parallel for schedule(static) if (m > 65536)
            for (int64_t i = 0; i < m; i++) o[i] = (float)(x[i] / 255.0);
        } else {
            const double *x = in;
#pragma omp parallel for schedule(static) if (m > 65536)
            for (int64_t i = 0; i < m; i++) o[i] = (float)x[i];
        }
    }
    return GMM_OK;
}
