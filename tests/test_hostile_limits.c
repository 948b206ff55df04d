/* Check suite for sizes and limits: a header is checked before the file behind it is
 * read or inflated (a sparse 6 GB non-model, a model whose header promises more than its file, a
 * .gz IDX bomb), the memory budget's cgroup limits read from a fake cgroup tree, the IDX writer
 * refusing a file larger than the reader accepts, a memory limit that ends --pca in "out of
 * memory" instead of a spin inside OpenBLAS, and a memory-mapped training file truncated during
 * the fit ending in an error, not SIGBUS. Whatever could hang runs in a child with a time limit
 * (alarm, timeout -s KILL), so that a regression fails instead of hanging the suite. */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "data/file_open.h"
#include "data/idx.h"
#include "data/idx_writer.h"
#include "models/io/model_io.h"
#include "tests/testutil.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#else
#define UNDER_ASAN 0
#endif

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

static void make_dirs(const char *path)
{
    char p[1024];
    snprintf(p, sizeof p, "%s", path);
    for (char *s = p + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
}

/* The child's status and its peak resident memory (KiB) after fn ran in it under an alarm of
 * `seconds` (and, when as_limit > 0, an address-space limit of as_limit bytes). fn returns the
 * child's exit code. */
static int run_child(int (*fn)(const void *), const void *arg, unsigned seconds,
                     long long as_limit, long *max_rss_kib)
{
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        signal(SIGALRM, SIG_DFL);
        alarm(seconds);
        if (as_limit > 0) {
            struct rlimit rl = {.rlim_cur = (rlim_t)as_limit, .rlim_max = RLIM_INFINITY};
            if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(100);
        }
        _exit(fn(arg));
    }
    int status = 0;
    struct rusage ru;
    memset(&ru, 0, sizeof ru);
    ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
    *max_rss_kib = ru.ru_maxrss;
    return status;
}


/* ---- headers first: model files -------------------------------------------------------------- */

/* 0 when loading the file fails with the status and message expected (arg: {path, code, text}) */
typedef struct {
    const char *path;
    gmm_status code;
    const char *needle;
} load_case;

static int load_fails_as_expected(const void *arg)
{
    const load_case *c = arg;
    gmm_model m;
    gmm_status st = gmm_model_load(c->path, &m);
    if (st == GMM_OK) {
        gmm_model_free(&m);
        return 1;
    }
    if (st != c->code || !strstr(gmm_error_message(st), c->needle)) {
        fprintf(stderr, "%s: status %d: %s\n", c->path, st, gmm_error_message(st));
        return 2;
    }
    return 0;
}

#define SIX_GB ((off_t)6 << 30)

START_TEST(test_sparse_non_model_fails_at_once)
{
    /* 6 GB of zeros that take no disk: the loader read all of it (6.3 GB of memory, 29 s)
     * before it looked at the magic */
    const char *path = tu_tmp_path("sparse-6g.bin");
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, SIX_GB), 0);
    close(fd);
    load_case c = {path, GMM_ERR_FORMAT, "wrong magic"};
    long rss = 0;
    long long vm = tu_vm_size_bytes();
    /* the child may have its current size and 256 MiB more (no limit under ASan: its shadow
     * memory needs the address space; the peak resident memory still tells) */
    int status = run_child(load_fails_as_expected, &c, 30,
                           UNDER_ASAN || vm < 0 ? 0 : vm + (256ll << 20), &rss);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "a 6 GB non-model did not fail with 'wrong magic' (status 0x%x)", status);
    ck_assert_msg(rss < 512 * 1024, "the loader's peak memory was %ld KiB for a 6 GB non-model",
                  rss);
    tu_expect_error("wrong magic", "$B/gmm-predict sparse-6g.bin nowhere --device cpu");
    unlink(path);
}
END_TEST

