/* libFuzzer harness for the IDX reader (data/idx.c): the input is written as a file and read as
 * images and as labels. An accepted file must describe itself consistently and round-trip: the
 * project's writer writes it back (byte for byte the input, when the input was raw) and the
 * reader reads the same items again. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/idx.h"
#include "tests/fuzz/fuzz_util.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_idx: invariant failed: %s\n", #cond);                       \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

static void round_trip(const idx_array *a, int images, const uint8_t *data, size_t size)
{
    char out[512];
    fuzz_path(out, sizeof out, "written.idx");
    CHECK(a->n_items >= 1 && a->rows >= 1 && a->cols >= 1 && a->data);
    CHECK((long long)a->rows * a->cols <= INT_MAX);
    size_t n = (size_t)a->n_items * a->rows * a->cols;
    gmm_status st = images ? idx_write_images(out, a->data, a->n_items, a->rows, a->cols, 0)
                           : idx_write_labels(out, a->data, a->n_items, 0);
    CHECK(st == GMM_OK);
    if (size >= 2 && !(data[0] == 0x1f && data[1] == 0x8b)) { /* raw: exactly the input */
        FILE *f = fopen(out, "rb");
        CHECK(f);
        uint8_t *back = malloc(size + 1);
        size_t got = fread(back, 1, size + 1, f);
        fclose(f);
        CHECK(got == size && memcmp(back, data, size) == 0);
        free(back);
    }
    idx_array b = {0};
    st = images ? idx_read_images(out, &b) : idx_read_labels(out, &b);
    CHECK(st == GMM_OK);
    CHECK(b.n_items == a->n_items && b.rows == a->rows && b.cols == a->cols);
    CHECK(memcmp(a->data, b.data, n) == 0);
    idx_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[512];
    fuzz_path(in, sizeof in, "input.idx");
    fuzz_write(in, data, size);
    for (int images = 0; images < 2; images++) {
        idx_array a = {0};
        gmm_status st = images ? idx_read_images(in, &a) : idx_read_labels(in, &a);
        if (st == GMM_OK) round_trip(&a, images, data, size);
        else CHECK(a.data == NULL);
        idx_free(&a);
    }
    return 0;
}
