/* The CUDA backend's factorisation (the end of cuda_mstep.cu's M-step): from the n_mats
 * covariances in d_cov, the precision factors U_m = R_m^{-1} (cov_m = R_m^T R_m) into d_prec, all
 * at once by linalg/chol_inverse.h (recursive halving over strided-batched DGEMMs and one kernel
 * for the diagonal blocks; cuBLAS only, d_acc its scratch).
 *
 * Its calls are recorded once (on lane 0, forked from a stream of the context's own) into a CUDA
 * graph (stream capture) and replayed with one cudaGraphLaunch per M-step: the driver launches
 * the ~90 small kernels from the graph instead of this thread one by one. If the capture fails
 * (a call that cannot be captured), or under sync debugging, the context makes the same calls
 * directly from then on, the same arithmetic. The factorisations that measured slower (cuSOLVER
 * potrf, batched, one by one or per lane, then a TRSM against the identity or trtri, and the
 * lanes' calls in a graph) are bench/experiments/factorisation.cu. */
#include "linalg/chol_inverse.h"
#include "models/backend/cuda/backend_cuda.cuh"

/* ---- the graph ----------------------------------------------------------------------------- */

/* Whether the captured graph still holds the context's buffers and lane 0's workspace
 * (gmm_gpu_workspace reallocates a lane's when a larger one is asked for). */
static bool graph_is_current(const gmm_backend_ctx *c)
{
    const cuda_factor_graph *g = &c->factor_graph;
    return g->exec && g->cov == c->d_cov && g->acc == c->d_acc && g->prec == c->d_prec &&
           g->info == c->d_info && g->dim == c->dim && g->n_mats == c->n_mats &&
           gmm_gpu_workspace_current(gmm_gpu_lane(c->gpu, 0)) == g->lane_workspace;
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

/* Outside any capture: the origin stream and the events, lane 0, and the pointers the graph
 * will bake in. */
static gmm_status prepare_capture(gmm_backend_ctx *c)
{
    gmm_status status = GMM_OK;
    cuda_factor_graph *g = &c->factor_graph;
    gmm_gpu *lane = gmm_gpu_lane(c->gpu, 0);
    /* a blocking stream (cudaStreamCreate), as the lanes' streams: see graph_factorise */
    if (!g->origin) GMM_CUDA_CHECK(cudaStreamCreate(&g->origin));
    if (!g->fork) GMM_CUDA_CHECK(cudaEventCreateWithFlags(&g->fork, cudaEventDisableTiming));
    if (!g->join) GMM_CUDA_CHECK(cudaEventCreateWithFlags(&g->join, cudaEventDisableTiming));
    if (!lane) return GMM_ERR_CUDA;
    g->lane_workspace = gmm_gpu_workspace_current(lane);
    g->cov = c->d_cov;
    g->acc = c->d_acc;
    g->prec = c->d_prec;
    g->info = c->d_info;
    g->dim = c->dim;
    g->n_mats = c->n_mats;
fail:
    return status;
}

/* Makes lane 0 wait for the work queued so far on the graph's origin (inside the capture: the
 * lane joins it). *forked says whether it did. */
static gmm_status fork_lane(gmm_backend_ctx *c, bool *forked)
{
    gmm_status status = GMM_OK;
    cuda_factor_graph *g = &c->factor_graph;
    GMM_CUDA_CHECK(cudaEventRecord(g->fork, g->origin));
    GMM_CUDA_CHECK(cudaStreamWaitEvent((cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(c->gpu, 0)),
                                       g->fork, 0));
    *forked = true;
fail:
    return status;
}

/* Joins lane 0 back into the origin stream when it was forked. Joining is what lets the capture
 * end, so it is attempted even after a failure. */
static cudaError_t join_lane(gmm_backend_ctx *c, bool forked)
{
    cuda_factor_graph *g = &c->factor_graph;
    cudaError_t e = cudaSuccess;
    if (!forked) return e;
    cudaStream_t s = (cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(c->gpu, 0));
    if ((e = cudaEventRecord(g->join, s)) == cudaSuccess)
        e = cudaStreamWaitEvent(g->origin, g->join, 0);
    return e;
}

/* Whether the origin or lane 0 is still capturing (a capture left open would turn every later
 * call on it into an error). */
static bool capture_left_open(gmm_backend_ctx *c)
{
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(c->factor_graph.origin, &st) != cudaSuccess ||
        st != cudaStreamCaptureStatusNone)
        return true;
    st = cudaStreamCaptureStatusNone;
    cudaStream_t s = (cudaStream_t)gmm_gpu_stream(gmm_gpu_lane(c->gpu, 0));
    return cudaStreamIsCapturing(s, &st) != cudaSuccess || st != cudaStreamCaptureStatusNone;
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
    bool forked = false;
    *left_open = false;
    cuda_factor_graph_drop(c);
    if ((status = prepare_capture(c)) != GMM_OK) goto fail;
    GMM_CUDA_CHECK(cudaStreamBeginCapture(g->origin, cudaStreamCaptureModeThreadLocal));
    /* on lane 0, forked from the origin and joined back (the capture ends only with it back) */
    if ((status = fork_lane(c, &forked)) == GMM_OK)
        status = chol_inverse_cuda(c->d_cov, c->dim, c->n_mats, c->d_prec, c->d_acc, c->d_info,
                                   gmm_gpu_lane(c->gpu, 0));
    {
        cudaError_t joined = join_lane(c, forked);
        if (status == GMM_OK && joined != cudaSuccess)
            status = gmm_error(GMM_ERR_CUDA, "joining lane 0 in the factorisation's capture: %s",
                               cudaGetErrorString(joined));
    }
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

/* The failing orders, read back once after everything was launched (a covariance that is not
 * positive definite fails the fit anyway, so nothing waits on the host before). */
static gmm_status check_infos(gmm_backend_ctx *c, double reg_covar)
{
    gmm_status status = GMM_OK;
    const int nm = c->n_mats;
    int bad = -1;
    /* the legacy stream waits for the lanes (and the graph's origin): the infos are final */
    GMM_CUDA_CHECK(cudaMemcpy(c->h_info, c->d_info, sizeof(int) * nm, cudaMemcpyDeviceToHost));
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
    }
fail:
    return status;
}

gmm_status cuda_factorise(gmm_backend_ctx *c, double reg_covar)
{
    gmm_status status = GMM_OK;
    bool launched = false;
    /* the graph, or directly on the backend's stream (the legacy one, after cov_finish) */
    if ((status = graph_factorise(c, &launched)) != GMM_OK) goto fail;
    if (!launched && (status = chol_inverse_cuda(c->d_cov, c->dim, c->n_mats, c->d_prec, c->d_acc,
                                                 c->d_info, c->gpu)) != GMM_OK)
        goto fail;
    status = check_infos(c, reg_covar);
fail:
    return status;
}
