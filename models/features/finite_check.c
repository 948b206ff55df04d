/* Finite, bounded values (models/features/finite_check.h). */
#include "models/features/finite_check.h"

#include <math.h>

gmm_status gmm_check_finite(const char *field, const double *x, size_t n, int k_stride)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || fabs(x[i]) > GMM_MAX_ABS_VALUE) {
            if (k_stride > 0)
                return gmm_error(GMM_ERR_FORMAT,
                                 "%s of component %zu, element %zu is %g (every value must be "
                                 "finite and at most %g in magnitude)",
                                 field, i / (size_t)k_stride, i % (size_t)k_stride, x[i],
                                 GMM_MAX_ABS_VALUE);
            return gmm_error(GMM_ERR_FORMAT,
                             "%s element %zu is %g (every value must be finite and at most %g "
                             "in magnitude)",
                             field, i, x[i], GMM_MAX_ABS_VALUE);
        }
    return GMM_OK;
}
