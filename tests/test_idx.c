/* Check suite for data/idx: raw and gzip round trips, and every malformed file the reader must
 * refuse with GMM_ERR_FORMAT/GMM_ERR_IO and a detail that names the problem. */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "data/gunzip.h"
#include "data/idx.h"
#include "tests/testutil.h"

static char *tmp(const char *name) { return strdup(tu_tmp_path(name)); }

static void write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    if (len) ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static void write_gz(const char *path, const void *bytes, size_t len)
{
    gzFile gz = gzopen(path, "wb6");
    ck_assert_ptr_nonnull(gz);
    if (len) ck_assert_int_eq(gzwrite(gz, bytes, (unsigned)len), (int)len);
    ck_assert_int_eq(gzclose(gz), Z_OK);
}

static unsigned char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    ck_assert_uint_eq(fread(buf, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

/* An idx3 image file in memory: header (with the given magic) then data_len bytes of data. */
static unsigned char *make_images(uint32_t magic, uint32_t count, uint32_t rows, uint32_t cols,
                                  size_t data_len, size_t *len)
{
    *len = 16 + data_len;
    unsigned char *buf = malloc(*len);
    put_be32(buf, magic);
    put_be32(buf + 4, count);
    put_be32(buf + 8, rows);
    put_be32(buf + 12, cols);
    uint64_t s = 7;
    for (size_t i = 0; i < data_len; i++) buf[16 + i] = (unsigned char)tu_rand_u64(&s);
    return buf;
}

static uint8_t *random_bytes(size_t n, uint64_t seed)
{
    uint8_t *p = malloc(n);
    for (size_t i = 0; i < n; i++) p[i] = (uint8_t)tu_rand_u64(&seed);
    return p;
}

/* Reads path as images and expects status with every needle in the detail. */
static void expect_images_error(const char *path, gmm_status want, const char *needle1,
                                const char *needle2)
{
    idx_array a = {0};
    gmm_error_clear();
    gmm_status st = idx_read_images(path, &a);
    const char *msg = gmm_error_message(st);
    ck_assert_msg(st == want, "status %d (%s), expected %d; detail: %s", st, gmm_strerror(st),
                  want, msg);
    ck_assert_msg(strstr(msg, path) != NULL, "detail does not name the file: %s", msg);
    ck_assert_msg(strstr(msg, needle1) != NULL, "detail lacks '%s': %s", needle1, msg);
    if (needle2) ck_assert_msg(strstr(msg, needle2) != NULL, "detail lacks '%s': %s", needle2, msg);
    ck_assert_ptr_null(a.data);
    ck_assert_int_eq(a.n_items, 0);
    idx_free(&a);
}

static void round_trip(int gzip)
{
    const int n = 7, rows = 5, cols = 3;
    uint8_t *pix = random_bytes((size_t)n * rows * cols, 11);
    uint8_t labels[7] = {5, 0, 4, 1, 9, 2, 255};
    char *ip = tmp(gzip ? "img.gz" : "img"), *lp = tmp(gzip ? "lab.gz" : "lab");
    ck_assert_int_eq(idx_write_images(ip, pix, n, rows, cols, gzip), GMM_OK);
    ck_assert_int_eq(idx_write_labels(lp, labels, n, gzip), GMM_OK);

    size_t len;
    unsigned char *raw = read_file(ip, &len);
    if (gzip) {
        ck_assert(raw[0] == 0x1f && raw[1] == 0x8b);
    } else {
        ck_assert_uint_eq(len, 16 + (size_t)n * rows * cols);
        ck_assert(raw[0] == 0 && raw[1] == 0 && raw[2] == 8 && raw[3] == 3);
        ck_assert_int_eq(raw[7], n);
    }
    free(raw);

    idx_array a = {0}, l = {0};
    ck_assert_int_eq(idx_read_images(ip, &a), GMM_OK);
    ck_assert_int_eq(a.n_items, n);
    ck_assert_int_eq(a.rows, rows);
    ck_assert_int_eq(a.cols, cols);
    ck_assert_mem_eq(a.data, pix, (size_t)n * rows * cols);
    ck_assert_int_eq(idx_read_labels(lp, &l), GMM_OK);
    ck_assert_int_eq(l.n_items, n);
    ck_assert_int_eq(l.rows, 1);
    ck_assert_int_eq(l.cols, 1);
    ck_assert_mem_eq(l.data, labels, n);
    idx_free(&a);
    idx_free(&l);
    idx_free(&l); /* freeing twice is harmless */
    idx_free(NULL);
    free(pix);
    free(ip);
    free(lp);
}

START_TEST(test_round_trip_raw) { round_trip(0); }
END_TEST

START_TEST(test_round_trip_gzip) { round_trip(1); }
END_TEST

START_TEST(test_round_trip_large_gzip)
{
    /* More than the reader's first allocation step is not needed to exercise growth, but more
     * than one zlib buffer is: 3 MB across many reads. */
    const int n = 4000, rows = 28, cols = 28;
    uint8_t *pix = random_bytes((size_t)n * rows * cols, 3);
    for (size_t i = 0; i < (size_t)n * rows * cols; i += 3) pix[i] = 0; /* some compressibility */
    char *ip = tmp("big.gz");
    ck_assert_int_eq(idx_write_images(ip, pix, n, rows, cols, 1), GMM_OK);
    idx_array a = {0};
    ck_assert_int_eq(idx_read_images(ip, &a), GMM_OK);
    ck_assert_int_eq(a.n_items, n);
    ck_assert_mem_eq(a.data, pix, (size_t)n * rows * cols);
    idx_free(&a);
    free(pix);
    free(ip);
}
END_TEST

START_TEST(test_wrong_magic)
{
    size_t len;
    unsigned char *buf = make_images(0x12340803u, 2, 2, 2, 8, &len);
    char *p = tmp("magic");
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "magic number 0x12340803", "expected 0x00000803");
    /* Text (e.g. an HTML error page saved under the right name) is a wrong magic too. */
    write_file(p, "<html><body>Not found</body></html>", 35);
    expect_images_error(p, GMM_ERR_FORMAT, "wrong magic number", "0x3c68746d");
    free(buf);
    free(p);
}
END_TEST

START_TEST(test_wrong_element_type)
{
    size_t len;
    unsigned char *buf = make_images(0x00000D03u, 2, 2, 2, 32, &len);
    char *p = tmp("float");
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "element type 0x0D", "float");
    free(buf);
    free(p);
}
END_TEST

