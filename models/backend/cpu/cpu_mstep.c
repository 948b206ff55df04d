/* The CPU backend's M-step (see backend_cpu.c): sufficient statistics over this rank's rows,
 * summed over the ranks (models/dist/comm.h), then the parameters from them, every rank alike. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/bayes_covariance.h"
#include "kernels/blas_cpu.h"
#include "kernels/compact.h"
#include "kernels/matmul.h"
#include "kernels/parallel.h"
#include "kernels/reduce.h"
#include "models/backend/cpu/backend_cpu.h"
#include "models/bayes.h"
#include "models/precisions.h"

/* The M-step's statistics over this rank's rows, summed over the ranks, then the parameters
 * from them on every rank alike:
 *   pass 1  N_k (each column of the responsibilities in row order), the sums R^T X (the means'
 *           numerators; one GEMM over a float64 view, chunk by chunk otherwise) and for diag and
 *           spherical R^T (X * X); summed over the ranks in one call;
 *   pass 2  full: per component the scatter of the sqrt(r)-scaled centred rows with r > 1e-20
 *           (kernels/compact.h, OpenBLAS SYRK, chunk by chunk), summed over the ranks, then
 *           divided by N_k as scikit-learn; tied: X^T X - sum_k N_k mu_k mu_k^T. */
