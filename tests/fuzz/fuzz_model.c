/* libFuzzer harness for the model loader (models/io/model_io.c, models/io/model_check.c): the input is
 * loaded as it is and again with its CRC recomputed (so that the fuzzer gets past the checksum
 * to the semantic checks). An accepted model must round-trip through gmm_model_save (the same
 * arrays bit for bit; a file of the current version byte for byte, unless it was dense where
 * packed triangles would do, which the save then writes) and score finite numbers: each component's mean, scored on the CPU, gives
 * no NaN, and the heaviest component's mean a finite log-likelihood. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "models/core/score.h"
#include "models/io/model_io.h"
#include "tests/fuzz/fuzz_util.h"

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "fuzz_model: invariant failed: %s\n", #cond);                     \
            abort();                                                                           \
        }                                                                                      \
    } while (0)

static void accepted(gmm_model *m, const uint8_t *data, size_t size)
{
    const int K = m->n_components, d = m->dim;
    char out[512];
    fuzz_path(out, sizeof out, "resaved.bin");
    CHECK(gmm_model_save(out, m) == GMM_OK);
    gmm_model again;
    CHECK(gmm_model_load(out, &again) == GMM_OK);
    const size_t n_cov = gmm_cov_size(m->covariance_type, K, d);
    CHECK(memcmp(again.covariances, m->covariances, sizeof(double) * n_cov) == 0);
    CHECK(memcmp(again.precisions_cholesky, m->precisions_cholesky, sizeof(double) * n_cov) == 0);
    gmm_model_free(&again);
    uint32_t version = size >= 12 ? data[8] | data[9] << 8 | (uint32_t)data[10] << 16 |
                                        (uint32_t)data[11] << 24
                                  : 0;
    /* the packed-triangles flag (version 4: offset 136) of the input and of the resaved file */
    uint8_t resaved_flag = 0;
    FILE *rf = fopen(out, "rb");
    CHECK(rf && fseek(rf, 136, SEEK_SET) == 0 && fread(&resaved_flag, 1, 1, rf) == 1);
    fclose(rf);
    if (version == GMM_MODEL_VERSION && size > 136 && data[136] == resaved_flag) {
        FILE *f = fopen(out, "rb");
        CHECK(f);
        uint8_t *back = malloc(size + 1);
        size_t got = fread(back, 1, size + 1, f);
        fclose(f);
        CHECK(got == size && memcmp(back, data, size) == 0);
        free(back);
    }

    double *loglik = malloc(sizeof(double) * K), *proba = malloc(sizeof(double) * K * K);
    int *labels = malloc(sizeof(int) * K);
    CHECK(loglik && proba && labels);
    gmm_status st = gmm_score_samples(m, m->means, K, GMM_DEVICE_CPU, loglik, proba, labels);
    CHECK(st == GMM_OK);
    int heaviest = 0;
    for (int k = 1; k < K; k++)
        if (m->weights[k] > m->weights[heaviest]) heaviest = k;
    for (int k = 0; k < K; k++) {
        CHECK(!isnan(loglik[k]));
        CHECK(labels[k] >= 0 && labels[k] < K);
    }
    CHECK(isfinite(loglik[heaviest]));
    (void)d;
    free(loglik);
    free(proba);
    free(labels);
}

static void load(const char *path, const uint8_t *data, size_t size)
{
    gmm_model m;
    if (gmm_model_load(path, &m) == GMM_OK) {
        accepted(&m, data, size);
        gmm_model_free(&m);
    } else {
        CHECK(m.weights == NULL && m.means == NULL);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char p[512];
    fuzz_path(p, sizeof p, "input.bin");
    fuzz_write(p, data, size);
    load(p, data, size);
    if (size >= 8) { /* the same bytes with a correct CRC */
        uint8_t *fixed = malloc(size);
        memcpy(fixed, data, size);
        uint32_t crc = (uint32_t)crc32(0L, fixed, (uInt)(size - 4));
        for (int i = 0; i < 4; i++) fixed[size - 4 + i] = (uint8_t)(crc >> (8 * i));
        if (memcmp(fixed, data, size) != 0) {
            fuzz_write(p, fixed, size);
            load(p, fixed, size);
        }
        free(fixed);
    }
    return 0;
}
