/* infiMNIST-style training data: new images made from originals by a random elastic deformation
 * (Simard, Steinkraus and Platt 2003: a displacement field of uniform [-1, 1] values smoothed by
 * a Gaussian of width sigma and scaled by alpha, applied with bilinear interpolation) and a
 * random shift of up to max_shift pixels in each direction. Image i of a generated set depends
 * only on (seed, i) and its original, never on threads or batch sizes, so a set is reproducible
 * piece by piece. */
#ifndef GMM_AUGMENT_H
#define GMM_AUGMENT_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    double alpha;   /* displacement scale in pixels (default 34, Simard et al.'s for MNIST) */
    double sigma;   /* smoothing width in pixels (default 4) */
    int max_shift;  /* whole-pixel shift in [-max_shift, max_shift] each way (default 1) */
} gmm_augment_params;

void gmm_augment_params_default(gmm_augment_params *p);
/* GMM_ERR_ARG naming the field: alpha in [0, 1000], sigma in [0.5, 50], max_shift in [0, 8]. */
gmm_status gmm_augment_params_check(const gmm_augment_params *p);

/* Images [first, first + count) of the generated set of originals (n_originals images of
 * rows x cols bytes, labels may be NULL): image i is made from original i mod n_originals;
 * with keep_originals, images 0 .. n_originals - 1 are the originals themselves (as infiMNIST
 * and MNIST8M begin). Writes count images to out_pixels and, when labels is not NULL, their
 * labels to out_labels. Runs on every OpenMP thread. */
gmm_status gmm_augment_batch(const uint8_t *originals, const uint8_t *labels, int64_t n_originals,
                             int rows, int cols, const gmm_augment_params *p, uint64_t seed,
                             int keep_originals, int64_t first, int64_t count, uint8_t *out_pixels,
                             uint8_t *out_labels);

/* One deformed image: the field and shift drawn from (seed, index). work holds
 * gmm_augment_work_floats(rows, cols) floats. */
size_t gmm_augment_work_floats(int rows, int cols);
void gmm_augment_image(const uint8_t *src, int rows, int cols, const gmm_augment_params *p,
                       uint64_t seed, uint64_t index, float *work, uint8_t *dst);

#ifdef __cplusplus
}
#endif
#endif
