/* The monotonic wall clock in seconds, for every layer's timings and waits (one definition). */
#ifndef GMM_CLOCK_H
#define GMM_CLOCK_H

#include <time.h>

static inline double gmm_clock_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

#endif
