/* Internal to the CPU backend (backend_cpu.c, cpu_mstep.c): the context one fit keeps, and the
 * pieces the two files share. */
#ifndef GMM_BACKEND_CPU_H
#define GMM_BACKEND_CPU_H

#include <stdint.h>

#include "models/backend/backend.h"

struct gmm_backend_ctx {
    gmm_data_view data;    /* this rank's rows */
    gmm_comm *comm;        /* NULL: one rank */
    int64_t n_samples;     /* this rank's rows */
    int dim, n_components;
    gmm_cov_type type;
    gmm_precision precision; /* fp64, or fp32 (full/tied): the E-step product in float32 */
    float *X_f32;            /* fp32: the data rounded once to float32, N x d */

    double *weights, *means, *covariances, *prec_chol; /* current parameters */
    double *log_const;     /* K: log w_k + log det U_k - d/2 log 2 pi (linalg/log_det.h) */
    void *prec_concat;     /* full/tied: the factors packed by cpu_estep_pack_f64/_f32 (double
                              or float); diag: K x d of prec^2 (double) */
    double *mean_prec;     /* K x d: mu_k U_k (full/tied; U rounded to float32 under fp32),
                              mu_k prec_k^2 (diag) */
    double *mean_term;     /* K: diag/spherical constant term sum mu^2 prec^2 */
    double *x_sq_norm;     /* N: ||x_i||^2 (spherical) */
    double *x_squared;     /* N x d: X * X (diag), NULL otherwise */
    double *xtx;           /* d x d: X^T X (tied) */

    double *log_resp;      /* N x K */
    double *log_prob_norm; /* N */
    void *work;            /* chunk buffer (float under fp32, double otherwise) */
    double *x_chunk;       /* chunk_rows x d: rows converted from a view that is not float64 */
    double *packed;        /* chunk_rows x d: the M-step's scaled centred rows (full) */
    int64_t chunk_rows;    /* E-step rows per chunk (its GEMM output is rows x K d) */
    int64_t mstep_rows;    /* M-step rows per chunk (rows x d: the data, the packed rows) */
    int64_t tuning_chunk_rows; /* the options' tuning.chunk_rows (0: none) */
    int estep_all_pairs;       /* the options' tuning.estep_all_pairs: no pair left partial */
    size_t chunk_bytes;        /* CHUNK_BYTES, or a quarter of tuning.memory_budget */
    int have_params, have_resp;
    int64_t capacity_rows;  /* the rows the context was made for (set_rows takes at most these) */
    int rows_replaced;      /* set_rows ran: X^T X and the fp32 copy are not these rows' */

    /* a variational fit (models/bayes.h): NULL otherwise */
    const gmm_bayes *bayes_prior; /* the configuration's priors */
    gmm_bayes *bayes;      /* the current posterior */
    double *bayes_diff;    /* K x d: xbar_k - m_0 */
    double *bayes_coef;    /* 3K: kernels/bayes_covariance.h's coefficients */
    double *log_det;       /* K: log det U_k */
    double entropy;        /* -sum r log r of the last E-step (every rank's rows) */
};

/* Rows [r0, r0 + rows) of the view in float64 (converted into x_chunk unless float64). */
const double *cpu_chunk_f64(gmm_backend_ctx *c, int64_t r0, int64_t rows);
/* The rows of the E-step's (M-step's) chunk that starts at r0. */
int64_t cpu_chunk_len(const gmm_backend_ctx *c, int64_t r0);
int64_t cpu_mstep_len(const gmm_backend_ctx *c, int64_t r0);
/* The E-step's derived quantities from the current weights, precision factors and means. */
void cpu_prepare_estep(gmm_backend_ctx *c);
/* cpu_mstep.c: the table's m_step. */
gmm_status cpu_m_step(gmm_backend_ctx *c, double reg_covar, gmm_mstep_report *report);

#endif
