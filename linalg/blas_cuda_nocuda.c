/* Stand-ins for blas_cuda.h in a build without CUDA: every entry point is GMM_ERR_NO_DEVICE. */
#include <stddef.h>

#include "linalg/blas_cuda.h"

static gmm_status no_cuda(void)
{
    return gmm_error(GMM_ERR_NO_DEVICE, "this build has no CUDA support");
}

gmm_status la_cuda_create(la_cuda **out)
{
    *out = NULL;
    return no_cuda();
}
void la_cuda_destroy(la_cuda *h) { (void)h; }
gmm_status la_cuda_set_tf32(la_cuda *h, bool on)
{
    (void)h; (void)on;
    return no_cuda();
}
gmm_status la_cuda_gemm_benchmark(int precision, int m, int n, int k, int repeats,
                                  double *median_ms)
{
    (void)precision; (void)m; (void)n; (void)k; (void)repeats;
    *median_ms = -1;
    return no_cuda();
}
