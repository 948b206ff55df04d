/* libFuzzer harness for gmm-predict's option parser (gmm_predict_parse_args): the input split at
 * NUL bytes is the command line. When it says "go on", the model path is set, --proba came with
 * --out, the limit is >= 0, the blur is 0 or in the model file's range and the device known. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/gmm_predict_args.h"
#include "models/io/model_io.h"
#include "tests/fuzz/fuzz_args.h"
#include "tests/fuzz/fuzz_util.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_predict_args: invariant failed: %s\n", #cond);              \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[FUZZ_MAX_ARGS + 2], *copy;
    int argc = fuzz_split_args(data, size, "gmm-predict", argv, &copy);
    gmm_predict_args a;
    int rc = gmm_predict_parse_args(argc, argv, &a);
    if (rc < 0) {
        CHECK(a.model_path);
        CHECK(!a.proba || a.out_csv);
        CHECK(a.limit >= 0);
        CHECK(a.blur == 0 || (a.blur >= GMM_BLUR_SIGMA_MIN && a.blur <= GMM_BLUR_SIGMA_MAX));
        CHECK(a.device >= GMM_DEVICE_AUTO && a.device <= GMM_DEVICE_GPU);
        CHECK(!a.diag_dir || *a.diag_dir);
        CHECK(!a.images_dir || *a.images_dir);
    } else {
        CHECK(rc == 0 || rc == 1);
    }
    free(copy);
    return 0;
}
