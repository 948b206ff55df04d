/* The programs' output paths checked before the work (see output_paths.h). */
#include "app/output_paths.h"

#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "data/output_check.h"

#define N_INPUTS (DATASET_INPUT_NAMES + 1)

static const char *const images_names[] = {"means_entropy.png", "samples.png", "typical.png", NULL};
static const char *const diag_names[] = {"mahalanobis.txt", "separation.txt", "separation.png",
                                         "loglik_hist.png", "outliers.png",
                                         "loglik_iterations.png", NULL};
static const char *const augment_names[] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                            "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte",
                                            "augment.png", NULL};

/* The outputs against the files of a data argument and one more input file. */
static int check(const file_output *outs, int n_outs, const char *data, const char *file)
{
    static char inputs[N_INPUTS][4096];
    file_dataset_inputs(data, inputs);
    snprintf(inputs[N_INPUTS - 1], sizeof inputs[0], "%s", file ? file : "");
    const char *ptrs[N_INPUTS];
    for (int i = 0; i < N_INPUTS; i++) ptrs[i] = inputs[i];
    gmm_status st = file_outputs_check(outs, n_outs, ptrs, N_INPUTS);
    if (st == GMM_OK) return 0;
    return st == GMM_ERR_ARG ? cli_error("%s", gmm_error_message(st)) : cli_fail(st);
}

int train_check_outputs(const gmm_train_args *a)
{
    const file_output outs[] = {
        {"-o", a->output, 0, NULL},
        {"--png", a->png, 0, NULL},
        {"--json", a->json_path, 0, NULL},
        {"--map", a->map_path, 0, NULL},
        {"--bic-png", a->k_is_range ? a->bic_png : NULL, 0, NULL},
        {"--images", a->images_dir, 1, images_names},
        {"--diagnostics", a->diag_dir, 1, diag_names},
    };
    /* --init-from is read whole before the fit, so -o may replace it: the continued model
     * takes its place, as the interrupt message suggests */
    return check(outs, (int)(sizeof outs / sizeof outs[0]), a->data_path, NULL);
}

int predict_check_outputs(const gmm_predict_args *a, const char *data_path)
{
    const file_output outs[] = {
        {"--out", a->out_csv, 0, NULL},
        {"--json", a->json_path, 0, NULL},
        {"--map", a->map_path, 0, NULL},
        {"--images", a->images_dir, 1, images_names},
        {"--diagnostics", a->diag_dir, 1, diag_names},
    };
    return check(outs, (int)(sizeof outs / sizeof outs[0]), data_path, a->model_path);
}

int augment_check_outputs(const char *in_dir, const char *out_dir, const char *png)
{
    /* augment.png, the last name, is written in OUT_DIR only without --png */
    const char *names[sizeof augment_names / sizeof augment_names[0]];
    memcpy(names, augment_names, sizeof names);
    if (png) names[sizeof names / sizeof names[0] - 2] = NULL;
    const file_output outs[] = {{"OUT_DIR", out_dir, 1, names}, {"--png", png, 0, NULL}};
    return check(outs, 2, in_dir, NULL);
}
