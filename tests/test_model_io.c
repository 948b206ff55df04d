/* Check suite for models/io/model_io.c: bit-exact round trips for every covariance type, version-1
 * files still read, and a clear status and message (never a crash) for each way a model file
 * can be missing or damaged. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "data/file_open.h"
#include "models/io/model_io.h"
#include "models/io/model_triangles.h"
#include "models/features/pca.h"
#include "tests/testutil.h"

/* Offsets of fields in the layout documented in model_io.h. */
enum {
    OFF_VERSION = 8,
    OFF_DTYPE = 12,
    OFF_K = 16,
    OFF_D = 20,
    OFF_COV_TYPE = 32,
    OFF_REG_COVAR = 80,
    OFF_BLUR = 96,
    OFF_PROJ = 104,      /* version 3: projection input dimension, whiten, total variance */
    OFF_SPECTRAL = 120,  /* version 3: spectral space neighbours, image dimension, images */
    V3_HEADER_BYTES = 32, /* the six fields version 3 added */
    OFF_PACKED = 136,     /* version 4: packed triangles */
    OFF_PATH_LEN = 140,
    HEADER_BYTES = 144,
};

static void make_model(gmm_model *m, gmm_cov_type type, int k, int rows, int cols, uint64_t seed)
{
    ck_assert_int_eq(gmm_model_alloc(m, k, rows * cols, type), GMM_OK);
    size_t n_cov = gmm_cov_size(type, k, rows * cols);
    tu_fill_uniform(m->weights, (size_t)k, 0.1, 1.0, seed);
    tu_fill_uniform(m->means, (size_t)k * rows * cols, -3.0, 3.0, seed + 1);
    tu_fill_uniform(m->covariances, n_cov, 0.5, 2.0, seed + 2);
    double sum = 0;
    for (int j = 0; j < k; j++) sum += m->weights[j];
    for (int j = 0; j < k; j++) m->weights[j] /= sum;
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) { /* symmetric, diagonally dominant */
        int d = rows * cols, n_mats = type == GMM_COV_FULL ? k : 1;
        for (int c = 0; c < n_mats; c++) {
            double *C = m->covariances + (size_t)c * d * d;
            for (int i = 0; i < d; i++) {
                for (int j = 0; j < i; j++) C[(size_t)i * d + j] = C[(size_t)j * d + i];
                C[(size_t)i * d + i] += d;
            }
        }
    }
    /* a loaded model must be consistent (gmm_model_check) */
    ck_assert_int_eq(gmm_model_compute_precisions(m), GMM_OK);
    m->image_rows = rows;
    m->image_cols = cols;
    m->converged = 1;
    m->n_iter = 17;
    m->lower_bound = -1234.5678901234567;
    m->n_train_samples = 60000;
    m->reg_covar = 1e-6;
    m->tol = 1e-3;
    m->max_iter = 100;
    m->n_init = 3;
    m->init = GMM_INIT_KMEANS_PP;
    m->seed = 0xfedcba9876543210ull;
    m->blur_sigma = 1.25;
    snprintf(m->data_path, sizeof m->data_path, "/data/mnist/train-images-idx3-ubyte.gz");
}

static void assert_same_model(const gmm_model *a, const gmm_model *b)
{
    ck_assert_int_eq(a->n_components, b->n_components);
    ck_assert_int_eq(a->dim, b->dim);
    ck_assert_int_eq(a->covariance_type, b->covariance_type);
    ck_assert_int_eq(a->image_rows, b->image_rows);
    ck_assert_int_eq(a->image_cols, b->image_cols);
    ck_assert_int_eq(a->converged, b->converged);
    ck_assert_int_eq(a->n_iter, b->n_iter);
    ck_assert_int_eq(a->max_iter, b->max_iter);
    ck_assert_int_eq(a->n_init, b->n_init);
    ck_assert_int_eq(a->init, b->init);
    ck_assert(a->seed == b->seed);
    ck_assert_int_eq(a->n_train_samples, b->n_train_samples);
    ck_assert_mem_eq(&a->lower_bound, &b->lower_bound, sizeof(double));
    ck_assert_mem_eq(&a->reg_covar, &b->reg_covar, sizeof(double));
    ck_assert_mem_eq(&a->tol, &b->tol, sizeof(double));
    ck_assert_mem_eq(&a->blur_sigma, &b->blur_sigma, sizeof(double));
    ck_assert_str_eq(a->data_path, b->data_path);
    size_t k = (size_t)a->n_components, d = (size_t)a->dim;
    size_t n_cov = gmm_cov_size(a->covariance_type, a->n_components, a->dim);
    ck_assert_mem_eq(a->weights, b->weights, k * sizeof(double));
    ck_assert_mem_eq(a->means, b->means, k * d * sizeof(double));
    ck_assert_mem_eq(a->covariances, b->covariances, n_cov * sizeof(double));
    ck_assert_mem_eq(a->precisions_cholesky, b->precisions_cholesky, n_cov * sizeof(double));
}

