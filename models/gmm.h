/* The Gaussian mixture model: its parameters, the fit options (scikit-learn's names and
 * defaults), and the entry points to fit, score and sample. Matrices are row-major. */
#ifndef GMM_GMM_H
#define GMM_GMM_H

#include <stddef.h>
#include <stdint.h>

#include "kernels/gmm_status.h"
#include "kernels/gpu.h"
#include "models/data_view.h"

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
                                  embedding of the kNN graph (models/spectral.h) */
} gmm_init_method;

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

/* The GPU resources object for a device choice, to be shared by every operation of one run
 * (fit, scoring, kNN, diagnostics, pictures) through options.gpu and their gpu arguments:
 * *gpu = NULL for GMM_DEVICE_CPU (without a single CUDA call) and for GMM_DEVICE_AUTO when no GPU
 * is usable; a new object (free it with gmm_gpu_destroy) otherwise. GMM_DEVICE_GPU without a
 * GPU is GMM_ERR_NO_DEVICE. *notice (may be NULL) receives the sentence that says which device
 * GMM_DEVICE_AUTO took. */
gmm_status gmm_device_open(gmm_device device, gmm_gpu **gpu, const char **notice);

/* Returns 0 and sets *out when name is known, -1 otherwise. */
int gmm_cov_type_parse(const char *name, gmm_cov_type *out);
const char *gmm_cov_type_name(gmm_cov_type type);
int gmm_init_parse(const char *name, gmm_init_method *out);
const char *gmm_init_name(gmm_init_method method);
int gmm_precision_parse(const char *name, gmm_precision *out);
const char *gmm_precision_name(gmm_precision precision);

/* Number of doubles in the covariance (and precision Cholesky) array of a model. */
size_t gmm_cov_size(gmm_cov_type type, int n_components, int dim);

/* A PCA projection in front of the mixture (gmm-train --pca D [--whiten]): an image x
 * (input_dim pixels) becomes z = (x - mean) W^T, divided elementwise by sqrt(explained_variance)
 * when whiten, with W = components (n_axes x input_dim, orthonormal rows: the top n_axes
 * eigenvectors of the data's covariance, eigenvalues explained_variance, descending). The mixture
 * is fitted to z (its dim is n_axes); models/pca.h computes and applies it. */
typedef struct {
    int input_dim;
    int n_axes;
    int whiten;
    double total_variance;      /* trace of the covariance: the variance of all input_dim axes */
    double *mean;               /* input_dim */
    double *components;         /* n_axes x input_dim */
    double *explained_variance; /* n_axes */
} gmm_projection;

/* The space a mixture was fitted in when it is the spectral embedding of the kNN graph of its
 * training images (gmm-train --space spectral; models/spectral.h): what embedding a new image
 * needs (its n_neighbors nearest training images and their coordinates, the Nyström extension).
 * The mixture's dim is the embedding's dimension. */
typedef struct {
    int64_t n_train;     /* images in the graph */
    int input_dim;       /* pixels per image */
    int n_neighbors;     /* k of the graph, itself counted */
    int n_dims;          /* embedding dimensions (the model's dim) */
    uint8_t *images;     /* n_train x input_dim: the training images as read (pixel = byte / 255,
                            before the model's blur, which predicting applies again) */
    double *embedding;   /* n_train x n_dims */
    double *eigenvalues; /* n_dims: of the normalised adjacency, in [-1, 1] */
    double *degrees;     /* n_train: the graph's degrees */
} gmm_spectral_space;

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
    gmm_projection *projection;  /* NULL: fitted on the pixels; else owned by the model (freed
                                    and copied with it), and dim == projection->n_axes */
    gmm_spectral_space *spectral; /* NULL, or the spectral space the model was fitted in (owned;
                                     dim == spectral->n_dims; never with a projection) */
} gmm_model;

/* The dimension of the images the model takes: projection->input_dim, spectral->input_dim,
 * or dim. */
int gmm_model_input_dim(const gmm_model *model);

/* Allocates the parameter arrays (zeroed); metadata zeroed. */
gmm_status gmm_model_alloc(gmm_model *model, int n_components, int dim, gmm_cov_type type);
void gmm_model_free(gmm_model *model); /* accepts a zeroed or freed model */
/* A spectral space of the given sizes, arrays zeroed (free with gmm_spectral_space_free). */
gmm_status gmm_spectral_space_alloc(int64_t n_train, int input_dim, int n_neighbors, int n_dims,
                                    gmm_spectral_space **out);
void gmm_spectral_space_free(gmm_spectral_space *space); /* accepts NULL */
gmm_status gmm_spectral_space_copy(const gmm_spectral_space *src, gmm_spectral_space **out);
gmm_status gmm_model_copy(gmm_model *dst, const gmm_model *src);

