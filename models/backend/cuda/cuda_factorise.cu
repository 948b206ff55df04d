/* The CUDA backend's factorisation (the end of cuda_mstep.cu's M-step): from the n_mats
 * covariances in d_cov, the precision factors U_m = R_m^{-1} (cov_m = R_m^T R_m) into d_prec, by
 * c->factorisation (gmm.h). The default, GMM_FACTOR_BLOCKED, is linalg/chol_inverse.h: every
 * component at once, cuBLAS only. The others are cuSOLVER potrf, batched or one by one or per
 * component on its own lane, then a TRSM against the identity or trtri (the Cholesky factors
 * kept in d_acc for the TRSM).
 *
 * GMM_FACTOR_BLOCKED and GMM_FACTOR_GRAPH_TRSM record their calls (chol_inverse on lane 0; the
 * calls of GMM_FACTOR_LANES_TRSM on every lane) once into a CUDA graph (stream capture) and
 * replay it with one cudaGraphLaunch per M-step: the driver launches the ~90 (blocked) or several
 * hundred (potrf + TRSM) small kernels from the graph instead of this thread one by one. If the
 * capture fails (a call that cannot be captured), the context makes the calls directly from
 * then on, the same arithmetic. */
#include "linalg/chol_inverse.h"
#include "models/backend/cuda/backend_cuda.cuh"

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

static bool solves_trsm(gmm_factorisation mode)
{
    return mode == GMM_FACTOR_BATCHED_TRSM || mode == GMM_FACTOR_LOOP_TRSM ||
           mode == GMM_FACTOR_LANES_TRSM;
}

static int lanes_used(const gmm_backend_ctx *c);
static gmm_status fork_lanes(gmm_backend_ctx *c, int *forked);
static cudaError_t join_lanes(gmm_backend_ctx *c, int forked);

/* Queues the factorisation by `mode` (any but the graph's) from this thread: the copy, the
 * identity and the triangle's clean-up on `origin`, the per-component work on the lanes. With
 * origin NULL (the legacy stream) the lanes, blocking streams, are ordered with it implicitly;
 * with the graph's capturing origin (LANES_TRSM only) they are forked from it and joined back
 * by events (*forked counts the lanes forked, which a failed capture still joins). One sequence
 * for both, so that the graph replays exactly the direct calls. */
static gmm_status queue_factorisation(gmm_backend_ctx *c, gmm_factorisation mode,
                                      cudaStream_t origin, int *forked)
{
    gmm_status status = GMM_OK;
    const int d = c->dim, nm = c->n_mats;
    const int64_t dd = (int64_t)d * d;
    const bool trsm = solves_trsm(mode);
    const bool on_lanes = mode == GMM_FACTOR_LANES_TRSM || mode == GMM_FACTOR_LANES_TRTRI;
    cudaError_t e;

    if (trsm) {
        /* factor a copy in d_acc, solve R U = I into d_prec */
        GMM_CUDA_CHECK(cudaMemcpyAsync(c->d_acc, c->d_cov, sizeof(double) * dd * nm,
                                       cudaMemcpyDeviceToDevice, origin));
        if (!on_lanes &&
            (status = gmm_gpu_dpotrf_upper_many(c->gpu, d, c->d_ptrs, c->h_ptrs, d, nm,
                                                mode == GMM_FACTOR_BATCHED_TRSM, c->d_info)) !=
                GMM_OK)
            goto fail;
        identity_kernel<<<grid_for(dd * nm, 256), 256, 0, origin>>>(c->d_prec, nm, d);
        GMM_LAUNCH_CHECK("identity_kernel"); /* sync debugging never captures a graph */
    } else {
        /* factor and invert in place in d_prec */
        GMM_CUDA_CHECK(cudaMemcpyAsync(c->d_prec, c->d_cov, sizeof(double) * dd * nm,
                                       cudaMemcpyDeviceToDevice, origin));
        if (mode == GMM_FACTOR_BATCHED_TRTRI &&
            (status = gmm_gpu_dpotrf_upper_many(c->gpu, d, c->d_prec_ptrs, c->h_prec_ptrs, d, nm,
                                                true, c->d_info)) != GMM_OK)
            goto fail;
    }
    if (origin && (status = fork_lanes(c, forked)) != GMM_OK) goto fail;
    for (int m = 0; m < nm; m++) {
        gmm_gpu *lane = gmm_gpu_lane(c->gpu, m % c->n_lanes);
        if (!lane) {
            status = GMM_ERR_CUDA;
            goto fail;
        }
        double *const *factor = trsm ? c->h_ptrs + m : c->h_prec_ptrs + m;
        if (on_lanes && (status = gmm_gpu_dpotrf_upper_many(lane, d, NULL, factor, d, 1, false,
                                                            c->d_info + m)) != GMM_OK)
            goto fail;
        if (trsm)
            status = gmm_gpu_upper_inverse(lane, d, *factor, d, c->d_prec + m * dd, d);
        else
            status = gmm_gpu_upper_invert(lane, d, *factor, d, c->d_info + nm + m);
        if (status != GMM_OK) goto fail;
    }
    if (origin && (e = join_lanes(c, *forked)) != cudaSuccess) {
        status = gmm_error(GMM_ERR_CUDA, "joining the lanes in the factorisation's capture: %s",
                           cudaGetErrorString(e));
        goto fail;
    }
    triu_kernel<<<grid_for(dd * nm, 256), 256, 0, origin>>>(c->d_prec, nm, d);
    GMM_LAUNCH_CHECK("triu_kernel");
fail:
    return status;
}

