/* Lanczos with full reorthogonalisation (linalg/lanczos.h): the iteration, written once over the
 * device steps, and the CPU's steps. */
#include "linalg/lanczos.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"

/* splitmix64: the start and restart vectors, the same on every device */
static uint64_t next_random(uint64_t *state)
{
    uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void random_vector(double *v, int64_t n, uint64_t *state)
{
    for (int64_t i = 0; i < n; i++)
        v[i] = 2.0 * ((double)(next_random(state) >> 11) * 0x1.0p-53) - 1.0;
}

/* w -= V[0..j]^T (V[0..j] w), twice; h (j + 1 doubles, device) gets the first pass's
 * coefficients (the second pass's are added to it on the host by the caller when wanted). */
static gmm_status orthogonalise(const lanczos_device *dev, const double *V, int64_t n, int rows,
                                double *w, double *h, double *h2)
{
    gmm_status status;
    const int N = (int)n;
    if ((status = dev->gemm(dev->ctx, false, false, rows, 1, N, 1.0, V, N, w, 1, 0.0, h, 1)) != GMM_OK)
        return status;
    if ((status = dev->gemm(dev->ctx, true, false, N, 1, rows, -1.0, V, N, h, 1, 1.0, w, 1)) != GMM_OK)
        return status;
    if ((status = dev->gemm(dev->ctx, false, false, rows, 1, N, 1.0, V, N, w, 1, 0.0, h2, 1)) != GMM_OK)
        return status;
    return dev->gemm(dev->ctx, true, false, N, 1, rows, -1.0, V, N, h2, 1, 1.0, w, 1);
}

gmm_status lanczos_run(const lanczos_device *dev, int64_t n, int k, const lanczos_options *o,
                       double *eigenvalues, double *eigenvectors, lanczos_report *report)
{
    gmm_status status = GMM_OK;
    if (!dev || n < 2 || n > 0x7fffffff || k < 1 || k >= n || !eigenvalues || !eigenvectors)
        return gmm_error(GMM_ERR_ARG, "Lanczos: needs 1 <= k < n (k = %d, n = %lld)", k,
                         (long long)n);
    lanczos_options opt = o ? *o : (lanczos_options){0};
    if (opt.max_steps <= 0) opt.max_steps = (int)(n < 600 ? n : (40 * k > 600 ? 40 * k : 600));
    if (opt.max_steps > n) opt.max_steps = (int)n;
    if (opt.max_steps < k) opt.max_steps = k;
    if (!(opt.tol > 0)) opt.tol = 1e-10;
    if (opt.check_every <= 0) opt.check_every = 10;
    const int M = opt.max_steps;

    double *V = NULL, *w = NULL, *h = NULL, *h2 = NULL, *S = NULL, *Y = NULL;
    double *alpha = malloc(sizeof(double) * M), *beta = malloc(sizeof(double) * M);
    double *theta = malloc(sizeof(double) * k), *Z = malloc(sizeof(double) * (size_t)M * k);
    double *host_v = malloc(sizeof(double) * n);
    if (!alpha || !beta || !theta || !Z || !host_v) {
        status = gmm_error(GMM_ERR_NOMEM, "Lanczos: out of memory");
        goto fail;
    }
    if ((status = dev->alloc(dev->ctx, (size_t)(M + 1) * n, &V)) != GMM_OK ||
        (status = dev->alloc(dev->ctx, (size_t)n, &w)) != GMM_OK ||
        (status = dev->alloc(dev->ctx, (size_t)M + 1, &h)) != GMM_OK ||
        (status = dev->alloc(dev->ctx, (size_t)M + 1, &h2)) != GMM_OK)
        goto fail;

    uint64_t rng = opt.seed;
    random_vector(host_v, n, &rng);
    double norm = 0;
    for (int64_t i = 0; i < n; i++) norm += host_v[i] * host_v[i];
    for (int64_t i = 0; i < n; i++) host_v[i] /= sqrt(norm);
    if ((status = dev->upload(dev->ctx, host_v, V, (size_t)n)) != GMM_OK) goto fail;

    int m = 0, converged = 0, restarts = 0;
    double max_residual = INFINITY;
    for (int j = 0; j < M; j++) {
        double *vj = V + (size_t)j * n, *vnext = V + (size_t)(j + 1) * n;
        if ((status = dev->matvec(dev->ctx, vj, w)) != GMM_OK) goto fail;
        if ((status = orthogonalise(dev, V, n, j + 1, w, h, h2)) != GMM_OK) goto fail;
        /* alpha_j = v_j . A v_j: the j-th coefficient of both passes */
        double a1 = 0, a2 = 0;
        if ((status = dev->download(dev->ctx, h + j, &a1, 1)) != GMM_OK ||
            (status = dev->download(dev->ctx, h2 + j, &a2, 1)) != GMM_OK)
            goto fail;
        alpha[j] = a1 + a2;
        /* beta_j = ||w|| */
        if ((status = dev->gemm(dev->ctx, false, false, 1, 1, (int)n, 1.0, w, (int)n, w, 1, 0.0,
                                h2, 1)) != GMM_OK)
            goto fail;
        double bb = 0;
        if ((status = dev->download(dev->ctx, h2, &bb, 1)) != GMM_OK) goto fail;
        beta[j] = sqrt(bb > 0 ? bb : 0);
        m = j + 1;

        const int last = m == M;
        if (m >= k && (m % opt.check_every == 0 || last)) {
            int info = la_dstevx_largest(m, alpha, beta, k, theta, Z);
            if (info != 0) {
                status = gmm_error(GMM_ERR_NUMERIC, "Lanczos: the tridiagonal eigensolver failed "
                                                    "(LAPACK info %d)", info);
                goto fail;
            }
            max_residual = 0;
            for (int i = 0; i < k; i++) {
                double r = fabs(beta[j] * Z[(size_t)(m - 1) * k + i]);
                if (r > max_residual) max_residual = r;
            }
            if (max_residual <= opt.tol) {
                converged = 1;
                break;
            }
        }
        if (last) break;
        if (beta[j] > 1e-12) {
            if ((status = dev->scale(dev->ctx, n, 1.0 / beta[j], w, vnext)) != GMM_OK) goto fail;
            continue;
        }
        /* An invariant subspace: go on from a new random vector orthogonal to the basis; T
         * decouples there (beta_j = 0). */
        beta[j] = 0;
        restarts++;
        double nn = 0;
        for (int tries = 0; tries < 3 && !(nn > 1e-20); tries++) {
            random_vector(host_v, n, &rng);
            if ((status = dev->upload(dev->ctx, host_v, w, (size_t)n)) != GMM_OK) goto fail;
            if ((status = orthogonalise(dev, V, n, j + 1, w, h, h2)) != GMM_OK) goto fail;
            if ((status = dev->gemm(dev->ctx, false, false, 1, 1, (int)n, 1.0, w, (int)n, w, 1,
                                    0.0, h2, 1)) != GMM_OK ||
                (status = dev->download(dev->ctx, h2, &nn, 1)) != GMM_OK)
                goto fail;
        }
        if (!(nn > 1e-20)) {
            status = gmm_error(GMM_ERR_NUMERIC, "Lanczos: no direction left after %d steps", m);
            goto fail;
        }
        if ((status = dev->scale(dev->ctx, n, 1.0 / sqrt(nn), w, vnext)) != GMM_OK) goto fail;
    }

    /* Ritz vectors Y = V_m^T Z (n x k) */
    if ((status = dev->alloc(dev->ctx, (size_t)m * k, &S)) != GMM_OK ||
        (status = dev->alloc(dev->ctx, (size_t)n * k, &Y)) != GMM_OK ||
        (status = dev->upload(dev->ctx, Z, S, (size_t)m * k)) != GMM_OK ||
        (status = dev->gemm(dev->ctx, true, false, (int)n, k, m, 1.0, V, (int)n, S, k, 0.0, Y, k)) !=
            GMM_OK ||
        (status = dev->download(dev->ctx, Y, eigenvectors, (size_t)n * k)) != GMM_OK)
        goto fail;
    memcpy(eigenvalues, theta, sizeof(double) * k);
    if (report)
        *report = (lanczos_report){.steps = m, .restarts = restarts, .max_residual = max_residual,
                                   .converged = converged};
fail:
    dev->release(dev->ctx, V);
    dev->release(dev->ctx, w);
    dev->release(dev->ctx, h);
    dev->release(dev->ctx, h2);
    dev->release(dev->ctx, S);
    dev->release(dev->ctx, Y);
    free(alpha);
    free(beta);
    free(theta);
    free(Z);
    free(host_v);
    return status;
}

/* ---- the CPU's steps ---------------------------------------------------------------------- */

static gmm_status cpu_alloc(void *ctx, size_t n, double **p)
{
    (void)ctx;
    *p = malloc(sizeof(double) * (n ? n : 1));
    if (!*p) return gmm_error(GMM_ERR_NOMEM, "Lanczos: out of memory for %zu doubles", n);
    return GMM_OK;
}
static void cpu_release(void *ctx, double *p)
{
    (void)ctx;
    free(p);
}
static gmm_status cpu_copy(void *ctx, const double *from, double *to, size_t n)
{
    (void)ctx;
    memcpy(to, from, sizeof(double) * n);
    return GMM_OK;
}
static gmm_status cpu_matvec(void *ctx, const double *x, double *y)
{
    const csr_matrix *A = ctx;
    return spmv_csr_cpu(A->n, A->row_ptr, A->col, A->val, x, y);
}
static gmm_status cpu_gemm(void *ctx, bool ta, bool tb, int m, int n, int k, double alpha,
                           const double *A, int lda, const double *B, int ldb, double beta,
                           double *C, int ldc)
{
    (void)ctx;
    la_dgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    return GMM_OK;
}
static gmm_status cpu_scale(void *ctx, int64_t n, double alpha, const double *x, double *y)
{
    (void)ctx;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) y[i] = alpha * x[i];
    return GMM_OK;
}

gmm_status lanczos_largest(const csr_matrix *A, int k, const lanczos_options *options,
                           gmm_gpu *gpu, double *eigenvalues, double *eigenvectors,
                           lanczos_report *report)
{
    if (!A || !A->row_ptr || !A->col || !A->val)
        return gmm_error(GMM_ERR_ARG, "Lanczos: no matrix");
    if (gpu) return lanczos_largest_cuda(A, k, options, gpu, eigenvalues, eigenvectors, report);
    const lanczos_device cpu = {(void *)A, cpu_alloc, cpu_release, cpu_copy, cpu_copy,
                                cpu_matvec, cpu_gemm, cpu_scale};
    return lanczos_run(&cpu, A->n, k, options, eigenvalues, eigenvectors, report);
}