static unsigned char *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    ck_assert_int_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *size = (size_t)n;
    return buf;
}

static void write_file(const char *path, const unsigned char *buf, size_t size)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(fwrite(buf, 1, size, f), size);
    fclose(f);
}

static void put_u32(unsigned char *p, uint32_t x)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(x >> (8 * i));
}

/* Rewrites the trailing CRC so that a deliberately edited field is what loading trips on. */
static void fix_crc(unsigned char *buf, size_t size)
{
    put_u32(buf + size - 4, (uint32_t)crc32(crc32(0L, Z_NULL, 0), buf, (uInt)(size - 4)));
}

/* Loads path expecting status, with word in the message, and a model left zeroed. */
static void expect_load_error(const char *path, gmm_status status, const char *word)
{
    gmm_model m;
    memset(&m, 0xab, sizeof m);
    gmm_error_clear();
    gmm_status st = gmm_model_load(path, &m);
    const char *msg = gmm_error_message(st);
    ck_assert_msg(st == status, "expected status %d, got %d (%s)", status, st, msg);
    ck_assert_msg(strstr(msg, word) != NULL, "message '%s' lacks '%s'", msg, word);
    ck_assert_ptr_null(m.weights);
    ck_assert_ptr_null(m.means);
    ck_assert_ptr_null(m.covariances);
    ck_assert_ptr_null(m.precisions_cholesky);
    gmm_model_free(&m);
}

/* Writes the edited bytes with their CRC fixed (so that the edit is what loading trips on) and
 * expects that loading them fails with status and word. */
static void expect_edit_error(const char *path, unsigned char *buf, size_t size, gmm_status status,
                              const char *word)
{
    fix_crc(buf, size);
    write_file(path, buf, size);
    expect_load_error(path, status, word);
}

/* A saved model file in memory, for the corruption tests. */
static unsigned char *saved_model_bytes(const char *path, size_t *size)
{
    gmm_model m;
    make_model(&m, GMM_COV_FULL, 3, 4, 5, 42);
    ck_assert_int_eq(gmm_model_save(path, &m), GMM_OK);
    gmm_model_free(&m);
    return read_file(path, size);
}

START_TEST(test_round_trip_all_types)
{
    const gmm_cov_type types[] = {GMM_COV_FULL, GMM_COV_TIED, GMM_COV_DIAG, GMM_COV_SPHERICAL};
    for (int t = 0; t < 4; t++) {
        gmm_model a, b;
        make_model(&a, types[t], 4, 3, 5, 100 + (uint64_t)t);
        const char *path = tu_tmp_path("round_trip.bin");
        ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
        ck_assert_int_eq(access(path, F_OK), 0);
        char tmp[600];
        snprintf(tmp, sizeof tmp, "%s.tmp", path);
        ck_assert_int_ne(access(tmp, F_OK), 0); /* the temporary was renamed away */

        memset(&b, 0, sizeof b);
        ck_assert_int_eq(gmm_model_load(path, &b), GMM_OK);
        assert_same_model(&a, &b);

        /* Saving a loaded model reproduces the file byte for byte. */
        size_t n1, n2;
        unsigned char *f1 = read_file(path, &n1);
        ck_assert_int_eq(gmm_model_save(path, &b), GMM_OK);
        unsigned char *f2 = read_file(path, &n2);
        ck_assert_int_eq(n1, n2);
        ck_assert_mem_eq(f1, f2, n1);
        free(f1);
        free(f2);
        gmm_model_free(&a);
        gmm_model_free(&b);
    }
}
END_TEST

/* A model of 17 MB, its two triangular arrays written row by row from where they lie (3600 rows
 * each: several pwritev batches of at most IOV_MAX): the file loads back equal, its CRC (zlib's,
 * over the bytes as they lie in the file) checks, and its length is the format's. */