START_TEST(test_model_header_promising_more_than_the_file)
{
    /* a real model's header, its component count raised to 10^6: the 6 GB (sparse) file cannot
     * hold what the header promises, which is said before the file is read */
    const char *dir = tu_fixture_dir("limits-fixture", 40, 8, 7, 0);
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' --device cpu -k 2 --covariance full -o lim-small.bin "
                         "--png '' -q", dir);
    ck_assert_msg(rc == 0, "gmm-train: %s", out);
    free(out);
    FILE *f = fopen(tu_tmp_path("lim-small.bin"), "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char head[4096];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    ck_assert_uint_gt(n, 64);
    /* magic (8), version, dtype, then n_components (u32 little-endian at byte 16) */
    const uint32_t k = 1000000;
    for (int i = 0; i < 4; i++) head[16 + i] = (unsigned char)(k >> (8 * i));
    const char *path = tu_tmp_path("lim-promises.bin");
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, head, n), (ssize_t)n);
    ck_assert_int_eq(ftruncate(fd, SIX_GB), 0);
    close(fd);
    load_case c = {path, GMM_ERR_FORMAT, "cannot hold a model with n_components=1000000"};
    long rss = 0;
    long long vm = tu_vm_size_bytes();
    int status = run_child(load_fails_as_expected, &c, 30,
                           UNDER_ASAN || vm < 0 ? 0 : vm + (256ll << 20), &rss);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "a header promising more than its file was not refused (status 0x%x)", status);
    ck_assert_msg(rss < 512 * 1024, "the loader's peak memory was %ld KiB", rss);
    unlink(path);
}
END_TEST

/* ---- headers first: a .gz IDX bomb ----------------------------------------------------------- */

/* dir/train-images-idx3-ubyte.gz: one gzip member of an IDX header declaring 2^31 - 1 images of
 * 28 x 28, then zero_mib MiB of zeros (about 1 KiB of file per MiB) */
static void write_gzip_bomb(const char *dir, int zero_mib)
{
    make_dirs(dir);
    char path[1024];
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    gzFile gz = gzopen(path, "wb9");
    ck_assert_ptr_nonnull(gz);
    const unsigned char header[16] = {0, 0, 8, 3, 0x7f, 0xff, 0xff, 0xff, 0, 0, 0, 28, 0, 0, 0, 28};
    ck_assert_int_eq(gzwrite(gz, header, sizeof header), (int)sizeof header);
    unsigned char *zeros = calloc(1, 1 << 20);
    ck_assert_ptr_nonnull(zeros);
    for (int i = 0; i < zero_mib; i++) ck_assert_int_eq(gzwrite(gz, zeros, 1 << 20), 1 << 20);
    free(zeros);
    ck_assert_int_eq(gzclose(gz), Z_OK);
}

static int bomb_refused(const void *arg)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", (const char *)arg);
    idx_array a = {0};
    gmm_status st = idx_read_images(path, &a);
    if (st == GMM_OK) {
        idx_free(&a);
        return 1;
    }
    if (st != GMM_ERR_FORMAT || !strstr(gmm_error_message(st), "count 2147483647")) {
        fprintf(stderr, "status %d: %s\n", st, gmm_error_message(st));
        return 2;
    }
    return 0;
}

START_TEST(test_gzip_bomb_refused_before_inflating)
{
    /* 512 MiB of zeros behind the header: the reader inflated all of it (the fast path, into
     * memory) before it read the header that it then refused */
    const char *dir = tu_tmp_path("lim-bomb");
    write_gzip_bomb(dir, 512);
    long rss = 0;
    int status = run_child(bomb_refused, dir, 30, 0, &rss);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                  "the bomb was not refused for its header (status 0x%x)", status);
    ck_assert_msg(rss < 128 * 1024, "the reader's peak memory was %ld KiB for the bomb", rss);
    /* the programs under a 300 MB address-space limit: the same message. Two BLAS threads, as
     * the other limit tests: OpenBLAS starts one per core when it is loaded, before main, and
     * on a 16-core machine that start alone fails under 300 MB (in OpenBLAS, not here) */
    if (!UNDER_ASAN)
        tu_expect_error("count 2147483647", "ulimit -v 300000 && OMP_NUM_THREADS=2 "
                        "MALLOC_ARENA_MAX=2 timeout -s KILL 60 $B/gmm-train lim-bomb --device cpu "
                        "-k 2 -o lim-bomb.bin");
}
END_TEST

