/* The public interface's model handle (include/gmm/gmm.h's gmm_mixture) and what the files of
 * models/api/ share: the error recording of every public call, the scoring feature count. */
#ifndef GMM_API_MIXTURE_H
#define GMM_API_MIXTURE_H

#include <pthread.h>

#include "models/core/score.h"
#include "models/model.h"
#include "models/options.h"

struct gmm_mixture {
    gmm_model model;
    gmm_device device;           /* scoring runs here */
    pthread_mutex_t score_lock;  /* the scorer below serves one call at a time */
    gmm_scorer *scorer;          /* the CPU's prepared parameters between scoring calls, or NULL */
};

/* Records status for gmm_last_error ("CODE: detail", the programs' option names replaced by the
 * parameters') and returns it as a public code; gmm_api_fail_arg records a GMM_ERR_ARG. */
int gmm_api_finish(gmm_status status);
int gmm_api_fail_arg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The features per sample the scoring calls take: the images' for a umap model, else the
 * mixture's. */
int gmm_api_scoring_dim(const gmm_model *model);

#endif
