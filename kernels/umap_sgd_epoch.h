/* One epoch of UMAP's layout SGD for one head (kernels/umap_sgd.h), written once for both twins:
 * umap_sgd.c calls umap_sgd_row from an OpenMP loop over the heads, umap_sgd.cu from one thread
 * per head, so the CPU and the GPU run the same operations in the same order. Products and sums
 * go through USGD_MUL / USGD_ADD, which on the GPU are the round-to-nearest intrinsics, so that
 * nvcc fuses no multiply-add the CPU does not (gcc does not fuse them in C11 mode either); the
 * two differ only where powf does. The edge schedule is float64, as umap-learn's, and decides the
 * same samples on both. Also here: the plan that umap_sgd.c builds for both (the checks and the
 * schedule, umap-learn's make_epochs_per_sample) and the counter-based hash of the negative
 * samples. */
#ifndef GMM_UMAP_SGD_EPOCH_H
#define GMM_UMAP_SGD_EPOCH_H

#include <math.h>
#include <stdint.h>

#include "kernels/gmm_status.h"

#ifdef __CUDACC__
#define USGD_HD __host__ __device__
#else
#define USGD_HD
#endif

#ifdef __CUDA_ARCH__
#define USGD_MUL(x, y) __fmul_rn((x), (y))
#define USGD_ADD(x, y) __fadd_rn((x), (y))
#define USGD_SUB(x, y) __fsub_rn((x), (y))
#define USGD_DMUL(x, y) __dmul_rn((x), (y))
#define USGD_DADD(x, y) __dadd_rn((x), (y))
#else
#define USGD_MUL(x, y) ((x) * (y))
#define USGD_ADD(x, y) ((x) + (y))
#define USGD_SUB(x, y) ((x) - (y))
#define USGD_DMUL(x, y) ((x) * (y))
#define USGD_DADD(x, y) ((x) + (y))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What every head's epoch reads: the edges and their schedule (host or device pointers), the
 * other ends' coordinates and the curve's constants, in float32 as the arithmetic. */
typedef struct {
    const int64_t *row_ptr;
    const int32_t *col;
    const double *epochs_per_sample;          /* max_w / w; -1 for w <= 0 (never sampled) */
    const double *epochs_per_negative_sample; /* epochs_per_sample / negative_sample_rate */
    double *epoch_of_next_sample;
    double *epoch_of_next_negative_sample;
    const float *tails;        /* n_tails x dim: the epoch's snapshot (layout) or the tails */
    int64_t n_tails;
    int dim;
    int layout;                /* 1: the tails are the heads (a negative sample of i is skipped) */
    float a, b, b_minus_1;
    float attraction;          /* -2 a b */
    float repulsion;           /* 2 gamma b */
    float attraction_factor;   /* 2 in the layout (both ends of an edge, below), 1 in transform */
    uint64_t seed_key;         /* usgd_mix(seed) */
} umap_sgd_epoch_args;

/* The checked call with its schedule (host memory, from umap_sgd_prepare). */
typedef struct {
    umap_sgd_epoch_args args; /* pointers into schedule and to the caller's arrays */
    int64_t n_heads, nnz;
    int n_epochs;
    double initial_alpha;
    int any_edge;             /* 0: no positive weight, nothing moves */
    double *schedule;         /* 4 x nnz: the four arrays of args, malloc'd */
} umap_sgd_plan;

/* Checks the arguments of umap_sgd_cpu / umap_sgd_cuda (kernels/umap_sgd.h, not included here:
 * it would make a circle with umap_sgd.c) and builds the plan on the host; args.tails is
 * tail_embedding, or head_embedding in the layout (the caller then points it at its snapshot).
 * On failure the plan is empty (umap_sgd_plan_free accepts it). */
struct umap_edges;
struct umap_sgd_options;
gmm_status umap_sgd_prepare(const struct umap_edges *edges, const float *head_embedding,
                            const float *tail_embedding, int dim,
                            const struct umap_sgd_options *options, umap_sgd_plan *plan);
void umap_sgd_plan_free(umap_sgd_plan *plan);
/* The learning rate of epoch n, initial_alpha (1 - n / n_epochs), rounded to float. */
float umap_sgd_alpha(const umap_sgd_plan *plan, int epoch);

