/* Factorisation experiments: the ways from the CUDA backend's K covariances to their precision
 * factors U = R^{-1} (cov = R^T R) that lost to linalg/chol_inverse.h inside the EM iteration
 * (contract: chol_inverse_cuda's; versions and the plan: bench/experiments/experiments.h).
 *   version 0  chol_inverse_cuda, the library path the backend runs (it replays these calls from
 *              a CUDA graph; a failed capture makes them directly, as here): the reference;
 *   versions 1-6, moved here unchanged from models/backend/cuda/cuda_factorise.cu, where they
 *              were the GMM_FACTOR_* modes (GMM_CUDA_POTRF=batched|loop|batched-trtri|
 *              lanes-trtri|lanes|graph): cuSOLVER potrf (potrfBatched, one after another, or each
 *              component on a lane of its own), then the inverse of the factor by a TRSM against
 *              the identity or by trtri; version 6 captures version 5's calls once into a CUDA
 *              graph and replays it. Measured in the EM iteration (H100, K = 10, d = 784, the
 *              factorisation part of the M-step): 0.92 ms for version 0 in its graph against
 *              2.83, 4.68, 3.74, 3.39, 2.29 and 1.68 ms (bench/experiments/README.md).
 * Component m runs on lane m % n_lanes with n_lanes = min(n_mats, 12), as in the backend. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/experiments/experiments.h"
#include "kernels/cuda_check.h"
#include "kernels/grid.cuh"
#include "linalg/chol_inverse.h"

#define PLAN_LANES_MOST 12 /* the backend's concurrent cuBLAS lanes */

struct factorisation_plan {
    gmm_gpu *gpu;
    const double *d_cov;
    double *d_prec;
    int dim, n_mats, n_lanes;
    double *d_factor;                    /* n_mats dim^2: the Cholesky factors (TRSM versions),
                                            chol_inverse_cuda's scratch (version 0) */
    int *d_info, *h_info;                /* 2 n_mats: potrf's, then trtri's */
    double **d_ptrs, **h_ptrs;           /* n_mats pointers into d_factor */
    double **d_prec_ptrs, **h_prec_ptrs; /* n_mats pointers into d_prec */
    /* version 6: version 5's calls captured on a stream of the plan's own, and replayed */
    cudaStream_t origin;
    cudaEvent_t fork, join;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    void *lane_workspace[PLAN_LANES_MOST]; /* each lane's potrf workspace when captured */
    bool graph_failed;                     /* the direct calls from then on */
};

static __global__ void identity_kernel(double *x, int n_mats, int d)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        x[e] = (rem / d == rem % d) ? 1.0 : 0.0;
    }
}

/* zero the strict lower triangle (row > col) of each matrix */
static __global__ void triu_kernel(double *x, int n_mats, int d)
{
    const int64_t dd = (int64_t)d * d, n = dd * n_mats;
    for (int64_t e = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; e < n;
         e += (int64_t)gridDim.x * blockDim.x) {
        const int64_t rem = e % dd;
        if (rem / d > rem % d) x[e] = 0.0;
    }
}

static bool solves_trsm(int version) { return version == 1 || version == 2 || version == 5; }

static gmm_status fork_lanes(factorisation_plan *p, int *forked);
static cudaError_t join_lanes(factorisation_plan *p, int forked);

/* Queues version 1-5 from this thread: the copy, the identity and the triangle's clean-up on
 * `origin`, the per-component work on the lanes. With origin NULL (the legacy stream) the
 * lanes, blocking streams, are ordered with it implicitly; with version 6's capturing origin
 * (version 5 only) they are forked from it and joined back by events (*forked counts the lanes
 * forked, which a failed capture still joins). One sequence for both, so that the graph replays
 * exactly the direct calls. */
