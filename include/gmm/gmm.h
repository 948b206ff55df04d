/* libgmm's public interface: fit a Gaussian mixture with EM (scikit-learn's GaussianMixture,
 * its parameter names and defaults), score, predict, sample and save it, from row-major data in
 * memory. Self-contained: the only header a user of the installed library needs.
 *
 * A fitted model is an opaque handle (gmm_mixture) read through accessor functions, and the fit
 * parameters another (gmm_params) set by name, so that bindings (the Python module) never
 * depend on a structure layout. Every function that can fail returns 0 (GMM_CODE_OK) or one of
 * the GMM_CODE_* values; gmm_last_error() then says why, in a sentence, for this thread.
 *
 * Data: n_samples x dim, row-major, one of GMM_DTYPE_FLOAT64 / FLOAT32 / UINT8, each value
 * multiplied by `scale` (1.0 for none; 1/255.0 maps bytes onto [0, 1]). The library computes in
 * float64: other dtypes or a scale other than 1 are converted into a float64 copy first (float64
 * data with scale 1 is used in place).
 *
 * Space: the mixture is fitted in the data itself ("pixels", the default) or in the data's UMAP
 * embedding ("umap": umap-learn's algorithm, as gmm-train --space umap). A umap model keeps its
 * training data and their coordinates (model.bin keeps them too); it takes data of the training
 * data's feature count, places each sample in the embedding (umap-learn's transform) and scores
 * the coordinates. */
#ifndef GMM_PUBLIC_GMM_H
#define GMM_PUBLIC_GMM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GMM_VERSION_MAJOR 1
#define GMM_VERSION_MINOR 0
#define GMM_VERSION_PATCH 0

/* Return codes (0 is success). */
#define GMM_CODE_OK 0
#define GMM_CODE_ERR_NOMEM 1       /* an allocation failed */
#define GMM_CODE_ERR_IO 2          /* a file could not be opened, read or written */
#define GMM_CODE_ERR_FORMAT 3      /* a model file is malformed */
#define GMM_CODE_ERR_VERSION 4     /* a model file of another format version */
#define GMM_CODE_ERR_CHECKSUM 5    /* a model file whose checksum does not match */
#define GMM_CODE_ERR_ARG 6         /* an invalid argument or parameter */
#define GMM_CODE_ERR_CHOLESKY 7    /* a covariance is not positive definite (raise reg_covar) */
#define GMM_CODE_ERR_NUMERIC 8     /* NaN or infinity where a finite number was expected */
#define GMM_CODE_ERR_CUDA 9        /* a CUDA, cuBLAS or cuSOLVER call failed */
#define GMM_CODE_ERR_NO_DEVICE 10  /* device "gpu" asked for and no GPU is present or built in */
#define GMM_CODE_ERR_UNSUPPORTED 11 /* the device does not support this configuration */

/* Element types of the data arrays. */
#define GMM_DTYPE_FLOAT64 0
#define GMM_DTYPE_FLOAT32 1
#define GMM_DTYPE_UINT8 2

typedef struct gmm_mixture gmm_mixture; /* a fitted (or loaded) model */
typedef struct gmm_params gmm_params;   /* how to fit one */

/* "1.0.0" */
const char *gmm_version(void);
/* The last failure of this thread as "CODE_NAME: detail" (never NULL; "" when none). */
const char *gmm_last_error(void);
/* "GMM_CODE_ERR_CHOLESKY" for 7, and so on. */
const char *gmm_code_name(int code);

