/* The priors of a variational fit completed from the data (see bayes_prior.h): the mean and the
 * ddof-1 covariance in float64 chunk by chunk (the data stays in its stored form), the scatter
 * of the centred rows by SYRK, summed over the ranks. */
#include "models/core/bayes_prior.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/blas_cpu.h"
#include "models/bayes.h"
#include "models/dist/comm.h"

#define PRIOR_CHUNK_ROWS 4096

/* mean (d) and the covariance prior's data part (full/tied d x d, diag d, spherical 1). */
static gmm_status data_moments(const gmm_data_view *v, gmm_cov_type type, gmm_comm *comm,
                               double *mean, double *cov)
{
    const int d = v->dim;
    const int64_t N = v->n_rows, n_total = v->n_total;
    const int64_t step = N < PRIOR_CHUNK_ROWS ? (N > 0 ? N : 1) : PRIOR_CHUNK_ROWS;
    gmm_status status = GMM_OK;
    double *buf = malloc(sizeof(double) * (size_t)step * d);
    double *centred = malloc(sizeof(double) * (size_t)step * d);
    double *scatter = calloc(type == GMM_COV_FULL || type == GMM_COV_TIED ? (size_t)d * d : (size_t)d,
                             sizeof(double));
    if (!buf || !centred || !scatter) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory for the data's covariance prior");
        goto fail;
    }
    memset(mean, 0, sizeof(double) * d);
    for (int64_t r0 = 0; r0 < N; r0 += step) {
        int64_t rows = N - r0 < step ? N - r0 : step;
        const double *X = gmm_data_view_f64_rows(v, r0, rows, buf);
        for (int64_t i = 0; i < rows; i++)
            for (int j = 0; j < d; j++) mean[j] += X[(size_t)i * d + j];
    }
    if ((status = gmm_comm_sum(comm, mean, (size_t)d)) != GMM_OK) goto fail;
    for (int j = 0; j < d; j++) mean[j] /= (double)n_total;
    const int matrix = type == GMM_COV_FULL || type == GMM_COV_TIED;
    for (int64_t r0 = 0; r0 < N; r0 += step) {
        int64_t rows = N - r0 < step ? N - r0 : step;
        const double *X = gmm_data_view_f64_rows(v, r0, rows, buf);
        for (int64_t i = 0; i < rows; i++)
            for (int j = 0; j < d; j++)
                centred[(size_t)i * d + j] = X[(size_t)i * d + j] - mean[j];
        if (matrix) {
            la_dsyrk_at_a(d, (int)rows, 1.0, centred, d, r0 ? 1.0 : 0.0, scatter, d);
        } else {
            for (int64_t i = 0; i < rows; i++)
                for (int j = 0; j < d; j++)
                    scatter[j] += centred[(size_t)i * d + j] * centred[(size_t)i * d + j];
        }
    }
    size_t n_scatter = matrix ? (size_t)d * d : (size_t)d;
    if (matrix) la_symmetrize_from_lower(d, scatter, d);
    if ((status = gmm_comm_sum(comm, scatter, n_scatter)) != GMM_OK) goto fail;
    for (size_t q = 0; q < n_scatter; q++) scatter[q] /= (double)(n_total - 1);
    if (type == GMM_COV_SPHERICAL) {
        double s = 0;
        for (int j = 0; j < d; j++) s += scatter[j];
        cov[0] = s / d;
    } else {
        memcpy(cov, scatter, sizeof(double) * n_scatter);
    }
fail:
    free(buf);
    free(centred);
    free(scatter);
    return status;
}

gmm_status gmm_bayes_prior_for_data(const gmm_options *o, const gmm_data_view *data,
                                    gmm_bayes **prior)
{
    const gmm_bayes_options *given = o->bayes;
    const int K = o->n_components, d = data->dim;
    const gmm_cov_type type = o->covariance_type;
    *prior = NULL;
    if ((int)given->weight_prior_type < 0 ||
        (int)given->weight_prior_type > GMM_WEIGHT_PRIOR_DIRICHLET_DISTRIBUTION)
        return gmm_error(GMM_ERR_ARG, "unknown weight_concentration_prior_type %d",
                         (int)given->weight_prior_type);
    if (given->weight_concentration_prior < 0 || given->mean_precision_prior < 0 ||
        given->degrees_of_freedom_prior < 0)
        return gmm_error(GMM_ERR_ARG, "the priors weight_concentration_prior=%g, "
                         "mean_precision_prior=%g and degrees_of_freedom_prior=%g must be "
                         "positive (0: the default)", given->weight_concentration_prior,
                         given->mean_precision_prior, given->degrees_of_freedom_prior);
    gmm_bayes *b = NULL;
    gmm_status status = gmm_bayes_alloc(&b, type, K, d);
    if (status != GMM_OK) return status;
    b->weight_prior_type = given->weight_prior_type;
    b->weight_concentration_prior =
        given->weight_concentration_prior > 0 ? given->weight_concentration_prior : 1.0 / K;
    b->mean_precision_prior = given->mean_precision_prior > 0 ? given->mean_precision_prior : 1.0;
    b->degrees_of_freedom_prior =
        given->degrees_of_freedom_prior > 0 ? given->degrees_of_freedom_prior : (double)d;
    if (!given->mean_prior || !given->covariance_prior) {
        if (data->n_total < 2 && !given->covariance_prior) {
            status = gmm_error(GMM_ERR_ARG, "the covariance prior from the data needs at least "
                               "2 samples (got %lld); give covariance_prior",
                               (long long)data->n_total);
            goto fail;
        }
        double *cov = malloc(sizeof(double) * gmm_bayes_prior_cov_size(type, d));
        if (!cov) {
            status = gmm_error(GMM_ERR_NOMEM, "out of memory for the covariance prior");
            goto fail;
        }
        status = data_moments(data, type, o->comm, b->mean_prior, cov);
        if (status == GMM_OK && !given->covariance_prior)
            memcpy(b->covariance_prior, cov, sizeof(double) * gmm_bayes_prior_cov_size(type, d));
        free(cov);
        if (status != GMM_OK) goto fail;
    }
    if (given->mean_prior) memcpy(b->mean_prior, given->mean_prior, sizeof(double) * d);
    if (given->covariance_prior)
        memcpy(b->covariance_prior, given->covariance_prior,
               sizeof(double) * gmm_bayes_prior_cov_size(type, d));
    if ((status = gmm_bayes_check_prior(b, type, d, given->covariance_prior != NULL)) != GMM_OK)
        goto fail;
    *prior = b;
    return GMM_OK;
fail:
    gmm_bayes_free(b);
    return status;
}
