/* The programs' output paths checked before any data is read or any fit started, so that a
 * mistyped directory or an output naming an input costs nothing: every directory an output goes
 * to exists (or, for an output directory, can be made in an existing one) and is writable; no
 * output is a directory; no output names an input file (the same file by device and inode,
 * through links too); no two outputs name the same file. Outputs that are existing devices or
 * FIFOs (/dev/null) are written directly (data/file_write.h) and pass. */
#ifndef GMM_OUTPUT_CHECK_H
#define GMM_OUTPUT_CHECK_H

#include "kernels/gmm_status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *option; /* as the user typed it: "-o", "--png", "OUT_DIR" (for messages) */
    const char *path;   /* NULL or "": not written this run */
    int is_dir;         /* a directory the program makes (one level) and writes files into */
    const char *const *names; /* is_dir: the files written in it, NULL-terminated, or NULL */
} file_output;

/* Checks out[0..n_out) against each other and against the input files inputs[0..n_in) (NULL or
 * "" entries and inputs that do not exist are skipped). GMM_OK, or GMM_ERR_ARG for an output
 * that names an input or another output, GMM_ERR_IO for a missing or unwritable directory or
 * an output that is a directory; the message names the option and the path. */
gmm_status file_outputs_check(const file_output *out, int n_out, const char *const *inputs,
                              int n_in);

/* The files a data argument may be read from (data/dataset.h): a directory's train and t10k
 * image and label files in every spelling dataset_load accepts, raw and .gz; a file and the
 * label files beside it. Into files (DATASET_INPUT_NAMES names of PATH_MAX bytes, those not
 * used ""), for file_outputs_check's inputs. */
#define DATASET_INPUT_NAMES 16
void file_dataset_inputs(const char *data_path, char (*files)[4096]);

#ifdef __cplusplus
}
#endif
#endif