/* ---- the memory budget: cgroup limits -------------------------------------------------------- */

/* A memory cgroup of its own, limited to limit_bytes, for the test's child (v1's memory
 * controller, or v2's where the root delegates it): its directory in dir, or 0 where this
 * machine does not let the test make one (not root, no writable controller). */
static int make_memory_cgroup(char *dir, size_t len, long long limit_bytes)
{
    static const char *const roots[2][2] = {{"/sys/fs/cgroup/memory", "memory.limit_in_bytes"},
                                            {"/sys/fs/cgroup", "memory.max"}};
    for (int v = 0; v < 2; v++) {
        snprintf(dir, len, "%s/gmm-test-%d", roots[v][0], (int)getpid());
        if (mkdir(dir, 0755) != 0) continue;
        char file[1200];
        snprintf(file, sizeof file, "%s/%s", dir, roots[v][1]);
        FILE *f = fopen(file, "w");
        int ok = f && fprintf(f, "%lld\n", limit_bytes) > 0;
        if (f) ok = fclose(f) == 0 && ok;
        if (ok) return 1;
        rmdir(dir);
    }
    return 0;
}

/* A header within the IDX limits that promises more than the process's cgroup allows (400000
 * images of 28 x 28, 314 MB, all there as gzip'd zeros; the cgroup allows 200 MB): refused for
 * the cgroup's limit before it is inflated. Before, the memory budget saw only the machine's
 * memory and the rlimits: the reader inflated the file and the cgroup's OOM killer ended the
 * program (SIGKILL). */
START_TEST(test_cgroup_sized_bomb)
{
    char cg[1024];
    if (UNDER_ASAN) { /* its shadow memory and quarantine are not the program's own */
        printf("test_cgroup_sized_bomb: skipped under AddressSanitizer\n");
        return;
    }
    if (geteuid() != 0 || !make_memory_cgroup(cg, sizeof cg, 200ll << 20)) {
        printf("test_cgroup_sized_bomb: skipped (cannot make a memory cgroup here: needs root "
               "and a writable memory controller)\n");
        return;
    }
    char dir[1024], path[1200];
    snprintf(dir, sizeof dir, "%s", tu_tmp_path("lim-cgroup"));
    make_dirs(dir);
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte.gz", dir);
    gzFile gz = gzopen(path, "wb1");
    ck_assert_ptr_nonnull(gz);
    const unsigned char header[16] = {0, 0, 8, 3, 0, 0x06, 0x1a, 0x80, 0, 0, 0, 28, 0, 0, 0, 28};
    ck_assert_int_eq(gzwrite(gz, header, sizeof header), (int)sizeof header);
    unsigned char *zeros = calloc(1, 1 << 20);
    ck_assert_ptr_nonnull(zeros);
    for (long long left = 400000ll * 784; left > 0; left -= 1 << 20) {
        const int n = left < (1 << 20) ? (int)left : 1 << 20;
        ck_assert_int_eq(gzwrite(gz, zeros, (unsigned)n), n);
    }
    free(zeros);
    ck_assert_int_eq(gzclose(gz), Z_OK);
    char *out = NULL;
    int rc = tu_sh(&out, "echo $$ > '%s/cgroup.procs' && OMP_NUM_THREADS=2 timeout -s KILL 60 "
                         "$B/gmm-train lim-cgroup --device cpu -k 2 -o lim-cgroup.bin",
                   cg);
    rmdir(cg); /* empty again once the child has gone */
    ck_assert_msg(rc == 2 && strstr(out, "error: ") &&
                      strstr(out, "313600000 bytes of data, more than the"),
                  "rc %d: %s", rc, out);
    ck_assert_msg(strstr(out, "cgroup"), "the message does not name the cgroup: %s", out);
    free(out);
}
END_TEST

