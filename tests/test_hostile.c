/* Check suite for hostile and careless input (issue 14): each finding as a test. An image shape
 * whose size overflows an int, bytes after a gzip stream, a model whose checksum matches but
 * whose numbers make no sense, a NUL inside the stored data path, a FIFO given as a file (in a
 * child with a time limit, so that a hang fails instead of hanging the suite), and a header that
 * promises more than the machine's memory. Crafted files are made here, in the temp directory. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "data/dataset.h"
#include "data/idx.h"
#include "models/io/model_io.h"
#include "tests/testutil.h"

static void write_bytes(const char *path, const void *bytes, size_t len, const char *mode)
{
    FILE *f = fopen(path, mode);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, len, f), len);
    ck_assert_int_eq(fclose(f), 0);
}

static unsigned char *read_bytes(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    fseek(f, 0, SEEK_END);
    *len = (size_t)ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(*len + 1);
    ck_assert_uint_eq(fread(b, 1, *len, f), *len);
    fclose(f);
    return b;
}

/* One gzip member holding len bytes; *out_len its size. */
static unsigned char *gzip_member(const void *data, size_t len, size_t *out_len)
{
    z_stream zs = {0};
    ck_assert_int_eq(deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&zs, len) + 64;
    unsigned char *out = malloc(cap);
    zs.next_in = (unsigned char *)data;
    zs.avail_in = (uInt)len;
    zs.next_out = out;
    zs.avail_out = (uInt)cap;
    ck_assert_int_eq(deflate(&zs, Z_FINISH), Z_STREAM_END);
    *out_len = cap - zs.avail_out;
    deflateEnd(&zs);
    return out;
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

static void idx3_header(unsigned char *b, uint32_t n, uint32_t rows, uint32_t cols)
{
    b[0] = b[1] = 0;
    b[2] = 8;
    b[3] = 3;
    put_be32(b + 4, n);
    put_be32(b + 8, rows);
    put_be32(b + 12, cols);
}

/* An idx3 image file's bytes: header then n * rows * cols pixels (i % 251). */
static unsigned char *idx3_bytes(uint32_t n, uint32_t rows, uint32_t cols, size_t *len)
{
    size_t data = (size_t)n * rows * cols;
    unsigned char *b = malloc(16 + data);
    idx3_header(b, n, rows, cols);
    for (size_t i = 0; i < data; i++) b[16 + i] = (unsigned char)(i % 251);
    *len = 16 + data;
    return b;
}

static void expect_status(gmm_status got, gmm_status want, const char *needle)
{
    const char *msg = gmm_error_message(got);
    ck_assert_msg(got == want, "status %d (want %d): %s", got, want, msg);
    ck_assert_msg(strstr(msg, needle) != NULL, "'%s' not in: %s", needle, msg);
}

/* ---- 1. rows x cols overflowing an int ---------------------------------------------------- */

START_TEST(test_image_dim_overflow)
{
    dataset ds = {.n_samples = 1, .rows = 40, .cols = 107374202};
    snprintf(ds.images_path, sizeof ds.images_path, "crafted-images");
    int dim = 784;
    /* 40 x 107374202 = 4294968080 = 784 modulo 2^32: the wrapped product matched MNIST */
    expect_status(dataset_image_dim(&ds, &dim), GMM_ERR_FORMAT, "4294968080");
    ck_assert_int_eq(dim, 0);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(GMM_ERR_FORMAT), "crafted-images"));
    ds.rows = 4097;
    ds.cols = 4096;
    expect_status(dataset_image_dim(&ds, &dim), GMM_ERR_FORMAT, "4096 x 4096");
    ds.rows = 28;
    ds.cols = 28;
    TU_CHECK_OK(dataset_image_dim(&ds, &dim));
    ck_assert_int_eq(dim, 784);

    /* The file itself: 1 image of 40 x 107374202, as long as the header says (sparse), is
     * refused at the header, before 4.3 GB are allocated and read. */
    const char *p = tu_tmp_path("overflow-images-idx3-ubyte");
    unsigned char hdr[16];
    idx3_header(hdr, 1, 40, 107374202);
    write_bytes(p, hdr, 16, "wb");
    if (truncate(p, (off_t)16 + (off_t)40 * 107374202) != 0) return; /* no sparse files here */
    idx_array a = {0};
    expect_status(idx_read_images(p, &a), GMM_ERR_FORMAT, "4294968080 values");
    ck_assert_ptr_null(a.data);
    unlink(p);
}
END_TEST

/* ---- 2. bytes after the gzip stream ------------------------------------------------------- */

