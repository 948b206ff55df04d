/* Each program's output paths, checked before it reads data or fits (data/output_check.h): the
 * options that write, the files written inside its output directories and the inputs that
 * must not be overwritten. Each returns 0, or the exit code after printing the message: 1 for
 * an output that names an input or another output (bad usage), 2 for a directory that is
 * missing or not writable, or an output that is a directory. */
#ifndef GMM_OUTPUT_PATHS_H
#define GMM_OUTPUT_PATHS_H

#include "app/gmm_predict_args.h"
#include "app/gmm_train_args.h"

int train_check_outputs(const gmm_train_args *args);
/* data_path: the data gmm-predict will read (NULL: not known yet, the model's is checked then) */
int predict_check_outputs(const gmm_predict_args *args, const char *data_path);
/* gmm-augment IN_DIR OUT_DIR [--png FILE] (png NULL: OUT_DIR/augment.png) */
int augment_check_outputs(const char *in_dir, const char *out_dir, const char *png);

#endif
