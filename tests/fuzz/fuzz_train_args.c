/* libFuzzer harness for gmm-train's option parser (gmm_train_parse_args): the input split at
 * NUL bytes is the command line. When it says "go on", every option must be in its range:
 * gmm_options_validate accepts the options, the blur is 0 or in the model file's range, the paths
 * are set. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/gmm_train_args.h"
#include "models/io/model_io.h"
#include "tests/fuzz/fuzz_args.h"
#include "tests/fuzz/fuzz_util.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_train_args: invariant failed: %s\n", #cond);                \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[FUZZ_MAX_ARGS + 2], *copy;
    int argc = fuzz_split_args(data, size, "gmm-train", argv, &copy);
    gmm_train_args a;
    int rc = gmm_train_parse_args(argc, argv, &a);
    if (rc < 0) {
        CHECK(a.data_path && a.output && *a.output && a.png);
        CHECK(gmm_options_validate(&a.opt, INT64_MAX, 784) == GMM_OK);
        CHECK(a.opt.n_components >= 1 && a.opt.max_iter >= 1 && a.opt.n_init >= 1);
        CHECK(isfinite(a.opt.tol) && isfinite(a.opt.reg_covar));
        CHECK(a.blur == 0 || (a.blur >= GMM_BLUR_SIGMA_MIN && a.blur <= GMM_BLUR_SIGMA_MAX));
        CHECK(a.limit >= 0);
    } else {
        CHECK(rc == 0 || rc == 1);
    }
    free(copy);
    return 0;
}
