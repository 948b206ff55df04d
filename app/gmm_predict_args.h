/* gmm-predict's command line, parsed (gmm_predict_parse_args in app/gmm_predict.c), so that the
 * option parser can be driven by a fuzz harness (tests/fuzz/) as well as by main. */
#ifndef GMM_PREDICT_ARGS_H
#define GMM_PREDICT_ARGS_H

#include "models/core/em.h"
#include "models/core/score.h"

typedef struct {
    const char *model_path;
    const char *data_path; /* NULL: the test split beside the model's training data */
    const char *out_csv, *diag_dir, *images_dir;
    const char *json_path;  /* --json FILE, or NULL */
    const char *map_path;   /* --map FILE (NULL: map.png for a model with a map; "" none) */
    int proba;
    long long limit;
    double blur;
    gmm_device device;
} gmm_predict_args;

/* Parses argv into args. Returns -1 when the program should go on, otherwise the exit code
 * (0 after --help, 1 after a usage error, with the message printed). */
int gmm_predict_parse_args(int argc, char **argv, gmm_predict_args *args);

#endif
