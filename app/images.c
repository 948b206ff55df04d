/* Pictures of a fitted model: entropy maps beside the means, samples per component, typical and
 * atypical training images; and the Gaussian blur applied before fitting. */
#include "app/images.h"

#include "models/core/pixel_means.h"
#include "models/features/pca.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/report.h"
#include "data/png_write.h"
#include "kernels/conv2d.h"
#include "kernels/entropy.h"
#include "models/eval/diagnostics.h"
#include "models/features/spectral.h"

#define BLUR_SIZE 5
#define BLUR_PAD 2
#define SAMPLES_PER_COMPONENT 6
#define TYPICAL_EACH 5
#define GAP 1.0 /* white between images of a strip */
#define STRIP_SCALE 2 /* pixels per image pixel in samples.png and typical.png */

float *images_to_float(const double *X, int64_t n, int dim)
{
    float *f = malloc(sizeof(float) * (size_t)(n > 0 ? n : 1) * dim);
    if (f)
        for (size_t i = 0; i < (size_t)n * dim; i++) f[i] = (float)X[i];
    return f;
}

gmm_status images_training_float(const gmm_model *model, const uint8_t *bytes,
                                 const float *values, int64_t n, int dim, gmm_gpu *gpu,
                                 float **out)
{
    *out = NULL;
    double *train = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1) * dim);
    if (!train)
        return gmm_error(GMM_ERR_NOMEM, "out of memory for the model's %lld training images",
                         (long long)n);
    for (size_t i = 0; i < (size_t)n * dim; i++) train[i] = bytes ? bytes[i] / 255.0 : values[i];
    gmm_status st = GMM_OK;
    if (model->blur_sigma > 0)
        st = images_blur(train, n, model->image_rows, model->image_cols, model->blur_sigma, gpu);
    if (st == GMM_OK && !(*out = images_to_float(train, n, dim)))
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the training images in float32");
    free(train);
    return st;
}

gmm_status images_blur(double *X, int64_t n_samples, int rows, int cols, double sigma,
                       gmm_gpu *gpu)
{
    if (!(sigma > 0) || !isfinite(sigma)) return gmm_error(GMM_ERR_ARG, "blur sigma must be > 0");
    float filter[BLUR_SIZE * BLUR_SIZE];
    double sum = 0;
    for (int a = 0; a < BLUR_SIZE; a++)
        for (int b = 0; b < BLUR_SIZE; b++) {
            double da = a - BLUR_PAD, db = b - BLUR_PAD;
            sum += filter[a * BLUR_SIZE + b] = (float)exp(-(da * da + db * db) / (2 * sigma * sigma));
        }
    for (int i = 0; i < BLUR_SIZE * BLUR_SIZE; i++) filter[i] = (float)(filter[i] / sum);
    /* all padded images stacked into one tall array: each one's own 2 zero rows above and below
     * keep the windows of its output rows inside it, so one kernel call does them all */
    int prow = rows + 2 * BLUR_PAD, pcol = cols + 2 * BLUR_PAD;
    size_t tall = (size_t)n_samples * prow;
    float *in = calloc(tall * pcol, sizeof(float));
    float *out = malloc(sizeof(float) * (tall - 2 * BLUR_PAD) * cols);
    gmm_status st = GMM_OK;
    if (!in || !out) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for the blur");
        goto fail;
    }
    for (int64_t i = 0; i < n_samples; i++)
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                in[((size_t)i * prow + r + BLUR_PAD) * pcol + c + BLUR_PAD] =
                    (float)X[((size_t)i * rows + r) * cols + c];
    if (gpu)
        st = conv2d_f32_cuda_host(in, tall, pcol, filter, BLUR_SIZE, out);
    else
        st = conv2d_f32_cpu(in, tall, pcol, filter, BLUR_SIZE, out);
    if (st != GMM_OK) goto fail;
    for (int64_t i = 0; i < n_samples; i++)
        for (int r = 0; r < rows; r++)
            for (int c = 0; c < cols; c++)
                X[((size_t)i * rows + r) * cols + c] = out[((size_t)i * prow + r) * cols + c];
