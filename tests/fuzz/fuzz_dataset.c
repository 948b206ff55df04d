/* libFuzzer harness for dataset discovery (data/dataset.c): the input describes a directory,
 * a list of entries [name byte][length: 2 bytes, little-endian][content]; the name byte picks one
 * of the names discovery looks for (its top bits make the entry a FIFO or a directory instead of
 * a file). The directory is loaded as the train and the test split, and its first entry as a
 * single file. A loaded dataset must be consistent: samples, a shape the programs take, labels
 * when a label file was named, and pixels that scale into [0, 1]. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/dataset.h"
#include "tests/fuzz/fuzz_util.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_dataset: invariant failed: %s\n", #cond);                   \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

static const char *const names[] = {
    "train-images-idx3-ubyte",    "train-images-idx3-ubyte.gz", "train-images.idx3-ubyte",
    "train-images.idx3-ubyte.gz", "train-labels-idx1-ubyte",    "train-labels-idx1-ubyte.gz",
    "train-labels.idx1-ubyte",    "train-labels.idx1-ubyte.gz", "t10k-images-idx3-ubyte",
    "t10k-images-idx3-ubyte.gz",  "t10k-labels-idx1-ubyte",     "t10k-labels-idx1-ubyte.gz",
};
#define N_NAMES (int)(sizeof names / sizeof names[0])

static void check_loaded(dataset *ds)
{
    CHECK(ds->n_samples >= 1 && ds->pixels);
    CHECK(ds->images_path[0]);
    CHECK(!ds->labels_path[0] == !ds->labels);
    int dim = 0;
    if (dataset_image_dim(ds, &dim) != GMM_OK) return;
    CHECK(dim == ds->rows * ds->cols);
    if ((long long)ds->n_samples * dim <= 1 << 16) {
        double *x = NULL;
        CHECK(dataset_to_double(ds, &x) == GMM_OK);
        for (long long i = 0; i < (long long)ds->n_samples * dim; i++)
            CHECK(x[i] >= 0 && x[i] <= 1 && x[i] == ds->pixels[i] / 255.0);
        free(x);
    }
    int n = ds->n_samples;
    dataset_truncate(ds, (n + 1) / 2);
    CHECK(ds->n_samples == (n > 1 ? (n + 1) / 2 : n));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char dir[512], p[1024];
    fuzz_path(dir, sizeof dir, "data");
    mkdir(dir, 0700);
    int made[N_NAMES] = {0}, first = -1;
    size_t pos = 0;
    while (pos + 3 <= size) {
        int kind = data[pos] >> 6, which = (data[pos] & 0x3f) % N_NAMES;
        size_t len = data[pos + 1] | (size_t)data[pos + 2] << 8;
        pos += 3;
        if (len > size - pos) len = size - pos;
        if (!made[which]) {
            snprintf(p, sizeof p, "%s/%s", dir, names[which]);
            if (kind == 2) made[which] = mkfifo(p, 0600) == 0 ? 2 : 0;
            else if (kind == 3) made[which] = mkdir(p, 0700) == 0 ? 3 : 0;
            else {
                fuzz_write(p, data + pos, len);
                made[which] = 1;
            }
            if (first < 0 && made[which]) first = which;
        }
        pos += len;
    }
    for (int split = 0; split < 2; split++) {
        dataset ds;
        if (dataset_load(dir, (dataset_split)split, &ds) == GMM_OK) check_loaded(&ds);
        else CHECK(ds.pixels == NULL && ds.labels == NULL);
        dataset_free(&ds);
    }
    if (first >= 0) {
        snprintf(p, sizeof p, "%s/%s", dir, names[first]);
        dataset ds;
        if (dataset_load(p, DATASET_TRAIN, &ds) == GMM_OK) check_loaded(&ds);
        dataset_free(&ds);
    }
    for (int i = 0; i < N_NAMES; i++) {
        if (!made[i]) continue;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (made[i] == 3) rmdir(p);
        else unlink(p);
    }
    return 0;
}