START_TEST(test_cgroup_limits_from_a_fake_tree)
{
    char root[1024], p[1200];
    snprintf(root, sizeof root, "%s", tu_tmp_path("fake-cgroup"));
    make_dirs(root);
    /* cgroup v2: the lowest of memory.max and memory.high on the way up, the root's included */
    snprintf(p, sizeof p, "%s/app.slice/job/step", root);
    make_dirs(p);
    snprintf(p, sizeof p, "%s/memory.max", root);
    write_text(p, "max\n");
    snprintf(p, sizeof p, "%s/app.slice/memory.max", root);
    write_text(p, "1073741824\n");
    snprintf(p, sizeof p, "%s/app.slice/job/memory.max", root);
    write_text(p, "max\n");
    snprintf(p, sizeof p, "%s/app.slice/job/memory.high", root);
    write_text(p, "805306368\n");
    snprintf(p, sizeof p, "%s/app.slice/job/step/memory.max", root);
    write_text(p, "max\n");
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "0::/app.slice/job/step\n"), 805306368u);
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "0::/app.slice\n"), 1073741824u);
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "0::/\n"), UINT64_MAX);
    /* a path that is not there (a container's view of the host's path): the levels above */
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "0::/app.slice/gone/away\n"), 1073741824u);
    /* cgroup v1: memory.limit_in_bytes under ROOT/memory, "unlimited" a huge number */
    snprintf(p, sizeof p, "%s/memory/docker/abc", root);
    make_dirs(p);
    snprintf(p, sizeof p, "%s/memory/memory.limit_in_bytes", root);
    write_text(p, "9223372036854771712\n");
    snprintf(p, sizeof p, "%s/memory/docker/memory.limit_in_bytes", root);
    write_text(p, "536870912\n");
    snprintf(p, sizeof p, "%s/memory/docker/abc/memory.limit_in_bytes", root);
    write_text(p, "9223372036854771712\n");
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "9:pids:/docker/abc\n"
                                                     "4:cpuacct,memory:/docker/abc\n"
                                                     "1:cpu:/\n"),
                      536870912u);
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "4:memory:/\n"), 9223372036854771712ull);
    /* both kinds (a hybrid mount): the lower */
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "4:memory:/docker/abc\n0::/app.slice/job\n"),
                      536870912u);
    /* nothing readable: no limit */
    ck_assert_uint_eq(file_cgroup_memory_limit(root, ""), UINT64_MAX);
    ck_assert_uint_eq(file_cgroup_memory_limit("/nonexistent-cgroup-root", "0::/x\n"), UINT64_MAX);
    /* a limit file that holds garbage is no limit */
    snprintf(p, sizeof p, "%s/app.slice/memory.max", root);
    write_text(p, "12abc\n");
    ck_assert_uint_eq(file_cgroup_memory_limit(root, "0::/app.slice\n"), UINT64_MAX);
    /* the budget itself never passes this process's address-space limit */
    ck_assert_uint_gt(file_memory_budget(), 0);
}
END_TEST

/* ---- the IDX writer: nothing the reader would refuse ----------------------------------------- */

/* Temporary files of lim-huge.idx left in the test directory (".lim-huge.idx.XXXXXX",
 * data/file_write.h). */
static int huge_temporaries_left(void)
{
    char *left = NULL;
    ck_assert_int_eq(tu_sh(&left, "ls -a | grep -c '^\\.lim-huge\\.idx\\.' || true"), 0);
    int n = atoi(left);
    free(left);
    return n;
}

