/* The packed storage of model.bin (version 4): a full or tied model's covariances (symmetric)
 * and precision Cholesky factors (upper triangular) are written as their upper triangles, row
 * by row (row i holds columns i .. d-1), half the bytes of the dense matrices; loading fills the
 * lower triangles back in. Used by models/io/model_io.c only. */
#ifndef GMM_MODEL_TRIANGLES_H
#define GMM_MODEL_TRIANGLES_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* d (d + 1) / 2: the values of one d x d upper triangle. */
size_t model_triangle_size(size_t d);

/* How the dense matrices relate to their upper triangles. */
typedef enum {
    MODEL_TRIANGLE_SYMMETRIC, /* lower = the mirror of the upper (covariances) */
    MODEL_TRIANGLE_UPPER,     /* lower = zero (precision Cholesky factors) */
} model_triangle_kind;

/* 1 when the lower triangles of n_mats row-major d x d matrices A are exactly what kind says
 * (the mirror bit for bit, or +0.0), so that their upper triangles lose nothing; else 0. On the
 * calling thread (the saver's, beside the device's release: ~10 ms for 98 MB on a small
 * machine, and no team of threads left spinning after it). */
int model_lower_is(const double *A, size_t n_mats, size_t d, model_triangle_kind kind);

/* Packs the upper triangles of A into packed (n_mats * model_triangle_size(d) values, row i of
 * a triangle being A's row i from column i on); returns model_lower_is (when 0, packed is filled
 * but must not stand for A). The saver writes the rows where they are instead (little-endian
 * hosts); this serves the byte-swapping path and the tests. */
int model_pack_upper(const double *A, size_t n_mats, size_t d, model_triangle_kind kind,
                     double *packed);

/* Fills the lower triangles of n_mats row-major d x d matrices whose upper triangles are set:
 * the mirror (SYMMETRIC) or zeros (UPPER). */
void model_fill_lower(double *A, size_t n_mats, size_t d, model_triangle_kind kind);

#ifdef __cplusplus
}
#endif

#endif
