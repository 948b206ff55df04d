/* Check suite for the diagnostics: histograms sum to their counts, the chi-square distribution's
 * numbers, the chi-square check passing on a fitted Gaussian and failing on a mixture fitted with
 * one component, squared Mahalanobis distances against a direct computation, typical samples and
 * outliers, separation, entropy maps (hand values and the CPU twin, and their colours in
 * means_entropy.png), the row captions of samples.png and typical.png, and the programs'
 * options --diagnostics, --images, --blur and --init knn, with their bad values. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/colormap.h"
#include "data/png_write.h"
#include "kernels/entropy.h"
#include "models/eval/diagnostics.h"
#include "models/io/model_io.h"
#include "models/core/em.h"
#include "models/core/pixel_means.h"
#include "models/core/score.h"
#include "tests/testutil.h"

START_TEST(test_histogram_sums_to_count)
{
    double v[1000];
    tu_fill_uniform(v, 1000, -2, 12, 3);
    v[5] = NAN;
    int64_t counts[7], n_counted = 0, sum = 0;
    ck_assert_int_eq(gmm_histogram(v, 1000, 0, 10, 7, counts, &n_counted), GMM_OK);
    for (int b = 0; b < 7; b++) sum += counts[b];
    ck_assert_int_eq(n_counted, 999);
    ck_assert_int_eq(sum, 999);
    double edges[4] = {0.0, 0.5, 0.99, 1.0};
    ck_assert_int_eq(gmm_histogram(edges, 4, 0, 1, 2, counts, NULL), GMM_OK);
    ck_assert_int_eq(counts[0], 1);
    ck_assert_int_eq(counts[1], 3); /* 0.5 starts bin 1; hi itself goes to the last bin */
    ck_assert_int_eq(gmm_histogram(edges, 4, 1, 1, 2, counts, NULL), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_chi2_numbers)
{
    for (double x = 0.5; x < 10; x += 1.5)
        ck_assert_double_eq_tol(gmm_chi2_cdf(x, 2), 1 - exp(-x / 2), 1e-12);
    ck_assert_double_eq_tol(gmm_chi2_cdf(3.841458820694124, 1), 0.95, 1e-9);
    ck_assert_double_eq_tol(gmm_chi2_cdf(18.307038053275146, 10), 0.95, 1e-9);
    /* median of chi-square(784) is about d (1 - 2 / (9 d))^3 */
    double med = 784 * pow(1 - 2.0 / (9 * 784), 3);
    ck_assert_double_eq_tol(gmm_chi2_cdf(med, 784), 0.5, 1e-3);
    ck_assert_double_eq_tol(gmm_chi2_pdf(2.0, 2), 0.5 * exp(-1), 1e-12);
    /* the density integrates to 1 (trapezoid over [0, 2000] for d = 784) */
    double integral = 0;
    for (double x = 0.5; x < 2000; x += 1) integral += gmm_chi2_pdf(x, 784);
    ck_assert_double_eq_tol(integral, 1.0, 1e-6);
}
END_TEST

/* squared Mahalanobis distances of n samples under a 1-component full-covariance fit */
static double ks_of_one_component_fit(const double *X, int n, int d)
{
    gmm_options o;
    gmm_options_default(&o);
    o.device = GMM_DEVICE_CPU;
    gmm_model m = {0};
    ck_assert_int_eq(gmm_fit(X, n, d, &o, &m), GMM_OK);
    double *ll = malloc(sizeof(double) * n), *proba = malloc(sizeof(double) * n),
           *d2 = malloc(sizeof(double) * n);
    int *lab = malloc(sizeof(int) * n);
    ck_assert_int_eq(gmm_score_samples(&m, X, n, GMM_DEVICE_CPU, ll, proba, lab), GMM_OK);
    ck_assert_int_eq(gmm_mahalanobis_assigned(&m, ll, proba, lab, n, d2), GMM_OK);
    double ks;
    ck_assert_int_eq(gmm_chi2_ks(d2, n, d, &ks), GMM_OK);
    gmm_model_free(&m);
    free(ll);
    free(proba);
    free(d2);
    free(lab);
    return ks;
}

