/* The starting model of a fit from scikit-learn's weights_init / means_init / precisions_init
 * (see api_start.h): responsibilities, one M-step, then the given arrays in their places. */
#include "models/api/api_start.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "models/backend/backend.h"
#include "models/core/init.h"
#include "kernels/rng.h"

static gmm_status check_all_finite(const char *name, const double *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(a[i]))
            return gmm_error(GMM_ERR_ARG, "%s[%zu] is %g: initial parameters must be finite",
                             name, i, a[i]);
    return GMM_OK;
}

static gmm_status check_sizes(const gmm_initial_arrays *g, int K, int dim, gmm_cov_type type)
{
    gmm_status status;
    if (g->weights) {
        if (g->n_weights != (size_t)K)
            return gmm_error(GMM_ERR_ARG, "weights_init has %zu values but n_components=%d",
                             g->n_weights, K);
        if ((status = check_all_finite("weights_init", g->weights, g->n_weights)) != GMM_OK)
            return status;
        double sum = 0;
        for (int k = 0; k < K; k++) {
            if (g->weights[k] < 0 || g->weights[k] > 1)
                return gmm_error(GMM_ERR_ARG, "weights_init[%d]=%g must be in [0, 1]", k,
                                 g->weights[k]);
            sum += g->weights[k];
        }
        if (fabs(sum - 1.0) > 1e-6)
            return gmm_error(GMM_ERR_ARG, "weights_init sums to %.9g; it must sum to 1", sum);
    }
    if (g->means) {
        if (g->n_means != (size_t)K * dim)
            return gmm_error(GMM_ERR_ARG, "means_init has %zu values but n_components x "
                             "n_features is %d x %d", g->n_means, K, dim);
        if ((status = check_all_finite("means_init", g->means, g->n_means)) != GMM_OK)
            return status;
    }
    if (g->precisions) {
        size_t want = gmm_cov_size(type, K, dim);
        if (g->n_precisions != want)
            return gmm_error(GMM_ERR_ARG, "precisions_init has %zu values but %s covariance with "
                             "%d components of %d features needs %zu",
                             g->n_precisions, gmm_cov_type_name(type), K, dim, want);
        if ((status = check_all_finite("precisions_init", g->precisions, want)) != GMM_OK)
            return status;
    }
    return GMM_OK;
}

/* Each sample's responsibility 1 for its nearest mean (squared Euclidean distance). */
static void nearest_mean_resp(const double *X, int64_t n, int dim, const double *means, int K,
                              double *resp)
{
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        const double *x = X + (size_t)i * dim;
        int best = 0;
        double best_d2 = INFINITY;
        for (int k = 0; k < K; k++) {
            const double *m = means + (size_t)k * dim;
            double d2 = 0;
            for (int j = 0; j < dim; j++) d2 += (x[j] - m[j]) * (x[j] - m[j]);
            if (d2 < best_d2) best_d2 = d2, best = k;
        }
        double *r = resp + (size_t)i * K;
        for (int k = 0; k < K; k++) r[k] = k == best ? 1.0 : 0.0;
    }
}

