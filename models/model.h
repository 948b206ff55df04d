/* The Gaussian mixture model: its parameters, covariance types, training metadata and the
 * feature space it was fitted in (models/features/). The bottom of models/: every room may
 * include it, it includes no room but features/. Matrices are row-major. */
#ifndef GMM_MODEL_H
#define GMM_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"
#include "models/features/feature_space.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GMM_COV_FULL = 0,      /* one d x d matrix per component (scikit-learn's default) */
    GMM_COV_TIED = 1,      /* one d x d matrix shared by all components */
    GMM_COV_DIAG = 2,      /* one diagonal (d values) per component */
    GMM_COV_SPHERICAL = 3, /* one variance per component */
} gmm_cov_type;

typedef enum {
    GMM_INIT_KMEANS = 0,       /* k-means++ seeding then Lloyd iterations (default) */
    GMM_INIT_KMEANS_PP = 1,    /* k-means++ seeding only */
    GMM_INIT_RANDOM = 2,       /* random responsibilities */
    GMM_INIT_RANDOM_FROM_DATA = 3, /* K distinct samples as means, hard assignment */
    GMM_INIT_KNN = 4,          /* density peaks of the kNN graph as seeds, nearest-seed labels */
    GMM_INIT_SPECTRAL = 5,     /* the responsibilities of a mixture fitted in the spectral
                                  embedding of the kNN graph (models/fit/spectral_init.h) */
    GMM_INIT_MERGE = 6,        /* a mixture of 2K components joined into K along the kNN graph
                                  (models/fit/merge_init.h) */
} gmm_init_method;

/* The initialisations that are fits themselves (options.fitted_init, plugged in from models/fit/):
 * they spend n_init on their own mixture, so the EM loop makes one run from them. */
static inline int gmm_init_is_fit(gmm_init_method method)
{
    return method == GMM_INIT_SPECTRAL || method == GMM_INIT_MERGE;
}

/* The prior on the mixture weights of a variational (Bayesian) fit, scikit-learn's
 * weight_concentration_prior_type: a stick-breaking Dirichlet process (it switches surplus
 * components off) or a Dirichlet distribution. */
typedef enum {
    GMM_WEIGHT_PRIOR_DIRICHLET_PROCESS = 0,
    GMM_WEIGHT_PRIOR_DIRICHLET_DISTRIBUTION = 1,
} gmm_weight_prior_type;

/* A variational Gaussian mixture's priors and posterior (scikit-learn's BayesianGaussianMixture;
 * models/bayes.h computes them). The model's means, covariances and precisions_cholesky are the
 * posterior's (scikit-learn's means_, covariances_, precisions_cholesky_) and its weights the
 * expected weights. Sizes: K = n_components, d = dim, C = d x d (full, tied), d (diag), 1
 * (spherical). */
typedef struct {
    gmm_weight_prior_type weight_prior_type;
    double weight_concentration_prior; /* gamma_0 */
    double mean_precision_prior;       /* beta_0 */
    double degrees_of_freedom_prior;   /* nu_0 (> d - 1) */
    double *mean_prior;                /* d: m_0 */
    double *covariance_prior;          /* C: Psi_0 */
    double *weight_concentration;      /* Dirichlet process: 2K (the K alphas, then the K betas
                                          of the sticks); Dirichlet distribution: K */
    double *mean_precision;            /* K: beta_k */
    double *degrees_of_freedom;        /* K: nu_k (tied: K equal values) */
    double *log_weight_terms;          /* K: what the E-step adds to log N(x | mu_k, U_k):
                                          E[log pi_k] + (log Lambda_k - d / beta_k - d log nu_k)
                                          / 2 */
} gmm_bayes;

/* Returns 0 and sets *out when name is known, -1 otherwise. */
int gmm_weight_prior_parse(const char *name, gmm_weight_prior_type *out);
const char *gmm_weight_prior_name(gmm_weight_prior_type type);
int gmm_cov_type_parse(const char *name, gmm_cov_type *out);
const char *gmm_cov_type_name(gmm_cov_type type);
int gmm_init_parse(const char *name, gmm_init_method *out);
const char *gmm_init_name(gmm_init_method method);

