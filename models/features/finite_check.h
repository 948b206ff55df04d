/* The check every stored number of a model passes: finite and at most GMM_MAX_ABS_VALUE in
 * magnitude, so that scoring (sums of d products of two of them, then squared) stays clear of
 * inf - inf. Used by the feature spaces' checks and the model file's (models/io/). */
#ifndef GMM_FINITE_CHECK_H
#define GMM_FINITE_CHECK_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#define GMM_MAX_ABS_VALUE 1e100

/* GMM_ERR_FORMAT naming field and the element (its component when k_stride > 0, the element's
 * index divided by k_stride) when one of the n values is not finite or too large. */
gmm_status gmm_check_finite(const char *field, const double *x, size_t n, int k_stride);

#endif
