/* CPU twin of the local entropy (see entropy.h). */
#include "kernels/entropy.h"

#include <math.h>

void entropy_tables(uint32_t clogc[ENTROPY_WINDOW * ENTROPY_WINDOW + 1],
                    float inv_scale[ENTROPY_WINDOW * ENTROPY_WINDOW + 1])
{
    clogc[0] = 0;
    inv_scale[0] = 0.0f;
    for (int c = 1; c <= ENTROPY_WINDOW * ENTROPY_WINDOW; c++) {
        clogc[c] = (uint32_t)llround(c * log(c) * 16777216.0);
        inv_scale[c] = (float)(1.0 / (c * 16777216.0));
    }
}

gmm_status entropy_cpu(const uint8_t *levels, size_t n_rows, size_t n_cols, float *entropy)
{
    if (!levels || !entropy) return gmm_error(GMM_ERR_ARG, "entropy_cpu: NULL array");
    size_t n = n_rows * n_cols;
    for (size_t i = 0; i < n; i++)
        if (levels[i] >= ENTROPY_LEVELS)
            return gmm_error(GMM_ERR_ARG, "entropy_cpu: value %u at %zu is above 15",
                             (unsigned)levels[i], i);
    uint32_t clogc[ENTROPY_WINDOW * ENTROPY_WINDOW + 1];
    float inv_scale[ENTROPY_WINDOW * ENTROPY_WINDOW + 1];
    entropy_tables(clogc, inv_scale);
    const long half = ENTROPY_WINDOW / 2;

#pragma omp parallel for schedule(static)
    for (long i = 0; i < (long)n_rows; i++) {
        long i0 = i - half < 0 ? 0 : i - half;
        long i1 = i + half >= (long)n_rows ? (long)n_rows - 1 : i + half;
        for (long j = 0; j < (long)n_cols; j++) {
            long j0 = j - half < 0 ? 0 : j - half;
            long j1 = j + half >= (long)n_cols ? (long)n_cols - 1 : j + half;
            int count[ENTROPY_LEVELS] = {0};
            for (long a = i0; a <= i1; a++)
                for (long b = j0; b <= j1; b++) count[levels[(size_t)a * n_cols + b]]++;
            int total = (int)((i1 - i0 + 1) * (j1 - j0 + 1));
            uint32_t sum = 0; /* exact: at most clogc[total] */
            for (int v = 0; v < ENTROPY_LEVELS; v++) sum += clogc[count[v]];
            entropy[(size_t)i * n_cols + j] = (float)(clogc[total] - sum) * inv_scale[total];
        }
    }
    return GMM_OK;
}
