/* Element conversion of stored data to the arithmetic type of the fit: the data is kept in the
 * form it was read in (image bytes, float32 or float64) and converted chunk by chunk as the
 * E-step and the M-step reach it, so that 8.1 million 784-pixel images take 6.4 GB instead of
 * 51 GB. Image bytes become byte / 255.0 (the division, rounded once, as the programs have always
 * scaled pixels), float32 and float64 are widened or copied.
 *   convert_rows_cpu   OpenMP over the elements (host pointers);
 *   convert_rows_cuda  one grid-stride kernel (device pointers; stream as void *, may be NULL);
 *                      it returns once the work is queued.
 * out_elem is GMM_ELEM_F64 or GMM_ELEM_F32 (a U8 output is GMM_ERR_ARG). */
#ifndef GMM_CONVERT_H
#define GMM_CONVERT_H

#include <stddef.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The storage type of an array of data values. */
typedef enum { GMM_ELEM_F64 = 0, GMM_ELEM_F32 = 1, GMM_ELEM_U8 = 2 } gmm_elem;

/* Bytes of one element of the type. */
size_t gmm_elem_size(gmm_elem elem);

/* out[i] = value of in[i] for i < n, out of type out_elem (float64 or float32). */
gmm_status convert_rows_cpu(const void *in, gmm_elem in_elem, size_t n, void *out,
                            gmm_elem out_elem);
gmm_status convert_rows_cuda(const void *d_in, gmm_elem in_elem, size_t n, void *d_out,
                             gmm_elem out_elem, void *stream);

#ifdef __cplusplus
}
#endif
#endif
