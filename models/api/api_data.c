/* The public interface's data in (models/api/api_data.h): the checks of the pointer, shape,
 * dtype and scale, and the conversions to float64 and float32 with their finiteness check. */
#include "models/api/api_data.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "include/gmm/gmm.h"

/* The checks every conversion shares; *count gets n * dim. */
static gmm_status check_shape(const void *X, int64_t n, int dim, int dtype, double scale,
                              size_t element, size_t *count)
{
    if (!X) return gmm_error(GMM_ERR_ARG, "the data pointer is NULL");
    if (n < 1 || dim < 1)
        return gmm_error(GMM_ERR_ARG, "the data has %lld samples of %d features; both must be "
                         ">= 1", (long long)n, dim);
    if (!isfinite(scale) || scale == 0)
        return gmm_error(GMM_ERR_ARG, "scale=%g must be finite and not 0", scale);
    if (dtype != GMM_DTYPE_FLOAT64 && dtype != GMM_DTYPE_FLOAT32 && dtype != GMM_DTYPE_UINT8)
        return gmm_error(GMM_ERR_ARG, "unknown dtype %d (float64 0, float32 1, uint8 2)", dtype);
    *count = (size_t)n * (size_t)dim;
    if (*count / (size_t)dim != (size_t)n || *count > SIZE_MAX / element)
        return gmm_error(GMM_ERR_ARG, "%lld x %d values do not fit in memory", (long long)n, dim);
    return GMM_OK;
}

static gmm_status not_finite(size_t bad, int dim)
{
    return gmm_error(GMM_ERR_NUMERIC, "the data holds a NaN or infinite value (sample %lld, "
                     "feature %lld)", (long long)(bad / (size_t)dim),
                     (long long)(bad % (size_t)dim));
}

gmm_status gmm_api_as_float64(const void *X, int64_t n, int dim, int dtype, double scale,
                              const double **out, double **owned)
{
    *out = NULL;
    *owned = NULL;
    size_t count = 0;
    gmm_status st = check_shape(X, n, dim, dtype, scale, sizeof(double), &count);
    if (st != GMM_OK) return st;
    if (dtype == GMM_DTYPE_FLOAT64 && scale == 1.0) {
        const double *x = X;
        for (size_t i = 0; i < count; i++)
            if (!isfinite(x[i])) return not_finite(i, dim);
        *out = x;
        return GMM_OK;
    }
    double *copy = malloc(sizeof(double) * count);
    if (!copy)
        return gmm_error(GMM_ERR_NOMEM, "out of memory converting %lld x %d values to float64",
                         (long long)n, dim);
    if (dtype == GMM_DTYPE_FLOAT64) {
        const double *x = X;
        for (size_t i = 0; i < count; i++) copy[i] = x[i] * scale;
    } else if (dtype == GMM_DTYPE_FLOAT32) {
        const float *x = X;
        for (size_t i = 0; i < count; i++) copy[i] = (double)x[i] * scale;
    } else {
        const uint8_t *x = X;
        for (size_t i = 0; i < count; i++) copy[i] = (double)x[i] * scale;
    }
    for (size_t i = 0; i < count; i++)
        if (!isfinite(copy[i])) {
            free(copy);
            return not_finite(i, dim);
        }
    *out = copy;
    *owned = copy;
    return GMM_OK;
}

gmm_status gmm_api_as_float32(const void *X, int64_t n, int dim, int dtype, double scale,
                              const float **out, float **owned)
{
    *out = NULL;
    *owned = NULL;
    size_t count = 0;
    gmm_status st = check_shape(X, n, dim, dtype, scale, sizeof(float), &count);
    if (st != GMM_OK) return st;
    if (dtype == GMM_DTYPE_FLOAT32 && scale == 1.0) {
        const float *x = X;
        for (size_t i = 0; i < count; i++)
            if (!isfinite(x[i])) return not_finite(i, dim);
        *out = x;
        return GMM_OK;
    }
    float *copy = malloc(sizeof(float) * count);
    if (!copy)
        return gmm_error(GMM_ERR_NOMEM, "out of memory converting %lld x %d values to float32",
                         (long long)n, dim);
    for (size_t i = 0; i < count; i++) {
        const double v = (dtype == GMM_DTYPE_FLOAT64  ? ((const double *)X)[i]
                          : dtype == GMM_DTYPE_FLOAT32 ? (double)((const float *)X)[i]
                                                       : (double)((const uint8_t *)X)[i]) *
                         scale;
        if (!(fabs(v) <= FLT_MAX)) { /* NaN, infinite, or beyond float32 */
            free(copy);
            return not_finite(i, dim);
        }
        copy[i] = (float)v;
    }
    *out = copy;
    *owned = copy;
    return GMM_OK;
}
