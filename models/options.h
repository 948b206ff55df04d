/* How a mixture is fitted: the options (scikit-learn's names and defaults), the device and
 * precision, the callbacks a program hooks in (progress, notices, stop, checkpoints) and the
 * tuning fields. Beside models/model.h at the bottom of models/. */
#ifndef GMM_OPTIONS_H
#define GMM_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/gpu.h"
#include "models/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    GMM_DEVICE_AUTO = 0,
    GMM_DEVICE_CPU = 1,
    GMM_DEVICE_GPU = 2,
} gmm_device;

typedef enum {
    GMM_PRECISION_FP64 = 0,
    GMM_PRECISION_FP32 = 1,
    GMM_PRECISION_TF32 = 2,
} gmm_precision;

/* Returns 0 and sets *out when name is known, -1 otherwise. */
int gmm_precision_parse(const char *name, gmm_precision *out);
const char *gmm_precision_name(gmm_precision precision);

/* Per-iteration progress, called once per EM iteration. */
typedef void (*gmm_progress_fn)(void *user, int init_index, int iteration, double lower_bound,
                                double change, double seconds);
/* Notices a user should see (a re-seeded component, the backend chosen, a subset used). */
typedef void (*gmm_notice_fn)(void *user, const char *message);

/* Asked after every EM iteration: nonzero stops the fit there (the iteration just finished is
 * kept), and the fit returns GMM_INTERRUPTED with the model so far. The library knows no
 * signals: a program's handler sets a flag that this function reads. */
typedef int (*gmm_should_stop_fn)(void *user);
/* A checkpoint: the parameters of the current initialisation after so_far->n_iter EM
 * iterations (converged 0, lower_bound that of the last E-step, the training metadata filled;
 * image shape, blur and data path left zero for the caller). Valid during the call only. A
 * status other than GMM_OK ends the fit with it. */
typedef gmm_status (*gmm_checkpoint_fn)(void *user, const gmm_model *so_far);
/* The returned model is final: its parameters and training metadata are set (image shape, blur
 * and data path are left for the caller, who may fill them here). Called once, after the last
 * EM iteration and before the final E-step of gmm_fit_view / gmm_fit_scored, so that the caller
 * can start on the model (write it, on a thread of its own) while the fit scores the data. From
 * here on the model is the caller's: the fit neither changes nor frees it, even when a later
 * step fails (free it as ever). Not called when the fit stops or fails before. */
typedef void (*gmm_fitted_fn)(void *user, gmm_model *model);

/* How the work is done, never what is computed (beyond rounding): fields of the options, not
 * environment variables (the programs map GMM_CUDA_* and GMM_CPU_CHUNK_ROWS onto them). Zero is
 * the default everywhere. Only sizes and switches that the production path itself has live
 * here; the paths that measured slower (other factorisations, covariance and means products,
 * K GEMMs in the E-step) are bench/experiments/, timed by gmm-bench against this path. */
typedef struct {
    int64_t chunk_rows;         /* rows per chunk (0: sized from free memory; a larger value than
                                   the automatic one is ignored) */
    int no_compaction;          /* 1: the GPU covariance products run over every row instead of
                                   the rows with r_ik > 1e-20 (the path the backend takes anyway
                                   when a chunk's packed index would pass 2^31): the exact sum,
                                   to rule the compaction out */
    int estep_blocks;           /* the GPU E-step's product (x - mu) U_k skips the zero blocks
                                   of the triangular U_k: column block j of the d columns (of
                                   estep_blocks) needs only the first j + 1 row blocks, one
                                   GEMM over the K components per block. 0: the
                                   default (blocks of about 112 columns for d >= 224, the
                                   fastest measured in every precision); 1: one GEMM */
    int estep_all_pairs;        /* 1: every (sample, component) distance in full. 0: the
                                   float64 E-step of a full covariance on more than 224
                                   dimensions leaves partial the pairs already known to be of
                                   no weight in float64 (log-probability more than 64 below
                                   the row's candidate component's, judged on the first column
                                   blocks: a responsibility under 1.6e-28): the same
                                   log-likelihoods and responsibilities, to rounding, from
                                   fewer products; those pairs' log responsibilities (< -64)
                                   are then upper bounds.
                                   The GPU does so on chunks of 32768 rows or more, and on
                                   262144 rows or more of a fit reads each component's
                                   covariance in an order of its own, factored again, that
                                   settles more pairs on the first blocks; -1: both at any
                                   size (the tests) */
    int64_t estep_rows;         /* the GPU E-step's rows per pass (0: as many as the workspace
                                   holds): fewer would keep a pass's product in the L2 cache for
                                   the row kernel that reads it (1024-4096 rows measured slower
                                   on the H100); a size of the chunk loop, no path of its own */
    int kmeans_gemm;            /* 1: the GPU k-means's distances and center sums as GEMMs at
                                   any size (0: without cuBLAS up to 64 Mi data values, so that
                                   cuBLAS's first call runs beside them; GEMMs on more) */
    int64_t memory_budget;      /* bytes the backend may hold for the data and its chunk buffers
                                   (0: the device's free memory; the CPU: chunks of 64 MiB).
                                   Data that does not fit stays in host memory and streams
                                   through in chunks: the same fit, to rounding */
} gmm_tuning;

