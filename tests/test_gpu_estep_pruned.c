/* Check suite for the CUDA E-step that leaves the pairs of no weight partial
 * (models/backend/cuda/cuda_estep_pruned.cu) against the CPU backend computing every pair in
 * full and against the CUDA backend doing so (tuning.estep_all_pairs): the same log p(x_i) and
 * responsibilities to rounding, the left pairs' log responsibilities below
 * -GMM_ESTEP_PRUNE_MARGIN and above the true ones, pairs actually left; a first E-step
 * (candidates from block 0) and a second (from the first's responsibilities), and one after an
 * M-step (the CUDA backend's reordered factors); one chunk and chunks of 300 rows; and whole
 * GPU fits, on float64 rows and on image bytes, equal to ones without the skipping. Skips
 * without a GPU. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/estep_rows.h"
#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/data_view.h"
#include "tests/estep_pairs_data.h"
#include "tests/testutil.h"

#define N PAIRS_N
#define D PAIRS_D
#define K PAIRS_K

/* A model of the data: a short CPU fit. */
static void model_of(const double *X, gmm_model *m)
{
    gmm_options o;
    gmm_options_default(&o);
    o.n_components = K;
    o.device = GMM_DEVICE_CPU;
    o.max_iter = 3;
    o.tol = 0;
    TU_CHECK_OK(gmm_fit(X, N, D, &o, m));
}

/* e_steps E-steps on a context of backend be (with mstep, an M-step before the last: the CUDA
 * backend's E-step then reads the covariances in its own coordinate order, factored again):
 * the last one's log p and log responsibilities. */
static void estep(const gmm_backend *be, const double *X, const gmm_model *m,
                  const gmm_tuning *tuning, int e_steps, bool mstep, double *ll, double *lr)
{
    gmm_backend_ctx *ctx = NULL;
    double mean;
    TU_CHECK_OK(gmm_backend_create_f64(be, &ctx, X, N, D, K, GMM_COV_FULL, GMM_PRECISION_FP64,
                                       tuning, NULL));
    TU_CHECK_OK(be->set_params(ctx, m));
    for (int e = 0; e < e_steps; e++) {
        if (mstep && e == e_steps - 1) TU_CHECK_OK(be->m_step(ctx, 1e-6, NULL));
        TU_CHECK_OK(be->e_step(ctx, &mean));
    }
    TU_CHECK_OK(be->get_estep(ctx, ll, lr));
    be->destroy(ctx);
}

/* _i: 0 one chunk, first E-step; 1 one chunk, second E-step; 2 and 3 the same in chunks of 300;
 * 4 and 5: the second E-step after an M-step (the reordered factors), one chunk and chunks of
 * 300 */
START_TEST(test_pruned_estep_matches_all_pairs)
{
    double *X = malloc(sizeof(double) * N * D), *ll[3], *lr[3];
    ck_assert_ptr_nonnull(X);
    pairs_data(X);
    gmm_model m = {0};
    model_of(X, &m);
    for (int v = 0; v < 3; v++) {
        ll[v] = malloc(sizeof(double) * N);
        lr[v] = malloc(sizeof(double) * N * K);
        ck_assert(ll[v] && lr[v]);
    }
    gmm_tuning all = {0}, pruned = {0};
    all.estep_all_pairs = 1;
    pruned.estep_all_pairs = -1; /* at 2000 rows too */
    const bool mstep = _i >= 4;
    all.chunk_rows = pruned.chunk_rows = (_i >= 2 && _i < 4) || _i == 5 ? 300 : 0;
    const int e_steps = _i % 2 || mstep ? 2 : 1;
    estep(&gmm_backend_cpu, X, &m, &all, e_steps, mstep, ll[0], lr[0]);
    estep(tu_gpu_backend(), X, &m, &all, e_steps, mstep, ll[1], lr[1]);
    estep(tu_gpu_backend(), X, &m, &pruned, e_steps, mstep, ll[2], lr[2]);
    int left = 0;
    for (int i = 0; i < N; i++) {
        for (int v = 1; v < 3; v++)
            ck_assert_msg(fabs(ll[v][i] - ll[0][i]) <= 1e-11 * fabs(ll[0][i]),
                          "row %d, variant %d: log p %.17g against %.17g", i, v, ll[v][i],
                          ll[0][i]);
        for (int k = 0; k < K; k++) {
            /* to rounding (1e-9 relative, 1e-8 absolute), or left: below -margin, above the
             * truth */
            const double ref = lr[0][i * K + k], a = lr[1][i * K + k], b = lr[2][i * K + k];
            const double tol = 1e-9 * fabs(ref) + 1e-8;
            ck_assert_msg(fabs(a - ref) <= tol, "all pairs: log resp %g against %g", a, ref);
            if (fabs(b - ref) > tol) {
                ck_assert_msg(b < -GMM_ESTEP_PRUNE_MARGIN && b > ref, "row %d: %g against %g",
                              i, b, ref);
                left++;
            }
        }
    }
    /* half the pairs belong to the far components 2 and 3 and another cluster's rows */
    ck_assert_msg(left > N * K / 3, "only %d of %d pairs left partial", left, N * K);
    for (int v = 0; v < 3; v++) free(ll[v]), free(lr[v]);
    gmm_model_free(&m);
    free(X);
}
END_TEST

/* A GPU fit with the skipping equals one without it to rounding. */
START_TEST(test_gpu_fit_equals_all_pairs) { pairs_fits_agree(GMM_DEVICE_GPU); }
END_TEST

/* The same on image bytes (the pairs' data as 60 + 20 x, clipped to [0, 255]), which the
 * device keeps as bytes and converts chunk by chunk: the skipping reads the converted chunks in
 * the reordered factors' coordinates. _i: 0 one chunk, 1 chunks of 300 rows. */
START_TEST(test_gpu_byte_fit_equals_all_pairs)
{
    double *X = malloc(sizeof(double) * N * D);
    uint8_t *B = malloc((size_t)N * D);
    ck_assert(X && B);
    pairs_data(X);
    for (size_t e = 0; e < (size_t)N * D; e++) {
        const double v = 60 + 20 * X[e];
        B[e] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v + 0.5);
    }
    gmm_data_view view = {GMM_ELEM_U8, B, N, D, 0, N};
    pairs_view_fits_agree(&view, GMM_DEVICE_GPU, _i ? 300 : 0);
    free(B);
    free(X);
}
END_TEST

static Suite *gpu_estep_pruned_suite(void)
{
    Suite *s = suite_create("gpu_estep_pruned");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_pruned_estep_matches_all_pairs, 0, 6);
    tcase_add_test(tc, test_gpu_fit_equals_all_pairs);
    tcase_add_loop_test(tc, test_gpu_byte_fit_equals_all_pairs, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (!tu_gpu_available()) {
        printf("GPU tests skipped: no GPU\n");
        return 0;
    }
    return tu_run_suite(gpu_estep_pruned_suite());
}