START_TEST(test_chi2_check_gaussian_passes_mixture_fails)
{
    enum { N = 3000, D = 5 };
    double *X = malloc(sizeof(double) * N * D);
    uint64_t s = 9;
    /* a correlated Gaussian: x = A z + mu */
    for (int i = 0; i < N; i++) {
        double z[D];
        for (int j = 0; j < D; j++) z[j] = tu_rand_normal(&s);
        for (int j = 0; j < D; j++) X[i * D + j] = 3 + z[j] * (1 + j) + (j ? 0.7 * z[j - 1] : 0);
    }
    double ks = ks_of_one_component_fit(X, N, D);
    ck_assert_msg(ks < gmm_chi2_ks_threshold(N), "Gaussian failed: KS %g", ks);
    /* two Gaussians 8 sd apart, fitted as one */
    for (int i = 0; i < N; i++)
        for (int j = 0; j < D; j++) X[i * D + j] = tu_rand_normal(&s) + (i % 2 ? 8.0 : 0.0);
    ks = ks_of_one_component_fit(X, N, D);
    ck_assert_msg(ks > gmm_chi2_ks_threshold(N), "mixture passed: KS %g", ks);
    free(X);
}
END_TEST

START_TEST(test_mahalanobis_matches_direct)
{
    enum { N = 50, D = 3, K = 2 };
    gmm_model m = {0};
    ck_assert_int_eq(gmm_model_alloc(&m, K, D, GMM_COV_DIAG), GMM_OK);
    double var[K * D] = {1, 2, 0.5, 3, 1, 4};
    for (int k = 0; k < K; k++) {
        m.weights[k] = 0.5;
        for (int j = 0; j < D; j++) {
            m.means[k * D + j] = k * 5.0 + j;
            m.covariances[k * D + j] = var[k * D + j];
        }
    }
    ck_assert_int_eq(gmm_model_compute_precisions(&m), GMM_OK);
    double X[N * D], ll[N], proba[N * K], d2[N];
    int lab[N];
    tu_fill_uniform(X, N * D, -2, 8, 4);
    ck_assert_int_eq(gmm_score_samples(&m, X, N, GMM_DEVICE_CPU, ll, proba, lab), GMM_OK);
    ck_assert_int_eq(gmm_mahalanobis_assigned(&m, ll, proba, lab, N, d2), GMM_OK);
    for (int i = 0; i < N; i++) {
        int k = lab[i];
        double direct = 0;
        for (int j = 0; j < D; j++) {
            double t = X[i * D + j] - m.means[k * D + j];
            direct += t * t / var[k * D + j];
        }
        ck_assert_double_eq_tol(d2[i], direct, 1e-8 * (1 + direct));
    }
    gmm_model_free(&m);
}
END_TEST

START_TEST(test_lowest_and_typical)
{
    double v[8] = {5, -1, NAN, 3, -7, 2, 9, 0};
    int64_t idx[3];
    ck_assert_int_eq(gmm_lowest_indices(v, 8, 3, idx), GMM_OK);
    ck_assert_int_eq(idx[0], 2); /* NaN counts as the lowest */
    ck_assert_int_eq(idx[1], 4);
    ck_assert_int_eq(idx[2], 1);
    ck_assert_int_eq(gmm_lowest_indices(v, 8, 9, idx), GMM_ERR_ARG);
    double score[6] = {4, 1, 3, 2, 8, 0};
    int lab[6] = {0, 0, 0, 1, 0, 1};
    int64_t most[6], least[6];
    ck_assert_int_eq(gmm_typical_indices(score, lab, 6, 2, 3, most, least), GMM_OK);
    ck_assert_int_eq(most[0], 1);
    ck_assert_int_eq(most[1], 2);
    ck_assert_int_eq(most[2], 0);
    ck_assert_int_eq(least[0], 4);
    ck_assert_int_eq(least[1], 0);
    ck_assert_int_eq(most[3], 5);
    ck_assert_int_eq(most[4], 3);
    ck_assert_int_eq(most[5], -1); /* component 1 has two samples */
}
END_TEST

