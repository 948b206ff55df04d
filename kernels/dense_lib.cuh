/* Internal to the dense kernels' .cu files: the stream cast, the multiprocessor count, and the symmetric mirror/scale pass
 * shared by covariance and wcov. */
#ifndef GMM_DENSE_LIB_CUH
#define GMM_DENSE_LIB_CUH

#include "kernels/cuda_check.h"

static inline cudaStream_t dense_stream(void *stream) { return (cudaStream_t)stream; }

/* Multiprocessors of the current device (cached per device). */
int dense_sm_count(void);
/* Compute-capability major version of the current device (cached; 0 or less when unknown). */
int dense_cc_major(void);

/* Lower-triangle tile pair p -> (ti, tj), ti >= tj, p = ti (ti + 1) / 2 + tj. */
__device__ inline void dense_tile_pair(int p, int *ti, int *tj)
{
    int i = (int)((sqrt(8.0 * p + 1.0) - 1.0) * 0.5);
    while ((i + 1) * (i + 2) / 2 <= p) i++;
    while (i * (i + 1) / 2 > p) i--;
    *ti = i;
    *tj = p - i * (i + 1) / 2;
}

/* Number of split-K slabs for a grid of `tiles` independent output tiles when `resident` blocks
 * fit on the device at once: the count (at most max_slabs) whose last wave is fullest, the
 * smaller on ties, so that no nearly empty tail wave doubles the time. */
size_t dense_pick_slabs(size_t tiles, size_t resident, size_t max_slabs);

/* cov[i][j] for j > i := cov[j][i], and every element times scale (times *d_scale when it is not
 * NULL, a device scalar). Reads the lower triangle only. */
gmm_status dense_mirror_scale(double *d_cov, int dim, double scale, const double *d_scale,
                              cudaStream_t stream);
/* d_inv_sum[0] = 1 / (sum_i w[i * stride] + 10 * DBL_EPSILON), deterministic single block. */
gmm_status dense_inverse_weight_sum(const double *d_w, size_t n, size_t stride, double *d_inv_sum,
                                    cudaStream_t stream);

#endif