START_TEST(test_gzip_trailing_bytes)
{
    /* the one label, gzip'ed, then one byte 'X' */
    const unsigned char label[] = {0, 0, 8, 1, 0, 0, 0, 1, 7};
    size_t gz_len;
    unsigned char *gz = gzip_member(label, sizeof label, &gz_len);
    const char *p = tu_tmp_path("one-label.gz");
    write_bytes(p, gz, gz_len, "wb");
    idx_array a = {0};
    TU_CHECK_OK(idx_read_labels(p, &a));
    ck_assert_int_eq(a.n_items, 1);
    ck_assert_int_eq(a.data[0], 7);
    idx_free(&a);
    write_bytes(p, "X", 1, "ab");
    expect_status(idx_read_labels(p, &a), GMM_ERR_FORMAT, "1 byte after the end of the gzip");
    ck_assert_ptr_null(a.data);
    free(gz);

    /* 300 images with 1050 junk bytes appended: refused by both the libdeflate and the zlib
     * path (the first rejects anything but one clean member and hands over to the second) */
    size_t raw_len;
    unsigned char *raw = idx3_bytes(300, 28, 28, &raw_len);
    gz = gzip_member(raw, raw_len, &gz_len);
    unsigned char junk[1050];
    for (int i = 0; i < 1050; i++) junk[i] = (unsigned char)(i * 37 + 1);
    write_bytes(p, gz, gz_len, "wb");
    write_bytes(p, junk, sizeof junk, "ab");
    expect_status(idx_read_images(p, &a), GMM_ERR_FORMAT, "1050 bytes after the end of the gzip");
    /* trailing zeros are no better */
    memset(junk, 0, sizeof junk);
    write_bytes(p, gz, gz_len, "wb");
    write_bytes(p, junk, 8, "ab");
    expect_status(idx_read_images(p, &a), GMM_ERR_FORMAT, "8 bytes after the end of the gzip");

    /* two concatenated members are one stream, as gzip -d reads them */
    size_t len1, len2;
    unsigned char *m1 = gzip_member(raw, 1000, &len1);
    unsigned char *m2 = gzip_member(raw + 1000, raw_len - 1000, &len2);
    write_bytes(p, m1, len1, "wb");
    write_bytes(p, m2, len2, "ab");
    TU_CHECK_OK(idx_read_images(p, &a));
    ck_assert_int_eq(a.n_items, 300);
    ck_assert_mem_eq(a.data, raw + 16, raw_len - 16);
    idx_free(&a);
    /* ... and a cut second member is an error, not the first member's data */
    write_bytes(p, m1, len1, "wb");
    write_bytes(p, m2, len2 / 2, "ab");
    expect_status(idx_read_images(p, &a), GMM_ERR_FORMAT, "truncated gzip");
    free(m1);
    free(m2);
    free(gz);
    free(raw);
}
END_TEST

/* ---- 3 and 4. a model whose checksum matches but whose content does not make sense ---------- */

static void make_model(gmm_model *m, gmm_cov_type type)
{
    const int K = 2, d = 3;
    TU_CHECK_OK(gmm_model_alloc(m, K, d, type));
    m->weights[0] = 0.25;
    m->weights[1] = 0.75;
    for (int i = 0; i < K * d; i++) m->means[i] = 0.1 * i;
    size_t n_cov = gmm_cov_size(type, K, d);
    if (type == GMM_COV_FULL || type == GMM_COV_TIED) {
        for (size_t c = 0; c < n_cov / (size_t)(d * d); c++)
            for (int i = 0; i < d; i++)
                for (int j = 0; j < d; j++)
                    m->covariances[c * d * d + (size_t)i * d + j] = i == j ? 2.0 + c : 0.3;
    } else {
        for (size_t i = 0; i < n_cov; i++) m->covariances[i] = 0.5 + 0.25 * (double)i;
    }
    TU_CHECK_OK(gmm_model_compute_precisions(m));
    m->reg_covar = 1e-6;
    m->tol = 1e-3;
    m->max_iter = 100;
    m->n_iter = 5;
    m->n_init = 1;
    m->n_train_samples = 100;
    m->image_rows = 1;
    m->image_cols = 3;
    snprintf(m->data_path, sizeof m->data_path, "/data/abcXdef");
}

/* Saves the model (gmm_model_save writes what it is given, with a correct CRC) and expects
 * loading it to fail with needle in the detail. */