START_TEST(test_large_model_written_in_pieces)
{
    gmm_model a, b;
    make_model(&a, GMM_COV_FULL, 3, 20, 30, 7);
    const char *path = tu_tmp_path("large.bin");
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
    size_t n = 0;
    unsigned char *f = read_file(path, &n);
    size_t arrays = 8 * (3 + 3 * 600 + 2 * (size_t)3 * 600 * 601 / 2); /* packed triangles */
    ck_assert_uint_gt(n, arrays);
    ck_assert_uint_lt(n, arrays + 1024);
    uint32_t stored = (uint32_t)f[n - 4] | (uint32_t)f[n - 3] << 8 | (uint32_t)f[n - 2] << 16 |
                      (uint32_t)f[n - 1] << 24;
    uLong crc = crc32(0L, Z_NULL, 0);
    for (size_t off = 0; off < n - 4; off += 1u << 20) {
        size_t len = n - 4 - off < (1u << 20) ? n - 4 - off : (1u << 20);
        crc = crc32(crc, f + off, (uInt)len);
    }
    ck_assert_uint_eq(stored, (uint32_t)crc);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(gmm_model_load(path, &b), GMM_OK);
    assert_same_model(&a, &b);
    free(f);
    gmm_model_free(&a);
    gmm_model_free(&b);
}
END_TEST

START_TEST(test_round_trip_unknown_shape_empty_path)
{
    gmm_model a, b;
    make_model(&a, GMM_COV_DIAG, 1, 1, 7, 5);
    a.image_rows = a.image_cols = 0;
    a.data_path[0] = '\0';
    a.converged = 0;
    const char *path = tu_tmp_path("shape.bin");
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
    ck_assert_int_eq(gmm_model_load(path, &b), GMM_OK);
    assert_same_model(&a, &b);
    gmm_model_free(&a);
    gmm_model_free(&b);
}
END_TEST

START_TEST(test_copy)
{
    gmm_model a, b;
    make_model(&a, GMM_COV_TIED, 3, 2, 3, 9);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(gmm_model_copy(&b, &a), GMM_OK);
    ck_assert_ptr_ne(a.means, b.means);
    assert_same_model(&a, &b);
    gmm_model_free(&a);
    gmm_model_free(&b);
    ck_assert_ptr_null(b.means);
    gmm_model_free(&b); /* freeing twice is harmless */
}
END_TEST

START_TEST(test_missing_file)
{
    expect_load_error(tu_tmp_path("does_not_exist.bin"), GMM_ERR_IO, "does_not_exist.bin");
    /* A directory is no model either. */
    const char *dir = tu_tmp_path("");
    expect_load_error(dir, GMM_ERR_IO, "not a regular file");
}
END_TEST

START_TEST(test_truncated)
{
    const char *path = tu_tmp_path("full.bin");
    size_t size;
    unsigned char *buf = saved_model_bytes(path, &size);
    uint32_t path_len = buf[OFF_PATH_LEN] | (uint32_t)buf[OFF_PATH_LEN + 1] << 8;
    size_t cuts[] = {0, 1, 7, 8, 11, 12, 50, HEADER_BYTES - 1, HEADER_BYTES,
                     HEADER_BYTES + path_len, HEADER_BYTES + path_len + 3, size / 2, size - 5,
                     size - 4, size - 1};
    const char *cut_path = tu_tmp_path("cut.bin");
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        write_file(cut_path, buf, cuts[i]);
        expect_load_error(cut_path, GMM_ERR_FORMAT, "truncated");
    }
    free(buf);
}
END_TEST

START_TEST(test_flipped_byte)
{
    const char *path = tu_tmp_path("flip.bin");
    size_t size;
    unsigned char *buf = saved_model_bytes(path, &size);
    size_t offsets[] = {size / 2, HEADER_BYTES + 5 /* in the data path */, size - 2 /* CRC */,
                        OFF_REG_COVAR + 2, OFF_BLUR + 6};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        buf[offsets[i]] ^= 0x10;
        write_file(path, buf, size);
        expect_load_error(path, GMM_ERR_CHECKSUM, "checksum");
        buf[offsets[i]] ^= 0x10;
    }
    free(buf);
}
END_TEST

static void put_f64(unsigned char *p, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(bits >> (8 * i));
}

START_TEST(test_version)
{
    const char *path = tu_tmp_path("version.bin");
    size_t size;
    unsigned char *buf = saved_model_bytes(path, &size);
    ck_assert_int_eq(buf[OFF_VERSION], 4); /* no sections: the version-4 layout */
    put_u32(buf + OFF_VERSION, 99);
    expect_edit_error(path, buf, size, GMM_ERR_VERSION, "version 99");
    expect_load_error(path, GMM_ERR_VERSION, "supports versions 1 to 5");
    /* Only the version matters: a newer file cut short is still "another version". */
    write_file(path, buf, 12);
    expect_load_error(path, GMM_ERR_VERSION, "version 99");
    put_u32(buf + OFF_VERSION, 0);
    expect_edit_error(path, buf, size, GMM_ERR_VERSION, "version 0");
    free(buf);
}
END_TEST

/* A version-3 file (dense arrays, no packed-triangles field), a version-2 file (also without
 * the 32 bytes of projection and spectral fields) and a version-1 file (also without the blur
 * sigma) load, with blur sigma 0 (version 1), no projection and every other field as saved. The
 * version-4 file they are cut from is dense: one covariance is one ulp off symmetric. */
