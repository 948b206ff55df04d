/* libFuzzer harness for gmm-augment's option parser (gmm_augment_parse_args) and its check of -n
 * against an image size: the input split at NUL bytes is the command line. When the parser says
 * "go on", every option must be in its range: the deformation parameters pass
 * gmm_augment_params_check, -n is a count the IDX reader takes, the directories are set; and
 * when -n passes the check for 28 x 28 images, the set it makes fits the reader's byte limit. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "app/gmm_augment_args.h"
#include "data/idx.h"
#include "tests/fuzz/fuzz_args.h"
#include "tests/fuzz/fuzz_util.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_augment_args: invariant failed: %s\n", #cond);              \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[FUZZ_MAX_ARGS + 2], *copy;
    int argc = fuzz_split_args(data, size, "gmm-augment", argv, &copy);
    gmm_augment_args a;
    int rc = gmm_augment_parse_args(argc, argv, &a);
    if (rc < 0) {
        CHECK(a.in_dir && a.out_dir && *a.out_dir);
        CHECK(a.count >= 1 && a.count <= IDX_MAX_ITEMS);
        CHECK(a.seed >= 0);
        CHECK(a.batch >= 1 && a.batch <= (1 << 24));
        CHECK(gmm_augment_params_check(&a.params) == GMM_OK);
        /* the image sizes the reader takes: MNIST's, one value, the largest the programs take */
        static const int sizes[][2] = {{28, 28}, {1, 1}, {4096, 4096}, {14, 56}};
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            const uint64_t bytes = (uint64_t)a.count * (uint64_t)sizes[i][0] * (uint64_t)sizes[i][1];
            CHECK((gmm_augment_check_count(&a, sizes[i][0], sizes[i][1]) == 0) ==
                  (bytes <= IDX_MAX_DATA_BYTES));
        }
    } else {
        CHECK(rc == 0 || rc == 1);
    }
    free(copy);
    return 0;
}