START_TEST(test_wrong_dims)
{
    uint8_t labels[3] = {1, 2, 3};
    uint8_t pix[12] = {0};
    char *lp = tmp("labels"), *ip = tmp("images");
    ck_assert_int_eq(idx_write_labels(lp, labels, 3, 0), GMM_OK);
    ck_assert_int_eq(idx_write_images(ip, pix, 3, 2, 2, 0), GMM_OK);
    expect_images_error(lp, GMM_ERR_FORMAT, "dimensions", "label file");

    idx_array a = {0};
    ck_assert_int_eq(idx_read_labels(ip, &a), GMM_ERR_FORMAT);
    const char *msg = gmm_error_message(GMM_ERR_FORMAT);
    ck_assert_msg(strstr(msg, "dimensions") && strstr(msg, "expected 1"), "%s", msg);
    ck_assert_ptr_null(a.data);

    /* A 2-D ubyte file (magic 0x00000802) is neither. */
    size_t len;
    unsigned char *buf = make_images(0x00000802u, 2, 2, 0, 0, &len);
    write_file(ip, buf, 12 + 4);
    expect_images_error(ip, GMM_ERR_FORMAT, "dimensions 2", "expected 3");
    free(buf);
    free(lp);
    free(ip);
}
END_TEST

START_TEST(test_truncated_raw)
{
    size_t len;
    unsigned char *buf = make_images(0x803, 3, 4, 4, 40, &len); /* 48 declared */
    char *p = tmp("short");
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "truncated", "48");
    /* Cut inside the header. */
    write_file(p, buf, 10);
    expect_images_error(p, GMM_ERR_FORMAT, "truncated", "header");
    write_file(p, buf, 3);
    expect_images_error(p, GMM_ERR_FORMAT, "truncated", NULL);
    free(buf);
    free(p);
}
END_TEST

START_TEST(test_trailing_bytes)
{
    size_t len;
    unsigned char *buf = make_images(0x803, 3, 4, 4, 48 + 5, &len);
    char *p = tmp("long"), *pz = tmp("long.gz");
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "5 trailing bytes", NULL);
    write_gz(pz, buf, len);
    expect_images_error(pz, GMM_ERR_FORMAT, "5 trailing bytes", NULL);

    idx_array a = {0};
    unsigned char lab[8 + 4] = {0, 0, 8, 1, 0, 0, 0, 3, 1, 2, 3, 4};
    write_file(p, lab, sizeof lab);
    ck_assert_int_eq(idx_read_labels(p, &a), GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), "1 trailing byte "));
    free(buf);
    free(p);
    free(pz);
}
END_TEST