START_TEST(test_version_1_still_loads)
{
    const char *path = tu_tmp_path("v4.bin");
    gmm_model a, b;
    make_model(&a, GMM_COV_FULL, 3, 4, 5, 42);
    a.blur_sigma = 1.5;
    a.covariances[1] = nextafter(a.covariances[1], 1e300);
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
    size_t size4;
    unsigned char *v4 = read_file(path, &size4);
    ck_assert_int_eq(v4[OFF_PACKED], 0);
    /* version 3 */
    size_t size = size4 - 4;
    unsigned char *v3 = malloc(size);
    memcpy(v3, v4, OFF_PACKED);
    memcpy(v3 + OFF_PACKED, v4 + OFF_PACKED + 4, size4 - OFF_PACKED - 4);
    put_u32(v3 + OFF_VERSION, 3);
    fix_crc(v3, size);
    const char *v3_path = tu_tmp_path("v3.bin");
    write_file(v3_path, v3, size);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(gmm_model_load(v3_path, &b), GMM_OK);
    assert_same_model(&a, &b);
    gmm_model_free(&b);
    free(v4);
    /* version 2 */
    const size_t size2 = size - V3_HEADER_BYTES;
    unsigned char *v2 = malloc(size2);
    memcpy(v2, v3, OFF_PROJ);
    memcpy(v2 + OFF_PROJ, v3 + OFF_PROJ + V3_HEADER_BYTES, size - OFF_PROJ - V3_HEADER_BYTES);
    put_u32(v2 + OFF_VERSION, 2);
    fix_crc(v2, size2);
    const char *v2_path = tu_tmp_path("v2.bin");
    write_file(v2_path, v2, size2);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(gmm_model_load(v2_path, &b), GMM_OK);
    ck_assert_ptr_null(gmm_space_pca(b.space));
    assert_same_model(&a, &b);
    gmm_model_free(&b);
    /* version 1 */
    const size_t size1 = size2 - 8;
    unsigned char *v1 = malloc(size1);
    memcpy(v1, v2, OFF_BLUR);
    memcpy(v1 + OFF_BLUR, v2 + OFF_BLUR + 8, size2 - OFF_BLUR - 8);
    put_u32(v1 + OFF_VERSION, 1);
    fix_crc(v1, size1);
    const char *v1_path = tu_tmp_path("v1.bin");
    write_file(v1_path, v1, size1);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(gmm_model_load(v1_path, &b), GMM_OK);
    ck_assert(b.blur_sigma == 0.0);
    ck_assert_ptr_null(gmm_space_pca(b.space));
    a.blur_sigma = 0;
    assert_same_model(&a, &b);
    free(v3);
    /* saved again, it becomes a version-4 file */
    ck_assert_int_eq(gmm_model_save(path, &b), GMM_OK);
    free(v2);
    v2 = read_file(path, &size);
    ck_assert_int_eq(v2[OFF_VERSION], 4);
    /* a version-1 file cut short is truncated, not misread as version 2 */
    write_file(v1_path, v1, OFF_BLUR + 4);
    expect_load_error(v1_path, GMM_ERR_FORMAT, "truncated");
    gmm_model_free(&a);
    gmm_model_free(&b);
    free(v1);
    free(v2);
}
END_TEST

START_TEST(test_wrong_magic)
{
    const char *path = tu_tmp_path("magic.bin");
    size_t size;
    unsigned char *buf = saved_model_bytes(path, &size);
    buf[0] = 'X';
    write_file(path, buf, size);
    expect_load_error(path, GMM_ERR_FORMAT, "not a gmm model file");
    write_file(path, buf, 3);
    expect_load_error(path, GMM_ERR_FORMAT, "not a gmm model file");
    const unsigned char png[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13};
    write_file(path, png, sizeof png);
    expect_load_error(path, GMM_ERR_FORMAT, "not a gmm model file");
    free(buf);
}
END_TEST

START_TEST(test_trailing_garbage)
{
    const char *path = tu_tmp_path("trailing.bin");
    size_t size;
    unsigned char *buf = saved_model_bytes(path, &size);
    unsigned char *longer = malloc(size + 16);
    memcpy(longer, buf, size);
    memset(longer + size, 0x5a, 16);
    write_file(path, longer, size + 1);
    expect_load_error(path, GMM_ERR_FORMAT, "trailing");
    write_file(path, longer, size + 16);
    expect_load_error(path, GMM_ERR_FORMAT, "trailing");
    free(longer);
    free(buf);
}
END_TEST

