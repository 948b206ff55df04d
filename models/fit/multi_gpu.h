/* A fit over the GPUs of one process: the rows split over n_gpus ranks (gmm_comm_row_range), one
 * thread per GPU running gmm_fit_view on its own device, resources object and row view, the
 * ranks joined by a communicator (models/dist/comm.h) whose host sums run in rank order through a
 * shared buffer (the same bits on every rank) and whose device sums are NCCL all-reduces
 * (models/dist/comm_nccl.h). Every rank computes the same parameters; rank 0's model is returned.
 *
 * A rank that fails breaks the ranks' barrier: every waiting rank wakes, every rank's next
 * collective fails, and the call returns the first failure's status with a detail naming the
 * rank (GPU) and its message; it never waits for a dead rank. Before every NCCL all-reduce the
 * ranks meet at that barrier, so no rank enters a collective that another will never join. */
#ifndef GMM_MULTI_GPU_H
#define GMM_MULTI_GPU_H

#include "models/data_view.h"
#include "models/core/em.h"
#include "models/core/score.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Fits `data` (the whole data set: first_row 0, n_rows = n_total) on GPUs 0 .. n_gpus - 1.
 * options as for gmm_fit_view, with device GPU implied; options->comm and options->gpu must be
 * NULL (the call makes its own per GPU). The callbacks (on_progress, on_notice, should_stop,
 * on_checkpoint) are called from rank 0's thread only. scores (may be NULL) covers every row, in
 * order. n_gpus larger than the GPUs present is GMM_ERR_ARG; n_gpus > 1 without NCCL in the
 * build is GMM_ERR_UNSUPPORTED. n_gpus = 1 is gmm_fit_view on GPU 0 in the calling thread. */
gmm_status gmm_fit_gpus(const gmm_data_view *data, int n_gpus, const gmm_options *options,
                        gmm_model *model, gmm_fit_scores *scores);

/* For tests: gmm_fit_gpus where rank fail_rank fails on purpose (fail_at 0: before its fit
 * starts, as a failed context would; 1: at its checkpoint after EM iteration 2, mid-fit), and
 * each rank's own status is written to rank_status (n_gpus entries; may be NULL). */
typedef struct {
    int fail_rank;             /* -1: none */
    int fail_at;               /* 0: before the fit, 1: after EM iteration 2 */
    gmm_status *rank_status;
} gmm_multi_gpu_test;
gmm_status gmm_fit_gpus_test(const gmm_data_view *data, int n_gpus, const gmm_options *options,
                             gmm_model *model, gmm_fit_scores *scores,
                             const gmm_multi_gpu_test *test);

#ifdef __cplusplus
}
#endif
#endif