START_TEST(test_truncated_gzip)
{
    const int n = 50, rows = 28, cols = 28;
    uint8_t *pix = random_bytes((size_t)n * rows * cols, 5); /* incompressible: cuts hit data */
    char *p = tmp("cut.gz");
    ck_assert_int_eq(idx_write_images(p, pix, n, rows, cols, 1), GMM_OK);
    size_t len;
    unsigned char *gz = read_file(p, &len);
    ck_assert_uint_gt(len, 1000);

    write_file(p, gz, len / 2);
    expect_images_error(p, GMM_ERR_FORMAT, "truncated gzip", NULL);
    /* All the data present, only the CRC/length trailer missing. */
    write_file(p, gz, len - 4);
    expect_images_error(p, GMM_ERR_FORMAT, "truncated gzip", NULL);
    /* Inside the gzip header itself. */
    write_file(p, gz, 12);
    idx_array a = {0};
    ck_assert_int_eq(idx_read_images(p, &a), GMM_ERR_FORMAT);
    ck_assert_ptr_null(a.data);
    /* A flipped byte in the compressed data. */
    gz[len / 2] ^= 0x55;
    write_file(p, gz, len);
    ck_assert_int_eq(idx_read_images(p, &a), GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), "gzip"));
    ck_assert_ptr_null(a.data);
    free(gz);
    free(pix);
    free(p);
}
END_TEST

START_TEST(test_missing_file)
{
    char *p = tmp("does-not-exist");
    expect_images_error(p, GMM_ERR_IO, strerror(ENOENT), NULL);
    idx_array a = {0};
    ck_assert_int_eq(idx_read_labels(p, &a), GMM_ERR_IO);
    /* A directory is not a file either. */
    char *d = strdup(tu_tmp_path(""));
    expect_images_error(d, GMM_ERR_IO, "directory", NULL);
    free(d);
    free(p);
}
END_TEST

START_TEST(test_empty_file)
{
    char *p = tmp("empty"), *pz = tmp("empty.gz");
    write_file(p, "", 0);
    expect_images_error(p, GMM_ERR_FORMAT, "empty", NULL);
    write_gz(pz, "", 0); /* a valid gzip stream of nothing */
    expect_images_error(pz, GMM_ERR_FORMAT, "empty", NULL);
    free(p);
    free(pz);
}
END_TEST

START_TEST(test_absurd_sizes)
{
    size_t len;
    char *p = tmp("huge"), *pz = tmp("huge.gz");
    unsigned char *buf = make_images(0x803, 0xFFFFFFFFu, 0xFFFFu, 0xFFFFu, 16, &len);
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "absurd", NULL);
    free(buf);
    /* Fits in 64 bits but is far beyond 2^33 bytes. */
    buf = make_images(0x803, 100000, 1000, 1000, 16, &len);
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "absurd", NULL);
    free(buf);
    /* One dimension overflowing int. */
    buf = make_images(0x803, 0x80000000u, 1, 1, 16, &len);
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "absurd", NULL);
    free(buf);
    /* Just under the limit, in gzip (whose real length is unknown up front): must be reported as
     * truncated after reading the little there is, without allocating 8 GB first. */
    buf = make_images(0x803, 0x7FFFFFFFu, 2, 2, 100, &len);
    write_gz(pz, buf, len);
    expect_images_error(pz, GMM_ERR_FORMAT, "truncated", NULL);
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "truncated", NULL);
    free(buf);
    /* Zero dimensions. */
    buf = make_images(0x803, 3, 0, 4, 0, &len);
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "zero dimension", NULL);
    free(buf);
    buf = make_images(0x803, 0, 28, 28, 0, &len);
    write_file(p, buf, len);
    expect_images_error(p, GMM_ERR_FORMAT, "zero dimension", NULL);
    free(buf);
    free(p);
    free(pz);
}
END_TEST

