/* PCA in front of the mixture: the projection's bookkeeping, its fit (covariance, then the
 * symmetric eigensolver) and the maps to and from the projected space (see pca.h). */
#include "models/features/pca.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "models/features/finite_check.h"
#include "kernels/covariance.h"
#include "linalg/eigen.h"

gmm_status gmm_projection_alloc(int input_dim, int n_axes, int whiten, gmm_projection **out)
{
    *out = NULL;
    if (input_dim < 1 || n_axes < 1 || n_axes > input_dim)
        return gmm_error(GMM_ERR_ARG, "a projection to %d axes of %d dimensions is impossible",
                         n_axes, input_dim);
    gmm_projection *p = calloc(1, sizeof *p);
    if (!p) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    p->input_dim = input_dim;
    p->n_axes = n_axes;
    p->whiten = whiten ? 1 : 0;
    p->mean = calloc((size_t)input_dim, sizeof(double));
    p->components = calloc((size_t)n_axes * input_dim, sizeof(double));
    p->explained_variance = calloc((size_t)n_axes, sizeof(double));
    if (!p->mean || !p->components || !p->explained_variance) {
        gmm_projection_free(p);
        return gmm_error(GMM_ERR_NOMEM, "cannot allocate a projection of %d x %d", n_axes,
                         input_dim);
    }
    *out = p;
    return GMM_OK;
}

void gmm_projection_free(gmm_projection *p)
{
    if (!p) return;
    free(p->mean);
    free(p->components);
    free(p->explained_variance);
    free(p);
}

gmm_status gmm_projection_copy(const gmm_projection *src, gmm_projection **out)
{
    gmm_status st = gmm_projection_alloc(src->input_dim, src->n_axes, src->whiten, out);
    if (st != GMM_OK) return st;
    gmm_projection *p = *out;
    p->total_variance = src->total_variance;
    memcpy(p->mean, src->mean, sizeof(double) * (size_t)src->input_dim);
    memcpy(p->components, src->components, sizeof(double) * (size_t)src->n_axes * src->input_dim);
    memcpy(p->explained_variance, src->explained_variance, sizeof(double) * (size_t)src->n_axes);
    return GMM_OK;
}

double gmm_projection_explained_ratio(const gmm_projection *p)
{
    double kept = 0;
    for (int a = 0; a < p->n_axes; a++) kept += p->explained_variance[a];
    return p->total_variance > 0 ? kept / p->total_variance : 1.0;
}

gmm_status gmm_projection_fit(const double *X, int64_t n_samples, int input_dim, int n_axes,
                              int whiten, gmm_gpu *gpu, gmm_projection **out)
{
    *out = NULL;
    if (!X || n_samples < 1 || input_dim < 1)
        return gmm_error(GMM_ERR_ARG, "gmm_projection_fit: no data");
    if (n_axes < 1 || n_axes > input_dim)
        return gmm_error(GMM_ERR_ARG, "--pca %d: must be between 1 and the image dimension %d",
                         n_axes, input_dim);
    if (n_axes > n_samples)
        return gmm_error(GMM_ERR_ARG, "--pca %d: more axes than images (%lld): at most %lld "
                         "axes carry variance", n_axes, (long long)n_samples,
                         (long long)n_samples);
    const size_t n = (size_t)n_samples, d = (size_t)input_dim;
    gmm_status st = GMM_OK;
    gmm_projection *p = NULL;
    double *Xc = malloc(sizeof(double) * n * d), *cov = NULL;
    double *values = malloc(sizeof(double) * d), *vectors = malloc(sizeof(double) * d * d);
    if (!Xc || !values || !vectors) {
        st = gmm_error(GMM_ERR_NOMEM, "cannot allocate %zu x %zu doubles for the PCA", n, d);
        goto fail;
    }
    if ((st = gmm_projection_alloc(input_dim, n_axes, whiten, &p)) != GMM_OK) goto fail;
    /* the mean, summed in row order so that the CPU and GPU runs see the same centred data */
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) p->mean[j] += X[i * d + j];
    for (size_t j = 0; j < d; j++) p->mean[j] /= (double)n;
#pragma omp parallel for schedule(static)
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) Xc[i * d + j] = X[i * d + j] - p->mean[j];
    if (gpu) {
        if ((st = pca_covariance_eigen_cuda(Xc, n_samples, input_dim, gpu, values, vectors)) !=
            GMM_OK)
            goto fail;
    } else {
        if (!(cov = malloc(sizeof(double) * d * d))) {
            st = gmm_error(GMM_ERR_NOMEM, "cannot allocate the %zu x %zu covariance", d, d);
            goto fail;
        }
        if ((st = covariance_blas(Xc, n, input_dim, cov)) != GMM_OK) goto fail;
        if ((st = eigen_sym_lapack(cov, input_dim, values, vectors)) != GMM_OK) goto fail;
    }
    p->total_variance = 0;
    for (size_t j = 0; j < d; j++) p->total_variance += values[j] > 0 ? values[j] : 0;
    for (int a = 0; a < n_axes; a++) {
        if (whiten && !(values[a] > 1e-12 * (values[0] > 0 ? values[0] : 1))) {
            st = gmm_error(GMM_ERR_NUMERIC, "--whiten: axis %d of the PCA has no variance "
                           "(eigenvalue %g); use a smaller --pca (at most %d)", a + 1, values[a],
                           a);
            goto fail;
        }
        p->explained_variance[a] = values[a] > 0 ? values[a] : 0;
    }
    memcpy(p->components, vectors, sizeof(double) * (size_t)n_axes * d);
    *out = p;
    p = NULL;
