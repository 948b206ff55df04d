/* The backend table: the coarse operations of one EM fit, implemented once per device (CPU
 * with OpenBLAS/LAPACKE, GPU with CUDA/cuBLAS/cuSOLVER). The EM loop (em.c) is written once over
 * this table. A backend context owns its copy of the data and of the current parameters and
 * responsibilities (on the device for the GPU); per iteration only scalars cross back. */
#ifndef GMM_BACKEND_H
#define GMM_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "kernels/gpu.h"
#include "models/dist/comm.h"
#include "models/data_view.h"
#include "models/options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The GPU resources object for a device choice, to be shared by every operation of one run
 * (fit, scoring, kNN, diagnostics, pictures) through options.gpu and their gpu arguments:
 * *gpu = NULL for GMM_DEVICE_CPU (without a single CUDA call) and for GMM_DEVICE_AUTO when no GPU
 * is usable; a new object (free it with gmm_gpu_destroy) otherwise. GMM_DEVICE_GPU without a
 * GPU is GMM_ERR_NO_DEVICE. *notice (may be NULL) receives the sentence that says which device
 * GMM_DEVICE_AUTO took. */
gmm_status gmm_device_open(gmm_device device, gmm_gpu **gpu, const char **notice);

#include "kernels/rng.h"

typedef struct gmm_backend_ctx gmm_backend_ctx;

/* What a backend context is made for. */
typedef struct {
    gmm_data_view data;         /* this rank's rows (models/data_view.h) */
    int n_components;
    gmm_cov_type type;
    gmm_precision precision;
    const gmm_tuning *tuning;   /* NULL: the defaults */
    gmm_gpu *gpu;               /* GPU backend: the resources object to run on (NULL: it makes
                                   its own); the CPU ignores it */
    gmm_comm *comm;             /* NULL: one rank; else the statistics are summed over the ranks */
    const gmm_bayes *bayes;     /* NULL: maximum-likelihood EM; else a variational fit with these
                                   priors (models/bayes.h; the posterior part is ignored): the
                                   M-step adds the prior terms, the E-step uses the posterior's
                                   log_weight_terms for the log weights and keeps the entropy of
                                   its responsibilities, get_params fills model->bayes
                                   (allocating it when NULL) and set_params reads it */
} gmm_backend_config;

/* What an M-step reports back: the per-component responsibility sums N_k (K scalars). */
/* The parts of an M-step that phase_ms times, in order. */
#define GMM_MSTEP_PHASES 4
#define GMM_MSTEP_PHASE_NAMES {"weights+means", "covariances", "factorisation", "E-step prep"}

typedef struct {
    double *nk; /* K values, owned by the caller; may be NULL */
    /* NULL, or GMM_MSTEP_PHASES values that a backend able to time its parts (the GPU's, with
     * events, which costs a little) fills with milliseconds; others leave them alone. */
    double *phase_ms;
    /* a variational fit: scikit-learn's lower bound after this M-step, from the entropy of the
     * responsibilities it used (the last E-step's) and the new posterior */
    double lower_bound;
    /* set true when this M-step took the means' sums from the E-step before it instead of a pass
     * of its own over the data (the GPU's, when the data is read chunk by chunk: streamed from
     * host memory or converted); left alone otherwise */
    bool means_from_estep;
} gmm_mstep_report;

