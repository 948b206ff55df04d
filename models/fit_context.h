/* The EM fit on a backend context the caller made and keeps (models/em.c implements it), so
 * that several fits share one copy of the data: models/select_k.c fits a range of K on one
 * context, re-sized between them with the table's set_n_components. */
#ifndef GMM_FIT_CONTEXT_H
#define GMM_FIT_CONTEXT_H

#include "models/backend.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The backend for options->device (and options->gpu), with the notice of the choice sent to
 * options->on_notice; GMM_ERR_UNSUPPORTED when it cannot fit the covariance type in the
 * precision. */
gmm_status gmm_fit_backend_select(const gmm_options *options, const gmm_backend **backend);

/* gmm_fit_scored (scores may be NULL: gmm_fit; initial_resp not NULL: gmm_fit_from_resp) on
 * ctx, a context of be made for this data and sized for options->n_components. The options must
 * have passed gmm_options_validate. seconds_setup is what making the context took, handed on in
 * scores. The model is zeroed first; on failure it is freed (kept on GMM_INTERRUPTED) and
 * scores freed. The context stays the caller's. */
gmm_status gmm_fit_on_context(const gmm_backend *be, gmm_backend_ctx *ctx, double seconds_setup,
                              const gmm_data_view *data, const gmm_options *options,
                              const double *initial_resp, gmm_model *model,
                              gmm_fit_scores *scores);

#ifdef __cplusplus
}
#endif
#endif