fail:
    gmm_projection_free(p);
    free(Xc);
    free(cov);
    free(values);
    free(vectors);
    return st;
}

gmm_status gmm_projection_apply(const gmm_projection *p, const double *X, int64_t n_samples,
                                gmm_gpu *gpu, double *Z)
{
    if (!p || !X || !Z || n_samples < 0) return gmm_error(GMM_ERR_ARG, "gmm_projection_apply: bad arguments");
    const int d = p->input_dim, D = p->n_axes;
    gmm_status st = GMM_OK;
    /* W' = the axes scaled for whitening; offset = mean W'^T, so that Z = X W'^T - offset (one
     * GEMM on the uncentred data) */
    double *W = malloc(sizeof(double) * (size_t)D * d), *offset = calloc((size_t)D, sizeof(double));
    if (!W || !offset) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int a = 0; a < D; a++) {
        double scale = p->whiten ? 1.0 / sqrt(p->explained_variance[a]) : 1.0;
        for (int j = 0; j < d; j++) {
            W[(size_t)a * d + j] = scale * p->components[(size_t)a * d + j];
            offset[a] += p->mean[j] * W[(size_t)a * d + j];
        }
    }
    if (n_samples == 0) goto fail;
    if (gpu) {
        if ((st = pca_gemm_cuda(X, n_samples, d, W, D, gpu, Z)) != GMM_OK) goto fail;
    } else {
        la_dgemm(false, true, (int)n_samples, D, d, 1.0, X, d, W, d, 0.0, Z, D);
    }
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_samples; i++)
        for (int a = 0; a < D; a++) Z[(size_t)i * D + a] -= offset[a];
fail:
    free(W);
    free(offset);
    return st;
}

gmm_status gmm_projection_inverse(const gmm_projection *p, const double *Z, int64_t n_samples,
                                  double *X)
{
    if (!p || !Z || !X || n_samples < 0)
        return gmm_error(GMM_ERR_ARG, "gmm_projection_inverse: bad arguments");
    const size_t d = (size_t)p->input_dim, D = (size_t)p->n_axes;
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n_samples; i++) {
        double *x = X + (size_t)i * d;
        const double *z = Z + (size_t)i * D;
        memcpy(x, p->mean, sizeof(double) * d);
        for (size_t a = 0; a < D; a++) {
            double za = p->whiten ? z[a] * sqrt(p->explained_variance[a]) : z[a];
            const double *w = p->components + a * d;
            for (size_t j = 0; j < d; j++) x[j] += za * w[j];
        }
    }
    return GMM_OK;
}

/* ||W W^T - I|| entrywise for a stored projection: 0 up to rounding for orthonormal axes */
#define GMM_PROJECTION_ORTHONORMAL_TOL 1e-6

/* The projection in front of the mixture: sizes that agree with the model, finite values,
 * variances >= 0 (> 0 when whitened) and orthonormal axes (W W^T = I within 1e-6). */
gmm_status gmm_projection_check(const gmm_projection *p, int model_dim)
{
    if (p->n_axes != model_dim || p->input_dim < p->n_axes || p->n_axes < 1)
        return gmm_error(GMM_ERR_FORMAT, "projection: %d axes of %d input dimensions for a "
                         "model of dimension %d (need axes == dim <= input dimension)",
                         p->n_axes, p->input_dim, model_dim);
    const size_t d = (size_t)p->input_dim, D = (size_t)p->n_axes;
    gmm_status st;
    if ((st = gmm_check_finite("projection mean", p->mean, d, 0)) != GMM_OK ||
        (st = gmm_check_finite("projection components", p->components, D * d, (int)d)) != GMM_OK ||
        (st = gmm_check_finite("projection explained variance", p->explained_variance, D, 0)) !=
            GMM_OK ||
        (st = gmm_check_finite("projection total variance", &p->total_variance, 1, 0)) != GMM_OK)
        return st;
    if (p->whiten != 0 && p->whiten != 1)
        return gmm_error(GMM_ERR_FORMAT, "projection: whiten flag %d, must be 0 or 1", p->whiten);
    for (size_t a = 0; a < D; a++)
        if (p->explained_variance[a] < 0 || (p->whiten && !(p->explained_variance[a] > 0)))
            return gmm_error(GMM_ERR_FORMAT, "projection: axis %zu has variance %g, must be %s",
                             a, p->explained_variance[a], p->whiten ? "> 0 (whitened)" : ">= 0");
    if (p->total_variance < 0)
        return gmm_error(GMM_ERR_FORMAT, "projection: total variance %g is negative",
                         p->total_variance);
    for (size_t a = 0; a < D; a++)
        for (size_t b = 0; b <= a; b++) {
            double dot = 0;
            for (size_t j = 0; j < d; j++) dot += p->components[a * d + j] * p->components[b * d + j];
            if (!(fabs(dot - (a == b ? 1.0 : 0.0)) <= GMM_PROJECTION_ORTHONORMAL_TOL))
                return gmm_error(GMM_ERR_FORMAT, "projection: axes %zu and %zu are not "
                                 "orthonormal (dot product %.9g, must be %d within %g)", a, b,
                                 dot, a == b, GMM_PROJECTION_ORTHONORMAL_TOL);
        }
    return GMM_OK;
}
