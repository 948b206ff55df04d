/* The public interface's model handle (include/gmm/gmm.h's gmm_mixture), shared by the files of
 * models/api/ that read a fitted model. */
#ifndef GMM_API_MIXTURE_H
#define GMM_API_MIXTURE_H

#include "models/model.h"
#include "models/options.h"

struct gmm_mixture {
    gmm_model model;
    gmm_device device; /* scoring runs here */
};

#endif