START_TEST(test_idx_writer_refuses_oversized_files)
{
    char path[1024]; /* a copy: tu_tmp_path's buffer is reused by tu_sh */
    snprintf(path, sizeof path, "%s", tu_tmp_path("lim-huge.idx"));
    idx_writer w;
    /* 2^32 - 1 images of 28 x 28: 3.4 TB (gmm-augment -n 4294967295 started writing it) */
    gmm_status st = idx_writer_open(&w, path, 3, 4294967295ll, 28, 28);
    ck_assert_int_eq(st, GMM_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(gmm_error_message(st), "at most"));
    /* 11 million images of 28 x 28: 8.6 GB, past the reader's 2^33 bytes */
    st = idx_writer_open(&w, path, 3, 11000000, 28, 28);
    ck_assert_int_eq(st, GMM_ERR_ARG);
    /* labels: more than INT32_MAX items */
    st = idx_writer_open(&w, path, 1, 3000000000ll, 1, 1);
    ck_assert_int_eq(st, GMM_ERR_ARG);
    struct stat sb;
    ck_assert_int_ne(stat(path, &sb), 0);
    ck_assert_int_eq(huge_temporaries_left(), 0);
    /* at the limit itself: 2^33 bytes of data is still a file the reader takes */
    st = idx_writer_open(&w, path, 3, 8192, 1024, 1024);
    ck_assert_msg(st == GMM_OK, "%s", gmm_error_message(st));
    idx_writer_abort(&w);
    ck_assert_int_eq(huge_temporaries_left(), 0);
}
END_TEST

/* ---- BLAS under an address-space limit ------------------------------------------------------- */

START_TEST(test_pca_under_ulimit_is_an_error_not_a_spin)
{
    if (UNDER_ASAN) {
        printf("test_pca_under_ulimit: skipped under AddressSanitizer (an address-space limit "
               "breaks its shadow memory)\n");
        return;
    }
    const char *mnist = tu_mnist_dir();
    if (!mnist) {
        printf("test_pca_under_ulimit: skipped (no MNIST directory)\n");
        return;
    }
    /* OpenBLAS spun for ever inside cblas_dsyrk under these limits (340-450 MB): killed after
     * 60 s it fails here; it must fit and finish, or say out of memory */
    const int limits_kib[] = {340000, 400000, 450000};
    for (int i = 0; i < 3; i++) {
        char *out = NULL;
        int rc = tu_sh(&out, "ulimit -v %d && OMP_NUM_THREADS=2 MALLOC_ARENA_MAX=2 "
                             "timeout -s KILL 60 $B/gmm-train '%s' --device cpu -k 10 --pca 50 "
                             "-o lim-pca.bin --png '' -q", limits_kib[i], mnist);
        ck_assert_msg(rc == 0 || (rc == 2 && strstr(out, "error: out of memory")),
                      "gmm-train --pca 50 under ulimit -v %d: rc %d: %s", limits_kib[i], rc, out);
        free(out);
    }
    /* gmm-predict with a PCA model spun under 150-250 MB */
    char *out = NULL;
    int rc = tu_sh(&out, "$B/gmm-train '%s' --device cpu -k 5 --pca 20 --limit 3000 "
                         "-o lim-pca-model.bin --png '' -q", mnist);
    ck_assert_msg(rc == 0, "gmm-train --pca 20: %s", out);
    free(out);
    const int predict_kib[] = {150000, 200000, 250000};
    for (int i = 0; i < 3; i++) {
        rc = tu_sh(&out, "ulimit -v %d && OMP_NUM_THREADS=2 MALLOC_ARENA_MAX=2 "
                         "timeout -s KILL 60 $B/gmm-predict lim-pca-model.bin '%s' --device cpu",
                   predict_kib[i], mnist);
        ck_assert_msg(rc == 0 || (rc == 2 && strstr(out, "error: out of memory")),
                      "gmm-predict (PCA model) under ulimit -v %d: rc %d: %s", predict_kib[i], rc,
                      out);
        free(out);
    }
}
END_TEST

/* ---- a memory-mapped training file truncated during the fit ---------------------------------- */

static int file_has(const char *path, const char *needle)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    char buf[1 << 14];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