/* Fields edited with a valid CRC, so the field check itself must catch each. */
START_TEST(test_bad_fields)
{
    const char *path = tu_tmp_path("fields.bin");
    size_t size;
    unsigned char *orig = saved_model_bytes(path, &size);
    unsigned char *buf = malloc(size);
    struct {
        int offset;
        uint32_t value;
        const char *word;
    } cases[] = {
        {OFF_DTYPE, 2, "dtype"},
        {OFF_DTYPE, 0, "dtype"},
        {OFF_COV_TYPE, 4, "covariance type"},
        {OFF_COV_TYPE, 0xffffffffu, "covariance type"},
        {OFF_K, 0, "n_components=0"},
        {OFF_D, 0, "dim=0"},
        {OFF_K, 0xffffffffu, "n_components"},
        {OFF_K, 0x7fffffffu, "truncated"},
        {OFF_D, 0x7fffffffu, "truncated"},
        {OFF_D, 0x10000u, "truncated"}, /* K d d wraps 32 bits */
        {OFF_K, 4, "truncated"},         /* one component more than the file holds */
        {OFF_K, 2, "trailing"},          /* one component fewer */
        {OFF_PATH_LEN, 100000, "data path length"},
        {OFF_PATH_LEN, 0xfffffff0u, "data path length"},
        {OFF_PATH_LEN, 500, "truncated"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        memcpy(buf, orig, size);
        put_u32(buf + cases[i].offset, cases[i].value);
        expect_edit_error(path, buf, size, GMM_ERR_FORMAT, cases[i].word);
    }
    /* Image shape that disagrees with d (4 x 5 = 20): rows 3. */
    memcpy(buf, orig, size);
    put_u32(buf + 24, 3);
    expect_edit_error(path, buf, size, GMM_ERR_FORMAT, "image shape");
    /* A blur sigma that is negative, not a number, or outside the CLI's (0, 100]. */
    const double bad_blur[] = {-1.0, __builtin_nan(""), __builtin_inf(), 1e300, 1e-200, 100.5};
    for (int i = 0; i < 6; i++) {
        memcpy(buf, orig, size);
        put_f64(buf + OFF_BLUR, bad_blur[i]);
        expect_edit_error(path, buf, size, GMM_ERR_FORMAT, "blur_sigma");
    }
    free(buf);
    free(orig);
}
END_TEST

START_TEST(test_save_errors)
{
    gmm_model m;
    memset(&m, 0, sizeof m);
    ck_assert_int_eq(gmm_model_save(tu_tmp_path("empty.bin"), &m), GMM_ERR_ARG);
    make_model(&m, GMM_COV_SPHERICAL, 2, 2, 2, 3);
    gmm_error_clear();
    ck_assert_int_eq(gmm_model_save(tu_tmp_path("no_such_dir/x.bin"), &m), GMM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_IO), "no_such_dir"));
    m.image_rows = 3;
    ck_assert_int_eq(gmm_model_save(tu_tmp_path("shape.bin"), &m), GMM_ERR_ARG);
    m.image_rows = 2;
    m.blur_sigma = -0.5;
    ck_assert_int_eq(gmm_model_save(tu_tmp_path("neg_blur.bin"), &m), GMM_ERR_ARG);
    gmm_model_free(&m);
}
END_TEST

/* A model fitted in a spectral space (3 dimensions; images of 5 x 7, 21 of them: 735 bytes,
 * padded to 736) round-trips exactly; a forged eigenvalue of 1.5 or degree of 0 (CRC fixed) is
 * refused naming the field; a space beside a projection is refused when saving. */
