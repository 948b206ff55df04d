/* The data of the E-step suites that leave the pairs of no weight partial (test_cpu_estep_pruned,
 * test_gpu_estep_pruned): d = 350 (column blocks of 112, 112, 112 and 14), four components of
 * means 0 everywhere, 0.1 (overlapping the first), 6 (far: its pairs dropped after block 0) and
 * 0 in block 0 then 2.5 (dropped after a later block); row i is mu_{i % 4} + N(0, I). */
#ifndef GMM_TESTS_ESTEP_PAIRS_DATA_H
#define GMM_TESTS_ESTEP_PAIRS_DATA_H

#include "models/core/em.h"
#include "models/data_view.h"
#include "tests/testutil.h"

#define PAIRS_N 2000
#define PAIRS_D 350
#define PAIRS_K 4

static const double PAIRS_SHIFT[PAIRS_K] = {0.0, 0.1, 6.0, 2.5};
static const int PAIRS_SHIFT_FROM[PAIRS_K] = {0, 0, 0, 112}; /* the first shifted column */

/* mu_k[j] */
static inline double pairs_mean(int k, int j)
{
    return j >= PAIRS_SHIFT_FROM[k] ? PAIRS_SHIFT[k] : 0.0;
}

/* X: PAIRS_N x PAIRS_D */
static inline void pairs_data(double *X)
{
    uint64_t s = 4242;
    for (int i = 0; i < PAIRS_N; i++)
        for (int j = 0; j < PAIRS_D; j++)
            X[(size_t)i * PAIRS_D + j] = pairs_mean(i % PAIRS_K, j) + tu_rand_normal(&s);
}

/* Fits of 5 iterations of the data v on device, chunks of chunk_rows rows (0: the default),
 * with every pair (tuning.estep_all_pairs 1) and skipping (-1: at any size) agree to rounding:
 * lower bound 1e-12, means and weights 1e-10, factors 1e-8. */
static inline void pairs_view_fits_agree(const gmm_data_view *v, gmm_device device,
                                         int64_t chunk_rows)
{
    gmm_model m[2] = {{0}, {0}};
    for (int all = 0; all < 2; all++) {
        gmm_options o;
        gmm_options_default(&o);
        o.n_components = PAIRS_K;
        o.device = device;
        o.max_iter = 5;
        o.tol = 0;
        o.tuning.estep_all_pairs = all ? 1 : -1;
        o.tuning.chunk_rows = chunk_rows;
        TU_CHECK_OK(gmm_fit_view(v, &o, &m[all], NULL));
    }
    ck_assert_msg(tu_rel_error_1(m[0].lower_bound, m[1].lower_bound) < 1e-12,
                  "lower bound %.17g against %.17g", m[0].lower_bound, m[1].lower_bound);
    ck_assert(tu_rel_error(m[0].means, m[1].means, PAIRS_K * PAIRS_D) < 1e-10);
    ck_assert(tu_rel_error(m[0].weights, m[1].weights, PAIRS_K) < 1e-10);
    ck_assert(tu_rel_error(m[0].precisions_cholesky, m[1].precisions_cholesky,
                           PAIRS_K * PAIRS_D * PAIRS_D) < 1e-8);
    gmm_model_free(&m[0]);
    gmm_model_free(&m[1]);
}

/* The same on the float64 rows of pairs_data. */
static inline void pairs_fits_agree(gmm_device device)
{
    double *X = malloc(sizeof(double) * PAIRS_N * PAIRS_D);
    ck_assert_ptr_nonnull(X);
    pairs_data(X);
    gmm_data_view v = {GMM_ELEM_F64, X, PAIRS_N, PAIRS_D, 0, PAIRS_N};
    pairs_view_fits_agree(&v, device, 0);
    free(X);
}

#endif