typedef struct gmm_backend {
    const char *name;
    /* Whether this backend can run here (a GPU present for the CUDA backend). */
    bool (*available)(void);
    /* Whether this backend supports the configuration (covariance type, precision). */
    bool (*supports)(gmm_cov_type type, gmm_precision precision);

    /* Makes a context for a model of cfg->n_components components on cfg->data (this rank's
     * rows, kept alive by the caller for the life of the context; the backend converts them
     * chunk by chunk or keeps a copy on its device, as its memory allows). With cfg->comm of
     * more than one rank every rank calls this and every operation below together. */
    gmm_status (*create)(gmm_backend_ctx **ctx, const gmm_backend_config *cfg);
    void (*destroy)(gmm_backend_ctx *ctx); /* accepts NULL */
    /* The GPU resources object the context runs on, for the operations of the same run outside
     * the table (kNN initialisation); NULL for the CPU backend. */
    gmm_gpu *(*resources)(gmm_backend_ctx *ctx);

    /* Loads parameters (weights, means, precisions_cholesky of the model) for the next E-step. */
    gmm_status (*set_params)(gmm_backend_ctx *ctx, const gmm_model *model);
    /* Copies the current weights, means, covariances and precisions_cholesky into model
     * (already allocated with the same K, d and type). */
    gmm_status (*get_params)(gmm_backend_ctx *ctx, gmm_model *model);

    /* Loads responsibilities (n_samples x K, host, rows summing to 1) for the next M-step. */
    gmm_status (*set_resp)(gmm_backend_ctx *ctx, const double *resp);

    /* E-step: log responsibilities from the current parameters, kept in the context; returns
     * the mean over samples of log p(x_i) (the lower bound of scikit-learn). */
    gmm_status (*e_step)(gmm_backend_ctx *ctx, double *mean_log_likelihood);

    /* M-step from the context's responsibilities: weights, means, covariances (+ reg_covar on
     * the diagonal) and precision Cholesky factors. A covariance that is not positive definite
     * is GMM_ERR_CHOLESKY whose detail names the component. Reports N_k. */
    gmm_status (*m_step)(gmm_backend_ctx *ctx, double reg_covar, gmm_mstep_report *report);

    /* Host copies of the last E-step's per-sample log p(x_i) (n_samples) and log
     * responsibilities (n_samples x K); either may be NULL. */
    gmm_status (*get_estep)(gmm_backend_ctx *ctx, double *log_likelihood, double *log_resp);

    /* Lloyd's k-means on the context's data from the seeds in centers (host, K x d), with
     * gmm_kmeans_run's semantics (models/backend/cpu/kmeans.h: stop when no label changes or the total
     * squared center shift <= 1e-4 x the mean feature variance; an empty cluster moves to the
     * sample farthest from its center), over every rank's rows. Writes the final centers.
     * resp NULL: the one-hot responsibilities of the final labels stay in the context, exactly
     * as set_resp would have loaded them (m_step may follow at once; nothing crosses back).
     * resp not NULL: they are written to resp (host, this rank's n_rows x K) and the context's
     * responsibilities are left unset (set_resp follows). Either way the context's parameters
     * are left unset. */
    gmm_status (*kmeans_lloyd)(gmm_backend_ctx *ctx, int max_iter, double *centers,
                               double *resp);

    /* Greedy k-means++ seeding on the context's data (every rank's rows: the global D^2 draw)
     * with gmm_kmeans_plusplus's semantics and exactly its random draws (the same rng calls in
     * the same order), in float64; writes the K seeds' global row indices and the seeds
     * themselves (centers, K x d, on every rank). Sums run in a fixed order that may differ
     * from the host's, so a seed can differ only on a near-tie. */
    gmm_status (*kmeans_plusplus)(gmm_backend_ctx *ctx, gmm_rng *rng, int64_t *indices,
                                  double *centers);

    /* Re-sizes the context for a model of n_components components: the buffers that depend on
     * K (parameters, responsibilities, chunk workspaces) are made again, the data and what is
     * derived from it alone stay where they are (on the device for the GPU: not uploaded
     * again), so that fits of several K share one context (models/fit/select_k.h). Parameters and
     * responsibilities are unset afterwards, as after create. A failure leaves the context
     * fit only for destroy. */
    gmm_status (*set_n_components)(gmm_backend_ctx *ctx, int n_components);

    /* Points the context at other rows for the next E-steps: a float64 view of this context's
     * dim, one rank, at most the rows the context was made for; the parameters stay prepared
     * (the scoring of many small batches, models/core/score.h's gmm_scorer). Responsibilities
     * are unset and an M-step afterwards is refused. NULL: not supported (the CUDA backend). */
    gmm_status (*set_rows)(gmm_backend_ctx *ctx, const gmm_data_view *data);

    /* Whether the context streams its data from host memory chunk by chunk (the GPU's when the
     * data does not fit tuning.memory_budget or the free device memory); NULL: never. */
    bool (*streams)(gmm_backend_ctx *ctx);

    /* The E-step in float64 whatever the context's precision: on a context made for fp32 or
     * tf32, the product and the data read in float64 (the data converted chunk by chunk from
     * what the context holds, exactly the view's values; float64 factors and a float64 chunk
     * workspace made for the call and freed after it), the rest as e_step: the same outputs
     * (get_estep), the same mean over every rank's rows, what an E-step of a float64 context
     * on the same rows gives. On an fp64 context it is e_step itself. The context's prepared
     * parameters of its own precision are left as they were. The final scores of a fit. */
    gmm_status (*e_step_f64)(gmm_backend_ctx *ctx, double *mean_log_likelihood);

    /* Rows [r0, r0 + n) of the last E-step's log responsibilities (n x K) into log_resp: what
     * get_estep gives, a slab at a time (a fit's labels without an n_samples x K host array). */
    gmm_status (*get_log_resp_rows)(gmm_backend_ctx *ctx, int64_t r0, int64_t n,
                                    double *log_resp);
} gmm_backend;

/* The registry: the backend for a device choice. With a resources object (gpu not NULL) and a
 * choice other than GMM_DEVICE_CPU, the GPU backend, without probing again. Otherwise for
 * GMM_DEVICE_AUTO the GPU when the CUDA backend library loads and finds a device, else the CPU;
 * *notice (may be NULL) receives a sentence to show the user. GMM_DEVICE_GPU without a GPU is
 * GMM_ERR_NO_DEVICE whose detail names what is missing (the backend library, the CUDA runtime,
 * the driver, a device). GMM_DEVICE_CPU loads nothing and makes no CUDA call at all. */
gmm_status gmm_backend_select(gmm_device device, const gmm_gpu *gpu, const gmm_backend **backend,
                              const char **notice);

extern const gmm_backend gmm_backend_cpu;

/* The CUDA backend's table, from the CUDA backend library, loaded the first time it is asked for
 * (models/backend/cuda_api_forward.c): GMM_ERR_NO_DEVICE with *backend NULL, its detail naming the
 * library that is missing, when that library cannot be loaded. */
gmm_status gmm_backend_cuda_load(const gmm_backend **backend);

/* be->create on the whole of a float64 matrix X (n_samples x dim) with one rank. */
gmm_status gmm_backend_create_f64(const gmm_backend *be, gmm_backend_ctx **ctx, const double *X,
                                  int64_t n_samples, int dim, int n_components,
                                  gmm_cov_type type, gmm_precision precision,
                                  const gmm_tuning *tuning, gmm_gpu *gpu);

#ifdef __cplusplus
}
#endif
#endif