START_TEST(test_separation)
{
    enum { N = 400, D = 4, BINS = 32 };
    float X[N * D];
    int lab[N];
    uint64_t s = 2;
    for (int i = 0; i < N; i++) {
        lab[i] = i % 2;
        for (int j = 0; j < D; j++) X[i * D + j] = (float)(tu_rand_normal(&s) + (lab[i] ? 30 : 0));
    }
    double w[2] = {0.5, 0.5}, hist[2 * BINS];
    gmm_separation sep[2];
    ck_assert_int_eq(gmm_separation_summary(X, N, D, lab, w, 2, 10, BINS, NULL, sep, hist), GMM_OK);
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(sep[k].n_queries, 10);
        ck_assert_double_eq_tol(sep[k].mean_min, 0.0, 1e-6); /* each query finds itself */
        ck_assert_msg(sep[k].near_far_ratio < 0.3, "ratio %g", sep[k].near_far_ratio);
        double total = 0;
        for (int b = 0; b < BINS; b++) total += hist[k * BINS + b];
        ck_assert_double_eq_tol(total, 1.0, 1e-9);
    }
}
END_TEST

START_TEST(test_entropy_map_values)
{
    /* a constant map has entropy 0; a 5 x 5 map of two values split 13 / 12 has, at its centre,
     * H = -(13/25) log(13/25) - (12/25) log(12/25) */
    uint8_t lv[25];
    float h[25];
    memset(lv, 7, sizeof lv);
    ck_assert_int_eq(entropy_cpu(lv, 5, 5, h), GMM_OK);
    for (int i = 0; i < 25; i++) ck_assert_float_eq(h[i], 0.0f);
    for (int i = 0; i < 25; i++) lv[i] = (uint8_t)(i % 2 ? 15 : 0);
    ck_assert_int_eq(entropy_cpu(lv, 5, 5, h), GMM_OK);
    double want = -(13 / 25.0) * log(13 / 25.0) - (12 / 25.0) * log(12 / 25.0);
    ck_assert_double_eq_tol(h[12], want, 1e-5);
    if (!tu_gpu_available()) {
        printf("no GPU: entropy CUDA twin not compared\n");
        return;
    }
    enum { R = 28, C = 28 };
    uint8_t q[R * C];
    float cpu[R * C], gpu[R * C];
    uint64_t s = 3;
    for (int i = 0; i < R * C; i++) q[i] = (uint8_t)(tu_rand_u64(&s) % 16);
    ck_assert_int_eq(entropy_cpu(q, R, C, cpu), GMM_OK);
    ck_assert_int_eq(entropy_cuda_host(q, R, C, gpu), GMM_OK);
    ck_assert_double_le(tu_rel_error_f(gpu, cpu, R * C), 1e-6);
}
END_TEST

/* ---- the programs --------------------------------------------------------------------- */

#define FIX_N 300
#define FIX_SIDE 8

/* train-* and t10k-* of 8 x 8 images: a bright left or right half plus noise, labelled 0 / 1 */
static const char *fixture_dir(void)
{
    return tu_fixture_dir("fixture", FIX_N, FIX_SIDE, 21, 0);
}

static void expect_file(const char *name)
{
    struct stat sb;
    const char *p = tu_tmp_path(name);
    ck_assert_msg(stat(p, &sb) == 0 && sb.st_size > 100, "%s missing or empty", p);
}

/* Checks that each of the K caption bands of an image stack of K strips (FIX_SIDE x width,
 * scale 2) holds black text on white and nothing else, and so does the labels band when there is
 * one. */
static void expect_row_captions(const char *name, int K, int width, int has_labels)
{
    png_column_label label = {0, 1, "x"};
    png_stack_layout lay;
    ck_assert_int_eq(png_image_stack_layout(K, FIX_SIDE, width, 2, NULL, &label, has_labels, &lay),
                     GMM_OK);
    uint8_t *img = NULL;
    int w, h;
    ck_assert_int_eq(png_read_gray(tu_tmp_path(name), &img, &w, &h), GMM_OK);
    ck_assert_int_eq(h, lay.height);
    for (int band = has_labels ? -1 : 0; band < K; band++) {
        int y0 = band < 0 ? lay.labels_y : lay.first_y + band * lay.row_pitch;
        int y1 = y0 + (band < 0 ? lay.labels_height : lay.caption_height), dark = 0;
        for (int y = y0; y < y1; y++)
            for (int x = 0; x < w; x++) {
                uint8_t v = img[(size_t)y * w + x];
                ck_assert_msg(v == 0 || v == 255, "%s: pixel (%d,%d) = %d in a caption band", name,
                              x, y, v);
                dark += v == 0;
            }
        ck_assert_msg(dark > 50, "%s: caption band %d is blank", name, band);
    }
    free(img);
}

