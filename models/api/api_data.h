/* The public interface's data in: row-major n x dim arrays of GMM_DTYPE_FLOAT64 / FLOAT32 /
 * UINT8 with a scale (include/gmm/gmm.h), checked and made float64 (the mixture) or float32
 * (the UMAP space). Internal to models/api/. */
#ifndef GMM_API_DATA_H
#define GMM_API_DATA_H

#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X as float64: in place for float64 with scale 1, else a converted copy in *owned (free it).
 * Every value must be finite: GMM_ERR_NUMERIC naming the sample and feature. */
gmm_status gmm_api_as_float64(const void *X, int64_t n, int dim, int dtype, double scale,
                              const double **out, double **owned);
/* X as float32 (each value times scale, rounded): in place for float32 with scale 1, else a
 * converted copy in *owned (free it). Every value must be finite in float32. */
gmm_status gmm_api_as_float32(const void *X, int64_t n, int dim, int dtype, double scale,
                              const float **out, float **owned);

#ifdef __cplusplus
}
#endif
#endif
