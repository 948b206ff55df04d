/* The starting model of a fit from scikit-learn's weights_init / means_init / precisions_init
 * (the public gmm_params_set_*_init), for options.init_model. Internal to models/api/api.c. */
#ifndef GMM_API_START_H
#define GMM_API_START_H

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

/* Builds start as scikit-learn's _initialize does: weights, means and covariances (+ reg_covar)
 * from responsibilities (the hard assignment to the nearest given mean when means are given,
 * else those of options->init), then each given array replaces its part; the precision factors
 * come from the given precision matrices, or from the covariances. GMM_ERR_ARG naming the array
 * whose size or values are wrong (weights not summing to 1, a precision matrix that is not
 * positive definite). start is allocated here (gmm_model_free). */
gmm_status gmm_start_from_arrays(const double *X, int64_t n_samples, int dim,
                                 const gmm_options *options, const gmm_initial_arrays *given,
                                 gmm_model *start);

#ifdef __cplusplus
}
#endif
#endif
