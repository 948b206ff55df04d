/* One row of UMAP's fuzzy simplicial set (kernels/fuzzy_set.h), written once for both twins:
 * fuzzy_set.c calls fuzzy_set_row from an OpenMP loop over the rows, fuzzy_set.cu from one
 * thread per row, so the CPU and the GPU run the same float64 operations in the same order.
 * The products that feed a sum go through FSET_MUL / FSET_ADD, which on the GPU are the
 * round-to-nearest intrinsics (nvcc fuses no multiply-add the CPU does not), so the two differ
 * only where the device's exp differs from the host's by an ulp. */
#ifndef GMM_FUZZY_SET_ROW_H
#define GMM_FUZZY_SET_ROW_H

#include <math.h>
#include <stdint.h>

#ifdef __CUDACC__
#define FSET_HD __host__ __device__
#else
#define FSET_HD
#endif

#ifdef __CUDA_ARCH__
#define FSET_MUL(x, y) __dmul_rn((x), (y))
#define FSET_ADD(x, y) __dadd_rn((x), (y))
#else
#define FSET_MUL(x, y) ((x) * (y))
#define FSET_ADD(x, y) ((x) + (y))
#endif

#define FSET_TOLERANCE 1e-5 /* umap-learn's SMOOTH_K_TOLERANCE */
#define FSET_MIN_SCALE 1e-3 /* umap-learn's MIN_K_DIST_SCALE */
#define FSET_N_ITER 64

/* The p-th (from 0) positive distance of the row among the listed neighbours; the caller knows
 * there are more than p. */
static inline FSET_HD double fuzzy_set_nth_positive(const int32_t *idx, const float *dist, int k,
                                                    int p)
{
    for (int j = 0; j < k; j++)
        if (idx[j] != -1 && dist[j] > 0 && p-- == 0) return dist[j];
    return 0; /* not reached */
}

/* Row i (its k neighbours idx, distances dist, memberships w): umap-learn's smooth_knn_dist
 * (rho, sigma by binary search to target = log2(k)) and compute_membership_strengths. */
static inline FSET_HD void fuzzy_set_row(int64_t i, const int32_t *idx, const float *dist, int k,
                                         double local_connectivity, int bipartite, double target,
                                         double mean_all, double *rho_out, double *sigma_out,
                                         double *w)
{
    int n_positive = 0, n_listed = 0;
    double row_sum = 0, max_positive = 0;
    for (int j = 0; j < k; j++) {
        if (idx[j] == -1) continue;
        const double d = dist[j];
        n_listed++;
        row_sum += d;
        if (d > 0) {
            n_positive++;
            if (d > max_positive) max_positive = d;
        }
    }
    double rho = 0;
    if (n_positive >= local_connectivity) {
        const int index = (int)floor(local_connectivity);
        const double interpolation = local_connectivity - index;
        if (index > 0) {
            const double below = fuzzy_set_nth_positive(idx, dist, k, index - 1);
            rho = below;
            if (interpolation > FSET_TOLERANCE)
                rho = FSET_ADD(rho, FSET_MUL(interpolation,
                                             fuzzy_set_nth_positive(idx, dist, k, index) - below));
        } else {
            rho = FSET_MUL(interpolation, fuzzy_set_nth_positive(idx, dist, k, 0));
        }
    } else if (n_positive > 0) {
        rho = max_positive;
    }

    double lo = 0, hi = INFINITY, mid = 1;
    for (int it = 0; it < FSET_N_ITER; it++) {
        double psum = 0;
        for (int j = 1; j < k; j++) {
            if (idx[j] == -1) continue;
            const double d = dist[j] - rho;
            psum += d > 0 ? exp(-(d / mid)) : 1.0;
        }
        if (fabs(psum - target) < FSET_TOLERANCE) break;
        if (psum > target) {
            hi = mid;
            mid = (lo + hi) / 2.0;
        } else {
            lo = mid;
            mid = hi == INFINITY ? mid * 2 : (lo + hi) / 2.0;
        }
    }
    double sigma = mid;
    if (rho > 0) {
        const double floor_row = FSET_MUL(FSET_MIN_SCALE, row_sum / n_listed);
        if (sigma < floor_row) sigma = floor_row;
    } else if (sigma < FSET_MUL(FSET_MIN_SCALE, mean_all)) {
        sigma = FSET_MUL(FSET_MIN_SCALE, mean_all);
    }
    *rho_out = rho;
    *sigma_out = sigma;

    for (int j = 0; j < k; j++) {
        if (idx[j] == -1 || (!bipartite && idx[j] == i)) {
            w[j] = 0;
            continue;
        }
        const double d = dist[j] - rho;
        w[j] = d <= 0 || sigma == 0 ? 1.0 : exp(-(d / sigma));
    }
}

#endif