/* ---- the graph (GMM_FACTOR_BLOCKED, GMM_FACTOR_GRAPH_TRSM) --------------------------------- */

/* The lanes the factorisation uses: component m runs on lane m % n_lanes (LANES_TRSM); the
 * blocked one runs on lane 0 alone. */
static int lanes_used(const gmm_backend_ctx *c)
{
    if (c->factorisation == GMM_FACTOR_BLOCKED) return 1;
    return c->n_mats < c->n_lanes ? c->n_mats : c->n_lanes;
}

/* The mode the graph records for c->factorisation (BLOCKED or GRAPH_TRSM). */
static gmm_factorisation graph_mode(const gmm_backend_ctx *c)
{
    return c->factorisation == GMM_FACTOR_BLOCKED ? GMM_FACTOR_BLOCKED : GMM_FACTOR_LANES_TRSM;
}

/* Whether the captured graph still holds the context's buffers and the lanes' workspaces
 * (gmm_gpu_workspace reallocates a lane's when a larger one is asked for). */
static bool graph_is_current(const gmm_backend_ctx *c)
{
    const cuda_factor_graph *g = &c->factor_graph;
    if (!g->exec || g->cov != c->d_cov || g->acc != c->d_acc || g->prec != c->d_prec ||
        g->info != c->d_info || g->dim != c->dim || g->n_mats != c->n_mats ||
        g->n_lanes != c->n_lanes || g->mode != graph_mode(c))
        return false;
    for (int l = 0; l < lanes_used(c); l++)
        if (gmm_gpu_workspace_current(gmm_gpu_lane(c->gpu, l)) != g->lane_workspace[l])
            return false;
    return true;
}

void cuda_factor_graph_drop(gmm_backend_ctx *c)
{
    cuda_factor_graph *g = &c->factor_graph;
    if (g->exec) cudaGraphExecDestroy(g->exec); /* teardown: nothing to report */
    if (g->graph) cudaGraphDestroy(g->graph);
    g->exec = NULL;
    g->graph = NULL;
}

void cuda_factor_graph_free(gmm_backend_ctx *c)
{
    cuda_factor_graph *g = &c->factor_graph;
    cuda_factor_graph_drop(c);
    if (g->fork) cudaEventDestroy(g->fork);
    if (g->join) cudaEventDestroy(g->join);
    if (g->origin) cudaStreamDestroy(g->origin);
    g->fork = g->join = NULL;
    g->origin = NULL;
}

