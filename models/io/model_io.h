/* model.bin: the versioned binary model file with a CRC-32 over everything before it.
 *
 * Layout (all little-endian), version 5:
 *   magic "GMMMODEL" (8 bytes), u32 format version (GMM_MODEL_VERSION), u32 dtype (1 = float64),
 *   u32 K, u32 d, u32 image rows, u32 image cols, u32 covariance type, u32 converged,
 *   u32 n_iter, u32 max_iter, u32 n_init, u32 init method, u64 seed, i64 n_train_samples,
 *   f64 lower_bound, f64 reg_covar, f64 tol, f64 blur sigma (0 = none), u32 projection input
 *   dimension p (0 = no projection), u32 whiten (0 or 1), f64 total variance, u32 spectral
 *   space neighbours k (0 = none), u32 its image dimension q, u64 its images n, u32 packed
 *   triangles (0 or 1), u32 data path length, data path bytes, f64 weights[K], f64 means[K*d],
 *   f64 covariances[n], f64 precisions_cholesky[n], and when p > 0 the projection (d = its number of axes):
 *   f64 mean[p], f64 components[d*p], f64 explained variance[d]; when k > 0 the spectral space
 *   (d = its dimensions): u8 images[n*q] and zero bytes up to a multiple of 8, f64
 *   embedding[n*d], f64 eigenvalues[d], f64 degrees[n]; then the tagged sections
 *   (models/io/model_sections.h: the UMAP space, the matched labels, an end tag); then u32 CRC-32
 *   (zlib's crc32) of every byte above. Image rows x cols is p (or q) when there is a projection (a spectral space),
 *   else d; a model has at most one of the two.
 * n is the array's size in the model (gmm_cov_size) except when packed triangles is 1 (only
 * for full and tied, and written whenever the covariances are exactly symmetric and the factors
 * exactly upper triangular, as every fit's are): then each d x d matrix is stored as its upper
 * triangle row by row (row i: columns i .. d-1), n = matrices x d (d + 1) / 2, and loading
 * fills in the mirror (covariances) and zeros (factors); half the bytes (49 MB instead of 98 at
 * K = 10, d = 784).
 * A model with neither a UMAP space nor matched labels is written as version 4: version 5
 * without the sections, so that older programs read it.
 * version 3 is version 4 without the packed-triangles field (always dense); version 2 also
 * without the six projection and spectral fields and their arrays, version 1 also without the
 * blur sigma; all are still read (as neither, blur sigma 0).
 */
#ifndef GMM_MODEL_IO_H
#define GMM_MODEL_IO_H

#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GMM_MODEL_VERSION 5u
/* The blur sigma a model (and the programs' --blur) may have besides 0 (none): below 0.01 pixel
 * the 5x5 filter is the identity, and its square must not underflow. */
#define GMM_BLUR_SIGMA_MIN 0.01
#define GMM_BLUR_SIGMA_MAX 100.0
/* The oldest version gmm_model_load still reads. */
#define GMM_MODEL_VERSION_OLDEST 1u

/* gmm_model_save writes a new temporary file beside path (".NAME.XXXXXX", created exclusively,
 * with the mode of the model it replaces) and renames it over path once complete
 * (data/file_write.h), so that a reader never sees half a model and a failed save leaves the
 * previous file; a program's signal handler removes the temporary file with
 * file_write_remove_temporaries. */
gmm_status gmm_model_save(const char *path, const gmm_model *model);
/* Loads into a zeroed model (versions GMM_MODEL_VERSION_OLDEST..GMM_MODEL_VERSION). Truncated
 * file, wrong magic, another version, a bad checksum, inconsistent sizes, a data path with a NUL
 * byte, a path that is not a regular file (a FIFO fails at once) or a model that fails
 * gmm_model_check each give a clear error (GMM_ERR_FORMAT / _VERSION / _CHECKSUM / _IO). */
gmm_status gmm_model_load(const char *path, gmm_model *model);

/* What the checksum cannot vouch for (gmm_model_load calls it; models/io/model_check.c): every
 * value finite (and at most 1e100 in magnitude); weights >= 0 summing to 1 within 1e-6; full and
 * tied precision factors upper triangular with a positive diagonal and U^T C U = I within 1e-6
 * (relative, on two dense probe vectors); diag and spherical variances and precisions > 0 with
 * variance x precision^2 = 1 within 1e-6; blur sigma 0 or in [GMM_BLUR_SIGMA_MIN,
 * GMM_BLUR_SIGMA_MAX]; reg_covar and tol finite and >= 0; a projection's axes orthonormal; a
 * spectral space's eigenvalues in [-1, 1] away from 0 and degrees in (0, n]. GMM_ERR_FORMAT with
 * a detail naming the field. */
gmm_status gmm_model_check(const gmm_model *model);

#ifdef __cplusplus
}
#endif
#endif
