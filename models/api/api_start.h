/* The start of a fit from scikit-learn's weights_init / means_init / precisions_init and from
 * given initial responsibilities (the public gmm_params_set_*_init and gmm_params_set_resp_init),
 * checked and put in the form the EM loop takes (options.h's gmm_given_params, or a start
 * model when all three arrays are given). Internal to models/api/api.c. */
#ifndef GMM_API_START_H
#define GMM_API_START_H

#include <stdbool.h>
#include <stddef.h>

#include "models/core/em.h"
#include "models/core/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The initial arrays a fit was given (any may be NULL) and their sizes in doubles. */
typedef struct {
    const double *weights;
    size_t n_weights;
    const double *means;
    size_t n_means;
    const double *precisions;
    size_t n_precisions;
} gmm_initial_arrays;

/* What the EM loop starts from. all_given: the three arrays replace everything that the
 * responsibilities would give, so every run would start alike: one run from start (the
 * options' init_model). Else given (the options' given_params): every run estimates its
 * parameters from its own responsibilities, then the given parts replace the estimated ones. */
typedef struct {
    bool all_given;
    gmm_model start;             /* all_given: weights, means, covariances (the inverses of the
                                    precisions) and the precision factors */
    gmm_given_params given;      /* otherwise */
    double *precisions_cholesky; /* owned: the factors of the given precisions (or NULL) */
} gmm_start_plan;

/* Checks the arrays against K, dim and the covariance type (sizes, finite values, weights in
 * [0, 1] summing to 1 within 1e-6, precisions positive, symmetric within scikit-learn's
 * tolerance and positive definite: GMM_ERR_ARG naming the array) and fills plan (free it with
 * gmm_start_plan_free, also after a failure). */
gmm_status gmm_start_plan_make(const gmm_initial_arrays *arrays, int n_components, int dim,
                               gmm_cov_type type, gmm_start_plan *plan);
void gmm_start_plan_free(gmm_start_plan *plan); /* accepts a zeroed or freed one */

/* Initial responsibilities (n_samples x n_components, row-major): every value finite and >= 0,
 * every row summing to 1 within 1e-6 (they are used as given, not normalised, as scikit-learn's
 * _initialize uses its resp). GMM_ERR_ARG naming the first bad row. */
gmm_status gmm_check_resp_init(const double *resp, int64_t n_samples, int n_components);

#ifdef __cplusplus
}
#endif
#endif