/* The priors of a variational fit (scikit-learn's BayesianGaussianMixture and its parameter
 * names); what is left 0 / NULL takes scikit-learn's default (models/core/bayes_prior.h). */
typedef struct {
    gmm_weight_prior_type weight_prior_type;  /* dirichlet_process (default) */
    double weight_concentration_prior;        /* 0: 1 / n_components; else > 0 */
    double mean_precision_prior;              /* 0: 1; else > 0 */
    double degrees_of_freedom_prior;          /* 0: dim; else > dim - 1 */
    const double *mean_prior;                 /* NULL: the data's mean (dim values) */
    const double *covariance_prior;           /* NULL: the data's covariance (ddof 1; diag: the
                                                 variances, spherical: their mean); else full
                                                 and tied dim x dim, diag dim, spherical 1 */
} gmm_bayes_options;

typedef struct gmm_comm gmm_comm; /* models/dist/comm.h */

/* scikit-learn's weights_init / means_init / precisions_init, checked by the caller: every run
 * estimates its parameters from its responsibilities (options->init or the given ones), then
 * each part given here replaces the estimated one, as scikit-learn's _initialize. NULL: not
 * given. precisions_cholesky holds the factors of the given precision matrices (model.h's
 * layout: upper U with precision = U U^T for full and tied, sqrt(precision) for diag and
 * spherical); the covariances stay those estimated, as scikit-learn's covariances_. */
typedef struct {
    const double *weights;             /* K */
    const double *means;               /* K x d */
    const double *precisions_cholesky; /* gmm_cov_size(type, K, d) */
} gmm_given_params;
/* Copies the given parts into model (of the fit's K, d and covariance type). */
void gmm_given_params_apply(const gmm_given_params *given, gmm_model *model);
typedef struct gmm_options gmm_options;

/* An initialisation that is a fit itself (init=spectral, init=merge): the starting
 * responsibilities (n_samples x options->n_components) from another mixture. The EM loop below
 * knows no such fit; models/fit/ plugs it in (gmm_options_plug_fitted_init). */
typedef gmm_status (*gmm_fitted_init_fn)(const double *X, int64_t n_samples, int dim,
                                         const gmm_options *options, double *resp);

