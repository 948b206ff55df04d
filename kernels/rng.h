/* A small deterministic random generator (xoshiro256** seeded through splitmix64): the same
 * --seed gives the same fit on every machine and backend. */
#ifndef GMM_RNG_H
#define GMM_RNG_H

#include <stdint.h>

typedef struct {
    uint64_t s[4];
} gmm_rng;

void gmm_rng_seed(gmm_rng *rng, uint64_t seed);
uint64_t gmm_rng_next(gmm_rng *rng);
double gmm_rng_uniform(gmm_rng *rng);            /* [0, 1) */
double gmm_rng_normal(gmm_rng *rng);             /* standard normal (Box-Muller) */
uint64_t gmm_rng_below(gmm_rng *rng, uint64_t n); /* uniform in [0, n) without modulo bias */

#endif
