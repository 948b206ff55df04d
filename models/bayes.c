/* The variational Gaussian mixture's host-side arithmetic (see bayes.h), in scikit-learn's order
 * of operations. */
#include "models/bayes.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"

double gmm_digamma(double x)
{
    double r = 0;
    while (x < 10) {
        r -= 1 / x;
        x += 1;
    }
    double f = 1 / (x * x);
    /* -1/(2x) - sum B_2n / (2n x^2n) */
    double t = f * (-1.0 / 12 +
                    f * (1.0 / 120 +
                         f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760))))));
    return r + log(x) - 0.5 / x + t;
}

void gmm_bayes_m_step(gmm_bayes *b, gmm_cov_type type, int K, int d, const double *nk,
                      double *means, double *diff, double *coef, double *weights)
{
    const double beta0 = b->mean_precision_prior, nu0 = b->degrees_of_freedom_prior;
    /* _estimate_weights */
    if (b->weight_prior_type == GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS) {
        /* (1 + N_k, gamma_0 + sum_{j > k} N_j): the later sums as np.cumsum(nk[::-1])[-2::-1] */
        double tail = 0;
        b->weight_concentration[K + K - 1] = b->weight_concentration_prior + 0.0;
        for (int k = K - 1; k >= 0; k--) {
            b->weight_concentration[k] = 1.0 + nk[k];
            if (k < K - 1) b->weight_concentration[K + k] = b->weight_concentration_prior + tail;
            tail += nk[k];
        }
    } else {
        for (int k = 0; k < K; k++) b->weight_concentration[k] = b->weight_concentration_prior + nk[k];
    }
    /* _estimate_means */
    for (int k = 0; k < K; k++) {
        b->mean_precision[k] = beta0 + nk[k];
        for (int j = 0; j < d; j++) {
            double xk = means[(size_t)k * d + j];
            diff[(size_t)k * d + j] = xk - b->mean_prior[j];
            means[(size_t)k * d + j] = (beta0 * b->mean_prior[j] + nk[k] * xk) / b->mean_precision[k];
        }
    }
    /* _estimate_wishart_*: the degrees of freedom and the covariance coefficients */
    double *a = coef, *g = coef + K, *c = coef + 2 * K;
    if (type == GMM_COV_TIED) {
        double total = 0;
        for (int k = 0; k < K; k++) total += nk[k];
        double nu = nu0 + total / K;
        for (int k = 0; k < K; k++) {
            b->degrees_of_freedom[k] = nu;
            a[k] = total / K;
            g[k] = beta0 / K * (nk[k] / b->mean_precision[k]);
            c[k] = nu;
        }
    } else {
        for (int k = 0; k < K; k++) {
            b->degrees_of_freedom[k] = nu0 + nk[k];
            a[k] = nk[k];
            g[k] = type == GMM_COV_FULL ? nk[k] * beta0 / b->mean_precision[k]
                                        : nk[k] * (beta0 / b->mean_precision[k]);
            c[k] = b->degrees_of_freedom[k];
        }
    }
    /* _estimate_log_weights, then the log-probability terms of _estimate_log_prob */
    if (b->weight_prior_type == GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS) {
        double cum = 0;
        for (int k = 0; k < K; k++) {
            double alpha = b->weight_concentration[k], beta = b->weight_concentration[K + k];
            double dsum = gmm_digamma(alpha + beta);
            b->log_weight_terms[k] = gmm_digamma(alpha) - dsum + cum;
            cum += gmm_digamma(beta) - dsum;
        }
    } else {
        double sum = 0;
        for (int k = 0; k < K; k++) sum += b->weight_concentration[k];
        double dsum = gmm_digamma(sum);
        for (int k = 0; k < K; k++)
            b->log_weight_terms[k] = gmm_digamma(b->weight_concentration[k]) - dsum;
    }
    for (int k = 0; k < K; k++) {
        double nu = b->degrees_of_freedom[k], log_lambda = 0;
        for (int j = 0; j < d; j++) log_lambda += gmm_digamma(0.5 * (nu - j));
        log_lambda += d * log(2.0);
        b->log_weight_terms[k] +=
            -0.5 * d * log(nu) + 0.5 * (log_lambda - d / b->mean_precision[k]);
    }
    /* _set_parameters' weights_ */
    if (b->weight_prior_type == GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS) {
        double prod = 1, total = 0;
        for (int k = 0; k < K; k++) {
            double alpha = b->weight_concentration[k], beta = b->weight_concentration[K + k];
            weights[k] = alpha / (alpha + beta) * prod;
            prod *= beta / (alpha + beta);
            total += weights[k];
        }
        for (int k = 0; k < K; k++) weights[k] /= total;
    } else {
        double total = 0;
        for (int k = 0; k < K; k++) total += b->weight_concentration[k];
        for (int k = 0; k < K; k++) weights[k] = b->weight_concentration[k] / total;
    }
}

void gmm_bayes_estep_constants(const gmm_bayes *b, int K, int d, const double *log_det_u,
                               double *constants)
{
    for (int k = 0; k < K; k++)
        constants[k] = -0.5 * (d * log(2.0 * M_PI)) + log_det_u[k] + b->log_weight_terms[k];
}