static gmm_status queue_factorisation(factorisation_plan *p, int version, cudaStream_t origin,
                                      int *forked)
{
    gmm_status status = GMM_OK;
    const int d = p->dim, nm = p->n_mats;
    const int64_t dd = (int64_t)d * d;
    const bool trsm = solves_trsm(version);
    const bool on_lanes = version == 4 || version == 5;
    cudaError_t e;

    if (trsm) {
        /* factor a copy in d_factor, solve R U = I into d_prec */
        GMM_CUDA_CHECK(cudaMemcpyAsync(p->d_factor, p->d_cov, sizeof(double) * dd * nm,
                                       cudaMemcpyDeviceToDevice, origin));
        if (!on_lanes && (status = gmm_gpu_dpotrf_upper_many(p->gpu, d, p->d_ptrs, p->h_ptrs, d,
                                                             nm, version == 1, p->d_info)) !=
                             GMM_OK)
            goto fail;
        identity_kernel<<<kernel_grid_for(dd * nm, 256), 256, 0, origin>>>(p->d_prec, nm, d);
        GMM_LAUNCH_CHECK("identity_kernel"); /* sync debugging never captures a graph */
    } else {
        /* factor and invert in place in d_prec */
        GMM_CUDA_CHECK(cudaMemcpyAsync(p->d_prec, p->d_cov, sizeof(double) * dd * nm,
                                       cudaMemcpyDeviceToDevice, origin));
        if (version == 3 && (status = gmm_gpu_dpotrf_upper_many(p->gpu, d, p->d_prec_ptrs,
                                                                p->h_prec_ptrs, d, nm, true,
                                                                p->d_info)) != GMM_OK)
            goto fail;
    }
    if (origin && (status = fork_lanes(p, forked)) != GMM_OK) goto fail;
    for (int m = 0; m < nm; m++) {
        gmm_gpu *lane = gmm_gpu_lane(p->gpu, m % p->n_lanes);
        if (!lane) {
            status = GMM_ERR_CUDA;
            goto fail;
        }
        double *const *factor = trsm ? p->h_ptrs + m : p->h_prec_ptrs + m;
        if (on_lanes && (status = gmm_gpu_dpotrf_upper_many(lane, d, NULL, factor, d, 1, false,
                                                            p->d_info + m)) != GMM_OK)
            goto fail;
        if (trsm)
            status = gmm_gpu_upper_inverse(lane, d, *factor, d, p->d_prec + m * dd, d);
        else
            status = gmm_gpu_upper_invert(lane, d, *factor, d, p->d_info + nm + m);
        if (status != GMM_OK) goto fail;
    }
    if (origin && (e = join_lanes(p, *forked)) != cudaSuccess) {
        status = gmm_error(GMM_ERR_CUDA, "joining the lanes in the factorisation's capture: %s",
                           cudaGetErrorString(e));
        goto fail;
    }
    triu_kernel<<<kernel_grid_for(dd * nm, 256), 256, 0, origin>>>(p->d_prec, nm, d);
    GMM_LAUNCH_CHECK("triu_kernel");
fail:
    return status;
}

/* ---- version 6: the graph ------------------------------------------------------------------ */

/* Whether the captured graph still holds the lanes' workspaces (gmm_gpu_workspace reallocates a
 * lane's when a larger one is asked for, by another version for instance). */
static bool graph_is_current(const factorisation_plan *p)
{
    if (!p->exec) return false;
    for (int l = 0; l < p->n_lanes; l++)
        if (gmm_gpu_workspace_current(gmm_gpu_lane(p->gpu, l)) != p->lane_workspace[l])
            return false;
    return true;
}

static void graph_drop(factorisation_plan *p)
{
    if (p->exec) cudaGraphExecDestroy(p->exec); /* teardown: nothing to report */
    if (p->graph) cudaGraphDestroy(p->graph);
    p->exec = NULL;
    p->graph = NULL;
}

/* Outside any capture: the origin stream and the events, every lane with its cuSOLVER handle
 * and a potrf workspace large enough. */
static gmm_status prepare_capture(factorisation_plan *p)
{
    gmm_status status = GMM_OK;
    /* a blocking stream (cudaStreamCreate), as the lanes' streams */
    if (!p->origin) GMM_CUDA_CHECK(cudaStreamCreate(&p->origin));
    if (!p->fork) GMM_CUDA_CHECK(cudaEventCreateWithFlags(&p->fork, cudaEventDisableTiming));
    if (!p->join) GMM_CUDA_CHECK(cudaEventCreateWithFlags(&p->join, cudaEventDisableTiming));
    for (int m = 0; m < p->n_mats; m++) {
        gmm_gpu *lane = gmm_gpu_lane(p->gpu, m % p->n_lanes);
        void *ws = NULL;
        if (!lane) return GMM_ERR_CUDA;
        if ((status = gmm_gpu_dpotrf_upper_prepare(lane, p->dim, p->h_ptrs[m], p->dim, &ws)) !=
            GMM_OK)
            goto fail;
    }
    for (int l = 0; l < p->n_lanes; l++)
        p->lane_workspace[l] = gmm_gpu_workspace_current(gmm_gpu_lane(p->gpu, l));
fail:
    return status;
}

/* Makes every lane wait for the work queued so far on the origin (inside the capture: the lanes
 * join it). *forked counts the lanes that did. */
static gmm_status fork_lanes(factorisation_plan *p, int *forked)
{
    gmm_status status = GMM_OK;
    GMM_CUDA_CHECK(cudaEventRecord(p->fork, p->origin));
    for (int l = 0; l < p->n_lanes; l++) {
        GMM_CUDA_CHECK(cudaStreamWaitEvent((cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(p->gpu, l)),
                                           p->fork, 0));
        *forked = l + 1;
    }
fail:
    return status;
}