/* ---- fit parameters ---------------------------------------------------------------------
 * A new gmm_params holds scikit-learn's defaults: n_components 1, covariance_type "full",
 * tol 1e-3, reg_covar 1e-6, max_iter 100, n_init 1, init_params "kmeans", random_state 0,
 * verbose 0, device "auto", precision "fp64". Names, as scikit-learn's:
 *   gmm_params_set_int:    n_components, max_iter, n_init, random_state (a seed >= 0)
 *   gmm_params_set_double: tol, reg_covar
 *   gmm_params_set_string: covariance_type (full, tied, diag, spherical), init_params (kmeans,
 *                          k-means++, random, random_from_data, knn, spectral, merge), device
 *                          (auto, cpu, gpu), precision (fp64, fp32, tf32)
 * init_params "merge" fits 2 x n_components components (the best of n_init runs), joins them
 * into n_components along the kNN graph of 10000 samples (the pairs that share most edges per
 * sample of the smaller, fragments first) and runs EM once from there.
 * and the space (umap-learn's names; the umap ones are ignored for "pixels"):
 *   gmm_params_set_string: space (pixels, umap; default pixels)
 *   gmm_params_set_int:    n_neighbors (2..128, default 15: the point itself counted),
 *                          embed_dims (1..100, default 10: the mixture's dimension),
 *                          n_epochs (0..100000, default 0: 500),
 *                          metric (0 auto: cosine with principal axes, else 1 euclidean; 2
 *                          cosine), knn_pca (principal axes the neighbours are found among;
 *                          default 0: 50 when the data have more features; -1: none)
 *   gmm_params_set_double: min_dist (0..1, default 0: packed clusters), knn_power (values
 *                          raised to it before the axes; default 0: 0.5 with axes for uint8
 *                          data with scale 1/255, else 1; 0..1), knn_whiten (coordinates
 *                          on the axes divided by variance^(knn_whiten/2); default 0: 0.5
 *                          with axes; -1: none; 0..1)
 * The embedding uses random_state as its seed and runs on the fit's device (the GPU when
 * device is auto or gpu and one is there); the same data, seed and device give the same
 * embedding. In a umap space the clusters are found far more often from several starts and
 * joined components: consider n_init 10 and init_params "merge" (gmm-train's defaults there;
 * the library's stay 1 and kmeans).
 * An unknown name or a value out of range is GMM_CODE_ERR_ARG. */
int gmm_params_new(gmm_params **params);
void gmm_params_free(gmm_params *params); /* accepts NULL */
int gmm_params_set_int(gmm_params *params, const char *name, long long value);
int gmm_params_set_double(gmm_params *params, const char *name, double value);
int gmm_params_set_string(gmm_params *params, const char *name, const char *value);

/* Initial parameters (copied; NULL clears), as scikit-learn's weights_init (K), means_init
 * (K x dim) and precisions_init (the precision matrices, not their factors: full K x dim x dim,
 * tied dim x dim, diag K x dim, spherical K; `count` doubles; symmetric within scikit-learn's
 * tolerance |a - b| <= 1e-8 + 1e-5 |b|, the lower triangle is used); dim is the mixture's,
 * embed_dims in a umap space. As scikit-learn's _initialize: each of the n_init runs draws
 * its responsibilities (those of init_params, or resp_init below) and estimates weights, means
 * and covariances from them (+ reg_covar); then each given array replaces its part (the given
 * precisions replace the precision factors the first E-step uses; the covariances stay the
 * estimated ones). With all three given every run would start alike: one run is made, from them.
 * Shapes are checked against the data and the parameters at fit time. */
int gmm_params_set_weights_init(gmm_params *params, const double *weights, int n_components);
int gmm_params_set_means_init(gmm_params *params, const double *means, int n_components,
                              int dim);
int gmm_params_set_precisions_init(gmm_params *params, const double *precisions, size_t count);
/* Initial responsibilities (n_samples x n_components, row-major; copied; NULL clears) in place
 * of init_params' for every one of the n_init runs: a start shared with another
 * implementation. Every value finite and >= 0 and every row summing to 1 within 1e-6 (checked
 * here; used as given, not normalised); the shape is checked against the data and n_components
 * at fit time. The *_init arrays then replace their parts as above. */
int gmm_params_set_resp_init(gmm_params *params, const double *resp, int64_t n_samples,
                             int n_components);
/* A warm start (scikit-learn's warm_start): EM continues from start's parameters (which must
 * stay alive until the fit returns; NULL clears). Takes precedence over the *_init arrays and
 * resp_init. In a umap space the data is embedded again first (the same data and random_state
 * give the same embedding on the same device). */
int gmm_params_set_start(gmm_params *params, const gmm_mixture *start);