START_TEST(test_write_errors)
{
    uint8_t pix[4] = {0};
    ck_assert_int_eq(idx_write_images("/nonexistent/dir/x.idx", pix, 1, 2, 2, 0), GMM_ERR_IO);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_IO), "/nonexistent/dir/x.idx"));
    ck_assert_int_eq(idx_write_images("/nonexistent/dir/x.idx.gz", pix, 1, 2, 2, 1), GMM_ERR_IO);
    ck_assert_int_eq(idx_write_images(tu_tmp_path("bad"), pix, 0, 2, 2, 0), GMM_ERR_ARG);
    ck_assert_int_eq(idx_write_labels(tu_tmp_path("bad"), NULL, 1, 0), GMM_ERR_ARG);
}
END_TEST

START_TEST(test_real_mnist)
{
    const char *dir = tu_mnist_dir();
    if (!dir) {
        printf("test_real_mnist: skipped (set GMM_TEST_MNIST_DIR to the MNIST directory)\n");
        return;
    }
    char ip[1024], lp[1024];
    snprintf(ip, sizeof ip, "%s/train-images-idx3-ubyte.gz", dir);
    snprintf(lp, sizeof lp, "%s/train-labels-idx1-ubyte.gz", dir);
    idx_array a = {0}, l = {0};
    gmm_status st = idx_read_images(ip, &a);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    /* The count comes from the header: this copy holds a 19690-image subset. */
    ck_assert_int_eq(a.n_items, 19690);
    ck_assert_int_eq(a.rows, 28);
    ck_assert_int_eq(a.cols, 28);
    st = idx_read_labels(lp, &l);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(l.n_items, a.n_items);
    ck_assert_int_eq(l.data[0], 5); /* MNIST's first training digit is a 5 */
    for (int i = 0; i < l.n_items; i++) ck_assert_int_le(l.data[i], 9);
    idx_free(&a);
    idx_free(&l);

    snprintf(ip, sizeof ip, "%s/t10k-images-idx3-ubyte.gz", dir);
    st = idx_read_images(ip, &a);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    ck_assert_int_eq(a.n_items, 10000);
    idx_free(&a);
}
END_TEST

/* The fast whole-buffer inflate (libdeflate, when built in) gives zlib's bytes for one clean
 * member and declines everything unusual (a wrong length, a second member, junk after it, a cut
 * stream), which then takes the zlib path; the CRC-32 matches zlib's. */
START_TEST(test_fast_gunzip)
{
    size_t n = 300000;
    unsigned char *plain = malloc(n), *out = malloc(n + 16);
    uint64_t state = 5;
    for (size_t i = 0; i < n; i++) plain[i] = (unsigned char)(tu_rand_u64(&state) % 7);
    ck_assert_uint_eq(data_crc32(plain, n),
                      (uint32_t)crc32(crc32(0L, Z_NULL, 0), plain, (uInt)n));
    /* one gzip member through zlib's gz writer, read back whole */
    const char *path = tu_tmp_path("fast.gz");
    gzFile gz = gzopen(path, "wb6");
    ck_assert_ptr_nonnull(gz);
    ck_assert_int_eq(gzwrite(gz, plain, (unsigned)n), (int)n);
    ck_assert_int_eq(gzclose(gz), Z_OK);
    FILE *f = fopen(path, "rb");
    unsigned char *packed = malloc(2 * n + 64);
    size_t m = fread(packed, 1, 2 * n + 64, f);
    fclose(f);
    ck_assert(m > 18 && m < 2 * n);
    if (!gunzip_fast_available()) {
        ck_assert_int_eq(gunzip_fast_exact(packed, m, out, n), 0);
        printf("fast gunzip: not built in (zlib path only)\n");
    } else {
        memset(out, 0xAB, n);
        ck_assert_int_eq(gunzip_fast_exact(packed, m, out, n), 1);
        ck_assert_int_eq(memcmp(out, plain, n), 0);
        ck_assert_int_eq(gunzip_fast_exact(packed, m, out, n - 1), 0); /* wrong length */
        ck_assert_int_eq(gunzip_fast_exact(packed, m - 5, out, n), 0); /* cut */
        memcpy(packed + m, packed, m);                                  /* two members */
        ck_assert_int_eq(gunzip_fast_exact(packed, 2 * m, out, n), 0);
        packed[m] = 'X';                                                /* junk after */
        ck_assert_int_eq(gunzip_fast_exact(packed, m + 1, out, n), 0);
    }
    free(plain);
    free(out);
    free(packed);
}
END_TEST

/* Row ranges (a rank's share): the same bytes as the slice of the whole file, raw (read and
 * memory-mapped) and gzip; the header alone with count 0; a range past the end refused; a gzip
 * file cut after a range reads that range but not one that reaches the cut. */
