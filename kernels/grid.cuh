/* Internal to the kernel layer's .cu files: the grid of a grid-stride launch over n elements. */
#ifndef GMM_GRID_CUH
#define GMM_GRID_CUH

#include <stdint.h>

/* ceil(n / threads) blocks, at least 1 and at most 65536 (the kernels stride over the rest). */
static inline int kernel_grid_for(int64_t n, int threads)
{
    int64_t g = (n + threads - 1) / threads;
    if (g > 65536) g = 65536;
    if (g < 1) g = 1;
    return (int)g;
}

#endif
