/* The largest eigenvalues and their eigenvectors of a sparse symmetric matrix (CSR), by Lanczos
 * with full reorthogonalisation: the Krylov basis v_0 .. v_m is kept and every new vector is
 * orthogonalised against all of it twice (classical Gram-Schmidt as two GEMMs), so no spurious
 * copies of converged eigenvalues appear. Every few steps the tridiagonal T_m is solved for its k
 * largest Ritz pairs (LAPACKE dstevx) and the run stops when each residual |beta_m s_mi| is at most
 * tol. An invariant subspace (beta = 0, as in a graph of several components) restarts from a new
 * random vector orthogonal to the basis, so repeated eigenvalues are found with their
 * multiplicity. Written once (lanczos.c) over a small table of device steps: the CPU's
 * (OpenMP SpMV, OpenBLAS) and the GPU's (kernels/spmv.h on the device, cuBLAS through the
 * resources object). The start vector comes from the seed, so both devices run the same
 * iteration and differ by rounding only. Used for the spectral embedding of the kNN graph
 * (models/features/spectral.h), whose normalised adjacency has its eigenvalues in [-1, 1]. */
#ifndef GMM_LANCZOS_H
#define GMM_LANCZOS_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"
#include "kernels/spmv.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int max_steps;     /* Krylov dimension at most (0: min(n, max(600, 40 k))); the basis takes
                          (max_steps + 1) x n doubles of memory on the device used */
    double tol;        /* residual bound on every wanted Ritz pair (0: 1e-10) */
    int check_every;   /* steps between convergence checks (0: 10) */
    uint64_t seed;     /* the start vector: uniform in [-1, 1] from this seed */
} lanczos_options;

typedef struct {
    int steps;              /* Krylov dimension at the end */
    int restarts;           /* invariant subspaces met (new random vectors) */
    double max_residual;    /* largest |beta s| of the k pairs returned */
    int converged;          /* every residual <= tol */
} lanczos_report;

/* The k largest eigenvalues of the symmetric matrix A (host CSR; 1 <= k < n), descending, and
 * their unit eigenvectors as the columns of the n x k row-major `eigenvectors` (host). Runs on
 * the GPU of gpu, or on the CPU when gpu is NULL. Not converged within max_steps is not an error:
 * the report says so (converged 0, the residual reached) and the best pairs are returned. */
gmm_status lanczos_largest(const csr_matrix *A, int k, const lanczos_options *options,
                           gmm_gpu *gpu, double *eigenvalues, double *eigenvectors,
                           lanczos_report *report);

/* ---- the device steps (lanczos.c runs the iteration over them) ---------------------------- */

typedef struct {
    void *ctx;
    gmm_status (*alloc)(void *ctx, size_t n_doubles, double **p);
    void (*release)(void *ctx, double *p); /* accepts NULL */
    gmm_status (*upload)(void *ctx, const double *host, double *p, size_t n_doubles);
    gmm_status (*download)(void *ctx, const double *p, double *host, size_t n_doubles);
    gmm_status (*matvec)(void *ctx, const double *x, double *y);  /* y = A x */
    /* row-major C = alpha op(A) op(B) + beta C (the basis products) */
    gmm_status (*gemm)(void *ctx, bool trans_a, bool trans_b, int m, int n, int k, double alpha,
                       const double *A, int lda, const double *B, int ldb, double beta, double *C,
                       int ldc);
    gmm_status (*scale)(void *ctx, int64_t n, double alpha, const double *x, double *y); /* y = alpha x */
} lanczos_device;

gmm_status lanczos_run(const lanczos_device *dev, int64_t n, int k, const lanczos_options *options,
                       double *eigenvalues, double *eigenvectors, lanczos_report *report);

/* The GPU's steps (lanczos.cu): A uploaded to the device for the run. */
gmm_status lanczos_largest_cuda(const csr_matrix *A, int k, const lanczos_options *options,
                                gmm_gpu *gpu, double *eigenvalues, double *eigenvectors,
                                lanczos_report *report);

#ifdef __cplusplus
}
#endif
#endif
