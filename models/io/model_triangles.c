/* The packed upper triangles of model.bin version 4 (see model_triangles.h): packing with the
 * check that nothing is lost, and filling the lower triangles back in. The mirror is taken in
 * square tiles so that the column-wise side stays in cache. */
#include "models/io/model_triangles.h"

#include <stdint.h>
#include <string.h>

enum { TILE = 32 };

size_t model_triangle_size(size_t d) { return d * (d + 1) / 2; }

/* Offset of row i's first value (column i) in a packed triangle. */
static size_t row_offset(size_t i, size_t d) { return i * (2 * d - i + 1) / 2; }

static int same_bits(double a, double b)
{
    uint64_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return x == y;
}

/* The lower part of tile (ti, tj) (ti >= tj: rows of tile ti, columns of tile tj, below the
 * diagonal) is what kind says. */
static int tile_lower_ok(const double *A, size_t d, size_t ti, size_t tj, model_triangle_kind kind)
{
    const size_t i_end = ti + TILE < d ? ti + TILE : d, j_end = tj + TILE < d ? tj + TILE : d;
    for (size_t i = ti; i < i_end; i++)
        for (size_t j = tj; j < j_end && j < i; j++) {
            const double want = kind == MODEL_TRIANGLE_SYMMETRIC ? A[j * d + i] : 0.0;
            if (!same_bits(A[i * d + j], want)) return 0;
        }
    return 1;
}

int model_lower_is(const double *A, size_t n_mats, size_t d, model_triangle_kind kind)
{
    const size_t n_tiles = (d + TILE - 1) / TILE;
    for (size_t m = 0; m < n_mats; m++)
        for (size_t ti = 0; ti < n_tiles * TILE; ti += TILE)
            for (size_t tj = 0; tj <= ti; tj += TILE)
                if (!tile_lower_ok(A + m * d * d, d, ti, tj, kind)) return 0;
    return 1;
}

int model_pack_upper(const double *A, size_t n_mats, size_t d, model_triangle_kind kind,
                     double *packed)
{
    const size_t tri = model_triangle_size(d);
    for (size_t m = 0; m < n_mats; m++)
        for (size_t i = 0; i < d; i++)
            memcpy(packed + m * tri + row_offset(i, d), A + (m * d + i) * d + i,
                   sizeof(double) * (d - i));
    return model_lower_is(A, n_mats, d, kind);
}

void model_fill_lower(double *A, size_t n_mats, size_t d, model_triangle_kind kind)
{
    const size_t n_tiles = (d + TILE - 1) / TILE, n_tile_rows = n_mats * n_tiles;
#pragma omp parallel for schedule(dynamic, 1) if (n_mats * d * d > 65536)
    for (size_t t = 0; t < n_tile_rows; t++) {
        const size_t m = t / n_tiles, ti = (t % n_tiles) * TILE;
        const size_t i_end = ti + TILE < d ? ti + TILE : d;
        double *Am = A + m * d * d;
        for (size_t i = ti; i < i_end; i++) {
            if (kind == MODEL_TRIANGLE_UPPER) {
                memset(Am + i * d, 0, sizeof(double) * i);
                continue;
            }
            for (size_t tj = 0; tj <= ti; tj += TILE)
                for (size_t j = tj; j < tj + TILE && j < i; j++) Am[i * d + j] = Am[j * d + i];
        }
    }
}
