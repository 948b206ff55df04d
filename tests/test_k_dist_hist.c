/* Check suite for kernels/dist_hist.h: the CPU twin against a naive double-precision loop, the
 * degenerate cases (one reference, all references equal: everything in bin 0), and on a GPU the
 * CUDA kernel against the CPU twin. Every histogram must sum to n_refs exactly, hold the min in
 * bin 0 and the max in the last bin. Tolerance: min and max within 1e-5 relative; a distance
 * within rounding of a bin edge may land in the neighbouring bin, so the L1 difference between two
 * histograms of one query may be at most 2 + 2 x (the number of distances within 1e-5 x max of a
 * bin edge, counted by the naive loop); every other distance must land in the same bin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/dist_hist.h"
#include "tests/testutil.h"

static void hist_naive(const float *q, size_t m, const float *r, size_t n, size_t dim, size_t bins,
                       uint32_t *hist, double *lo_out, double *hi_out, uint32_t *near_edge)
{
    double *d = malloc(sizeof(double) * n);
    for (size_t i = 0; i < m; i++) {
        double lo = INFINITY, hi = -INFINITY;
        for (size_t j = 0; j < n; j++) {
            double s = 0;
            for (size_t c = 0; c < dim; c++) {
                double diff = (double)q[i * dim + c] - r[j * dim + c];
                s += diff * diff;
            }
            d[j] = sqrt(s);
            lo = fmin(lo, d[j]);
            hi = fmax(hi, d[j]);
        }
        memset(hist + i * bins, 0, sizeof(uint32_t) * bins);
        near_edge[i] = 0;
        for (size_t j = 0; j < n; j++) {
            double pos = hi > lo ? (d[j] - lo) * bins / (hi - lo) : 0;
            if (hi > lo && fabs(pos - round(pos)) <= 1e-5 * hi * bins / (hi - lo)) near_edge[i]++;
            size_t b = (size_t)floor(pos);
            if (b >= bins) b = bins - 1;
            hist[i * bins + b]++;
        }
        lo_out[i] = lo;
        hi_out[i] = hi;
    }
    free(d);
}

static void check_hists(const uint32_t *h, const uint32_t *ref, size_t m, size_t n, size_t bins,
                        const uint32_t *near_edge)
{
    for (size_t i = 0; i < m; i++) {
        uint64_t sum = 0, l1 = 0;
        for (size_t b = 0; b < bins; b++) {
            sum += h[i * bins + b];
            l1 += h[i * bins + b] > ref[i * bins + b] ? h[i * bins + b] - ref[i * bins + b]
                                                      : ref[i * bins + b] - h[i * bins + b];
        }
        ck_assert_msg(sum == n, "query %zu: histogram sums to %llu, not %zu", i,
                      (unsigned long long)sum, n);
        ck_assert_msg(h[i * bins] >= 1 && h[i * bins + bins - 1] >= 1,
                      "query %zu: the min or the max is missing from its end bin", i);
        ck_assert_msg(l1 <= 2 + 2 * (uint64_t)near_edge[i], "query %zu: L1 difference %llu, %u near edges",
                      i, (unsigned long long)l1, near_edge[i]);
    }
}

typedef struct {
    size_t m, n, dim, bins;
} hist_case;

static void run_case(hist_case c, uint64_t seed, int gpu)
{
    float *q = malloc(sizeof(float) * c.m * c.dim), *r = malloc(sizeof(float) * c.n * c.dim);
    uint32_t *h = malloc(sizeof(uint32_t) * c.m * c.bins), *ref = malloc(sizeof(uint32_t) * c.m * c.bins);
    float *lo = malloc(sizeof(float) * c.m), *hi = malloc(sizeof(float) * c.m);
    double *ref_lo = malloc(sizeof(double) * c.m), *ref_hi = malloc(sizeof(double) * c.m);
    uint32_t *near = malloc(sizeof(uint32_t) * c.m);
    tu_fill_uniform_f(q, c.m * c.dim, -1.0f, 1.5f, seed);
    tu_fill_uniform_f(r, c.n * c.dim, -1.0f, 1.0f, seed + 1);
    hist_naive(q, c.m, r, c.n, c.dim, c.bins, ref, ref_lo, ref_hi, near);
    if (gpu) { /* the GPU against the CPU twin */
        ck_assert_int_eq(dist_hist_cpu(q, c.m, r, c.n, c.dim, c.bins, ref, NULL, NULL), GMM_OK);
    }
    memset(h, 0xAB, sizeof(uint32_t) * c.m * c.bins);
    for (size_t i = 0; i < c.m; i++) lo[i] = hi[i] = NAN;
    gmm_status st = gpu ? dist_hist_cuda_host(q, c.m, r, c.n, c.dim, c.bins, h, lo, hi)
                        : dist_hist_cpu(q, c.m, r, c.n, c.dim, c.bins, h, lo, hi);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    check_hists(h, ref, c.m, c.n, c.bins, near);
    for (size_t i = 0; i < c.m; i++) {
        ck_assert_double_eq_tol(lo[i], ref_lo[i], 1e-5 * (ref_hi[i] + 1e-30));
        ck_assert_double_eq_tol(hi[i], ref_hi[i], 1e-5 * (ref_hi[i] + 1e-30));
    }
    free(q), free(r), free(h), free(ref), free(lo), free(hi), free(ref_lo), free(ref_hi), free(near);
}

