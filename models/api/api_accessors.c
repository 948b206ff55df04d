/* The public interface's accessors of a fitted model (include/gmm/gmm.h): its shape, space,
 * parameters and training record, read from the internal model behind the handle. */
#include "include/gmm/gmm.h"

#include <math.h>

#include "models/api/api_mixture.h"

int gmm_mixture_n_components(const gmm_mixture *m) { return m ? m->model.n_components : 0; }
int gmm_mixture_dim(const gmm_mixture *m) { return m ? m->model.dim : 0; }
int gmm_mixture_input_dim(const gmm_mixture *m) { return m ? gmm_api_scoring_dim(&m->model) : 0; }
const char *gmm_mixture_space(const gmm_mixture *m)
{
    return m ? gmm_feature_space_name(m->model.space) : "";
}
const float *gmm_mixture_embedding(const gmm_mixture *m)
{
    const gmm_umap_space *u = m ? gmm_space_umap(m->model.space) : NULL;
    return u ? u->embedding : NULL;
}
const char *gmm_mixture_covariance_type(const gmm_mixture *m)
{
    return m ? gmm_cov_type_name(m->model.covariance_type) : "";
}
size_t gmm_mixture_cov_size(const gmm_mixture *m)
{
    return m ? gmm_cov_size(m->model.covariance_type, m->model.n_components, m->model.dim) : 0;
}
const double *gmm_mixture_weights(const gmm_mixture *m) { return m ? m->model.weights : NULL; }
const double *gmm_mixture_means(const gmm_mixture *m) { return m ? m->model.means : NULL; }
const double *gmm_mixture_covariances(const gmm_mixture *m)
{
    return m ? m->model.covariances : NULL;
}
const double *gmm_mixture_precisions_cholesky(const gmm_mixture *m)
{
    return m ? m->model.precisions_cholesky : NULL;
}
int gmm_mixture_converged(const gmm_mixture *m) { return m ? m->model.converged : 0; }
int gmm_mixture_n_iter(const gmm_mixture *m) { return m ? m->model.n_iter : 0; }
double gmm_mixture_lower_bound(const gmm_mixture *m) { return m ? m->model.lower_bound : NAN; }
int64_t gmm_mixture_n_train_samples(const gmm_mixture *m)
{
    return m ? m->model.n_train_samples : 0;
}
int64_t gmm_mixture_n_parameters(const gmm_mixture *m)
{
    return m ? gmm_n_parameters(&m->model) : 0;
}