START_TEST(test_spectral_space_round_trip)
{
    const char *path = tu_tmp_path("spectral.bin");
    gmm_model a, b;
    make_model(&a, GMM_COV_FULL, 2, 1, 3, 17);
    a.image_rows = 5;
    a.image_cols = 7;
    gmm_spectral_space *spectral = NULL;
    ck_assert_int_eq(gmm_spectral_space_alloc(21, 35, 4, 3, &spectral), GMM_OK);
    ck_assert_int_eq(gmm_feature_space_from_spectral(spectral, &a.space), GMM_OK);
    for (int i = 0; i < 21 * 35; i++) gmm_space_spectral(a.space)->images[i] = (uint8_t)(i * 7 + 3);
    tu_fill_uniform(gmm_space_spectral(a.space)->embedding, 21 * 3, -0.1, 0.1, 5);
    tu_fill_uniform(gmm_space_spectral(a.space)->eigenvalues, 3, 0.9, 0.99, 6);
    tu_fill_uniform(gmm_space_spectral(a.space)->degrees, 21, 2.0, 6.0, 7);
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
    memset(&b, 0, sizeof b);
    ck_assert_int_eq(gmm_model_load(path, &b), GMM_OK);
    assert_same_model(&a, &b);
    ck_assert_ptr_nonnull(gmm_space_spectral(b.space));
    ck_assert_int_eq(gmm_space_spectral(b.space)->n_train, 21);
    ck_assert_int_eq(gmm_space_spectral(b.space)->input_dim, 35);
    ck_assert_int_eq(gmm_space_spectral(b.space)->n_neighbors, 4);
    ck_assert_int_eq(gmm_model_input_dim(&b), 35);
    ck_assert_int_eq(memcmp(gmm_space_spectral(b.space)->images, gmm_space_spectral(a.space)->images, 21 * 35), 0);
    ck_assert_int_eq(memcmp(gmm_space_spectral(b.space)->embedding, gmm_space_spectral(a.space)->embedding, sizeof(double) * 63), 0);
    ck_assert_int_eq(memcmp(gmm_space_spectral(b.space)->eigenvalues, gmm_space_spectral(a.space)->eigenvalues, sizeof(double) * 3), 0);
    ck_assert_int_eq(memcmp(gmm_space_spectral(b.space)->degrees, gmm_space_spectral(a.space)->degrees, sizeof(double) * 21), 0);
    gmm_model c;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(gmm_model_copy(&c, &b), GMM_OK);
    ck_assert_int_eq(memcmp(gmm_space_spectral(c.space)->degrees, gmm_space_spectral(a.space)->degrees, sizeof(double) * 21), 0);
    gmm_model_free(&c);
    gmm_model_free(&b);

    size_t size;
    unsigned char *buf = read_file(path, &size);
    /* the arrays from the end: degrees[21], eigenvalues[3], then the embedding; CRC last */
    const size_t off_degrees = size - 4 - 8 * 21, off_eigen = off_degrees - 8 * 3;
    unsigned char *edit = malloc(size);
    memcpy(edit, buf, size);
    put_f64(edit + off_eigen + 8, 1.5);
    expect_edit_error(path, edit, size, GMM_ERR_FORMAT, "eigenvalue 1 is 1.5");
    memcpy(edit, buf, size);
    put_f64(edit + off_degrees + 8 * 4, 0.0);
    expect_edit_error(path, edit, size, GMM_ERR_FORMAT, "image 4 has degree 0");
    memcpy(edit, buf, size);
    edit[off_eigen - 8 * 63 - 1] = 7; /* the one padding byte after the 735 image bytes */
    expect_edit_error(path, edit, size, GMM_ERR_FORMAT, "padding byte 0 is 7");
    memcpy(edit, buf, size);
    put_u32(edit + OFF_SPECTRAL + 8, 1000); /* more images than the file holds */
    expect_edit_error(path, edit, size, GMM_ERR_FORMAT, "truncated");
    free(edit);
    free(buf);

    /* a space whose dimension is not the model's: refused */
    gmm_feature_space_free(a.space);
    a.space = NULL;
    gmm_projection *projection = NULL;
    ck_assert_int_eq(gmm_projection_alloc(35, a.dim + 1, 0, &projection), GMM_OK);
    ck_assert_int_eq(gmm_feature_space_from_pca(projection, &a.space), GMM_OK);
    ck_assert_int_eq(gmm_model_save(path, &a), GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_ARG), "with a projection of"));
    gmm_model_free(&a);
}
END_TEST

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The helpers against their definition: packing then filling the lower triangles gives back the
 * matrices bit for bit, at sizes around the 32-wide tiles; a single lower value off (one ulp, or
 * -0.0 for a zero) makes the packing report a loss, wherever it is. */
