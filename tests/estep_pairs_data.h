/* The data of the E-step suites that leave the pairs of no weight partial (test_cpu_estep_pruned,
 * test_gpu_estep_pruned): d = 350 (column blocks of 112, 112, 112 and 14), four components of
 * means 0 everywhere, 0.1 (overlapping the first), 6 (far: its pairs dropped after block 0) and
 * 2.5 (dropped after a later block); row i is mu_{i % 4} + N(0, I). */
#ifndef GMM_TESTS_ESTEP_PAIRS_DATA_H
#define GMM_TESTS_ESTEP_PAIRS_DATA_H

#include "tests/testutil.h"

#define PAIRS_N 2000
#define PAIRS_D 350
#define PAIRS_K 4

static const double PAIRS_SHIFT[PAIRS_K] = {0.0, 0.1, 6.0, 2.5};

/* X: PAIRS_N x PAIRS_D */
static inline void pairs_data(double *X)
{
    uint64_t s = 4242;
    for (int i = 0; i < PAIRS_N; i++)
        for (int j = 0; j < PAIRS_D; j++)
            X[(size_t)i * PAIRS_D + j] = PAIRS_SHIFT[i % PAIRS_K] + tu_rand_normal(&s);
}

#endif
