/* What a model file's checksum cannot vouch for: the meaning of a loaded model's numbers (finite,
 * weights a distribution, precision factors triangular with a positive diagonal and consistent
 * with the covariances, training options in the programs' ranges). */
#include "models/io/model_io.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Every stored number is finite and at most this large in magnitude, so that scoring (sums of
 * d products of two of them, then squared) stays clear of inf - inf. */
#define MODEL_MAX_ABS 1e100
/* ||U^T C U v - v|| / ||v|| for the probe vectors: 0 up to rounding for a consistent model */
#define MODEL_CONSISTENCY_TOL 1e-6

static gmm_status check_finite(const char *field, const double *x, size_t n, int k_stride)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(x[i]) || fabs(x[i]) > MODEL_MAX_ABS) {
            if (k_stride > 0)
                return gmm_error(GMM_ERR_FORMAT,
                                 "%s of component %zu, element %zu is %g (every value must be "
                                 "finite and at most %g in magnitude)",
                                 field, i / (size_t)k_stride, i % (size_t)k_stride, x[i],
                                 MODEL_MAX_ABS);
            return gmm_error(GMM_ERR_FORMAT,
                             "%s element %zu is %g (every value must be finite and at most %g "
                             "in magnitude)",
                             field, i, x[i], MODEL_MAX_ABS);
        }
    return GMM_OK;
}

/* A dense probe: every entry of the matrices it passes through moves the result. */
static void probe_vector(double *v, int d, int which)
{
    for (int i = 0; i < d; i++)
        v[i] = (1.0 + (double)((i * 7 + which * 3) % 11) / 11.0) * (which && (i & 1) ? -1.0 : 1.0);
}

/* U upper triangular with a positive diagonal, and U^T C U = I on two probe vectors (C U U^T =
 * I written the well-conditioned way). scratch holds 3 d doubles. */
static gmm_status check_factor(const char *what, int k, int d, const double *C, const double *U,
                               double *scratch)
{
    for (int i = 0; i < d; i++) {
        if (!(U[(size_t)i * d + i] > 0))
            return gmm_error(GMM_ERR_FORMAT,
                             "precisions_cholesky of %s %d: diagonal element %d is %g, must be > 0",
                             what, k, i, U[(size_t)i * d + i]);
        for (int j = 0; j < i; j++)
            if (U[(size_t)i * d + j] != 0)
                return gmm_error(GMM_ERR_FORMAT,
                                 "precisions_cholesky of %s %d is not upper triangular (element "
                                 "%d,%d is %g)",
                                 what, k, i, j, U[(size_t)i * d + j]);
    }
    double *v = scratch, *w = scratch + d, *z = scratch + 2 * (size_t)d;
    for (int which = 0; which < 2; which++) {
        probe_vector(v, d, which);
        for (int i = 0; i < d; i++) { /* w = U v */
            double s = 0;
            for (int j = i; j < d; j++) s += U[(size_t)i * d + j] * v[j];
            w[i] = s;
        }
        for (int i = 0; i < d; i++) { /* z = C w */
            double s = 0;
            for (int j = 0; j < d; j++) s += C[(size_t)i * d + j] * w[j];
            z[i] = s;
        }
        double err = 0, norm = 0;
        for (int j = 0; j < d; j++) { /* (U^T z)_j - v_j */
            double s = 0;
            for (int i = 0; i <= j; i++) s += U[(size_t)i * d + j] * z[i];
            err += (s - v[j]) * (s - v[j]);
            norm += v[j] * v[j];
        }
        double rel = sqrt(err / norm);
        if (!(rel <= MODEL_CONSISTENCY_TOL))
            return gmm_error(GMM_ERR_FORMAT,
                             "covariances of %s %d do not match its precisions_cholesky "
                             "(||U^T C U v - v|| / ||v|| = %.3g, at most %g)",
                             what, k, rel, MODEL_CONSISTENCY_TOL);
    }
    return GMM_OK;
}

/* The projection in front of the mixture: sizes that agree with the model, finite values,
 * variances >= 0 (> 0 when whitened) and orthonormal axes (W W^T = I within 1e-6). */
