/* What a model file's checksum cannot vouch for: the meaning of a loaded model's numbers (finite,
 * weights a distribution, precision factors triangular with a positive diagonal and consistent
 * with the covariances, training options in the programs' ranges). */
#include "models/io/model_io.h"

#include "models/features/finite_check.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ||U^T C U v - v|| / ||v|| for the probe vectors: 0 up to rounding for a consistent model */
#define MODEL_CONSISTENCY_TOL 1e-6

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

gmm_status gmm_model_check(const gmm_model *m)
{
    if (!m || !m->weights || !m->means || !m->covariances || !m->precisions_cholesky)
        return gmm_error(GMM_ERR_ARG, "gmm_model_check: model not allocated");
    const int K = m->n_components, d = m->dim;
    const size_t n_cov = gmm_cov_size(m->covariance_type, K, d);
    gmm_status st;
    if ((st = gmm_check_finite("weights", m->weights, (size_t)K, 0)) != GMM_OK ||
        (st = gmm_check_finite("means", m->means, (size_t)K * d, d)) != GMM_OK ||
        (st = gmm_check_finite("covariances", m->covariances, n_cov, 0)) != GMM_OK ||
        (st = gmm_check_finite("precisions_cholesky", m->precisions_cholesky, n_cov, 0)) != GMM_OK)
        return st;
    if (m->space && (st = gmm_feature_space_check(m->space, d)) != GMM_OK) return st;

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