fail:
    free(in);
    free(out);
    return st;
}

/* Copies n images (rows x cols each, from src by index, -1 = blank) side by side into one strip
 * image of rows x (n * (cols + 1) - 1), with a white column between them. */
static void strip(double *dst, const double *const *images, int n, int rows, int cols)
{
    int width = n * (cols + 1) - 1;
    for (int r = 0; r < rows; r++)
        for (int x = 0; x < width; x++) dst[(size_t)r * width + x] = GAP;
    for (int t = 0; t < n; t++) {
        if (!images[t]) continue;
        for (int r = 0; r < rows; r++)
            memcpy(dst + (size_t)r * width + t * (cols + 1), images[t] + (size_t)r * cols,
                   sizeof(double) * cols);
    }
}

/* K strips (rows x width each, one after the other in strips) stacked top to bottom at scale
 * STRIP_SCALE, each under the caption "component k (weight w)" (with its number of images when
 * counts is not NULL), and the column labels over all of them. */
static gmm_status write_rows(const char *path, const gmm_model *model, const double *strips,
                             int rows, int width, const int64_t *counts,
                             const png_column_label *labels, int n_labels)
{
    int K = model->n_components;
    char **captions = report_captions_alloc(K);
    if (!captions) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    for (int k = 0; k < K; k++) {
        if (counts)
            snprintf(captions[k], REPORT_CAPTION_LEN, "component %d (weight %.3f, %lld images)",
                     k, model->weights[k], (long long)counts[k]);
        else
            snprintf(captions[k], REPORT_CAPTION_LEN, "component %d (weight %.3f)", k,
                     model->weights[k]);
    }
    gmm_status st = png_write_image_stack(path, strips, K, rows, width, STRIP_SCALE,
                                          (const char *const *)captions, labels, n_labels);
    free(captions);
    return st;
}

static gmm_status write_means_entropy(const char *path, const gmm_model *m, gmm_gpu *gpu)
{
    int K = m->n_components, rows = m->image_rows, cols = m->image_cols;
    int d = gmm_model_input_dim(m), width = 2 * cols + 1;
    gmm_status st = GMM_OK;
    double *pixel_means = malloc(sizeof(double) * (size_t)K * d); /* a projection's mapped back */
    uint8_t *levels = malloc(d);
    float *ent = malloc(sizeof(float) * d);
    double *ent_d = malloc(sizeof(double) * d);
    double *tiles = malloc(sizeof(double) * (size_t)K * rows * width);
    char **captions = report_captions_alloc(K);
    uint8_t *mask = malloc((size_t)rows * width);
    if (!levels || !ent || !ent_d || !tiles || !captions || !mask || !pixel_means) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((st = gmm_model_pixel_means(m, pixel_means)) != GMM_OK) goto fail;
    int use_gpu = gpu != NULL;
    for (int k = 0; k < K; k++) {
        const double *mean = pixel_means + (size_t)k * d;
        for (int j = 0; j < d; j++) {
            double v = mean[j] < 0 ? 0 : mean[j] > 1 ? 1 : mean[j];
            int q = (int)(v * ENTROPY_LEVELS);
            levels[j] = (uint8_t)(q > ENTROPY_LEVELS - 1 ? ENTROPY_LEVELS - 1 : q);
        }
        st = use_gpu ? entropy_cuda_host(levels, rows, cols, ent)
                     : entropy_cpu(levels, rows, cols, ent);
        if (st != GMM_OK) goto fail;
        double hmax = 0;
        for (int j = 0; j < d; j++) {
            ent_d[j] = ent[j] / log((double)ENTROPY_LEVELS);
            if (ent[j] > hmax) hmax = ent[j];
        }
        const double *pair[2] = {mean, ent_d};
        strip(tiles + (size_t)k * rows * width, pair, 2, rows, cols);
        snprintf(captions[k], REPORT_CAPTION_LEN, "k=%d mean, H max %.2f", k, hmax);
    }
    /* the mean in gray, the map (right of the white column) in colour over 0 .. log 16 */
    for (int r = 0; r < rows; r++)
        for (int x = 0; x < width; x++) mask[r * width + x] = x > cols;
    png_color_style style = {
        .mask = mask,
        .bar_label = "local entropy, nats (5x5 windows of the mean in 16 levels)",
        .bar_lo = 0,
        .bar_hi = log((double)ENTROPY_LEVELS),
    };
    st = png_write_tile_grid_color(path, tiles, K, rows, width, 4, (const char *const *)captions,
                                   &style);
fail:
    free(pixel_means);
    free(mask);
    free(levels);
    free(ent);
    free(ent_d);
    free(tiles);
    free(captions);
    return st;
}