static gmm_status check_projection(const gmm_model *m)
{
    const gmm_projection *p = gmm_space_pca(m->space);
    if (p->n_axes != m->dim || p->input_dim < p->n_axes || p->n_axes < 1)
        return gmm_error(GMM_ERR_FORMAT, "projection: %d axes of %d input dimensions for a "
                         "model of dimension %d (need axes == dim <= input dimension)",
                         p->n_axes, p->input_dim, m->dim);
    const size_t d = (size_t)p->input_dim, D = (size_t)p->n_axes;
    gmm_status st;
    if ((st = check_finite("projection mean", p->mean, d, 0)) != GMM_OK ||
        (st = check_finite("projection components", p->components, D * d, (int)d)) != GMM_OK ||
        (st = check_finite("projection explained variance", p->explained_variance, D, 0)) !=
            GMM_OK ||
        (st = check_finite("projection total variance", &p->total_variance, 1, 0)) != GMM_OK)
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
            if (!(fabs(dot - (a == b ? 1.0 : 0.0)) <= MODEL_CONSISTENCY_TOL))
                return gmm_error(GMM_ERR_FORMAT, "projection: axes %zu and %zu are not "
                                 "orthonormal (dot product %.9g, must be %d within %g)", a, b,
                                 dot, a == b, MODEL_CONSISTENCY_TOL);
        }
    return GMM_OK;
}

/* The spectral space the mixture was fitted in: sizes that agree with the model, finite
 * coordinates, eigenvalues in [-1, 1] (1 again when the graph has several components) and away
 * from 0 (the Nyström extension divides by them),
 * degrees in (0, n_train]. */
static gmm_status check_spectral(const gmm_model *m)
{
    const gmm_spectral_space *s = gmm_space_spectral(m->space);
    if (s->n_dims != m->dim || s->n_neighbors < 2 || s->n_neighbors > 128 ||
        s->n_train <= s->n_dims || s->input_dim < 1)
        return gmm_error(GMM_ERR_FORMAT, "spectral space: %d dimensions (model: %d), %d "
                         "neighbours (2..128), %lld images of %d values", s->n_dims, m->dim,
                         s->n_neighbors, (long long)s->n_train, s->input_dim);
    gmm_status st;
    if ((st = check_finite("spectral embedding", s->embedding, (size_t)s->n_train * s->n_dims, 0)) !=
            GMM_OK ||
        (st = check_finite("spectral eigenvalues", s->eigenvalues, (size_t)s->n_dims, 0)) != GMM_OK ||
        (st = check_finite("spectral degrees", s->degrees, (size_t)s->n_train, 0)) != GMM_OK)
        return st;
    for (int c = 0; c < s->n_dims; c++)
        if (!(fabs(s->eigenvalues[c]) <= 1 + 1e-9 && fabs(s->eigenvalues[c]) > 1e-12))
            return gmm_error(GMM_ERR_FORMAT, "spectral space: eigenvalue %d is %g, must be in "
                             "[-1, 1] and not 0", c, s->eigenvalues[c]);
    for (int64_t i = 0; i < s->n_train; i++)
        if (!(s->degrees[i] > 0 && s->degrees[i] <= (double)s->n_train))
            return gmm_error(GMM_ERR_FORMAT, "spectral space: image %lld has degree %g, must be "
                             "in (0, %lld]", (long long)i, s->degrees[i], (long long)s->n_train);
    return GMM_OK;
}

