/* Choosing the number of components: EM fits for every K of a range (A, A + STEP, ..., <= B)
 * on one backend context, so that the data is copied (uploaded, on the GPU) once, and the model
 * with the lowest BIC (or AIC, or ICL) kept, as scikit-learn's "Gaussian Mixture Model
 * Selection". */
#ifndef GMM_SELECT_K_H
#define GMM_SELECT_K_H

#include "models/core/em.h"
#include "models/core/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A range of more fits than this is refused (GMM_ERR_ARG). */
#define GMM_K_RANGE_MAX_FITS 1000

typedef enum {
    GMM_SELECT_BIC = 0, /* lowest BIC (default) */
    GMM_SELECT_AIC = 1, /* lowest AIC */
    GMM_SELECT_ICL = 2, /* lowest ICL: BIC + 2 x the entropy of the fitted responsibilities
                           (Biernacki, Celeux and Govaert 2000): penalises overlapping
                           components, so it favours well separated clusters */
} gmm_k_criterion;

/* Returns 0 and sets *out when name is "bic", "aic" or "icl", -1 otherwise. */
int gmm_k_criterion_parse(const char *name, gmm_k_criterion *out);
const char *gmm_k_criterion_name(gmm_k_criterion criterion);

/* The entropy of responsibilities, -sum_i sum_k r_ik log r_ik (0 log 0 = 0), of n_samples x
 * n_components row-major proba (gmm_fit_scores.proba). */
double gmm_resp_entropy(const double *proba, int64_t n_samples, int n_components);

/* One K's fit (the best of options->n_init initialisations). */
typedef struct {
    int n_components;
    int n_iter;
    int converged;
    double lower_bound;         /* of the last EM iteration, as gmm_model.lower_bound */
    double mean_log_likelihood; /* the final E-step's, on the training data */
    double bic, aic;            /* from mean_log_likelihood (gmm_bic, gmm_aic) */
    double entropy;             /* of the final E-step's responsibilities (gmm_resp_entropy) */
    double icl;                 /* bic + 2 * entropy */
    int64_t n_parameters;
    double seconds;             /* this K's fit (initialisations, EM, final E-step) */
} gmm_k_result;

/* Called after each K's fit, in order: model and scores are valid during the call only (the
 * caller may score a test split with them). A status other than GMM_OK ends the range with it. */
typedef gmm_status (*gmm_k_result_fn)(void *user, const gmm_k_result *result,
                                      const gmm_model *model, const gmm_fit_scores *scores);

typedef struct {
    int k_first, k_last, k_step; /* K = k_first, k_first + k_step, ... while <= k_last */
    gmm_k_criterion criterion;
    gmm_k_result_fn on_result;   /* may be NULL */
    void *user;
} gmm_k_range;

/* Checks the range against the number of samples and counts its fits into *n_fits (may be
 * NULL): GMM_ERR_ARG with a detail when k_first < 1, k_last < k_first, k_step < 1, k_last >
 * n_samples, or more than GMM_K_RANGE_MAX_FITS fits. */
gmm_status gmm_k_range_validate(const gmm_k_range *range, int64_t n_samples, int *n_fits);

/* Fits every K of the range with options (n_components ignored; init_model must be NULL), each
 * exactly as gmm_fit_scored would (the same seed for each K: the same result), on one backend
 * context re-sized between the fits. results has room for the range's n_fits entries; *n_done
 * receives how many were filled, *chosen the index of the one the criterion picks (the first
 * of equal values), and model and scores that fit (free them with gmm_model_free and
 * gmm_fit_scores_free). When options->should_stop asks for it during a fit, the range ends with
 * GMM_INTERRUPTED, the interrupted fit dropped and model and scores holding the chosen of the
 * finished ones (zeroed, *chosen -1, when none finished). On another failure model and scores
 * are freed. */
gmm_status gmm_fit_k_range(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                           const gmm_k_range *range, gmm_k_result *results, int *n_done,
                           int *chosen, gmm_model *model, gmm_fit_scores *scores);

#ifdef __cplusplus
}
#endif
#endif
