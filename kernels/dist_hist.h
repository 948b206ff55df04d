/* Per-query distance histograms, float32 data: for each query, an n_bins histogram of its
 * Euclidean distances to all n_refs references, over that query's own [min, max] distance:
 *   bin = floor((dist - min) * n_bins / (max - min)), the max itself in the last bin,
 *   and every distance in bin 0 when max == min.
 * Each histogram therefore sums to n_refs. The GPU version makes two passes over the references
 * (per-query min and max, then the counts) because the distances (n_queries x n_refs) are never
 * stored; references stay on the device, queries go through in blocks, and each block keeps its
 * queries' histograms in shared memory.
 *
 * Row-major: queries n_queries x dim, refs n_refs x dim, hist n_queries x n_bins (uint32),
 * dist_min/dist_max n_queries (may be NULL when not wanted). Distances are accumulated in float32
 * in both versions, so the CPU and GPU can put a distance that lies within rounding of a bin edge
 * into neighbouring bins; the counts otherwise agree. */
#ifndef GMM_DIST_HIST_H
#define GMM_DIST_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

gmm_status dist_hist_cpu(const float *queries, size_t n_queries, const float *refs,
                         size_t n_refs, size_t dim, size_t n_bins, uint32_t *hist,
                         float *dist_min, float *dist_max);

/* Device pointers (d_dist_min/d_dist_max may be NULL); stream 0, returns when done. n_bins up to
 * what fits one query's histogram in shared memory (about 56000 on an H100) and n_refs < 2^32. */
gmm_status dist_hist_cuda(const float *d_queries, size_t n_queries, const float *d_refs,
                          size_t n_refs, size_t dim, size_t n_bins, uint32_t *d_hist,
                          float *d_dist_min, float *d_dist_max);

/* Host-pointer convenience around dist_hist_cuda (dist_min/dist_max may be NULL). */
gmm_status dist_hist_cuda_host(const float *queries, size_t n_queries, const float *refs,
                               size_t n_refs, size_t dim, size_t n_bins, uint32_t *hist,
                               float *dist_min, float *dist_max);

#ifdef __cplusplus
}
#endif
#endif
