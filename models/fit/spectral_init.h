/* The spectral initialisation (init=spectral): a whole fit in the spectral embedding of the kNN
 * graph (models/features/spectral.h) whose responsibilities start EM in pixel space. A fit that
 * calls a fit, so it lives in fit/ and reaches the EM loop's initialisation through
 * options.fitted_init, which gmm_options_plug_fitted_init sets. */
#ifndef GMM_SPECTRAL_INIT_H
#define GMM_SPECTRAL_INIT_H

#include <stdint.h>

#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* init=spectral (gmm_init_resp): the responsibilities (n_samples x K) of a full-covariance
 * mixture of options->n_components fitted (k-means init, the options' seed, n_init and device)
 * in the spectral embedding of X (options->spectral_dims dimensions, options->knn_neighbors
 * neighbours; 10 each by default). */
gmm_status gmm_init_spectral(const double *X, int64_t n_samples, int dim,
                             const gmm_options *options, double *resp);


/* Sets options->fitted_init for the initialisations that are themselves fits (init=spectral,
 * init=merge: models/fit/merge_init.h); leaves it alone for the others. Every caller that may
 * pass them calls it. */
void gmm_options_plug_fitted_init(gmm_options *options);

#ifdef __cplusplus
}
#endif
#endif