START_TEST(test_train_diagnostics_images_knn)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train %s -k 2 --init knn --knn-neighbors 5 --knn-sample 200 "
                       "--covariance diag --device cpu --diagnostics diag --images img "
                       "-o knn.bin --png means.png", dir);
    ck_assert_msg(rc == 0, "gmm-train failed: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "knn init"));
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    ck_assert_ptr_nonnull(strstr(out, "chi-square(64)"));
    free(out);
    const char *files[] = {"diag/mahalanobis.txt", "diag/mahalanobis_k0.png",
                           "diag/mahalanobis_k1.png", "diag/separation.txt",
                           "diag/separation.png", "diag/loglik_hist.png", "diag/outliers.png",
                           "diag/loglik_iterations.png", "img/means_entropy.png",
                           "img/samples.png", "img/typical.png"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) expect_file(files[i]);
    /* every row of samples.png (6 images) and typical.png (5, a gap, 5) has its caption, and
     * typical.png its column labels: text-only bands where the layout puts them (images drawn
     * at scale 2, 8 x 8 images with a white column between them) */
    expect_row_captions("img/samples.png", 2, 6 * (FIX_SIDE + 1) - 1, 0);
    expect_row_captions("img/typical.png", 2, 11 * (FIX_SIDE + 1) - 1, 1);
}
END_TEST

START_TEST(test_predict_diagnostics_and_blur)
{
    const char *dir = fixture_dir();
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train %s -k 2 --covariance diag --device cpu --blur 1.0 -q "
                       "-o blur.bin --png ''", dir);
    ck_assert_msg(rc == 0, "gmm-train --blur failed: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    free(out);
    rc = tu_sh(&out, "$B/gmm-predict blur.bin %s --blur 1.0 --device cpu --diagnostics pdiag "
                   "--images pimg", dir);
    ck_assert_msg(rc == 0, "gmm-predict failed: %s", out);
    ck_assert_ptr_nonnull(strstr(out, "accuracy 1.0000"));
    free(out);
    expect_file("pdiag/mahalanobis.txt");
    expect_file("pdiag/outliers.png");
    expect_file("pimg/typical.png");
}
END_TEST

/* means_entropy.png in colour: a model whose mean 0 is all zeros (entropy 0 everywhere) and whose
 * mean 1 is a checkerboard of levels 0 and 15. Mean 0's map is a block of colour map entry 0
 * exactly, beside the mean in black after a white column; mean 1's map is brighter in the
 * colour map; and the colour bar under the grid runs to the last entry. */
