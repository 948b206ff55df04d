/* CPU twin of the per-query distance histograms (see dist_hist.h): two passes per query over
 * the references, min/max then counts. */
#include "kernels/dist_hist.h"

#include <float.h>
#include <math.h>
#include <string.h>

static float distance(const float *x, const float *y, size_t dim)
{
    float acc = 0.0f;
#pragma omp simd reduction(+ : acc)
    for (size_t c = 0; c < dim; c++) {
        float diff = x[c] - y[c];
        acc += diff * diff;
    }
    return sqrtf(acc);
}

gmm_status dist_hist_cpu(const float *queries, size_t n_queries, const float *refs,
                         size_t n_refs, size_t dim, size_t n_bins, uint32_t *hist,
                         float *dist_min, float *dist_max)
{
    if (!queries || !refs || !hist || dim == 0 || n_bins == 0 || n_refs == 0 ||
        n_refs > UINT32_MAX || n_bins > INT32_MAX)
        return gmm_error(GMM_ERR_ARG, "dist_hist_cpu: need n_refs, dim, n_bins > 0");

#pragma omp parallel for schedule(dynamic)
    for (long q = 0; q < (long)n_queries; q++) {
        const float *x = queries + (size_t)q * dim;
        uint32_t *h = hist + (size_t)q * n_bins;
        float lo = FLT_MAX, hi = -FLT_MAX;
        for (size_t r = 0; r < n_refs; r++) {
            float d = distance(x, refs + r * dim, dim);
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        memset(h, 0, sizeof(uint32_t) * n_bins);
        float range = hi - lo;
        for (size_t r = 0; r < n_refs; r++) {
            float d = distance(x, refs + r * dim, dim);
            size_t bin = 0;
            if (range > 0) {
                float b = floorf((d - lo) * (float)n_bins / range);
                bin = b >= (float)n_bins ? n_bins - 1 : (b > 0 ? (size_t)b : 0);
            }
            h[bin]++;
        }
        if (dist_min) dist_min[q] = lo;
        if (dist_max) dist_max[q] = hi;
    }
    return GMM_OK;
}
