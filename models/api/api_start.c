/* The start of a fit from the *_init arrays and initial responsibilities (see api_start.h): the
 * arrays checked, the precision matrices factored as the E-step takes them. */
#include "models/api/api_start.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"

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

/* The factor U of each precision matrix P (upper, P = U U^T: models/model.h's layout), and when
 * cov is not NULL the covariance P^-1. With J the order reversal, J P J = L L^T (Cholesky of the
 * lower triangle of P, read in reverse), U = J L J and P^-1 = J L^-T L^-1 J: P is factored as it
 * is, never inverted first. Diag and spherical: U = sqrt(P), cov = 1 / P. */
static gmm_status factor_precisions(gmm_cov_type type, int K, int dim, const double *prec,
                                    double *prec_chol, double *cov)
{
    if (type == GMM_COV_DIAG || type == GMM_COV_SPHERICAL) {
        size_t n = gmm_cov_size(type, K, dim);
        for (size_t i = 0; i < n; i++) {
            if (!(prec[i] > 0))
                return gmm_error(GMM_ERR_ARG, "precisions_init[%zu]=%g must be positive", i,
                                 prec[i]);
            prec_chol[i] = sqrt(prec[i]);
            if (cov) cov[i] = 1.0 / prec[i];
        }
        return GMM_OK;
    }
    size_t dd = (size_t)dim * dim;
    int n_mats = type == GMM_COV_FULL ? K : 1;
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
        for (int a = 0; a < dim; a++) /* L's input: J P J, from P's lower triangle */
            for (int b = 0; b < dim; b++) {
                int i = dim - 1 - a, j = dim - 1 - b;
                L[(size_t)a * dim + b] = i >= j ? P[(size_t)i * dim + j] : P[(size_t)j * dim + i];
            }
        if (la_dpotrf_lower(dim, L, dim) != 0) {
            status = gmm_error(GMM_ERR_ARG, "precisions_init[%d] is not positive definite", k);
            goto fail;
        }
        double *U = prec_chol + k * dd;
        for (int a = 0; a < dim; a++)
            for (int b = 0; b < dim; b++)
                U[(size_t)a * dim + b] = L[(size_t)(dim - 1 - a) * dim + (dim - 1 - b)];
        if (!cov) continue;
        memset(Linv, 0, sizeof(double) * dd);
        for (int j = 0; j < dim; j++) Linv[(size_t)j * dim + j] = 1.0;
        la_dtrsm_lower_left(dim, dim, L, dim, Linv, dim); /* L^-1 */
        la_dgemm(true, false, dim, dim, dim, 1.0, Linv, dim, Linv, dim, 0.0, L, dim);
        double *C = cov + k * dd; /* J (L^-T L^-1) J */
        for (int a = 0; a < dim; a++)
            for (int b = 0; b < dim; b++)
                C[(size_t)a * dim + b] = L[(size_t)(dim - 1 - a) * dim + (dim - 1 - b)];
    }
fail:
    free(L);
    free(Linv);
    return status;
}

gmm_status gmm_start_plan_make(const gmm_initial_arrays *arrays, int K, int dim,
                               gmm_cov_type type, gmm_start_plan *plan)
{
    memset(plan, 0, sizeof *plan);
    gmm_status status = check_sizes(arrays, K, dim, type);
    if (status != GMM_OK) return status;
    plan->all_given = arrays->weights && arrays->means && arrays->precisions;
    if (plan->all_given) {
        gmm_model *m = &plan->start;
        if ((status = gmm_model_alloc(m, K, dim, type)) != GMM_OK) return status;
        memcpy(m->weights, arrays->weights, sizeof(double) * K);
        memcpy(m->means, arrays->means, sizeof(double) * K * dim);
        return factor_precisions(type, K, dim, arrays->precisions, m->precisions_cholesky,
                                 m->covariances);
    }
    plan->given.weights = arrays->weights;
    plan->given.means = arrays->means;
    if (arrays->precisions) {
        plan->precisions_cholesky = malloc(sizeof(double) * gmm_cov_size(type, K, dim));
        if (!plan->precisions_cholesky)
            return gmm_error(GMM_ERR_NOMEM, "out of memory for the factors of precisions_init");
        if ((status = factor_precisions(type, K, dim, arrays->precisions,
                                        plan->precisions_cholesky, NULL)) != GMM_OK)
            return status;
        plan->given.precisions_cholesky = plan->precisions_cholesky;
    }
    return GMM_OK;
}

void gmm_start_plan_free(gmm_start_plan *plan)
{
    if (!plan) return;
    gmm_model_free(&plan->start);
    free(plan->precisions_cholesky);
    memset(plan, 0, sizeof *plan);
}

gmm_status gmm_check_resp_init(const double *resp, int64_t n_samples, int K)
{
    for (int64_t i = 0; i < n_samples; i++) {
        const double *r = resp + (size_t)i * K;
        double sum = 0;
        for (int k = 0; k < K; k++) {
            if (!isfinite(r[k]) || r[k] < 0)
                return gmm_error(GMM_ERR_ARG, "resp_init[%lld, %d]=%g: responsibilities must be "
                                 "finite and >= 0", (long long)i, k, r[k]);
            sum += r[k];
        }
        if (fabs(sum - 1.0) > 1e-6)
            return gmm_error(GMM_ERR_ARG, "resp_init's row %lld sums to %.9g; each row must sum "
                             "to 1 (within 1e-6)", (long long)i, sum);
    }
    return GMM_OK;
}
