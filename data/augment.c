/* Elastic deformations and shifts of images (data/augment.h). */
#include "data/augment.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/rng.h"

void gmm_augment_params_default(gmm_augment_params *p)
{
    p->alpha = 34.0;
    p->sigma = 4.0;
    p->max_shift = 1;
}

gmm_status gmm_augment_params_check(const gmm_augment_params *p)
{
    if (!(p->alpha >= 0 && p->alpha <= 1000))
        return gmm_error(GMM_ERR_ARG, "augment: alpha must be in [0, 1000], got %g", p->alpha);
    if (!(p->sigma >= 0.5 && p->sigma <= 50))
        return gmm_error(GMM_ERR_ARG, "augment: sigma must be in [0.5, 50], got %g", p->sigma);
    if (p->max_shift < 0 || p->max_shift > 8)
        return gmm_error(GMM_ERR_ARG, "augment: max shift must be in [0, 8], got %d", p->max_shift);
    return GMM_OK;
}

/* The Gaussian's radius: 3 sigma, as far as a 28-pixel image needs, capped so that the taps fit
 * the work buffer. */
#define AUGMENT_MAX_RADIUS 64
static int gaussian_radius(double sigma)
{
    int r = (int)ceil(3.0 * sigma);
    return r > AUGMENT_MAX_RADIUS ? AUGMENT_MAX_RADIUS : r;
}

size_t gmm_augment_work_floats(int rows, int cols)
{
    return 3 * (size_t)rows * (size_t)cols + (size_t)cols + 4 * AUGMENT_MAX_RADIUS + 1;
}

/* Mirror index into [0, n) (scipy.ndimage's 'reflect' mode: d c b a | a b c d | d c b a). */
static int reflect(int i, int n)
{
    const int period = 2 * n;
    i %= period;
    if (i < 0) i += period;
    return i < n ? i : period - 1 - i;
}

/* field (rows x cols) smoothed in place by the separable Gaussian taps[-r .. r] (mirrored at
 * the edges), through tmp (rows x cols) and pad (cols + 2 r); the loops run along rows so that
 * they vectorise. */
static void smooth(float *field, float *tmp, float *pad, int rows, int cols, const float *taps,
                   int r)
{
    for (int y = 0; y < rows; y++) {
        const float *in = field + (size_t)y * cols;
        for (int x = -r; x < cols + r; x++) pad[x + r] = in[reflect(x, cols)];
        float *out = tmp + (size_t)y * cols;
        for (int x = 0; x < cols; x++) out[x] = 0;
        for (int t = -r; t <= r; t++) {
            const float w = taps[t];
            const float *src = pad + r + t;
            for (int x = 0; x < cols; x++) out[x] += w * src[x];
        }
    }
    for (int y = 0; y < rows; y++) {
        float *out = field + (size_t)y * cols;
        for (int x = 0; x < cols; x++) out[x] = 0;
        for (int t = -r; t <= r; t++) {
            const float w = taps[t];
            const float *src = tmp + (size_t)reflect(y + t, rows) * cols;
            for (int x = 0; x < cols; x++) out[x] += w * src[x];
        }
    }
}

static float pixel_or_zero(const uint8_t *src, int rows, int cols, int y, int x)
{
    return (y < 0 || y >= rows || x < 0 || x >= cols) ? 0.0f : (float)src[y * cols + x];
}