START_TEST(test_entropy_image_colors)
{
    gmm_model m;
    const int side = FIX_SIDE, d = FIX_SIDE * FIX_SIDE, scale = 4;
    ck_assert_int_eq(gmm_model_alloc(&m, 2, d, GMM_COV_DIAG), GMM_OK);
    m.image_rows = m.image_cols = side;
    m.weights[0] = m.weights[1] = 0.5;
    for (int j = 0; j < d; j++) {
        m.means[j] = 0;
        m.means[d + j] = ((j / side + j % side) % 2) ? 1.0 : 0.0;
        m.covariances[j] = m.covariances[d + j] = 0.1;
    }
    ck_assert_int_eq(gmm_model_compute_precisions(&m), GMM_OK);
    ck_assert_int_eq(gmm_model_save(tu_tmp_path("entropy.bin"), &m), GMM_OK);
    gmm_model_free(&m);
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-predict entropy.bin %s --device cpu --images eimg", fixture_dir());
    ck_assert_msg(rc == 0, "gmm-predict failed: %s", out);
    free(out);
    int w, h;
    uint8_t *img = tu_read_png_rgb(tu_tmp_path("eimg/means_entropy.png"), &w, &h);
    uint8_t first[3], last[3], white[3] = {255, 255, 255}, black[3] = {0, 0, 0};
    colormap_entry(0, first);
    colormap_entry(COLORMAP_SIZE - 1, last);
    /* the first pixel of entry 0 in reading order is the top-left of mean 0's map */
    int fx = -1, fy = -1;
    for (int i = 0; i < w * h && fx < 0; i++)
        if (!memcmp(img + 3 * i, first, 3)) fx = i % w, fy = i / w;
    ck_assert_int_ge(fx, side * scale + 1);
    for (int y = fy; y < fy + side * scale; y++) {
        for (int x = fx; x < fx + side * scale; x++)
            ck_assert_msg(!memcmp(img + 3 * ((size_t)y * w + x), first, 3),
                          "pixel (%d,%d) of a zero-entropy map is not colour map entry 0", x, y);
        ck_assert_mem_eq(img + 3 * ((size_t)y * w + fx - 1), white, 3);          /* the gap */
        ck_assert_mem_eq(img + 3 * ((size_t)y * w + fx - scale - 1), black, 3);  /* mean 0 */
    }
    /* mean 1's map (the second tile, in the same row): not entry 0 at its centre */
    int later_colored = 0, has_last = 0;
    for (int i = 0; i < w * h; i++) {
        const uint8_t *px = img + 3 * i;
        int gray = px[0] == px[1] && px[1] == px[2];
        if (i / w > fy && i / w < fy + side * scale && i % w > fx + side * scale && !gray)
            later_colored += memcmp(px, first, 3) != 0;
        has_last |= !memcmp(px, last, 3) && i / w > fy + side * scale;
    }
    ck_assert_int_gt(later_colored, side * scale);
    ck_assert_msg(has_last, "no colour bar reaching the last colour map entry");
    free(img);
}
END_TEST

START_TEST(test_help_and_bad_values)
{
    char *out = NULL;
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-train --help"), 0);
    const char *opts[] = {"--knn-neighbors", "--knn-sample", "--diagnostics", "--images",
                          "--blur", "knn"};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++)
        ck_assert_msg(strstr(out, opts[i]) != NULL, "%s not in --help", opts[i]);
    free(out);
    ck_assert_int_eq(tu_sh(&out, "$B/gmm-predict --help"), 0);
    ck_assert_ptr_nonnull(strstr(out, "--diagnostics"));
    free(out);
    const char *dir = fixture_dir();
    tu_expect_error("--knn-neighbors", "$B/gmm-train %s --knn-neighbors 0", dir);
    tu_expect_error("--knn-neighbors", "$B/gmm-train %s --knn-neighbors 200", dir);
    tu_expect_error("--knn-sample", "$B/gmm-train %s --knn-sample x", dir);
    tu_expect_error("--blur must be 0 (none) or in", "$B/gmm-train %s --blur 0.001", dir);
    tu_expect_error("--blur", "$B/gmm-train %s --blur -1", dir);
    tu_expect_error("--init", "$B/gmm-train %s --init knnn", dir);
    tu_expect_error("--diagnostics", "$B/gmm-train %s --diagnostics ''", dir);
    tu_expect_error("directory", "$B/gmm-train %s -k 2 -q --covariance diag --png '' -o x.bin "
                                 "--diagnostics /dev/null/diag", dir);
}
END_TEST

static Suite *diagnostics_suite(void)
{
    Suite *s = suite_create("diagnostics");
    TCase *tc = tcase_create("numbers");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_histogram_sums_to_count);
    tcase_add_test(tc, test_chi2_numbers);
    tcase_add_test(tc, test_chi2_check_gaussian_passes_mixture_fails);
    tcase_add_test(tc, test_mahalanobis_matches_direct);
    tcase_add_test(tc, test_lowest_and_typical);
    tcase_add_test(tc, test_separation);
    tcase_add_test(tc, test_entropy_map_values);
    suite_add_tcase(s, tc);
    TCase *tp = tcase_create("programs");
    tcase_set_timeout(tp, 300);
    tcase_add_test(tp, test_train_diagnostics_images_knn);
    tcase_add_test(tp, test_predict_diagnostics_and_blur);
    tcase_add_test(tp, test_entropy_image_colors);
    tcase_add_test(tp, test_help_and_bad_values);
    suite_add_tcase(s, tp);
    return s;
}

int main(void) { return tu_run_suite(diagnostics_suite()); }