/* Outside any capture: the origin stream and the events, every used lane (LANES_TRSM: with its
 * cuSOLVER handle and a potrf workspace large enough), and the pointers the graph will bake in. */
static gmm_status prepare_capture(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    cuda_factor_graph *g = &c->factor_graph;
    /* a blocking stream (cudaStreamCreate), as the lanes' streams: see graph_factorise */
    if (!g->origin) GMM_CUDA_CHECK(cudaStreamCreate(&g->origin));
    if (!g->fork) GMM_CUDA_CHECK(cudaEventCreateWithFlags(&g->fork, cudaEventDisableTiming));
    if (!g->join) GMM_CUDA_CHECK(cudaEventCreateWithFlags(&g->join, cudaEventDisableTiming));
    if (lanes_used(c) > CUDA_FACTOR_GRAPH_LANES)
        return gmm_error(GMM_ERR_ARG, "factorisation graph: %d lanes (at most %d)",
                         lanes_used(c), CUDA_FACTOR_GRAPH_LANES);
    for (int m = 0; m < c->n_mats && graph_mode(c) == GMM_FACTOR_LANES_TRSM; m++) {
        gmm_gpu *lane = gmm_gpu_lane(c->gpu, m % c->n_lanes);
        void *ws = NULL;
        if (!lane) return GMM_ERR_CUDA;
        if ((status = gmm_gpu_dpotrf_upper_prepare(lane, c->dim, c->h_ptrs[m], c->dim, &ws)) !=
            GMM_OK)
            goto fail;
    }
    for (int l = 0; l < lanes_used(c); l++) {
        gmm_gpu *lane = gmm_gpu_lane(c->gpu, l);
        if (!lane) return GMM_ERR_CUDA;
        g->lane_workspace[l] = gmm_gpu_workspace_current(lane);
    }
    g->mode = graph_mode(c);
    g->cov = c->d_cov;
    g->acc = c->d_acc;
    g->prec = c->d_prec;
    g->info = c->d_info;
    g->dim = c->dim;
    g->n_mats = c->n_mats;
    g->n_lanes = c->n_lanes;
fail:
    return status;
}

/* Makes every used lane wait for the work queued so far on the graph's origin (inside the
 * capture: the lanes join it). *forked counts the lanes that did. */
static gmm_status fork_lanes(gmm_backend_ctx *c, int *forked)
{
    gmm_status status = GMM_OK;
    cuda_factor_graph *g = &c->factor_graph;
    GMM_CUDA_CHECK(cudaEventRecord(g->fork, g->origin));
    for (int l = 0; l < lanes_used(c); l++) {
        GMM_CUDA_CHECK(cudaStreamWaitEvent((cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(c->gpu, l)),
                                           g->fork, 0));
        *forked = l + 1;
    }
fail:
    return status;
}

/* Joins the first `forked` lanes back into the origin stream (one event, recorded and waited
 * for lane by lane: a wait takes the record made before it). Joining is what lets the capture
 * end, so it is attempted even after a failure; the first error is returned. */
static cudaError_t join_lanes(gmm_backend_ctx *c, int forked)
{
    cuda_factor_graph *g = &c->factor_graph;
    cudaError_t first = cudaSuccess, e;
    for (int l = 0; l < forked; l++) {
        cudaStream_t s = (cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(c->gpu, l));
        if ((e = cudaEventRecord(g->join, s)) == cudaSuccess)
            e = cudaStreamWaitEvent(g->origin, g->join, 0);
        if (e != cudaSuccess && first == cudaSuccess) first = e;
    }
    return first;
}

/* Whether the origin or a used lane is still capturing (a capture left open would turn every
 * later call on it into an error). */
static bool capture_left_open(gmm_backend_ctx *c)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(c->factor_graph.origin, &st) != cudaSuccess ||
        st != cudaStreamCaptureStatusNone)
        return true;
    for (int l = 0; l < lanes_used(c); l++) {
        st = cudaStreamCaptureStatusNone;
        cudaStream_t s = (cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(c->gpu, l));
        if (cudaStreamIsCapturing(s, &st) != cudaSuccess || st != cudaStreamCaptureStatusNone)
            return true;
    }
    return false;
}