double gmm_bayes_bound_terms(const gmm_bayes *b, gmm_cov_type type, int K, int d,
                             const double *log_det_u)
{
    /* log_wishart: sum_k _log_wishart_norm(nu_k, log det U_k - d/2 log nu_k, d) (tied: K
     * times the one value) */
    double log_wishart = 0;
    for (int k = 0; k < K; k++) {
        double nu = b->degrees_of_freedom[k];
        double ldpc = log_det_u[k] - 0.5 * d * log(nu), lg = 0;
        for (int j = 0; j < d; j++) lg += lgamma(0.5 * (nu - j));
        log_wishart += -(nu * ldpc + nu * d * 0.5 * log(2.0) + lg);
        if (type == GMM_COV_TIED) {
            log_wishart *= K;
            break;
        }
    }
    double log_norm_weight = 0;
    if (b->weight_prior_type == GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS) {
        for (int k = 0; k < K; k++) {
            double alpha = b->weight_concentration[k], beta = b->weight_concentration[K + k];
            log_norm_weight -= lgamma(alpha) + lgamma(beta) - lgamma(alpha + beta);
        }
    } else {
        double sum = 0, lg = 0;
        for (int k = 0; k < K; k++) {
            sum += b->weight_concentration[k];
            lg += lgamma(b->weight_concentration[k]);
        }
        log_norm_weight = lgamma(sum) - lg;
    }
    double log_beta = 0;
    for (int k = 0; k < K; k++) log_beta += log(b->mean_precision[k]);
    return log_wishart + log_norm_weight + 0.5 * d * log_beta;
}

gmm_status gmm_bayes_new_from_prior(gmm_bayes **out, const gmm_bayes *prior, gmm_cov_type type,
                                    int K, int d)
{
    gmm_status status = gmm_bayes_alloc(out, type, K, d);
    if (status != GMM_OK) return status;
    gmm_bayes_copy_prior(*out, prior, type, d);
    return GMM_OK;
}

gmm_status gmm_bayes_to_model(const gmm_bayes *b, gmm_model *m)
{
    if (!m->bayes) {
        gmm_status status = gmm_bayes_alloc(&m->bayes, m->covariance_type, m->n_components,
                                            m->dim);
        if (status != GMM_OK) return status;
    }
    gmm_bayes_copy_into(m->bayes, b, m->covariance_type, m->n_components, m->dim);
    return GMM_OK;
}

gmm_status gmm_bayes_from_model(gmm_bayes *b, const gmm_model *m)
{
    if (!m->bayes)
        return gmm_error(GMM_ERR_ARG, "a variational fit needs a model with variational "
                         "parameters (this one is a maximum-likelihood mixture)");
    gmm_bayes_copy_into(b, m->bayes, m->covariance_type, m->n_components, m->dim);
    return GMM_OK;
}

int gmm_bayes_components_kept(const gmm_model *m, double threshold)
{
    int kept = 0;
    for (int k = 0; k < m->n_components; k++) kept += m->weights[k] > threshold;
    return kept;
}

gmm_status gmm_bayes_check_prior(const gmm_bayes *b, gmm_cov_type type, int d,
                                 bool covariance_given)
{
    if (!(b->weight_concentration_prior > 0) || !isfinite(b->weight_concentration_prior))
        return gmm_error(GMM_ERR_ARG, "weight_concentration_prior=%g must be > 0",
                         b->weight_concentration_prior);
    if (!(b->mean_precision_prior > 0) || !isfinite(b->mean_precision_prior))
        return gmm_error(GMM_ERR_ARG, "mean_precision_prior=%g must be > 0",
                         b->mean_precision_prior);
    if (!(b->degrees_of_freedom_prior > d - 1.0) || !isfinite(b->degrees_of_freedom_prior))
        return gmm_error(GMM_ERR_ARG, "degrees_of_freedom_prior=%g must be greater than %d "
                         "(the number of features - 1)", b->degrees_of_freedom_prior, d - 1);
    for (int j = 0; j < d; j++)
        if (!isfinite(b->mean_prior[j]))
            return gmm_error(GMM_ERR_ARG, "mean_prior[%d] is %g: it must be finite", j,
                             b->mean_prior[j]);
    size_t n = gmm_bayes_prior_cov_size(type, d);
    const double *P = b->covariance_prior;
    /* scikit-learn checks a given one only: the data's is positive semi-definite (constant
     * pixels), and the M-step's covariances with reg_covar are positive definite all the same */
    if (!covariance_given) return GMM_OK;
    for (size_t i = 0; i < n; i++)
        if (!isfinite(P[i]))
            return gmm_error(GMM_ERR_ARG, "covariance_prior[%zu] is %g: it must be finite", i,
                             P[i]);
    if (type == GMM_COV_DIAG || type == GMM_COV_SPHERICAL) {
        for (size_t i = 0; i < n; i++)
            if (!(P[i] > 0))
                return gmm_error(GMM_ERR_ARG, "covariance_prior[%zu]=%g must be positive", i,
                                 P[i]);
        return GMM_OK;
    }
    for (int i = 0; i < d; i++)
        for (int j = 0; j < i; j++)
            if (fabs(P[(size_t)i * d + j] - P[(size_t)j * d + i]) >
                1e-8 + 1e-5 * fabs(P[(size_t)j * d + i]))
                return gmm_error(GMM_ERR_ARG, "covariance_prior is not symmetric (entries %d,%d "
                                 "and %d,%d differ)", i, j, j, i);
    double *L = malloc(sizeof(double) * n);
    if (!L) return gmm_error(GMM_ERR_NOMEM, "out of memory to check covariance_prior");
    memcpy(L, P, sizeof(double) * n);
    int minor = la_dpotrf_lower(d, L, d);
    free(L);
    if (minor != 0)
        return gmm_error(GMM_ERR_ARG, "covariance_prior is not positive definite (leading minor "
                         "%d)", minor);
    return GMM_OK;
}