/* The covariances as the inverses of the given precisions (the factors follow from them). */
static gmm_status covariances_from_precisions(gmm_model *m, const double *prec)
{
    int dim = m->dim;
    size_t dd = (size_t)dim * dim;
    if (m->covariance_type == GMM_COV_DIAG || m->covariance_type == GMM_COV_SPHERICAL) {
        size_t n = gmm_cov_size(m->covariance_type, m->n_components, dim);
        for (size_t i = 0; i < n; i++) {
            if (!(prec[i] > 0))
                return gmm_error(GMM_ERR_ARG, "precisions_init[%zu]=%g must be positive", i,
                                 prec[i]);
            m->covariances[i] = 1.0 / prec[i];
        }
        return GMM_OK;
    }
    int n_mats = m->covariance_type == GMM_COV_FULL ? m->n_components : 1;
    gmm_status status = GMM_OK;
    double *L = malloc(sizeof(double) * dd), *Linv = malloc(sizeof(double) * dd);
    if (!L || !Linv) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory for a %d x %d precision matrix", dim,
                           dim);
        goto fail;
    }
    for (int k = 0; k < n_mats; k++) {
        const double *P = prec + k * dd;
        for (int a = 0; a < dim; a++)
            for (int b = 0; b < a; b++)
                /* scikit-learn's test (np.allclose); the lower triangle is what is used */
                if (fabs(P[(size_t)a * dim + b] - P[(size_t)b * dim + a]) >
                    1e-8 + 1e-5 * fabs(P[(size_t)b * dim + a])) {
                    status = gmm_error(GMM_ERR_ARG, "precisions_init[%d] is not symmetric "
                                       "(entries %d,%d and %d,%d differ)", k, a, b, b, a);
                    goto fail;
                }
        memcpy(L, P, sizeof(double) * dd);
        int minor = la_dpotrf_lower(dim, L, dim);
        if (minor != 0) {
            status = gmm_error(GMM_ERR_ARG, "precisions_init[%d] is not positive definite "
                               "(leading minor %d)", k, minor);
            goto fail;
        }
        memset(Linv, 0, sizeof(double) * dd);
        for (int j = 0; j < dim; j++) Linv[(size_t)j * dim + j] = 1.0;
        la_dtrsm_lower_left(dim, dim, L, dim, Linv, dim); /* L^-1 */
        /* P^-1 = L^-T L^-1 */
        la_dgemm(true, false, dim, dim, dim, 1.0, Linv, dim, Linv, dim, 0.0,
                 m->covariances + k * dd, dim);
    }
fail:
    free(L);
    free(Linv);
    return status;
}

/* weights, means, covariances and factors from responsibilities: one M-step on a backend. */
static gmm_status params_from_resp(const double *X, int64_t n, int dim, const gmm_options *o,
                                   const double *resp, gmm_model *start)
{
    const gmm_backend *be = NULL;
    gmm_backend_ctx *ctx = NULL;
    gmm_status status = gmm_backend_select(o->device, o->gpu, &be, NULL);
    if (status != GMM_OK) return status;
    if ((status = gmm_backend_create_f64(be, &ctx, X, n, dim, o->n_components,
                                         o->covariance_type, GMM_PRECISION_FP64, &o->tuning,
                                         o->gpu)) != GMM_OK)
        goto fail;
    gmm_mstep_report report = {0};
    if ((status = be->set_resp(ctx, resp)) != GMM_OK) goto fail;
    if ((status = be->m_step(ctx, o->reg_covar, &report)) != GMM_OK) goto fail;
    status = be->get_params(ctx, start);
fail:
    be->destroy(ctx);
    return status;
}

gmm_status gmm_start_from_arrays(const double *X, int64_t n_samples, int dim,
                                 const gmm_options *o, const gmm_initial_arrays *given,
                                 gmm_model *start)
{
    int K = o->n_components;
    double *resp = NULL;
    gmm_status status = check_sizes(given, K, dim, o->covariance_type);
    if (status != GMM_OK) return status;
    memset(start, 0, sizeof *start);
    if ((status = gmm_model_alloc(start, K, dim, o->covariance_type)) != GMM_OK) goto fail;
    if (!(given->weights && given->means && given->precisions)) {
        resp = malloc(sizeof(double) * (size_t)n_samples * K);
        if (!resp) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory for %lld x %d responsibilities",
                               (long long)n_samples, K);
            goto fail;
        }
        if (given->means) {
            nearest_mean_resp(X, n_samples, dim, given->means, K, resp);
        } else {
            gmm_rng rng;
            gmm_rng_seed(&rng, o->seed);
            if ((status = gmm_init_resp(X, n_samples, dim, o, &rng, resp)) != GMM_OK) goto fail;
        }
        if ((status = params_from_resp(X, n_samples, dim, o, resp, start)) != GMM_OK) goto fail;
    }
    if (given->weights) memcpy(start->weights, given->weights, sizeof(double) * K);
    if (given->means) memcpy(start->means, given->means, sizeof(double) * K * dim);
    if (given->precisions) {
        if ((status = covariances_from_precisions(start, given->precisions)) != GMM_OK) goto fail;
        start->reg_covar = o->reg_covar;
        if ((status = gmm_model_compute_precisions(start)) != GMM_OK) goto fail;
    }
    start->init = o->init;
    start->seed = o->seed;
fail:
    free(resp);
    if (status != GMM_OK) gmm_model_free(start);
    return status;
}