/* ---- variational mixtures (scikit-learn's BayesianGaussianMixture) ----------------------
 *   gmm_params_set_int:    bayesian (0 or 1, default 0): fit the variational posterior of a
 *                          mixture with the priors below; n_components is then an upper bound
 *                          (surplus components keep a weight near 0), empty components are not
 *                          re-seeded, the lower bound is scikit-learn's variational one, and the
 *                          *_init arrays do not apply (init_params' responsibilities start it)
 *   gmm_params_set_string: weight_concentration_prior_type (dirichlet_process (default),
 *                          dirichlet_distribution)
 *   gmm_params_set_double: weight_concentration_prior (> 0; default 1 / n_components),
 *                          mean_precision_prior (> 0; default 1), degrees_of_freedom_prior
 *                          (> n_features - 1; default n_features)
 * mean_prior (dim values; default the data's mean) and covariance_prior (full and tied dim x
 * dim, diag dim, spherical 1 value; default the data's covariance with ddof 1, its diagonal, or
 * the diagonal's mean) are copied; NULL clears. A model of a variational fit scores (predict,
 * predict_proba, score_samples) with the posterior's expected log weights and precisions, as
 * scikit-learn does; its weights are the expected weights. */
int gmm_params_set_mean_prior(gmm_params *params, const double *mean, int dim);
int gmm_params_set_covariance_prior(gmm_params *params, const double *covariance, size_t count);

/* Called after every EM iteration of a fit (from the fitting thread): the initialisation's
 * index (0-based), the iteration (1-based), the lower bound and its change, the seconds the
 * iteration took. NULL clears. */
typedef void (*gmm_progress_callback)(void *user, int init_index, int iteration,
                                      double lower_bound, double change, double seconds);
int gmm_params_set_progress(gmm_params *params, gmm_progress_callback callback, void *user);

/* ---- fit, score, sample -----------------------------------------------------------------
 * Fits a model to X (n_samples x dim), the best of n_init runs; *model is a new handle (free
 * it with gmm_mixture_free). A model scores on the device its fit used (see
 * gmm_mixture_set_device). Space umap: X is embedded first (GMM_CODE_ERR_ARG, from the
 * embedding, for fewer samples than n_neighbors + 2 or than embed_dims + 2); the model keeps
 * X's bytes when X is uint8 with scale 1/255, else X (scaled) as float32. */
int gmm_mixture_fit(const gmm_params *params, const void *X, int64_t n_samples, int dim,
                    int dtype, double scale, gmm_mixture **model);
void gmm_mixture_free(gmm_mixture *model); /* accepts NULL */
/* The device scoring runs on: "auto", "cpu" or "gpu". */
int gmm_mixture_set_device(gmm_mixture *model, const char *device);

/* Per-sample log p(x_i) (score_samples, n_samples values), responsibilities (predict_proba,
 * n_samples x K) and most likely component (predict, n_samples); any output may be NULL.
 * Here and in score, bic and aic, dim must be gmm_mixture_input_dim; a umap model places the
 * samples in its embedding first (deterministic) and scores their coordinates (log p of the
 * coordinates, so bic and aic count the mixture's parameters in the embedding). A umap model
 * loaded from a gmm-train file fitted on blurred images (--blur) is GMM_CODE_ERR_UNSUPPORTED. */
int gmm_mixture_score_samples(const gmm_mixture *model, const void *X, int64_t n_samples,
                              int dim, int dtype, double scale, double *log_likelihood,
                              double *proba, int32_t *labels);
/* The mean log-likelihood (score), and the BIC and AIC on X. */
int gmm_mixture_score(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                      int dtype, double scale, double *mean_log_likelihood);
int gmm_mixture_bic(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                    int dtype, double scale, double *bic);
int gmm_mixture_aic(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                    int dtype, double scale, double *aic);
/* Draws n_samples into X (n_samples x dim float64) and their components into labels (may be
 * NULL), deterministically from seed. A umap model cannot be sampled (its embedding has no way
 * back to the data): GMM_CODE_ERR_UNSUPPORTED. */
int gmm_mixture_sample(const gmm_mixture *model, int64_t n_samples, uint64_t seed, double *X,
                       int32_t *labels);
/* A umap model's coordinates of X's samples (umap-learn's transform), n_samples x
 * gmm_mixture_dim float64, the places the scoring functions score; GMM_CODE_ERR_ARG for a
 * model of another space. */
