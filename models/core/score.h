/* Scoring and sampling a fitted model: per-sample log-likelihoods, responsibilities and labels
 * on the CPU or a GPU (models/core/score.c), and draws from the mixture. */
#ifndef GMM_SCORE_H
#define GMM_SCORE_H

#include <stdint.h>

#include "kernels/gpu.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-sample log-likelihood log p(x_i) (score_samples), and optionally the responsibilities
 * (predict_proba, n_samples x K) and the most likely component (predict). Any output may be NULL. */
gmm_status gmm_score_samples(const gmm_model *model, const double *X, int64_t n_samples,
                             gmm_device device, double *log_likelihood, double *proba,
                             int *labels);

/* gmm_score_samples on a GPU resources object of the caller's (gmm_device_open), so that a run
 * scores on the same handles as it fits; gpu NULL is gmm_score_samples. */
gmm_status gmm_score_samples_on(const gmm_model *model, const double *X, int64_t n_samples,
                                gmm_device device, gmm_gpu *gpu, double *log_likelihood,
                                double *proba, int *labels);

/* A scorer keeps a model's parameters prepared on a CPU backend context between calls, so that
 * scoring many small batches (predict on a few rows at a time) does not make a context, copy the
 * covariances and pack the factors each time. gmm_scorer_score scores X as gmm_score_samples on
 * the CPU does (the same numbers for the same rows), making *scorer on the first call (and again
 * for a larger batch than it holds, up to GMM_SCORER_MAX_ROWS rows; larger batches are scored
 * without it). The model must not change while a scorer of it lives; not thread-safe (the
 * caller serialises calls on one scorer). */
typedef struct gmm_scorer gmm_scorer;
#define GMM_SCORER_MAX_ROWS 8192
gmm_status gmm_scorer_score(gmm_scorer **scorer, const gmm_model *model, const double *X,
                            int64_t n_samples, double *log_likelihood, double *proba,
                            int *labels);
void gmm_scorer_free(gmm_scorer *scorer); /* accepts NULL */

/* Mean log-likelihood over the samples (scikit-learn's score). */
gmm_status gmm_score(const gmm_model *model, const double *X, int64_t n_samples,
                     gmm_device device, double *mean_log_likelihood);

/* Draws n_samples from the model into X (n_samples x dim) and their components into labels
 * (may be NULL), with a deterministic generator seeded by seed. */
gmm_status gmm_sample(const gmm_model *model, int64_t n_samples, uint64_t seed, double *X,
                      int *labels);

#ifdef __cplusplus
}
#endif
#endif