/* Joins the first `forked` lanes back into the origin (one event, recorded and waited for lane
 * by lane: a wait takes the record made before it). Attempted even after a failure: the capture
 * ends only with every lane back. The first error is returned. */
static cudaError_t join_lanes(factorisation_plan *p, int forked)
{
    cudaError_t first = cudaSuccess, e;
    for (int l = 0; l < forked; l++) {
        cudaStream_t s = (cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(p->gpu, l));
        if ((e = cudaEventRecord(p->join, s)) == cudaSuccess)
            e = cudaStreamWaitEvent(p->origin, p->join, 0);
        if (e != cudaSuccess && first == cudaSuccess) first = e;
    }
    return first;
}

/* Whether the origin or a lane is still capturing. */
static bool capture_left_open(factorisation_plan *p)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(p->origin, &st) != cudaSuccess || st != cudaStreamCaptureStatusNone)
        return true;
    for (int l = 0; l < p->n_lanes; l++) {
        st = cudaStreamCaptureStatusNone;
        cudaStream_t s = (cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(p->gpu, l));
        if (cudaStreamIsCapturing(s, &st) != cudaSuccess || st != cudaStreamCaptureStatusNone)
            return true;
    }
    return false;
}

/* Records version 5's calls (thread-local capture mode) and instantiates the graph. On failure
 * no graph is kept and *left_open says whether a stream could not be taken out of capture. */