/* Number of doubles in the covariance (and precision Cholesky) array of a model. */
size_t gmm_cov_size(gmm_cov_type type, int n_components, int dim);

/* A fitted model. weights[K], means[K x d]; covariances and precisions_cholesky have
 * gmm_cov_size() doubles: full K x d x d, tied d x d, diag K x d, spherical K.
 * precisions_cholesky follows scikit-learn: for full/tied the upper-triangular U with
 * precision = U U^T (so that (x - mu) U is whitened), for diag/spherical 1/sqrt(variance). */
typedef struct {
    int n_components;
    int dim;
    gmm_cov_type covariance_type;
    int image_rows, image_cols;  /* image shape, rows * cols == dim (or 0 x 0 if unknown) */
    double *weights;
    double *means;
    double *covariances;
    double *precisions_cholesky;

    /* training metadata, saved in model.bin */
    int converged;
    int n_iter;
    double lower_bound;
    int64_t n_train_samples;
    double reg_covar;
    double tol;
    int max_iter;
    int n_init;
    gmm_init_method init;
    uint64_t seed;
    double blur_sigma;           /* the Gaussian blur applied to the images before fitting (0 = none) */
    char data_path[512];
    gmm_feature_space *space;    /* NULL: fitted on the pixels; else the space the mixture was
                                    fitted in, owned by the model (freed and copied with it),
                                    and dim == gmm_feature_space_dim(space) */
    int *matched_label;          /* NULL, or n_components entries: the training label matched to
                                    each component (best one-to-one matching; -1: none), owned */
    gmm_bayes *bayes;            /* NULL: a maximum-likelihood mixture; else the priors and the
                                    posterior of a variational one, owned (freed and copied with
                                    the model) */
} gmm_model;

/* The dimension of the images the model takes: its feature space's input_dim,
 * or dim. */
int gmm_model_input_dim(const gmm_model *model);

/* Allocates the parameter arrays (zeroed); metadata zeroed. */
gmm_status gmm_model_alloc(gmm_model *model, int n_components, int dim, gmm_cov_type type);
void gmm_model_free(gmm_model *model); /* accepts a zeroed or freed model */
gmm_status gmm_model_copy(gmm_model *dst, const gmm_model *src);

/* Computes precisions_cholesky from covariances (Cholesky with LAPACKE, then a triangular
 * solve). On failure returns GMM_ERR_CHOLESKY naming the component. */
gmm_status gmm_model_compute_precisions(gmm_model *model);

/* A new gmm_bayes for K components of dimension dim: every array allocated and zeroed. */
gmm_status gmm_bayes_alloc(gmm_bayes **out, gmm_cov_type type, int n_components, int dim);
void gmm_bayes_free(gmm_bayes *bayes); /* accepts NULL */
/* Copies src's priors (its posterior part not) into dst, allocated for the same type and dim. */
void gmm_bayes_copy_prior(gmm_bayes *dst, const gmm_bayes *src, gmm_cov_type type, int dim);
/* Copies src's values into dst (both allocated for the same type, K and dim). */
void gmm_bayes_copy_into(gmm_bayes *dst, const gmm_bayes *src, gmm_cov_type type,
                         int n_components, int dim);
/* Number of doubles of covariance_prior: d x d (full, tied), d (diag), 1 (spherical). */
size_t gmm_bayes_prior_cov_size(gmm_cov_type type, int dim);

/* Number of free parameters, as scikit-learn's _n_parameters. */
int64_t gmm_n_parameters(const gmm_model *model);
/* BIC = -2 * sum log-likelihood + p log N; AIC = -2 * sum log-likelihood + 2 p. */
double gmm_bic(const gmm_model *model, double mean_log_likelihood, int64_t n_samples);
double gmm_aic(const gmm_model *model, double mean_log_likelihood, int64_t n_samples);

#ifdef __cplusplus
}
#endif
#endif