static void expect_model_rejected(const gmm_model *m, const char *needle)
{
    const char *p = tu_tmp_path("hostile-model.bin");
    TU_CHECK_OK(gmm_model_save(p, m));
    gmm_model loaded;
    gmm_status st = gmm_model_load(p, &loaded);
    expect_status(st, GMM_ERR_FORMAT, needle);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(st), p));
    ck_assert_ptr_null(loaded.weights);
}

START_TEST(test_model_semantics)
{
    gmm_model m;
    for (int t = 0; t <= GMM_COV_SPHERICAL; t++) { /* consistent models load */
        make_model(&m, (gmm_cov_type)t);
        const char *p = tu_tmp_path("good-model.bin");
        TU_CHECK_OK(gmm_model_save(p, &m));
        gmm_model loaded;
        TU_CHECK_OK(gmm_model_load(p, &loaded));
        gmm_model_free(&loaded);
        gmm_model_free(&m);
    }

    make_model(&m, GMM_COV_FULL);
    m.weights[0] = 5; /* the weights {5, 7} */
    m.weights[1] = 7;
    expect_model_rejected(&m, "weights sum to 12");
    m.weights[0] = -0.25;
    m.weights[1] = 1.25;
    expect_model_rejected(&m, "weight -0.25");
    m.weights[0] = 0.25;
    m.weights[1] = 0.75;

    double keep = m.means[4];
    m.means[4] = NAN;
    expect_model_rejected(&m, "means of component 1, element 1");
    m.means[4] = keep;

    /* covariances of -1: prediction (which reads only the precisions) was unchanged */
    size_t n_cov = gmm_cov_size(m.covariance_type, 2, 3);
    double *cov = malloc(sizeof(double) * n_cov);
    memcpy(cov, m.covariances, sizeof(double) * n_cov);
    for (size_t i = 0; i < n_cov; i++) m.covariances[i] = -1;
    expect_model_rejected(&m, "covariances of component 0 do not match");
    memcpy(m.covariances, cov, sizeof(double) * n_cov);
    m.covariances[9 + 4] *= 1.001; /* component 1, one diagonal element off by 0.1 % */
    expect_model_rejected(&m, "covariances of component 1 do not match");
    memcpy(m.covariances, cov, sizeof(double) * n_cov);
    free(cov);

    m.precisions_cholesky[3] = 0.5; /* below the diagonal of component 0 */
    expect_model_rejected(&m, "not upper triangular");
    m.precisions_cholesky[3] = 0;
    m.precisions_cholesky[9] = -m.precisions_cholesky[9];
    expect_model_rejected(&m, "diagonal element 0");
    m.precisions_cholesky[9] = -m.precisions_cholesky[9];

    const double bad_blur[] = {1e300, 1e-200, 100.5};
    for (int i = 0; i < 3; i++) {
        m.blur_sigma = bad_blur[i];
        expect_model_rejected(&m, "blur_sigma");
    }
    m.blur_sigma = 1.5;
    m.reg_covar = INFINITY;
    expect_model_rejected(&m, "reg_covar");
    m.reg_covar = 1e-6;
    m.tol = -1;
    expect_model_rejected(&m, "tol");
    m.tol = 1e-3;
    gmm_model_free(&m);

    make_model(&m, GMM_COV_DIAG);
    m.covariances[2] = -m.covariances[2];
    expect_model_rejected(&m, "variance");
    m.covariances[2] = -m.covariances[2] * 2;
    expect_model_rejected(&m, "do not match");
    gmm_model_free(&m);
}
END_TEST

START_TEST(test_model_path_with_nul)
{
    gmm_model m;
    make_model(&m, GMM_COV_SPHERICAL);
    const char *p = tu_tmp_path("nul-path.bin");
    TU_CHECK_OK(gmm_model_save(p, &m));
    gmm_model_free(&m);
    size_t len;
    unsigned char *b = read_bytes(p, &len);
    unsigned char *x = memchr(b, 'X', len); /* "/data/abcXdef" */
    ck_assert_ptr_nonnull(x);
    *x = 0;
    uint32_t crc = (uint32_t)crc32(0L, b, (uInt)(len - 4));
    for (int i = 0; i < 4; i++) b[len - 4 + i] = (unsigned char)(crc >> (8 * i));
    write_bytes(p, b, len, "wb");
    free(b);
    gmm_model loaded;
    expect_status(gmm_model_load(p, &loaded), GMM_ERR_FORMAT, "NUL byte at offset 9");
}
END_TEST

/* ---- 5. a FIFO given as the data file or the model file ------------------------------------ */