static gmm_status write_samples(const char *path, const gmm_model *model, uint64_t seed)
{
    int K = model->n_components, rows = model->image_rows, cols = model->image_cols;
    /* drawn in the model's dim, then mapped back to the pixels through its projection */
    int d = model->dim, n = SAMPLES_PER_COMPONENT, width = n * (cols + 1) - 1;
    int pixels_dim = gmm_model_input_dim(model);
    gmm_status st = GMM_OK;
    gmm_model one = {0};
    double *draws = malloc(sizeof(double) * (size_t)n * d);
    double *pixels = gmm_space_pca(model->space) ? malloc(sizeof(double) * (size_t)n * pixels_dim) : draws;
    double *tiles = malloc(sizeof(double) * (size_t)K * rows * width);
    const double *ptr[SAMPLES_PER_COMPONENT];
    if (!draws || !pixels || !tiles) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if (gmm_space_keeps_images(model)) {
        /* a spectral or umap space has no way back from its coordinates: each component's most
         * typical training images stand for its samples */
        const uint8_t *train = gmm_space_spectral(model->space)
                                   ? gmm_space_spectral(model->space)->images
                                   : gmm_space_umap(model->space)->images;
        const float *values = gmm_space_umap(model->space) ? gmm_space_umap(model->space)->values
                                                           : NULL; /* a library caller's data */
        int64_t *idx = malloc(sizeof(int64_t) * (size_t)K * n);
        double *img = malloc(sizeof(double) * (size_t)n * pixels_dim);
        if (!idx || !img || (st = gmm_training_typical(model, n, idx)) != GMM_OK) {
            if (!idx || !img) st = gmm_error(GMM_ERR_NOMEM, "out of memory");
            free(idx);
            free(img);
            goto fail;
        }
        for (int k = 0; k < K; k++) {
            for (int t = 0; t < n; t++) {
                const int64_t i = idx[(size_t)k * n + t];
                for (int j = 0; j < pixels_dim; j++)
                    img[(size_t)t * pixels_dim + j] =
                        i < 0      ? 1.0
                        : values ? values[(size_t)i * pixels_dim + j]
                                 : train[(size_t)i * pixels_dim + j] / 255.0;
                ptr[t] = img + (size_t)t * pixels_dim;
            }
            strip(tiles + (size_t)k * rows * width, ptr, n, rows, cols);
        }
        free(idx);
        free(img);
        st = write_rows(path, model, tiles, rows, width, NULL, NULL, 0);
        goto fail;
    }
    if ((st = gmm_model_copy(&one, model)) != GMM_OK) goto fail;
    for (int k = 0; k < K; k++) {
        /* the same model with all weight on component k draws from that component alone */
        for (int j = 0; j < K; j++) one.weights[j] = j == k ? 1.0 : 0.0;
        if ((st = gmm_sample(&one, n, seed + (uint64_t)k, draws, NULL)) != GMM_OK) goto fail;
        if (gmm_space_pca(model->space) &&
            (st = gmm_projection_inverse(gmm_space_pca(model->space), draws, n, pixels)) != GMM_OK)
            goto fail;
        for (int t = 0; t < n; t++) ptr[t] = pixels + (size_t)t * pixels_dim;
        strip(tiles + (size_t)k * rows * width, ptr, n, rows, cols);
    }
    st = write_rows(path, model, tiles, rows, width, NULL, NULL, 0);
fail:
    gmm_model_free(&one);
    if (pixels != draws) free(pixels);
    free(draws);
    free(tiles);
    return st;
}

