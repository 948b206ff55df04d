/* The pictures gmm-train and gmm-predict draw besides the means grid (--images DIR): samples
 * drawn from each component, each component's most and least typical training images, the
 * local-entropy maps of the means beside the means; and the --blur preprocessing. */
#ifndef GMM_IMAGES_H
#define GMM_IMAGES_H

#include <stdint.h>

#include "models/core/em.h"
#include "models/core/score.h"

/* Gaussian smoothing of every image of X (n_samples x rows*cols, in place) with a 5 x 5 filter
 * exp(-(a^2 + b^2) / (2 sigma^2)), normalised to sum 1, through the 2-D convolution kernel
 * (on the GPU when gpu, the run's resources object, is not NULL). Images are zero-padded by 2
 * pixels first, so they keep their shape. sigma must be > 0. */
gmm_status images_blur(double *X, int64_t n_samples, int rows, int cols, double sigma,
                       gmm_gpu *gpu);

/* X (n x dim float64) as a new float32 array (NULL when out of memory; free it). */
float *images_to_float(const double *X, int64_t n, int dim);

/* The n training images a model's space keeps, as the model sees them: bytes / 255 (or a
 * library caller's float values when bytes is NULL), blurred as the model says, in a new
 * float32 array *out (free it): what placing new images in a kNN-graph space compares them to. */
gmm_status images_training_float(const gmm_model *model, const uint8_t *bytes,
                                 const float *values, int64_t n, int dim, gmm_gpu *gpu,
                                 float **out);

/* Writes into dir (which must exist):
 *   means_entropy.png  each mean (gray) beside its local-entropy map (16 levels, 5 x 5
 *                      windows) in the colour map of data/colormap.h, from entry 0 at 0 nats
 *                      to the last at log 16 nats, with a colour bar labelled in nats;
 *   samples.png        6 samples drawn from each component (gmm_sample), one row each;
 *   typical.png        per component its 5 most typical (smallest squared Mahalanobis distance)
 *                      and 5 least typical assigned images, left and right of a gap, one row
 *                      each, under the column labels "most typical" and "least typical".
 * Each row of samples.png and typical.png is captioned "component k (weight w)" (typical.png
 * adds the number of images assigned to it).
 * X are the images (n_samples x dim, [0, 1]), labels their components, distance_sq their squared
 * Mahalanobis distance to it (X, labels and distance_sq may be NULL: typical.png is then skipped).
 * The entropy maps run on the GPU when gpu is not NULL. */
gmm_status images_write(const char *dir, const gmm_model *model, const double *X,
                        int64_t n_samples, const int *labels, const double *distance_sq,
                        uint64_t seed, gmm_gpu *gpu);

#endif
