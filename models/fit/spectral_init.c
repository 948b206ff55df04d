/* init=spectral: the spectral embedding of the data, a mixture fitted in it, and its
 * responsibilities as the starting point of EM in pixel space (models/fit/spectral_init.h). */
#include "models/fit/spectral_init.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels/clock.h"
#include "models/core/em.h"
#include "models/features/spectral.h"
#include "models/fit/merge_init.h"

gmm_status gmm_init_spectral(const double *X, int64_t n, int dim, const gmm_options *o,
                             double *resp)
{
    gmm_status st;
    gmm_spectral e = {0};
    gmm_model m = {0};
    gmm_fit_scores scores = {0};
    float *Xf = malloc(sizeof(float) * (size_t)n * dim);
    if (!Xf) return gmm_error(GMM_ERR_NOMEM, "init=spectral: out of memory for the images");
    for (size_t i = 0; i < (size_t)n * dim; i++) Xf[i] = (float)X[i];
    const gmm_spectral_options so = {.n_neighbors = o->knn_neighbors, .n_dims = o->spectral_dims,
                                     .seed = o->seed};
    const double t0 = gmm_clock_seconds();
    st = gmm_spectral_embed(Xf, n, dim, &so, o->gpu, &e);
    free(Xf);
    if (st != GMM_OK) return st;
    const double t1 = gmm_clock_seconds();
    /* the mixture in the embedding, with the library's defaults for what the embedding's scale
     * decides (reg_covar, tol: the coordinates are about 1 / sqrt(n)) */
    gmm_options eo;
    gmm_options_default(&eo);
    eo.n_components = o->n_components;
    eo.n_init = o->n_init;
    eo.seed = o->seed;
    eo.device = o->device;
    eo.gpu = o->gpu;
    eo.should_stop = o->should_stop;
    eo.user = o->user;
    if ((st = gmm_fit_scored(e.embedding, n, e.n_dims, &eo, &m, &scores)) != GMM_OK) goto done;
    memcpy(resp, scores.proba, sizeof(double) * (size_t)n * o->n_components);
    if (o->on_notice) {
        char msg[256];
        snprintf(msg, sizeof msg, "init=spectral: a %d-dimensional embedding of the %d-nearest-"
                 "neighbour graph (%.2f s), a mixture fitted in it (%d iterations, %.2f s)",
                 e.n_dims, e.n_neighbors, t1 - t0, m.n_iter, gmm_clock_seconds() - t1);
        o->on_notice(o->user, msg);
    }
done:
    gmm_fit_scores_free(&scores);
    gmm_model_free(&m);
    gmm_spectral_free(&e);
    return st;
}

void gmm_options_plug_fitted_init(gmm_options *options)
{
    if (options->init == GMM_INIT_SPECTRAL) options->fitted_init = gmm_init_spectral;
    if (options->init == GMM_INIT_MERGE) options->fitted_init = gmm_init_merge;
}
