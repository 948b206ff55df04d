/* gmm-train for a data set split into row ranges: the ranks of an mpirun, or the GPUs of --gpus
 * (app/train_scale.c). */
#ifndef GMM_TRAIN_SCALE_H
#define GMM_TRAIN_SCALE_H

#include "app/cli_mpi.h"
#include "app/gmm_train_args.h"

/* Whether the run goes this way: several MPI ranks, --gpus, or images whose float64 copy would
 * take more than half of the machine's memory (and no option that needs that copy). */
int train_scale_wanted(const gmm_train_args *args, const cli_mpi *mpi);
/* The whole run; returns the exit code (a failed rank ends every rank through mpi). */
int train_scale_run(gmm_train_args *args, cli_mpi *mpi, gmm_should_stop_fn should_stop);

#endif
