/* Internal to the CUDA sources (kernels/reduce.cu, kernels/estep_rows.cu, and the CUDA backend
 * through models/backend/cuda/backend_cuda.cuh): the fixed-order warp and block reductions and the two-stage
 * sum kernels behind reduce_sum_cuda, for kernels that fold a reduction into their own work.
 * Every function is static, so each .cu file gets its own copy. */
#ifndef GMM_REDUCE_CUH
#define GMM_REDUCE_CUH

#include <stdint.h>

#include "kernels/cuda_check.h"
#include "kernels/reduce.h"

#define REDUCE_THREADS 256                     /* threads of every block_sum block */
#define REDUCE_BLOCKS REDUCE_SUM_MAX_PARTIALS  /* the most stage-1 blocks */

/* Butterfly sum / max over the 32 lanes of a warp; every lane gets the result. */
static __device__ __forceinline__ double warp_sum(double v)
{
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

static __device__ __forceinline__ double warp_max(double v)
{
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}

/* Fixed-order block sum (blockDim.x == REDUCE_THREADS, sh: REDUCE_THREADS shared doubles);
 * every thread gets the result. */
static __device__ double block_sum(double v, double *sh)
{
    sh[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    double r = sh[0];
    __syncthreads();
    return r;
}

/* partial[b] = the sum of x[i] over the grid-strided indices of block b. */
static __global__ void reduce_stage1_kernel(const double *__restrict__ x, int64_t n, double *partial)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x)
        s += x[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) partial[blockIdx.x] = s;
}

/* *out = scale * the sum of the n partials (one block). */
static __global__ void reduce_stage2_kernel(const double *__restrict__ partial, int n, double scale,
                                     double *out)
{
    __shared__ double sh[REDUCE_THREADS];
    double s = 0;
    for (int i = threadIdx.x; i < n; i += blockDim.x) s += partial[i];
    s = block_sum(s, sh);
    if (threadIdx.x == 0) *out = s * scale;
}

/* The stage-1 grid for n elements: one block per REDUCE_THREADS elements, 1 to REDUCE_BLOCKS. */
static inline int reduce_stage1_blocks(int64_t n)
{
    int64_t g = (n + REDUCE_THREADS - 1) / REDUCE_THREADS;
    if (g > REDUCE_BLOCKS) g = REDUCE_BLOCKS;
    if (g < 1) g = 1;
    return (int)g;
}

#endif