START_TEST(test_triangle_helpers)
{
    const size_t sizes[] = {1, 2, 31, 32, 33, 70};
    for (int s = 0; s < 6; s++) {
        const size_t d = sizes[s], n_mats = 3, dd = d * d, tri = model_triangle_size(d);
        ck_assert_uint_eq(tri, d * (d + 1) / 2);
        double *sym = malloc(sizeof(double) * n_mats * dd), *up = malloc(sizeof(double) * n_mats * dd);
        double *back = malloc(sizeof(double) * n_mats * dd), *packed = malloc(sizeof(double) * n_mats * tri);
        tu_fill_uniform(sym, n_mats * dd, -1.0, 1.0, 40 + (uint64_t)s);
        memcpy(up, sym, sizeof(double) * n_mats * dd);
        for (size_t m = 0; m < n_mats; m++)
            for (size_t i = 0; i < d; i++)
                for (size_t j = 0; j < i; j++) {
                    sym[m * dd + i * d + j] = sym[m * dd + j * d + i];
                    up[m * dd + i * d + j] = 0.0;
                }
        ck_assert_int_eq(model_lower_is(sym, n_mats, d, MODEL_TRIANGLE_SYMMETRIC), 1);
        ck_assert_int_eq(model_lower_is(up, n_mats, d, MODEL_TRIANGLE_UPPER), 1);
        ck_assert_int_eq(model_lower_is(up, n_mats, d, MODEL_TRIANGLE_SYMMETRIC), d == 1);
        /* packed row by row: row i of matrix m starts at m tri + i d - i (i - 1) / 2 */
        ck_assert_int_eq(model_pack_upper(sym, n_mats, d, MODEL_TRIANGLE_SYMMETRIC, packed), 1);
        size_t at = 0;
        for (size_t m = 0; m < n_mats; m++)
            for (size_t i = 0; i < d; i++)
                for (size_t j = i; j < d; j++, at++)
                    ck_assert(packed[at] == sym[m * dd + i * d + j]);
        memset(back, 0x7f, sizeof(double) * n_mats * dd);
        for (size_t m = 0, p = 0; m < n_mats; m++)
            for (size_t i = 0; i < d; p += d - i, i++)
                memcpy(back + m * dd + i * d + i, packed + p, sizeof(double) * (d - i));
        model_fill_lower(back, n_mats, d, MODEL_TRIANGLE_SYMMETRIC);
        ck_assert_mem_eq(back, sym, sizeof(double) * n_mats * dd);
        ck_assert_int_eq(model_pack_upper(up, n_mats, d, MODEL_TRIANGLE_UPPER, packed), 1);
        memset(back, 0x7f, sizeof(double) * n_mats * dd);
        for (size_t m = 0, p = 0; m < n_mats; m++)
            for (size_t i = 0; i < d; p += d - i, i++)
                memcpy(back + m * dd + i * d + i, packed + p, sizeof(double) * (d - i));
        model_fill_lower(back, n_mats, d, MODEL_TRIANGLE_UPPER);
        ck_assert_mem_eq(back, up, sizeof(double) * n_mats * dd);
        if (d > 1) { /* one value off in the last matrix's last row */
            const size_t e = 2 * dd + (d - 1) * d + (d - 2) / 2;
            sym[e] = nextafter(sym[e], 10.0);
            ck_assert_int_eq(model_pack_upper(sym, n_mats, d, MODEL_TRIANGLE_SYMMETRIC, packed), 0);
            ck_assert_int_eq(model_lower_is(sym, n_mats, d, MODEL_TRIANGLE_SYMMETRIC), 0);
            up[e] = -0.0;
            ck_assert_int_eq(model_lower_is(up, n_mats, d, MODEL_TRIANGLE_UPPER), 0);
            ck_assert_int_eq(model_pack_upper(up, n_mats, d, MODEL_TRIANGLE_UPPER, packed), 0);
        }
        free(sym);
        free(up);
        free(back);
        free(packed);
    }
}
END_TEST

/* Full and tied models are written as packed triangles (the file's size says so) and load back
 * bit for bit; a covariance one ulp off symmetric, or a factor with -0.0 below its diagonal, is
 * written dense and loads back bit for bit too, -0.0 included. */
START_TEST(test_packed_triangles)
{
    const char *path = tu_tmp_path("packed.bin");
    const gmm_cov_type types[] = {GMM_COV_FULL, GMM_COV_TIED};
    for (int t = 0; t < 2; t++) {
        for (int variant = 0; variant < 3; variant++) {
            gmm_model a, b;
            make_model(&a, types[t], 3, 4, 5, 60 + (uint64_t)(3 * t + variant));
            const size_t k = 3, d = 20, n_mats = types[t] == GMM_COV_FULL ? k : 1;
            if (variant == 1) a.covariances[(n_mats - 1) * d * d + 7 * d + 3] =
                nextafter(a.covariances[(n_mats - 1) * d * d + 7 * d + 3], 1e300);
            if (variant == 2) a.precisions_cholesky[5 * d + 2] = -0.0;
            ck_assert_int_eq(gmm_model_save(path, &a), GMM_OK);
            size_t size;
            unsigned char *f = read_file(path, &size);
            const size_t per_array = variant == 0 ? n_mats * d * (d + 1) / 2 : n_mats * d * d;
            ck_assert_uint_eq(get_u32(f + OFF_PACKED), variant == 0 ? 1u : 0u);
            ck_assert_uint_eq(size, HEADER_BYTES + get_u32(f + OFF_PATH_LEN) +
                                        8 * (k + k * d + 2 * per_array) + 4);
            memset(&b, 0, sizeof b);
            ck_assert_int_eq(gmm_model_load(path, &b), GMM_OK);
            assert_same_model(&a, &b);
            free(f);
            gmm_model_free(&a);
            gmm_model_free(&b);
        }
    }
}
END_TEST