/* Computes precisions_cholesky from covariances (Cholesky with LAPACKE, then a triangular
 * solve). On failure returns GMM_ERR_CHOLESKY naming the component. */
gmm_status gmm_model_compute_precisions(gmm_model *model);

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
 * the default everywhere. */
typedef enum {
    GMM_COV_PRODUCT_AUTO = 0,  /* lower block triangle of GEMMs for d >= 128, one GEMM below */
    GMM_COV_PRODUCT_GEMM = 1,  /* one full GEMM per component */
    GMM_COV_PRODUCT_SYRK = 2,  /* cuBLAS SYRK (not under TF32, which runs through GEMM only) */
    GMM_COV_PRODUCT_LOWER = 3, /* the lower 2 x 2 block triangle as three GEMMs */
} gmm_cov_product;

/* How the GPU M-step forms the means product R^T X (float64 only; float32 data uses the
 * weighted column sums). */
typedef enum {
    GMM_MEANS_PRODUCT_AUTO = 0,   /* cuBLAS DGEMM: as fast inside an EM iteration (the kernel's
                                     0.02 ms lead is noise there) and deterministic, where the
                                     kernel's atomicAdd sums vary in the last bits between runs */
    GMM_MEANS_PRODUCT_GEMM = 1,   /* cuBLAS DGEMM */
    GMM_MEANS_PRODUCT_MATMUL = 2, /* the hand-written matmul_cuda (kernels/matmul.h) for K <= 16,
                                     where it reads X once (1.15x cuBLAS at 60000 x 784); cuBLAS
                                     for more components */
} gmm_means_product;

/* Which kernels form the GPU M-step's per-component covariance products A_k^T A_k. */
typedef enum {
    GMM_COV_KERNEL_AUTO = 0,  /* cuBLAS on the lanes, shaped by cov_product: measured faster in
                                 the M-step (7.2 ms against 7.7 ms at 60000 x 784, K = 10) */
    GMM_COV_KERNEL_CUBLAS = 1,
    GMM_COV_KERNEL_TILED = 2, /* the hand-written tensor-core SYRK of wcov_cuda on each packed
                                 block (wcov_packed_cuda); float64 products only, so TF32
                                 (float32 products) keeps cuBLAS */
} gmm_cov_kernel;

/* How the GPU M-step turns the K covariances into precision factors U_k = R_k^{-1}
 * (covariance = R_k^T R_k). */
typedef enum {
    GMM_FACTOR_AUTO = 0,          /* GMM_FACTOR_BLOCKED: the fastest measured (README) */
    GMM_FACTOR_BATCHED_TRSM = 1,  /* cusolverDnDpotrfBatched, then K triangular solves against the
                                     identity on the lanes */
    GMM_FACTOR_LOOP_TRSM = 2,     /* K cusolverDnDpotrf one after another, then the K solves */
    GMM_FACTOR_BATCHED_TRTRI = 3, /* cusolverDnDpotrfBatched, then K triangular inverses
                                     (cusolverDnXtrtri) on the lanes */
    GMM_FACTOR_LANES_TRTRI = 4,   /* per component on its own lane: potrf then trtri, all K at
                                     once */
    GMM_FACTOR_LANES_TRSM = 5,    /* per component on its own lane: potrf then the solve */
    GMM_FACTOR_GRAPH_TRSM = 6,    /* LANES_TRSM's calls (bit-identical results) captured once
                                     into a CUDA graph and replayed with one launch per M-step:
                                     no host launch overhead for the hundreds of small kernels
                                     (H100, K = 10, d = 784: 1.67 against 2.24 ms). Where the
                                     capture fails, LANES_TRSM itself */
    GMM_FACTOR_BLOCKED = 7,       /* all K at once by linalg/chol_inverse.h: recursive halving,
                                     strided-batched DGEMMs over the components and a kernel for
                                     the diagonal blocks of at most 64 (no cuSOLVER; H100,
                                     K = 10, d = 784: 1.03 against the graph's 1.68 ms) */
} gmm_factorisation;