START_TEST(test_truncated_mapped_file_is_an_error)
{
    if (UNDER_ASAN) {
        printf("test_truncated_mapped_file: skipped under AddressSanitizer (the mapped path is "
               "taken under an address-space limit, which breaks its shadow memory)\n");
        return;
    }
    /* 64000 raw images of 28 x 28 (50 MB): as float64 (401 MB) more than half of a 730 MB
     * limit, so the one-process fit keeps them as bytes, memory-mapped */
    const int n = 64000, d = 784;
    const char *dir = tu_tmp_path("lim-mapped");
    make_dirs(dir);
    char images[1100], log[1100];
    snprintf(images, sizeof images, "%s/train-images-idx3-ubyte", dir);
    snprintf(log, sizeof log, "%s/out.txt", dir);
    uint8_t *px = tu_synthetic_bytes(n, d, 2, 11);
    FILE *f = fopen(images, "wb");
    ck_assert_ptr_nonnull(f);
    const unsigned char header[16] = {0, 0, 8, 3, (unsigned char)(n >> 24),
                                      (unsigned char)(n >> 16), (unsigned char)(n >> 8),
                                      (unsigned char)n, 0, 0, 0, 28, 0, 0, 0, 28};
    ck_assert_uint_eq(fwrite(header, 1, 16, f), 16);
    ck_assert_uint_eq(fwrite(px, 1, (size_t)n * d, f), (size_t)n * d);
    ck_assert_int_eq(fclose(f), 0);
    free(px);

    char cmd[4096];
    snprintf(cmd, sizeof cmd,
             "ulimit -v 730000 && cd '%s' && OMP_NUM_THREADS=2 MALLOC_ARENA_MAX=2 "
             "GMM_CPU_CHUNK_ROWS=2048 exec timeout -s KILL 120 '%s/gmm-train' '%s' --device cpu "
             "-k 2 --covariance diag --max-iter 100000 --tol 0 -o mapped.bin --png '' > '%s' 2>&1",
             dir, tu_bin_dir(), dir, log);
    fflush(NULL);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(127);
    }
    /* wait for the fit's first iterations, then cut the file to its header */
    int fitting = 0;
    for (int t = 0; t < 600 && !fitting; t++) {
        fitting = file_has(log, "iter    2");
        if (!fitting) {
            int status;
            if (waitpid(pid, &status, WNOHANG) == pid) {
                f = fopen(log, "r");
                char buf[4096] = {0};
                if (f) {
                    size_t got = fread(buf, 1, sizeof buf - 1, f);
                    buf[got] = '\0';
                    fclose(f);
                }
                ck_abort_msg("gmm-train ended before fitting (status 0x%x): %s", status, buf);
            }
            usleep(100000);
        }
    }
    ck_assert_msg(fitting, "gmm-train did not start fitting in 60 s");
    ck_assert_int_eq(truncate(images, 16), 0);
    int status = 0;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    f = fopen(log, "r");
    char buf[1 << 14] = {0};
    if (f) {
        size_t got = fread(buf, 1, sizeof buf - 1, f);
        buf[got] = '\0';
        fclose(f);
    }
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2,
                  "expected exit 2 after the truncation, got status 0x%x: %s", status, buf);
    ck_assert_msg(strstr(buf, "changed size while being read") && strstr(buf, images),
                  "no message naming the file: %s", buf);
    char model[1100];
    snprintf(model, sizeof model, "%s/mapped.bin", dir);
    struct stat sb;
    ck_assert_msg(stat(model, &sb) != 0, "a model was written from a truncated file");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hostile_limits");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, test_sparse_non_model_fails_at_once);
    tcase_add_test(tc, test_model_header_promising_more_than_the_file);
    tcase_add_test(tc, test_gzip_bomb_refused_before_inflating);
    tcase_add_test(tc, test_cgroup_limits_from_a_fake_tree);
    tcase_add_test(tc, test_cgroup_sized_bomb);
    tcase_add_test(tc, test_idx_writer_refuses_oversized_files);
    tcase_add_test(tc, test_pca_under_ulimit_is_an_error_not_a_spin);
    tcase_add_test(tc, test_truncated_mapped_file_is_an_error);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
}