static const hist_case cpu_cases[] = {
    {1, 1, 1, 1}, {3, 1000, 7, 50}, {17, 2500, 129, 5000}, {20, 3000, 1, 10}, {1, 77, 3, 1},
};

START_TEST(test_cpu_vs_naive)
{
    for (size_t i = 0; i < sizeof cpu_cases / sizeof cpu_cases[0]; i++) run_case(cpu_cases[i], 3 + i, 0);
}
END_TEST

static void run_degenerate(int gpu)
{
    /* all references equal: max == min, all n in bin 0 */
    const size_t n = 300, dim = 4, bins = 16;
    float q[2 * 4] = {0.5f, -1, 2, 3, 1, 1, 1, 1}, *r = malloc(sizeof(float) * n * dim);
    for (size_t i = 0; i < n * dim; i++) r[i] = (float)(i % dim) - 0.25f;
    uint32_t h[2 * 16];
    memset(h, 0xAB, sizeof h);
    gmm_status st = gpu ? dist_hist_cuda_host(q, 2, r, n, dim, bins, h, NULL, NULL)
                        : dist_hist_cpu(q, 2, r, n, dim, bins, h, NULL, NULL);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    for (size_t i = 0; i < 2; i++) {
        ck_assert_uint_eq(h[i * bins], n);
        for (size_t b = 1; b < bins; b++) ck_assert_uint_eq(h[i * bins + b], 0);
    }
    free(r);
}

START_TEST(test_cpu_degenerate)
{
    run_degenerate(0);
    float x[2] = {1, 2};
    uint32_t h[4];
    ck_assert_int_eq(dist_hist_cpu(x, 1, x, 0, 2, 4, h, NULL, NULL), GMM_ERR_ARG);
    ck_assert_int_eq(dist_hist_cpu(x, 1, x, 1, 2, 0, h, NULL, NULL), GMM_ERR_ARG);
}
END_TEST

static const hist_case gpu_cases[] = {
    {1, 1, 1, 1},       {3, 1000, 7, 50},    {17, 2500, 129, 5000}, {20, 3000, 1, 10},
    {5, 700, 3, 40000}, {33, 5000, 128, 5000}, {1, 4099, 785, 3},   {100, 1025, 16, 257},
};

START_TEST(test_gpu_vs_cpu)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return;
    }
    for (size_t i = 0; i < sizeof gpu_cases / sizeof gpu_cases[0]; i++) run_case(gpu_cases[i], 50 + i, 1);
    run_degenerate(1);
}
END_TEST

static Suite *dist_hist_suite(void)
{
    Suite *s = suite_create("k_dist_hist");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_cpu_vs_naive);
    tcase_add_test(tc, test_cpu_degenerate);
    tcase_add_test(tc, test_gpu_vs_cpu);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(dist_hist_suite()); }