/* The packed-triangles flag is believed only where it can hold: 2, 1 on a diagonal model, and a
 * flag flipped either way (the arrays then do not fill the file) are errors, CRC fixed. */
START_TEST(test_packed_flag_errors)
{
    const char *path = tu_tmp_path("flag.bin");
    size_t size;
    unsigned char *buf = saved_model_bytes(path, &size); /* full, packed */
    ck_assert_uint_eq(get_u32(buf + OFF_PACKED), 1u);
    put_u32(buf + OFF_PACKED, 2);
    expect_edit_error(path, buf, size, GMM_ERR_FORMAT, "packed-triangles flag 2");
    put_u32(buf + OFF_PACKED, 0); /* dense needs more bytes than the file has */
    expect_edit_error(path, buf, size, GMM_ERR_FORMAT, "truncated");
    free(buf);

    gmm_model m;
    make_model(&m, GMM_COV_DIAG, 3, 4, 5, 8);
    ck_assert_int_eq(gmm_model_save(path, &m), GMM_OK);
    gmm_model_free(&m);
    buf = read_file(path, &size);
    ck_assert_uint_eq(get_u32(buf + OFF_PACKED), 0u);
    put_u32(buf + OFF_PACKED, 1);
    expect_edit_error(path, buf, size, GMM_ERR_FORMAT, "packed-triangles flag 1");
    free(buf);

    make_model(&m, GMM_COV_TIED, 3, 4, 5, 9);
    m.covariances[22] = nextafter(m.covariances[22], 1e300); /* row 1, column 2: dense */
    ck_assert_int_eq(gmm_model_save(path, &m), GMM_OK);
    gmm_model_free(&m);
    buf = read_file(path, &size);
    ck_assert_uint_eq(get_u32(buf + OFF_PACKED), 0u);
    put_u32(buf + OFF_PACKED, 1); /* packed would leave bytes over */
    expect_edit_error(path, buf, size, GMM_ERR_FORMAT, "trailing");
    free(buf);
}
END_TEST

/* Segments of every length from 0 to 3 pages, 3000 of them (more than one pwritev's IOV_MAX),
 * land back to back: the file is their concatenation, byte for byte; a path that cannot be
 * created fails with errno set. */
START_TEST(test_write_segments)
{
    const size_t n_seg = 3000;
    file_segment *seg = malloc(sizeof *seg * n_seg);
    size_t total = 0;
    for (size_t s = 0; s < n_seg; s++) total += (s * 7919) % 12289;
    unsigned char *data = malloc(total), *want = malloc(total);
    for (size_t i = 0; i < total; i++) data[i] = (unsigned char)(i * 131 + (i >> 11));
    /* the segments come from scattered places: segment s starts where segment n_seg-1-s would */
    size_t out = 0;
    for (size_t s = 0; s < n_seg; s++) {
        const size_t len = (s * 7919) % 12289;
        const size_t from = (total - len) * ((s * 37) % 101) / 100;
        seg[s] = (file_segment){data + from, len};
        memcpy(want + out, data + from, len);
        out += len;
    }
    ck_assert_uint_eq(out, total);
    const char *path = tu_tmp_path("segments.bin");
    ck_assert_int_eq(file_write_segments(path, seg, n_seg), 0);
    size_t n = 0;
    unsigned char *f = read_file(path, &n);
    ck_assert_uint_eq(n, total);
    ck_assert_mem_eq(f, want, total);
    free(f);
    errno = 0;
    ck_assert_int_eq(file_write_segments("/nonexistent-dir/x.bin", seg, 1), -1);
    ck_assert_int_eq(errno, ENOENT);
    free(seg);
    free(data);
    free(want);
}
END_TEST

static Suite *model_io_suite(void)
{
    Suite *s = suite_create("model_io");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, test_round_trip_all_types);
    tcase_add_test(tc, test_large_model_written_in_pieces);
    tcase_add_test(tc, test_write_segments);
    tcase_add_test(tc, test_round_trip_unknown_shape_empty_path);
    tcase_add_test(tc, test_copy);
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_truncated);
    tcase_add_test(tc, test_flipped_byte);
    tcase_add_test(tc, test_version);
    tcase_add_test(tc, test_version_1_still_loads);
    tcase_add_test(tc, test_triangle_helpers);
    tcase_add_test(tc, test_packed_triangles);
    tcase_add_test(tc, test_packed_flag_errors);
    tcase_add_test(tc, test_wrong_magic);
    tcase_add_test(tc, test_trailing_garbage);
    tcase_add_test(tc, test_bad_fields);
    tcase_add_test(tc, test_save_errors);
    tcase_add_test(tc, test_spectral_space_round_trip);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(model_io_suite()); }