void gmm_augment_image(const uint8_t *src, int rows, int cols, const gmm_augment_params *p,
                       uint64_t seed, uint64_t index, float *work, uint8_t *dst)
{
    const size_t n = (size_t)rows * (size_t)cols;
    float *dx = work, *dy = work + n, *tmp = work + 2 * n, *taps = work + 3 * n + AUGMENT_MAX_RADIUS;
    float *pad = taps + AUGMENT_MAX_RADIUS + 1; /* cols + 2 r floats */
    const int r = gaussian_radius(p->sigma);
    double norm = 0;
    for (int t = -r; t <= r; t++) norm += exp(-0.5 * t * t / (p->sigma * p->sigma));
    for (int t = -r; t <= r; t++) taps[t] = (float)(exp(-0.5 * t * t / (p->sigma * p->sigma)) / norm);

    /* One stream per image: splitmix64 inside gmm_rng_seed spreads neighbouring indices. */
    gmm_rng rng;
    gmm_rng_seed(&rng, seed ^ (0x9E3779B97F4A7C15ull * (index + 1)));
    for (size_t i = 0; i < n; i++) dx[i] = (float)(2.0 * gmm_rng_uniform(&rng) - 1.0);
    for (size_t i = 0; i < n; i++) dy[i] = (float)(2.0 * gmm_rng_uniform(&rng) - 1.0);
    const int span = 2 * p->max_shift + 1;
    const int shift_x = (int)gmm_rng_below(&rng, (uint64_t)span) - p->max_shift;
    const int shift_y = (int)gmm_rng_below(&rng, (uint64_t)span) - p->max_shift;
    smooth(dx, tmp, pad, rows, cols, taps, r);
    smooth(dy, tmp, pad, rows, cols, taps, r);

    /* The output pixel (y, x) takes the source at (y - shift_y + alpha dy, x - shift_x + alpha dx),
     * bilinearly, with zeros outside the image. */
    const float alpha = (float)p->alpha;
    for (int y = 0; y < rows; y++)
        for (int x = 0; x < cols; x++) {
            const size_t i = (size_t)y * cols + x;
            const float sy = (float)(y - shift_y) + alpha * dy[i];
            const float sx = (float)(x - shift_x) + alpha * dx[i];
            const float fy = floorf(sy), fx = floorf(sx);
            const int y0 = (int)fy, x0 = (int)fx;
            const float wy = sy - fy, wx = sx - fx;
            const float v = (1 - wy) * ((1 - wx) * pixel_or_zero(src, rows, cols, y0, x0) +
                                        wx * pixel_or_zero(src, rows, cols, y0, x0 + 1)) +
                            wy * ((1 - wx) * pixel_or_zero(src, rows, cols, y0 + 1, x0) +
                                  wx * pixel_or_zero(src, rows, cols, y0 + 1, x0 + 1));
            dst[i] = (uint8_t)(v <= 0 ? 0 : v >= 255 ? 255 : lrintf(v));
        }
}

gmm_status gmm_augment_batch(const uint8_t *originals, const uint8_t *labels, int64_t n_originals,
                             int rows, int cols, const gmm_augment_params *p, uint64_t seed,
                             int keep_originals, int64_t first, int64_t count, uint8_t *out_pixels,
                             uint8_t *out_labels)
{
    if (!originals || n_originals < 1 || rows < 1 || cols < 1 || first < 0 || count < 0 ||
        (count > 0 && !out_pixels) || (labels && count > 0 && !out_labels))
        return gmm_error(GMM_ERR_ARG, "augment: invalid arguments");
    gmm_status st = gmm_augment_params_check(p);
    if (st != GMM_OK) return st;
    const size_t n = (size_t)rows * (size_t)cols;
    const size_t work_floats = gmm_augment_work_floats(rows, cols);
    int failed = 0;
#pragma omp parallel
    {
        float *work = malloc(work_floats * sizeof *work);
        if (!work) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(static)
        for (int64_t j = 0; j < count; j++) {
            if (!work) continue;
            const int64_t i = first + j;
            const int64_t source = i % n_originals;
            const uint8_t *src = originals + (size_t)source * n;
            if (keep_originals && i < n_originals)
                memcpy(out_pixels + (size_t)j * n, src, n);
            else
                gmm_augment_image(src, rows, cols, p, seed, (uint64_t)i, work,
                                  out_pixels + (size_t)j * n);
            if (labels) out_labels[j] = labels[source];
        }
        free(work);
    }
    if (failed) return gmm_error(GMM_ERR_NOMEM, "augment: no memory for the work buffers");
    return GMM_OK;
}