START_TEST(test_fifo_fails_at_once)
{
    const char *fifo = tu_tmp_path("fifo-images-idx3-ubyte");
    ck_assert_int_eq(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        alarm(10); /* a hang is a failure, not a stuck suite */
        idx_array a = {0};
        gmm_model m;
        dataset ds;
        int bad = 0;
        gmm_status st = idx_read_images(fifo, &a);
        bad |= st != GMM_ERR_IO || !strstr(gmm_error_message(st), "FIFO");
        st = idx_read_labels(fifo, &a);
        bad |= (st != GMM_ERR_IO) << 1;
        st = gmm_model_load(fifo, &m);
        bad |= (st != GMM_ERR_IO || !strstr(gmm_error_message(st), "FIFO")) << 2;
        st = dataset_load(fifo, DATASET_TRAIN, &ds);
        bad |= (st != GMM_ERR_IO || !strstr(gmm_error_message(st), "FIFO")) << 3;
        _exit(bad);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(!WIFSIGNALED(status), "the reader hung on the FIFO (killed by signal %d)",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "a FIFO was not refused as a non-regular file (mask %d)", WEXITSTATUS(status));
    unlink(fifo);
}
END_TEST

/* ---- 6. a header promising more than the machine's memory --------------------------------- */


START_TEST(test_memory_claim_fails_at_once)
{
#if defined(__SANITIZE_ADDRESS__)
    printf("test_memory_claim_fails_at_once: skipped under AddressSanitizer (an address-space "
           "limit breaks its shadow memory)\n");
#else
    /* a 50-byte gzip whose IDX header claims 8192 x 1024 x 1024 = 2^33 bytes of images */
    unsigned char hdr[20];
    idx3_header(hdr, 8192, 1024, 1024);
    memset(hdr + 16, 0, 4);
    size_t gz_len;
    unsigned char *gz = gzip_member(hdr, sizeof hdr, &gz_len);
    const char *pz = tu_tmp_path("huge-claim.gz"), *pr = tu_tmp_path("huge-claim-raw");
    write_bytes(pz, gz, gz_len, "wb");
    write_bytes(pr, hdr, sizeof hdr, "wb");
    free(gz);
    long long vm = tu_vm_size_bytes();
    if (vm < 0 || vm + (1ll << 30) >= (1ll << 33)) return;
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        alarm(10);
        /* this process may have its current size and 1 GiB more: less than the claim */
        struct rlimit rl = {.rlim_cur = (rlim_t)(vm + (1ll << 30)), .rlim_max = RLIM_INFINITY};
        if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(10);
        char want[64];
        snprintf(want, sizeof want, "%llu bytes this process may have",
                 (unsigned long long)rl.rlim_cur);
        int bad = 0;
        idx_array a = {0};
        const char *paths[2] = {pz, pr};
        for (int i = 0; i < 2; i++) {
            gmm_status st = idx_read_images(paths[i], &a);
            const char *msg = gmm_error_message(st);
            if (st != GMM_ERR_NOMEM || !strstr(msg, "8589934592 bytes of data") || !strstr(msg, want)) {
                fprintf(stderr, "%s: status %d: %s\n", paths[i], st, msg);
                bad |= 1 << i;
            }
        }
        _exit(bad);
    }
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "the reader did not fail at once (signal %d)",
                  WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    ck_assert_msg(WEXITSTATUS(status) == 0,
                  "a claim above the memory was not refused with both numbers (mask %d)",
                  WEXITSTATUS(status));
#endif
}
END_TEST

/* ---- the programs ---------------------------------------------------------------------------- */

START_TEST(test_programs_refuse)
{
    /* --blur 1e-200 gave 0/0 in the filter */
    tu_expect_error("--blur", "$B/gmm-train nowhere --blur 1e-200");
    tu_expect_error("--blur", "$B/gmm-predict model.bin --blur 1e-200");
    tu_expect_error("--blur", "$B/gmm-train nowhere --blur 1e300");
    /* a FIFO as the data file and as the model file: an error at once, never a hang */
    ck_assert_int_eq(mkfifo(tu_tmp_path("prog-fifo"), 0600), 0);
    tu_expect_error("FIFO", "timeout 20 $B/gmm-train prog-fifo --device cpu");
    tu_expect_error("FIFO", "timeout 20 $B/gmm-predict prog-fifo --device cpu");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_image_dim_overflow);
    tcase_add_test(tc, test_gzip_trailing_bytes);
    tcase_add_test(tc, test_model_semantics);
    tcase_add_test(tc, test_model_path_with_nul);
    tcase_add_test(tc, test_fifo_fails_at_once);
    tcase_add_test(tc, test_memory_claim_fails_at_once);
    tcase_add_test(tc, test_programs_refuse);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