/* Records the graph and instantiates it. On failure no graph is kept, the status says why and
 * *left_open says whether a stream could not be taken out of capture (nothing else can run on
 * it then). Thread-local capture mode: ranks on other threads may use CUDA meanwhile (global
 * mode would fail their "unsafe" calls, or ours on theirs). */
static gmm_status capture(gmm_backend_ctx *c, bool *left_open)
{
    gmm_status status = GMM_OK;
    cuda_factor_graph *g = &c->factor_graph;
    cudaGraph_t graph = NULL;
    cudaError_t e;
    int forked = 0;
    *left_open = false;
    cuda_factor_graph_drop(c);
    if ((status = prepare_capture(c)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaStreamBeginCapture(g->origin, cudaStreamCaptureModeThreadLocal));
    if (g->mode == GMM_FACTOR_BLOCKED) {
        /* on lane 0, forked from the origin and joined back */
        if ((status = fork_lanes(c, &forked)) == GMM_OK)
            status = chol_inverse_cuda(c->d_cov, c->dim, c->n_mats, c->d_prec, c->d_acc,
                                       c->d_info, gmm_gpu_lane(c->gpu, 0));
        cudaError_t joined = join_lanes(c, forked);
        forked = 0;
        if (status == GMM_OK && joined != cudaSuccess)
            status = gmm_error(GMM_ERR_CUDA, "joining lane 0 in the factorisation's capture: %s",
                               cudaGetErrorString(joined));
    } else {
        status = queue_factorisation(c, GMM_FACTOR_LANES_TRSM, g->origin, &forked);
    }
    if (status != GMM_OK) join_lanes(c, forked); /* the capture ends only with every lane back */
    e = cudaStreamEndCapture(g->origin, &graph); /* ends it even when invalidated */
    if (status == GMM_OK && e != cudaSuccess)
        status = gmm_error(GMM_ERR_CUDA, "cudaStreamEndCapture of the factorisation: %s",
                           cudaGetErrorString(e));
    if (status != GMM_OK) goto fail;
    /* auto-free: cuBLAS (CUDA >= 12.2) allocates its workspace stream-ordered inside a capture,
     * and an allocation the graph did not free would fail the next launch */
    GMM_CUDA_CHECK(cudaGraphInstantiateWithFlags(&g->exec, graph,
                                                 cudaGraphInstantiateFlagAutoFreeOnLaunch));
    g->graph = graph;
    graph = NULL;
fail:
    if (graph) cudaGraphDestroy(graph);
    if (status != GMM_OK) {
        if (g->exec) cudaGraphExecDestroy(g->exec);
        g->exec = NULL;
        cudaGetLastError(); /* the capture's non-sticky errors must not fail a later check */
        if (g->origin && capture_left_open(c)) {
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

/* The graph's launch: *launched false means the caller makes the calls directly (under sync
 * debugging, whose per-kernel synchronisation a graph cannot have, and for the rest of the
 * context's life once a capture failed).
 *
 * Ordering with the rest of the M-step without events: the graph is launched into the origin,
 * a blocking stream, so as a whole it starts after all earlier work on the legacy stream (the
 * cov_finish_kernel that wrote d_cov, which itself waited for the lanes' covariance products),
 * and the later legacy-stream cudaMemcpy of the infos waits for all of it, the lanes' nodes
 * included (the graph completes as one unit in the origin). That copy blocks the host, so no
 * later work on the lanes (whose handles and workspaces the graph's nodes use outside the lane
 * streams) can overlap the graph either. */
static gmm_status graph_factorise(gmm_backend_ctx *c, bool *launched)
{
    gmm_status status = GMM_OK;
    cuda_factor_graph *g = &c->factor_graph;
    bool left_open = false;
    cudaError_t e;
    *launched = false;
    if (g->failed || gmm_cuda_sync_debug()) return GMM_OK;
    if (!graph_is_current(c) && (status = capture(c, &left_open)) != GMM_OK) {
        if (left_open) return status; /* the streams are unusable: fail the fit */
        goto give_up;
    }
    if ((e = cudaGraphLaunch(g->exec, g->origin)) != cudaSuccess) {
        status = gmm_error(GMM_ERR_CUDA, "cudaGraphLaunch of the factorisation: %s",
                           cudaGetErrorString(e));
        cudaGetLastError();
        goto give_up;
    }
    *launched = true;
    return GMM_OK;
give_up:
    /* the direct calls from now on; a device fault would fail those too, with its own detail */
    snprintf(g->failure, sizeof g->failure, "%s", gmm_error_message(status));
    gmm_error_clear();
    cuda_factor_graph_drop(c);
    g->failed = true;
    return GMM_OK;
}

/* ---- the infos ----------------------------------------------------------------------------- */

/* The Cholesky's (and trtri's) infos, read back once after everything was launched. */
static gmm_status check_infos(gmm_backend_ctx *c, bool trsm, double reg_covar)
{
    gmm_status status = GMM_OK;
    const int nm = c->n_mats;
    int bad = -1;
    /* the legacy stream waits for the lanes (and the graph's origin): the infos are final */
    GMM_CUDA_CHECK(cudaMemcpy(c->h_info, c->d_info, sizeof(int) * 2 * nm, cudaMemcpyDeviceToHost));
    for (int m = 0; m < nm && bad < 0; m++)
        if (c->h_info[m] != 0) bad = m;
    if (bad >= 0) {
        if (c->type == GMM_COV_TIED)
            status = gmm_error(GMM_ERR_CHOLESKY,
                               "tied covariance is not positive definite (leading minor %d): "
                               "increase --reg-covar (now %g)",
                               c->h_info[bad], reg_covar);
        else
            status = gmm_error(GMM_ERR_CHOLESKY,
                               "component %d: covariance is not positive definite (leading "
                               "minor %d); the component has ill-defined empirical covariance "
                               "(collapsed or singleton samples): increase --reg-covar (now "
                               "%g), use fewer components, or scale the data",
                               bad, c->h_info[bad], reg_covar);
        goto fail;
    }
    for (int m = 0; m < nm; m++)
        if (!trsm && c->h_info[nm + m] != 0) {
            status = gmm_error(GMM_ERR_CHOLESKY,
                               "component %d: the Cholesky factor has a zero on its diagonal "
                               "(position %d): increase --reg-covar (now %g)",
                               m, c->h_info[nm + m], reg_covar);
            goto fail;
        }
fail:
    return status;
}

/* The infos are read back once, after everything was launched: a covariance that is not
 * positive definite fails the fit anyway, so nothing waits on the host between the Cholesky and
 * the inverse. */
gmm_status cuda_factorise(gmm_backend_ctx *c, double reg_covar)
{
    gmm_status status = GMM_OK;
    gmm_factorisation mode = c->factorisation;
    bool launched = false;
    if (mode == GMM_FACTOR_BLOCKED) {
        /* every component at once: the graph, or directly on the backend's stream (the legacy
         * one, after cov_finish) */
        if ((status = graph_factorise(c, &launched)) != GMM_OK) goto fail;
        if (!launched && (status = chol_inverse_cuda(c->d_cov, c->dim, c->n_mats, c->d_prec,
                                                     c->d_acc, c->d_info, c->gpu)) != GMM_OK)
            goto fail;
        status = check_infos(c, true, reg_covar);
        goto fail;
    }
    if (mode == GMM_FACTOR_GRAPH_TRSM) {
        if ((status = graph_factorise(c, &launched)) != GMM_OK) goto fail;
        mode = GMM_FACTOR_LANES_TRSM; /* the graph's calls, or run directly */
    }
    if (!launched && (status = queue_factorisation(c, mode, NULL, NULL)) != GMM_OK) goto fail;
    status = check_infos(c, solves_trsm(mode), reg_covar);
fail:
    return status;
}