static gmm_status write_typical(const char *path, const gmm_model *model, const double *X,
                                int64_t n_samples, const int *labels, const double *distance_sq)
{
    int K = model->n_components, rows = model->image_rows, cols = model->image_cols;
    int d = gmm_model_input_dim(model), n = 2 * TYPICAL_EACH + 1, width = n * (cols + 1) - 1;
    gmm_status st = GMM_OK;
    int64_t *most = malloc(sizeof(int64_t) * K * TYPICAL_EACH);
    int64_t *least = malloc(sizeof(int64_t) * K * TYPICAL_EACH);
    double *tiles = malloc(sizeof(double) * (size_t)K * rows * width);
    int64_t *counts = calloc(K, sizeof(int64_t));
    const double *ptr[2 * TYPICAL_EACH + 1];
    if (!most || !least || !tiles || !counts) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    st = gmm_typical_indices(distance_sq, labels, n_samples, K, TYPICAL_EACH, most, least);
    if (st != GMM_OK) goto fail;
    for (int k = 0; k < K; k++) {
        for (int t = 0; t < TYPICAL_EACH; t++) {
            int64_t a = most[k * TYPICAL_EACH + t], b = least[k * TYPICAL_EACH + t];
            ptr[t] = a >= 0 ? X + (size_t)a * d : NULL;
            ptr[TYPICAL_EACH + 1 + t] = b >= 0 ? X + (size_t)b * d : NULL;
        }
        ptr[TYPICAL_EACH] = NULL;
        strip(tiles + (size_t)k * rows * width, ptr, n, rows, cols);
    }
    for (int64_t i = 0; i < n_samples; i++)
        if (labels[i] >= 0 && labels[i] < K) counts[labels[i]]++;
    const png_column_label headers[2] = {
        {0, TYPICAL_EACH * (cols + 1) - 1, "most typical"},
        {(TYPICAL_EACH + 1) * (cols + 1), width, "least typical"},
    };
    st = write_rows(path, model, tiles, rows, width, counts, headers, 2);
fail:
    free(most);
    free(least);
    free(tiles);
    free(counts);
    return st;
}

static void join(char *buf, size_t size, const char *dir, const char *name)
{
    snprintf(buf, size, "%s/%s", dir, name);
}

gmm_status images_write(const char *dir, const gmm_model *model, const double *X,
                        int64_t n_samples, const int *labels, const double *distance_sq,
                        uint64_t seed, gmm_gpu *gpu)
{
    if (model->image_rows * model->image_cols != gmm_model_input_dim(model) || model->dim <= 0)
        return gmm_error(GMM_ERR_ARG, "cannot draw images: the model has no image shape");
    char path[4096];
    gmm_status st;
    join(path, sizeof path, dir, "means_entropy.png");
    if ((st = write_means_entropy(path, model, gpu)) != GMM_OK) return st;
    join(path, sizeof path, dir, "samples.png");
    if ((st = write_samples(path, model, seed)) != GMM_OK) return st;
    if (X && labels && distance_sq) {
        join(path, sizeof path, dir, "typical.png");
        if ((st = write_typical(path, model, X, n_samples, labels, distance_sq)) != GMM_OK)
            return st;
    }
    return GMM_OK;
}
