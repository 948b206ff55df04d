/* CPU version of the row compaction (see compact.h). */
#include "kernels/compact.h"

gmm_status compact_rows_cpu(const double *X, size_t n_samples, int dim, const double *weights,
                            size_t weight_stride, int n_components, const double *means,
                            double *packed, int *bounds)
{
    if (!X || !weights || !means || !packed || !bounds || dim <= 0 || n_components <= 0 ||
        weight_stride < 1 || n_samples * (size_t)n_components >= 0x7fffffff)
        return gmm_error(GMM_ERR_ARG, "compact_rows_cpu: bad arguments");
    size_t kept = 0;
    for (int k = 0; k < n_components; k++) {
        bounds[k] = (int)kept;
        for (size_t i = 0; i < n_samples; i++) {
            const double w = weights[i * weight_stride + k];
            if (!(w > COMPACT_NEGLIGIBLE_WEIGHT)) continue;
            scaled_centre_row(X + i * dim, dim, w, means + (size_t)k * dim, packed + kept * dim);
            kept++;
        }
    }
    bounds[n_components] = (int)kept;
    return GMM_OK;
}