int gmm_mixture_transform(const gmm_mixture *model, const void *X, int64_t n_samples, int dim,
                          int dtype, double scale, double *coords);

/* model.bin, the programs' model file (gmm-train writes it, gmm-predict reads it). */
int gmm_mixture_save(const gmm_mixture *model, const char *path);
int gmm_mixture_load(const char *path, gmm_mixture **model);

/* ---- the fitted parameters (scikit-learn's attributes), valid while the handle lives ----- */
int gmm_mixture_n_components(const gmm_mixture *model);
/* The mixture's dimension d (of the means and covariances): embed_dims for a umap model. */
int gmm_mixture_dim(const gmm_mixture *model);
/* The features per sample the scoring functions take: the training data's for a umap model,
 * else gmm_mixture_dim (a gmm-train file with a PCA or spectral space is scored on its
 * coordinates). */
int gmm_mixture_input_dim(const gmm_mixture *model);
/* The space the mixture was fitted in: "pixels", "umap" (or, in a gmm-train file, "pca",
 * "spectral"). */
const char *gmm_mixture_space(const gmm_mixture *model);
/* A umap model's training samples' coordinates (umap-learn's embedding_),
 * gmm_mixture_n_train_samples x gmm_mixture_dim float32; NULL for other models. */
const float *gmm_mixture_embedding(const gmm_mixture *model);
const char *gmm_mixture_covariance_type(const gmm_mixture *model); /* "full", ... */
/* Doubles in the covariances and precisions_cholesky arrays: full K*d*d, tied d*d, diag K*d,
 * spherical K. */
size_t gmm_mixture_cov_size(const gmm_mixture *model);
const double *gmm_mixture_weights(const gmm_mixture *model);     /* K */
const double *gmm_mixture_means(const gmm_mixture *model);       /* K x d */
const double *gmm_mixture_covariances(const gmm_mixture *model); /* cov_size */
/* scikit-learn's precisions_cholesky_: for full and tied the upper-triangular U with
 * precision = U U^T, for diag and spherical 1/sqrt(variance). */
const double *gmm_mixture_precisions_cholesky(const gmm_mixture *model);
int gmm_mixture_converged(const gmm_mixture *model);
int gmm_mixture_n_iter(const gmm_mixture *model);
/* A variational model's posterior (NULL / NAN / 0 for a maximum-likelihood one), scikit-learn's
 * attributes: weight_concentration_ (dirichlet_process: 2K values, the K first then the K
 * second parameters of the sticks' Beta distributions; dirichlet_distribution: K),
 * mean_precision_ (K), degrees_of_freedom_ (K; tied: K equal values), mean_prior_ (dim),
 * covariance_prior_ (as gmm_params_set_covariance_prior), and the scalar priors by name
 * (weight_concentration_prior, mean_precision_prior, degrees_of_freedom_prior). */
int gmm_mixture_is_bayesian(const gmm_mixture *model);
const char *gmm_mixture_weight_concentration_prior_type(const gmm_mixture *model);
double gmm_mixture_prior(const gmm_mixture *model, const char *name);
const double *gmm_mixture_weight_concentration(const gmm_mixture *model);
const double *gmm_mixture_mean_precision(const gmm_mixture *model);
const double *gmm_mixture_degrees_of_freedom(const gmm_mixture *model);
const double *gmm_mixture_mean_prior(const gmm_mixture *model);
const double *gmm_mixture_covariance_prior(const gmm_mixture *model);
double gmm_mixture_lower_bound(const gmm_mixture *model);
int64_t gmm_mixture_n_train_samples(const gmm_mixture *model);
/* The number of free parameters (as scikit-learn's _n_parameters). */
int64_t gmm_mixture_n_parameters(const gmm_mixture *model);

/* ---- metrics against reference labels ---------------------------------------------------
 * clusters[i] in [0, n_clusters), classes[i] in [0, n_classes): accuracy under the best
 * one-to-one matching of clusters to classes, normalised mutual information (arithmetic mean)
 * and adjusted Rand index; any output may be NULL. */
int gmm_cluster_scores(const int32_t *clusters, int n_clusters, const uint8_t *classes,
                       int n_classes, int64_t n_samples, double *accuracy, double *nmi,
                       double *ari);

#ifdef __cplusplus
}
#endif
#endif
