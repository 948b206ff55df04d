/* CPU twin of the transpose (see transpose.h): 32 x 32 blocks so that both sides stay in cache. */
#include "kernels/transpose.h"

enum { TRANSPOSE_CPU_BLOCK = 32 };

gmm_status transpose_cpu(const float *in, size_t n_rows, size_t n_cols, float *out)
{
    if (!in || !out) return gmm_error(GMM_ERR_ARG, "transpose_cpu: NULL array");
    const long row_blocks = (long)((n_rows + TRANSPOSE_CPU_BLOCK - 1) / TRANSPOSE_CPU_BLOCK);
#pragma omp parallel for schedule(static)
    for (long rb = 0; rb < row_blocks; rb++) {
        size_t r0 = (size_t)rb * TRANSPOSE_CPU_BLOCK;
        size_t r1 = r0 + TRANSPOSE_CPU_BLOCK < n_rows ? r0 + TRANSPOSE_CPU_BLOCK : n_rows;
        for (size_t c0 = 0; c0 < n_cols; c0 += TRANSPOSE_CPU_BLOCK) {
            size_t c1 = c0 + TRANSPOSE_CPU_BLOCK < n_cols ? c0 + TRANSPOSE_CPU_BLOCK : n_cols;
            for (size_t r = r0; r < r1; r++)
                for (size_t c = c0; c < c1; c++) out[c * n_rows + r] = in[r * n_cols + c];
        }
    }
    return GMM_OK;
}