START_TEST(test_ranges)
{
    const uint32_t count = 37, rows = 3, cols = 5, item = rows * cols;
    size_t len;
    unsigned char *file = make_images(0x00000803, count, rows, cols, count * item, &len);
    for (size_t i = 16; i < len; i++) file[i] = (unsigned char)(i * 131 % 251);
    char *raw = tmp("range-images"), *gz = tmp("range-images.gz"), *cut = tmp("cut-images.gz");
    write_file(raw, file, len);
    write_gz(gz, file, len);
    const int64_t ranges[][2] = {{0, 37}, {0, 13}, {13, 12}, {25, 12}, {36, 1}, {5, -1}};
    for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
        const char *paths[] = {raw, raw, gz};
        for (int form = 0; form < 3; form++) {
            idx_array a = {0};
            ck_assert_int_eq(idx_read_range(paths[form], 3, ranges[r][0], ranges[r][1], form == 1,
                                            &a), GMM_OK);
            int64_t n = ranges[r][1] < 0 ? count - ranges[r][0] : ranges[r][1];
            ck_assert_int_eq(a.n_items, n);
            ck_assert_int_eq(a.n_total, count);
            ck_assert_int_eq(a.first, ranges[r][0]);
            ck_assert(form == 1 ? a.map != NULL : a.map == NULL);
            ck_assert_int_eq(memcmp(a.data, file + 16 + ranges[r][0] * item, (size_t)n * item), 0);
            idx_free(&a);
        }
    }
    idx_array h = {0};
    ck_assert_int_eq(idx_read_range(gz, 3, 0, 0, 0, &h), GMM_OK);
    ck_assert_int_eq(h.n_total, count);
    ck_assert_int_eq(h.rows, rows);
    ck_assert_ptr_null(h.data);
    ck_assert_int_eq(idx_read_range(raw, 3, 30, 8, 0, &h), GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), "items [30, 38)"));
    ck_assert_int_eq(idx_read_range(raw, 3, -1, 2, 1, &h), GMM_ERR_FORMAT);
    /* the gzip stream cut within item 30: items [0, 20) still read, [20, 37) do not */
    size_t gz_len;
    unsigned char *packed = read_file(gz, &gz_len);
    unsigned char *whole = malloc(len);
    z_stream zs = {0};
    ck_assert_int_eq(inflateInit2(&zs, 16 + MAX_WBITS), Z_OK);
    size_t keep = 0;
    for (keep = 20; keep < gz_len; keep++) { /* the shortest prefix that inflates past item 30 */
        inflateReset(&zs);
        zs.next_in = packed;
        zs.avail_in = (uInt)keep;
        zs.next_out = whole;
        zs.avail_out = (uInt)len;
        inflate(&zs, Z_SYNC_FLUSH);
        if (zs.total_out > 16 + 30 * item) break;
    }
    inflateEnd(&zs);
    write_file(cut, packed, keep);
    ck_assert_int_eq(idx_read_range(cut, 3, 0, 20, 0, &h), GMM_OK);
    ck_assert_int_eq(memcmp(h.data, file + 16, 20 * item), 0);
    idx_free(&h);
    ck_assert_int_eq(idx_read_range(cut, 3, 20, 17, 0, &h), GMM_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), "truncated"));
    free(packed);
    free(whole);
    free(file);
    free(raw);
    free(gz);
    free(cut);
}
END_TEST

static Suite *idx_suite(void)
{
    Suite *s = suite_create("idx");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_round_trip_raw);
    tcase_add_test(tc, test_round_trip_gzip);
    tcase_add_test(tc, test_round_trip_large_gzip);
    tcase_add_test(tc, test_fast_gunzip);
    tcase_add_test(tc, test_wrong_magic);
    tcase_add_test(tc, test_wrong_element_type);
    tcase_add_test(tc, test_wrong_dims);
    tcase_add_test(tc, test_truncated_raw);
    tcase_add_test(tc, test_trailing_bytes);
    tcase_add_test(tc, test_truncated_gzip);
    tcase_add_test(tc, test_missing_file);
    tcase_add_test(tc, test_empty_file);
    tcase_add_test(tc, test_absurd_sizes);
    tcase_add_test(tc, test_write_errors);
    tcase_add_test(tc, test_real_mnist);
    tcase_add_test(tc, test_ranges);
    suite_add_tcase(s, tc);
    return s;
}

int main(void) { return tu_run_suite(idx_suite()); }