static gmm_status capture(factorisation_plan *p, bool *left_open)
{
    gmm_status status = GMM_OK;
    cudaGraph_t graph = NULL;
    cudaError_t e;
    int forked = 0;
    *left_open = false;
    graph_drop(p);
    if ((status = prepare_capture(p)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaStreamBeginCapture(p->origin, cudaStreamCaptureModeThreadLocal));
    status = queue_factorisation(p, 5, p->origin, &forked);
    if (status != GMM_OK) join_lanes(p, forked); /* the capture ends only with every lane back */
    e = cudaStreamEndCapture(p->origin, &graph);  /* ends it even when invalidated */
    if (status == GMM_OK && e != cudaSuccess)
        status = gmm_error(GMM_ERR_CUDA, "cudaStreamEndCapture of the factorisation: %s",
                           cudaGetErrorString(e));
    if (status != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaGraphInstantiateWithFlags(&p->exec, graph,
                                                 cudaGraphInstantiateFlagAutoFreeOnLaunch));
    p->graph = graph;
    graph = NULL;
fail:
    if (graph) cudaGraphDestroy(graph);
    if (status != GMM_OK) {
        if (p->exec) cudaGraphExecDestroy(p->exec);
        p->exec = NULL;
        cudaGetLastError(); /* the capture's non-sticky errors must not fail a later check */
        if (p->origin && capture_left_open(p)) {
            char cause[160];
            snprintf(cause, sizeof cause, "%s", gmm_error_message(status));
            *left_open = true;
            status = gmm_error(GMM_ERR_CUDA,
                               "the factorisation's stream capture could not be ended (%s)",
                               cause);
        }
    }
    return status;
}

/* The graph's launch into the origin (a blocking stream: it starts after the legacy stream's
 * earlier work, and the legacy stream's later infos copy waits for all of it). *launched false:
 * the caller makes version 5's calls directly (under sync debugging, and for the rest of the
 * plan's life once a capture or launch failed). */
static gmm_status graph_factorise(factorisation_plan *p, bool *launched)
{
    gmm_status status = GMM_OK;
    bool left_open = false;
    *launched = false;
    if (p->graph_failed || gmm_cuda_sync_debug()) return GMM_OK;
    if (!graph_is_current(p) && (status = capture(p, &left_open)) != GMM_OK) {
        if (left_open) return status; /* the streams are unusable */
        goto give_up;
    }
    if (cudaGraphLaunch(p->exec, p->origin) != cudaSuccess) {
        cudaGetLastError();
        goto give_up;
    }
    *launched = true;
    return GMM_OK;
give_up:
    gmm_error_clear();
    graph_drop(p);
    p->graph_failed = true;
    return GMM_OK;
}

/* ---- the plan and the versions ------------------------------------------------------------- */

extern "C" gmm_status factorisation_plan_create(factorisation_plan **out, const double *d_cov,
                                                double *d_prec, int dim, int n_mats,
                                                gmm_gpu *gpu)
{
    gmm_status status = GMM_OK;
    factorisation_plan *p = NULL;
    const size_t dd = (size_t)dim * dim;
    *out = NULL;
    if (!d_cov || !d_prec || !gpu || dim <= 0 || n_mats <= 0 || n_mats > 65535)
        return gmm_error(GMM_ERR_ARG, "factorisation_plan_create: bad arguments");
    if (!(p = (factorisation_plan *)calloc(1, sizeof *p)))
        return gmm_error(GMM_ERR_NOMEM, "out of memory");
    p->gpu = gpu;
    p->d_cov = d_cov;
    p->d_prec = d_prec;
    p->dim = dim;
    p->n_mats = n_mats;
    p->n_lanes = n_mats < PLAN_LANES_MOST ? n_mats : PLAN_LANES_MOST;
    GMM_CUDA_CHECK(cudaMalloc((void **)&p->d_factor, sizeof(double) * dd * n_mats));
    GMM_CUDA_CHECK(cudaMalloc((void **)&p->d_info, sizeof(int) * 2 * n_mats));
    GMM_CUDA_CHECK(cudaMemset(p->d_info, 0, sizeof(int) * 2 * n_mats));
    GMM_CUDA_CHECK(cudaMalloc((void **)&p->d_ptrs, sizeof(double *) * n_mats));
    GMM_CUDA_CHECK(cudaMalloc((void **)&p->d_prec_ptrs, sizeof(double *) * n_mats));
    p->h_info = (int *)malloc(sizeof(int) * 2 * n_mats);
    p->h_ptrs = (double **)malloc(sizeof(double *) * n_mats);
    p->h_prec_ptrs = (double **)malloc(sizeof(double *) * n_mats);
    if (!p->h_info || !p->h_ptrs || !p->h_prec_ptrs) {
        status = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    for (int m = 0; m < n_mats; m++) {
        p->h_ptrs[m] = p->d_factor + m * dd;
        p->h_prec_ptrs[m] = d_prec + m * dd;
    }
    GMM_CUDA_CHECK(cudaMemcpy(p->d_ptrs, p->h_ptrs, sizeof(double *) * n_mats,
                              cudaMemcpyHostToDevice));
    GMM_CUDA_CHECK(cudaMemcpy(p->d_prec_ptrs, p->h_prec_ptrs, sizeof(double *) * n_mats,
                              cudaMemcpyHostToDevice));
    for (int l = 0; l < p->n_lanes; l++)
        if (!gmm_gpu_lane(gpu, l)) {
            status = GMM_ERR_CUDA;
            goto fail;
        }
    *out = p;
    return GMM_OK;
fail:
    factorisation_plan_free(p);
    return status;
}

extern "C" void factorisation_plan_free(factorisation_plan *p)
{
    if (!p) return;
    graph_drop(p);
    if (p->fork) cudaEventDestroy(p->fork);
    if (p->join) cudaEventDestroy(p->join);
    if (p->origin) cudaStreamDestroy(p->origin);
    cudaFree(p->d_factor);
    cudaFree(p->d_info);
    cudaFree(p->d_ptrs);
    cudaFree(p->d_prec_ptrs);
    free(p->h_info);
    free(p->h_ptrs);
    free(p->h_prec_ptrs);
    free(p);
}

/* The failing orders read back once after everything was launched, as the backend did. */
static gmm_status check_infos(factorisation_plan *p, int version, int *failed_order)
{
    gmm_status status = GMM_OK;
    const int nm = p->n_mats;
    const bool trtri = version == 3 || version == 4;
    int bad = -1;
    /* the legacy stream waits for the lanes (and the graph's origin): the infos are final */
    GMM_CUDA_CHECK(cudaMemcpy(p->h_info, p->d_info, sizeof(int) * (trtri ? 2 : 1) * nm,
                              cudaMemcpyDeviceToHost));
    for (int m = 0; m < nm; m++) {
        const int order = p->h_info[m] ? p->h_info[m] : trtri ? p->h_info[nm + m] : 0;
        if (failed_order) failed_order[m] = order;
        if (order && bad < 0) bad = m;
    }
    if (bad >= 0)
        status = gmm_error(GMM_ERR_CHOLESKY, "%s: matrix %d is not positive definite (order %d)",
                           factorisation_version_name(version), bad,
                           p->h_info[bad] ? p->h_info[bad] : p->h_info[nm + bad]);
fail:
    return status;
}

extern "C" gmm_status factorisation_version(int version, factorisation_plan *p,
                                            int *failed_order)
{
    gmm_status status = GMM_OK;
    bool launched = false;
    if (!p) return gmm_error(GMM_ERR_ARG, "factorisation_version: no plan");
    switch (version) {
    case 0:
        status = chol_inverse_cuda(p->d_cov, p->dim, p->n_mats, p->d_prec, p->d_factor,
                                   p->d_info, p->gpu);
        break;
    case 1: case 2: case 3: case 4: case 5:
        status = queue_factorisation(p, version, NULL, NULL);
        break;
    case 6:
        if ((status = graph_factorise(p, &launched)) == GMM_OK && !launched)
            status = queue_factorisation(p, 5, NULL, NULL);
        break;
    default: return gmm_error(GMM_ERR_ARG, "factorisation_version: no version %d", version);
    }
    if (status == GMM_OK) status = check_infos(p, version, failed_order);
    return status;
}