gmm_status cpu_m_step(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report)
{
    if (!c->have_resp) return gmm_error(GMM_ERR_ARG, "M-step before responsibilities were set");
    if (c->rows_replaced)
        return gmm_error(GMM_ERR_ARG, "M-step on a context whose rows set_rows replaced");
    gmm_status status = GMM_OK;
    const int K = c->n_components, d = c->dim;
    const int64_t N = c->n_samples;
    const size_t dd = (size_t)d * d, Kd = (size_t)K * d;
    const int diag_like = c->type == GMM_COV_DIAG || c->type == GMM_COV_SPHERICAL;
    /* stats: N_k (K), R^T X (K x d), diag/spherical R^T (X * X) (K x d) */
    const size_t n_stats = K + Kd + (diag_like ? Kd : 0);
    double *resp = malloc(sizeof(double) * (size_t)N * K);
    double *stats = calloc(n_stats, sizeof(double));
    double *nk = calloc(K + 1, sizeof(double));
    if (!resp || !stats || !nk) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory in the M-step");
        goto fail;
    }
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH(20.0 * N * K))
    for (int64_t i = 0; i < N * K; i++) resp[i] = exp(c->log_resp[i]);
    double *sum_x = stats + K, *sum_x2 = diag_like ? stats + K + Kd : NULL;
    if ((status = reduce_cols_cpu(resp, (size_t)N, K, stats)) != GMM_OK) goto fail;
    if (c->data.elem == GMM_ELEM_F64) {
        /* means' numerators R^T X: the kernel layer's matMul */
        if ((status = matmul_blas(resp, c->data.rows, (size_t)N, K, d, sum_x)) != GMM_OK) goto fail;
    } else {
        for (int64_t r0 = 0, rows; r0 < N; r0 += rows) {
            rows = cpu_mstep_len(c, r0);
            la_dgemm(true, false, K, d, (int)rows, 1.0, resp + (size_t)r0 * K, K,
                     cpu_chunk_f64(c, r0, rows), d, r0 ? 1.0 : 0.0, sum_x, d);
        }
    }
    if (c->x_squared) {
        la_dgemm(true, false, K, d, (int)N, 1.0, resp, K, c->x_squared, d, 0.0, sum_x2, d);
    } else if (sum_x2) {
        double *x2 = c->work; /* spherical: always float64 */
        for (int64_t r0 = 0, rows; r0 < N; r0 += rows) {
            rows = cpu_chunk_len(c, r0);
            const double *X = cpu_chunk_f64(c, r0, rows);
#pragma omp parallel for schedule(static) if (GMM_PARALLEL_WORTH((double)rows * d))
            for (int64_t i = 0; i < rows * d; i++) x2[i] = X[i] * X[i];
            la_dgemm(true, false, K, d, (int)rows, 1.0, resp + (size_t)r0 * K, K, x2, d, 1.0,
                     sum_x2, d);
        }
    }
    if ((status = gmm_comm_sum(c->comm, stats, n_stats)) != GMM_OK) goto fail;
    /* N_k + 10 eps, their sum and the weights, as the kernel layer's mixture weights */
    double nk_total = 0;
    for (int k = 0; k < K; k++) {
        nk[k] = stats[k] + 10 * DBL_EPSILON;
        nk_total += nk[k];
    }
    for (int k = 0; k < K; k++) c->weights[k] = nk[k] / nk_total;
    nk[K] = nk_total;
    for (int k = 0; k < K; k++)
        for (int j = 0; j < d; j++) c->means[(size_t)k * d + j] = sum_x[(size_t)k * d + j] / nk[k];

    switch (c->type) {
    case GMM_COV_FULL: {
        /* the scatters of the kept sqrt(r)-scaled centred rows (lower triangles), over chunks */
        double *cov = c->covariances;
        for (int64_t r0 = 0, rows; r0 < N; r0 += rows) {
            rows = cpu_mstep_len(c, r0);
            const double *X = cpu_chunk_f64(c, r0, rows);
            for (int k = 0; k < K; k++) {
                int bounds[2];
                status = compact_rows_cpu(X, (size_t)rows, d, resp + (size_t)r0 * K + k,
                                          (size_t)K, 1, c->means + (size_t)k * d, c->packed,
                                          bounds);
                if (status != GMM_OK) goto fail;
                la_dsyrk_at_a(d, bounds[1], 1.0, c->packed, d, r0 ? 1.0 : 0.0, cov + k * dd, d);
            }
        }
        if ((status = gmm_comm_sum(c->comm, cov, K * dd)) != GMM_OK) goto fail;
        for (int k = 0; k < K; k++) {
            double *ck = cov + k * dd;
            la_symmetrize_from_lower(d, ck, d);
            for (size_t q = 0; q < dd; q++) ck[q] /= nk[k];
            for (int j = 0; j < d; j++) ck[(size_t)j * d + j] += reg_covar;
        }
        break;
    }
    case GMM_COV_TIED: {
        /* (X^T X - sum_k nk mu_k mu_k^T) / sum nk + reg, as scikit-learn */
        double *cov = c->covariances;
        memcpy(cov, c->xtx, sizeof(double) * dd);
        for (int k = 0; k < K; k++) {
            const double *mu = c->means + (size_t)k * d;
            for (int a = 0; a < d; a++)
                for (int b = 0; b < d; b++) cov[(size_t)a * d + b] -= nk[k] * mu[a] * mu[b];
        }
        for (size_t i = 0; i < dd; i++) cov[i] /= nk_total;
        for (int j = 0; j < d; j++) cov[(size_t)j * d + j] += reg_covar;
        break;
    }
    case GMM_COV_DIAG:
    case GMM_COV_SPHERICAL:
        /* avg_X2 - mu^2 + reg, as scikit-learn's _estimate_gaussian_covariances_diag */
        for (int k = 0; k < K; k++) {
            double mean_var = 0;
            for (int j = 0; j < d; j++) {
                double mu = c->means[(size_t)k * d + j];
                double v = sum_x2[(size_t)k * d + j] / nk[k] - mu * mu + reg_covar;
                if (c->type == GMM_COV_DIAG) c->covariances[(size_t)k * d + j] = v;
                mean_var += v;
            }
            if (c->type == GMM_COV_SPHERICAL) c->covariances[k] = mean_var / d;
        }
        break;
    }
    if (report && report->nk) memcpy(report->nk, nk, sizeof(double) * K);
    if (c->bayes) {
        /* the variational M-step: the posterior from N_k, the means and the covariances */
        gmm_bayes_m_step(c->bayes, c->type, K, d, nk, c->means, c->bayes_diff, c->bayes_coef,
                         c->weights);
        if ((status = bayes_covariance_cpu((bayes_cov_layout)c->type, K, d,
                                           c->bayes->covariance_prior, c->bayes_coef,
                                           c->bayes_diff, c->covariances)) != GMM_OK)
            goto fail;
    }

    status = gmm_precisions_from_covariances(c->type, K, d, c->covariances, c->prec_chol, reg_covar);
    if (status == GMM_OK) cpu_prepare_estep(c);
    if (status == GMM_OK && c->bayes && report)
        report->lower_bound = c->entropy - gmm_bayes_bound_terms(c->bayes, c->type, K, d,
                                                                 c->log_det);
fail:
    free(resp);
    free(stats);
    free(nk);
    return status;
}

