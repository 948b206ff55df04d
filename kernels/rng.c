/* xoshiro256** with splitmix64 seeding (public-domain algorithms by Vigna and Blackman). */
#include "kernels/rng.h"

#include <math.h>

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

void gmm_rng_seed(gmm_rng *rng, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++) rng->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t gmm_rng_next(gmm_rng *rng)
{
    uint64_t *s = rng->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double gmm_rng_uniform(gmm_rng *rng) { return (gmm_rng_next(rng) >> 11) * 0x1.0p-53; }

double gmm_rng_normal(gmm_rng *rng)
{
    double u1;
    do u1 = gmm_rng_uniform(rng);
    while (u1 <= 0.0);
    double u2 = gmm_rng_uniform(rng);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t gmm_rng_below(gmm_rng *rng, uint64_t n)
{
    if (n <= 1) return 0;
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do r = gmm_rng_next(rng);
    while (r >= limit);
    return r % n;
}
