/* The fits: EM from the options' initialisation, from given responsibilities or from a
 * starting model, on float64 rows or on a data view (models/data_view.h), keeping the best of
 * n_init runs, and the final scores a fit hands on (models/core/em.c); and the fit on a backend
 * context the caller made and keeps, so that several fits share one copy of the data
 * (models/fit/select_k.c fits a range of K on one context). */
#ifndef GMM_EM_H
#define GMM_EM_H

#include <stdbool.h>
#include <stdint.h>

#include "models/backend/backend.h"
#include "models/data_view.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fits a model to X (n_samples x dim, row-major float64) with EM, keeping the best of n_init
 * runs. The model is allocated here; free it with gmm_model_free. When options->should_stop
 * asks for it the fit returns GMM_INTERRUPTED and still fills the model (free it as well): the
 * best of the runs finished so far and the interrupted one's parameters after its last
 * iteration (at least one), with that run's converged flag and n_iter; the later runs and the
 * scores of gmm_fit_scored are skipped. The initialisations hear the request too (k-means,
 * k-means++, the kNN search: options.h's gmm_stop_requested): a stop inside one keeps the best
 * of the runs before it, and inside the first leaves no model at all (weights NULL). */
gmm_status gmm_fit(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                   gmm_model *model);

/* What a fit hands on besides the model: the final E-step under the returned parameters (as
 * scikit-learn's fit does one, so that fit_predict agrees with fit + predict), run on the fit's
 * own backend context: the data is not uploaded again and nothing is computed twice. It runs in
 * float64 whatever options->precision (the backend's e_step_f64: the data the context holds,
 * converted chunk by chunk on its device), so the scores equal gmm_score_samples of the model. */
typedef struct {
    int64_t n_samples;
    int n_components;
    double mean_log_likelihood; /* the training score (score) */
    double *log_likelihood;     /* n_samples: log p(x_i) (score_samples) */
    double *proba;              /* n_samples x K: the responsibilities (predict_proba); NULL
                                   under options->scores_without_proba */
    int *labels;                /* n_samples: the most likely component (predict) */
    /* where the fit's time went, in seconds: the backend context (buffers, the data on the
     * device), the initialisations and the EM iterations (all runs), the final E-step */
    double seconds_setup, seconds_init, seconds_em, seconds_scores;
    int n_iter_total;           /* EM iterations over all runs */
    bool data_streamed;         /* the backend streamed the data from host memory (this rank's) */
} gmm_fit_scores;
void gmm_fit_scores_free(gmm_fit_scores *scores); /* accepts a zeroed or freed one */

/* gmm_fit_scored on a data view (models/data_view.h): the data in its stored form (image bytes,
 * float32 or float64), converted chunk by chunk, and with options->comm this rank's row range of
 * a data set split over ranks; every rank calls it and every rank gets the same model, the
 * scores (may be NULL) covering its own rows. The initialisation is k-means (or the starting
 * model of options->init_model) unless the view is float64 on one rank. */
gmm_status gmm_fit_view(const gmm_data_view *data, const gmm_options *options, gmm_model *model,
                        gmm_fit_scores *scores);
/* gmm_fit, also filling scores (allocated here; free with gmm_fit_scores_free). */
gmm_status gmm_fit_scored(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                          gmm_model *model, gmm_fit_scores *scores);

/* As gmm_fit, but every initialisation starts from the given responsibilities (n_samples x K,
 * row-major) instead of options->init: a warm start, or a fixture shared with a reference. */
gmm_status gmm_fit_from_resp(const double *X, int64_t n_samples, int dim,
                             const gmm_options *options, const double *initial_resp,
                             gmm_model *model);

/* As gmm_fit, continuing from start (options->init_model = start): a warm start from saved
 * parameters. GMM_ERR_ARG naming the field when start's dim, K or covariance type differ from
 * the data's and the options'. The model records start's init method and seed. */
gmm_status gmm_fit_from_model(const double *X, int64_t n_samples, int dim,
                              const gmm_options *options, const gmm_model *start,
                              gmm_model *model);

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