typedef struct {
    int64_t chunk_rows;         /* rows per chunk (0: sized from free memory; a larger value than
                                   the automatic one is ignored) */
    int no_compaction;          /* 1: the GPU covariance products run over every row instead of
                                   the rows with r_ik > 1e-20 */
    int estep_per_component;    /* 1: K GEMMs in the GPU E-step instead of one */
    int estep_blocks;           /* the GPU E-step's product (x - mu) U_k skips the zero blocks
                                   of the triangular U_k: column block j of the d columns (of
                                   estep_blocks) needs only the first j + 1 row blocks, one
                                   GEMM over the K components per block. 0: the
                                   default (blocks of about 112 columns for d >= 224, the
                                   fastest measured in every precision); 1: one GEMM */
    int64_t estep_rows;         /* the GPU E-step's rows per pass (0: as many as the workspace
                                   holds): fewer keep a pass's product in the L2 cache for
                                   the row kernel that reads it */
    gmm_factorisation factorisation;
    gmm_cov_product cov_product;
    gmm_means_product means_product;
    gmm_cov_kernel cov_kernel;
    int kmeans_gemm;            /* 1: the GPU k-means's distances and center sums as GEMMs at
                                   any size (0: without cuBLAS up to 64 Mi data values, so that
                                   cuBLAS's first call runs beside them; GEMMs on more) */
    int64_t memory_budget;      /* bytes the backend may hold for the data and its chunk buffers
                                   (0: the device's free memory; the CPU: chunks of 64 MiB).
                                   Data that does not fit stays in host memory and streams
                                   through in chunks: the same fit, to rounding */
} gmm_tuning;

typedef struct gmm_comm gmm_comm; /* models/comm.h */

typedef struct {
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
                                   return the same model (models/comm.h) */
    const gmm_model *init_model; /* not NULL: one run that starts EM from this model's weights,
                                    means and precisions (an E-step under them first, as
                                    scikit-learn's warm_start) instead of options->init; its
                                    K, d and covariance type must be the fit's (n_init is 1) */
    void *user;
} gmm_options;

void gmm_options_default(gmm_options *options);

/* Checks options against the data shape; GMM_ERR_ARG with a detail when one is invalid. */
gmm_status gmm_options_validate(const gmm_options *options, int64_t n_samples, int dim);

/* Fits a model to X (n_samples x dim, row-major float64) with EM, keeping the best of n_init
 * runs. The model is allocated here; free it with gmm_model_free. When options->should_stop
 * asks for it the fit returns GMM_INTERRUPTED and still fills the model (free it as well): the
 * best of the runs finished so far and the interrupted one's parameters after its last
 * iteration (at least one), with that run's converged flag and n_iter; the later runs and the
 * scores of gmm_fit_scored are skipped. */
gmm_status gmm_fit(const double *X, int64_t n_samples, int dim, const gmm_options *options,
                   gmm_model *model);

/* What a fit hands on besides the model: the final E-step under the returned parameters (as
 * scikit-learn's fit does one, so that fit_predict agrees with fit + predict), run on the fit's
 * own backend context: the data is not uploaded again and nothing is computed twice. */
typedef struct {
    int64_t n_samples;
    int n_components;
    double mean_log_likelihood; /* the training score (score) */
    double *log_likelihood;     /* n_samples: log p(x_i) (score_samples) */
    double *proba;              /* n_samples x K: the responsibilities (predict_proba) */
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

/* Per-sample log-likelihood log p(x_i) (score_samples), and optionally the responsibilities
 * (predict_proba, n_samples x K) and the most likely component (predict). Any output may be NULL. */
gmm_status gmm_score_samples(const gmm_model *model, const double *X, int64_t n_samples,
                             gmm_device device, double *log_likelihood, double *proba,
                             int *labels);

/* gmm_score_samples on a GPU resources object of the caller's (gmm_device_open), so that a run
 * scores on the same handles as it fits; gpu NULL is gmm_score_samples. */
gmm_status gmm_score_samples_on(const gmm_model *model, const double *X, int64_t n_samples,
                                gmm_device device, gmm_gpu *gpu, double *log_likelihood,
                                double *proba, int *labels);

/* Mean log-likelihood over the samples (scikit-learn's score). */
gmm_status gmm_score(const gmm_model *model, const double *X, int64_t n_samples,
                     gmm_device device, double *mean_log_likelihood);

/* Number of free parameters, as scikit-learn's _n_parameters. */
int64_t gmm_n_parameters(const gmm_model *model);
/* BIC = -2 * sum log-likelihood + p log N; AIC = -2 * sum log-likelihood + 2 p. */
double gmm_bic(const gmm_model *model, double mean_log_likelihood, int64_t n_samples);
double gmm_aic(const gmm_model *model, double mean_log_likelihood, int64_t n_samples);

/* Draws n_samples from the model into X (n_samples x dim) and their components into labels
 * (may be NULL), with a deterministic generator seeded by seed. */
gmm_status gmm_sample(const gmm_model *model, int64_t n_samples, uint64_t seed, double *X,
                      int *labels);

#ifdef __cplusplus
}
#endif
#endif