struct gmm_options {
    int n_components;           /* K, default 1 as scikit-learn; the CLI defaults to 10 */
    gmm_cov_type covariance_type;
    double tol;                 /* 1e-3 */
    double reg_covar;           /* 1e-6 */
    int max_iter;               /* 100 */
    int n_init;                 /* 1 */
    gmm_init_method init;       /* kmeans */
    uint64_t seed;              /* 0 */
    gmm_device device;          /* auto */
    gmm_precision precision;    /* fp64 */
    int kmeans_max_iter;        /* Lloyd iterations for init=kmeans, 300 like scikit-learn */
    int64_t kmeans_sample_size; /* init=kmeans on more rows than this: k-means++ and Lloyd on a
                                   uniform sample of this many rows, then at most
                                   GMM_KMEANS_FULL_PASSES Lloyd passes over every row
                                   (models/core/init_kmeans.h). 0: the default
                                   (GMM_KMEANS_SAMPLE_AUTO rows when there are more than
                                   GMM_KMEANS_SAMPLE_ABOVE); < 0: every row, always */
    int kmeans_full_passes;     /* the Lloyd passes over every row after the sample's k-means
                                   (at most; fewer when they converge). 0: the default,
                                   GMM_KMEANS_FULL_PASSES */
    int knn_neighbors;          /* init=knn: neighbours per point for the density (10, 1..127;
                                   0 means the default) */
    int64_t knn_sample_size;    /* init=knn: points in the kNN graph (60000; all when N <= it;
                                   0 means the default) */
    int spectral_dims;          /* init=spectral: embedding dimensions (0: 10); its graph has
                                   knn_neighbors neighbours (0: 10) */
    int verbose;                /* 0 (default); >= 2: a notice with the time of each phase of the
                                   fit (device context, initialisation, final scoring) */
    gmm_tuning tuning;          /* all zero: the defaults */
    gmm_gpu *gpu;               /* the GPU resources object to run on when the device choice
                                   takes the GPU (the caller's, kept alive through the call);
                                   NULL: the fit makes its own */
    gmm_progress_fn on_progress;
    gmm_notice_fn on_notice;
    gmm_should_stop_fn should_stop; /* NULL: never stop early */
    gmm_checkpoint_fn on_checkpoint; /* called every checkpoint_every EM iterations of an
                                        unconverged run (0 or NULL: never) */
    int checkpoint_every;
    gmm_fitted_fn on_fitted;    /* NULL: none */
    gmm_comm *comm;             /* NULL: one process holds all the data. Else the data is split
                                   over comm's ranks (gmm_fit_view), which fit together and all
                                   return the same model (models/dist/comm.h) */
    const gmm_model *init_model; /* not NULL: one run that starts EM from this model's weights,
                                    means and precisions (an E-step under them first, as
                                    scikit-learn's warm_start) instead of options->init; its
                                    K, d and covariance type must be the fit's (n_init is 1) */
    const gmm_given_params *given_params; /* not NULL: parts of every run's start replaced
                                             after its first M-step (see above) */
    gmm_fitted_init_fn fitted_init; /* init=spectral/merge: gmm_options_plug_fitted_init */
    const gmm_bayes_options *bayes; /* NULL: maximum-likelihood EM (GaussianMixture); else a
                                       variational fit with these priors
                                       (BayesianGaussianMixture): n_components is then an upper
                                       bound, empty components are not re-seeded and the lower
                                       bound is scikit-learn's variational one */
    int scores_without_proba;   /* 1: the handed-on scores (gmm_fit_view) leave proba NULL: the
                                   labels and log-likelihoods alone, for a caller with no use
                                   for the n_samples x K responsibilities (648 MB at 8.1 million
                                   images, K = 10) */
    void *user;
};

/* The largest tol and reg_covar a fit takes: a model file holds every number finite and at most
 * 1e100 in magnitude (GMM_MAX_ABS_VALUE, models/features/finite_check.h), tol among them, and
 * reg_covar is added to every variance, so it leaves them room below that bound (a larger one
 * would fit, and write a model that no loader takes). */
#define GMM_TOL_MAX 1e100
#define GMM_REG_COVAR_MAX 1e50

void gmm_options_default(gmm_options *options);

/* The stop request inside an initialisation. The EM loop asks options->should_stop itself; the
 * loops of an initialisation that options do not reach (k-means's and k-means++'s iterations,
 * which run through the backend table, and the kNN search's blocks) ask gmm_stop_requested,
 * which reads the should_stop that the fit running on this thread set with
 * gmm_stop_scope_begin (0 outside such a scope, or with no should_stop). A loop that sees it
 * returns GMM_INTERRUPTED: the fit then has no model from that initialisation. Scopes nest (an
 * initialisation that is a fit itself opens one inside its caller's): begin returns the scope it
 * replaces, and end restores it. gmm_stop_poll is gmm_stop_requested in the shape of a
 * should_stop callback (the kNN search's knn_blas_params), its argument unused. */
typedef struct {
    gmm_should_stop_fn should_stop;
    void *user;
} gmm_stop_scope;
gmm_stop_scope gmm_stop_scope_begin(const gmm_options *options);
void gmm_stop_scope_end(gmm_stop_scope enclosing);
int gmm_stop_requested(void);
int gmm_stop_poll(void *unused);

/* Checks options against the data shape; GMM_ERR_ARG with a detail when one is invalid. */
gmm_status gmm_options_validate(const gmm_options *options, int64_t n_samples, int dim);

#ifdef __cplusplus
}
#endif
#endif