gmm_status gmm_model_check(const gmm_model *m)
{
    if (!m || !m->weights || !m->means || !m->covariances || !m->precisions_cholesky)
        return gmm_error(GMM_ERR_ARG, "gmm_model_check: model not allocated");
    const int K = m->n_components, d = m->dim;
    const size_t n_cov = gmm_cov_size(m->covariance_type, K, d);
    gmm_status st;
    if ((st = check_finite("weights", m->weights, (size_t)K, 0)) != GMM_OK ||
        (st = check_finite("means", m->means, (size_t)K * d, d)) != GMM_OK ||
        (st = check_finite("covariances", m->covariances, n_cov, 0)) != GMM_OK ||
        (st = check_finite("precisions_cholesky", m->precisions_cholesky, n_cov, 0)) != GMM_OK)
        return st;
    if (gmm_space_pca(m->space) && (st = check_projection(m)) != GMM_OK) return st;
    if (gmm_space_spectral(m->space) && (st = check_spectral(m)) != GMM_OK) return st;

    double sum = 0;
    for (int k = 0; k < K; k++) {
        if (m->weights[k] < 0)
            return gmm_error(GMM_ERR_FORMAT, "weights: component %d has weight %g, must be >= 0",
                             k, m->weights[k]);
        sum += m->weights[k];
    }
    if (!(fabs(sum - 1.0) <= 1e-6))
        return gmm_error(GMM_ERR_FORMAT, "weights sum to %.17g, must be 1 (within 1e-6)", sum);

    const double *C = m->covariances, *U = m->precisions_cholesky;
    switch (m->covariance_type) {
    case GMM_COV_FULL:
    case GMM_COV_TIED: {
        int n_mats = m->covariance_type == GMM_COV_FULL ? K : 1;
        double *scratch = malloc(sizeof(double) * 3 * (size_t)d);
        if (!scratch) return gmm_error(GMM_ERR_NOMEM, "gmm_model_check: out of memory");
        st = GMM_OK;
        for (int k = 0; k < n_mats && st == GMM_OK; k++)
            st = check_factor(n_mats == 1 ? "the tied covariance" : "component",
                              n_mats == 1 ? 0 : k, d, C + (size_t)k * d * d,
                              U + (size_t)k * d * d, scratch);
        free(scratch);
        if (st != GMM_OK) return st;
        break;
    }
    case GMM_COV_DIAG:
    case GMM_COV_SPHERICAL:
        for (size_t i = 0; i < n_cov; i++) {
            size_t k = m->covariance_type == GMM_COV_DIAG ? i / (size_t)d : i;
            if (!(U[i] > 0) || !(C[i] > 0))
                return gmm_error(GMM_ERR_FORMAT,
                                 "component %zu: variance %g and precision %g must both be > 0", k,
                                 C[i], U[i]);
            double rel = fabs(C[i] * U[i] * U[i] - 1.0);
            if (!(rel <= MODEL_CONSISTENCY_TOL))
                return gmm_error(GMM_ERR_FORMAT,
                                 "covariances of component %zu do not match its "
                                 "precisions_cholesky (variance %g x precision^2 %g = %g, must "
                                 "be 1)",
                                 k, C[i], U[i] * U[i], C[i] * U[i] * U[i]);
        }
        break;
    }

    /* the training options, in the ranges gmm-train accepts */
    if (!(m->blur_sigma == 0 ||
          (m->blur_sigma >= GMM_BLUR_SIGMA_MIN && m->blur_sigma <= GMM_BLUR_SIGMA_MAX)))
        return gmm_error(GMM_ERR_FORMAT, "blur_sigma is %g, must be 0 (none) or in [%g, %g]",
                         m->blur_sigma, GMM_BLUR_SIGMA_MIN, GMM_BLUR_SIGMA_MAX);
    if (!isfinite(m->reg_covar) || m->reg_covar < 0)
        return gmm_error(GMM_ERR_FORMAT, "reg_covar is %g, must be a finite number >= 0",
                         m->reg_covar);
    if (!isfinite(m->tol) || m->tol < 0)
        return gmm_error(GMM_ERR_FORMAT, "tol is %g, must be a finite number >= 0", m->tol);
    if (isnan(m->lower_bound))
        return gmm_error(GMM_ERR_FORMAT, "lower_bound is NaN");
    if (m->n_iter < 0 || m->max_iter < 0 || m->n_init < 0 || m->n_train_samples < 0)
        return gmm_error(GMM_ERR_FORMAT,
                         "negative training metadata (n_iter %d, max_iter %d, n_init %d, "
                         "n_train_samples %lld)",
                         m->n_iter, m->max_iter, m->n_init, (long long)m->n_train_samples);
    return GMM_OK;
}