/* splitmix64's finaliser (with its increment): a bijection of 64 bits with full avalanche. */
USGD_HD static inline uint64_t usgd_mix(uint64_t z)
{
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The key of an edge's samples in an epoch: hash(seed, epoch, edge); sample s then draws
 * usgd_mix(key ^ s). */
USGD_HD static inline uint64_t usgd_edge_key(uint64_t seed_key, int64_t epoch, int64_t edge)
{
    return usgd_mix(usgd_mix(seed_key ^ (uint64_t)epoch) ^ (uint64_t)edge);
}

/* A hash reduced to [0, n) for n <= 2^32 by a multiply-high of its top 32 bits (the bias is at
 * most n / 2^32, as a modulo's; a 64-bit modulo is a slow emulated division on the GPU). */
USGD_HD static inline int64_t usgd_pick(uint64_t h, int64_t n)
{
    return (int64_t)(((h >> 32) * (uint64_t)n) >> 32);
}

USGD_HD static inline float usgd_clip(float g) { return g > 4.0f ? 4.0f : (g < -4.0f ? -4.0f : g); }

USGD_HD static inline float usgd_dist2(const float *x, const float *y, int dim)
{
    float s = 0.0f;
    for (int d = 0; d < dim; d++) {
        const float t = USGD_SUB(x[d], y[d]);
        s = USGD_ADD(s, USGD_MUL(t, t));
    }
    return s;
}

/* Epoch `epoch` of head i, whose coordinates `cur` (its row of the head embedding) move in place
 * as its edges are met in row order (umap-learn's _optimize_layout_euclidean_single_epoch for
 * the edges of one head). In the layout, umap-learn's move_other moves both ends of a sampled
 * edge by the clipped gradient g, and a symmetric graph samples (i, j) and (j, i) alike, so each
 * end moves by 2 g per sample of the undirected edge; here each end moves only as a head, so its
 * step is attraction_factor (2) x g x alpha, clipped before the factor as umap-learn clips each
 * of its two steps. The repulsion is umap-learn's: only the head moves. */
USGD_HD static inline void umap_sgd_row(const umap_sgd_epoch_args *g, int64_t i, float *cur,
                                        int64_t epoch, float alpha)
{
    const int dim = g->dim;
    const double n = (double)epoch;
    for (int64_t p = g->row_ptr[i]; p < g->row_ptr[i + 1]; p++) {
        const double eps = g->epochs_per_sample[p];
        if (!(eps > 0.0) || !(g->epoch_of_next_sample[p] <= n)) continue;
        const float *other = g->tails + (int64_t)g->col[p] * dim;
        float d2 = usgd_dist2(cur, other, dim);
        float coeff = 0.0f;
        if (d2 > 0.0f)
            coeff = USGD_MUL(g->attraction, powf(d2, g->b_minus_1)) /
                    USGD_ADD(USGD_MUL(g->a, powf(d2, g->b)), 1.0f);
        const float step = USGD_MUL(g->attraction_factor, alpha);
        for (int d = 0; d < dim; d++) {
            const float gd = usgd_clip(USGD_MUL(coeff, USGD_SUB(cur[d], other[d])));
            cur[d] = USGD_ADD(cur[d], USGD_MUL(gd, step));
        }
        g->epoch_of_next_sample[p] = USGD_DADD(g->epoch_of_next_sample[p], eps);

        const double epns = g->epochs_per_negative_sample[p];
        const double q = (n - g->epoch_of_next_negative_sample[p]) / epns;
        const int64_t n_neg = q > 0.0 ? (int64_t)q : 0;
        const uint64_t key = usgd_edge_key(g->seed_key, epoch, p);
        for (int64_t s = 0; s < n_neg; s++) {
            const int64_t k = usgd_pick(usgd_mix(key ^ (uint64_t)s), g->n_tails);
            if (g->layout && k == i) continue; /* umap-learn: j == k, distance 0 */
            other = g->tails + k * dim;
            d2 = usgd_dist2(cur, other, dim);
            if (!(d2 > 0.0f)) continue;
            coeff = g->repulsion / USGD_MUL(USGD_ADD(0.001f, d2),
                                            USGD_ADD(USGD_MUL(g->a, powf(d2, g->b)), 1.0f));
            if (!(coeff > 0.0f)) continue; /* umap-learn: grad_d 0 */
            for (int d = 0; d < dim; d++) {
                const float gd = usgd_clip(USGD_MUL(coeff, USGD_SUB(cur[d], other[d])));
                cur[d] = USGD_ADD(cur[d], USGD_MUL(gd, alpha));
            }
        }
        g->epoch_of_next_negative_sample[p] =
            USGD_DADD(g->epoch_of_next_negative_sample[p], USGD_DMUL((double)n_neg, epns));
    }
}

#ifdef __cplusplus
}
#endif
#endif
