/* Implementation of the shared test helpers (see testutil.h). */
#include "tests/testutil.h"

#include "kernels/clock.h"
#include "models/backend/backend.h"

#include "data/idx.h"
#include "kernels/gpu_info.h"

#include <math.h>
#include <png.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

uint64_t tu_rand_u64(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double tu_rand_uniform(uint64_t *state) { return (tu_rand_u64(state) >> 11) * 0x1.0p-53; }

double tu_rand_normal(uint64_t *state)
{
    double u1 = tu_rand_uniform(state), u2 = tu_rand_uniform(state);
    if (u1 < 1e-300) u1 = 1e-300;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void tu_fill_uniform(double *x, size_t n, double lo, double hi, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) x[i] = lo + (hi - lo) * tu_rand_uniform(&s);
}

void tu_fill_uniform_f(float *x, size_t n, float lo, float hi, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; i++) x[i] = (float)(lo + (hi - lo) * tu_rand_uniform(&s));
}

double *tu_make_spd(int dim, int batch, uint64_t seed)
{
    size_t dd = (size_t)dim * dim;
    double *A = malloc(sizeof(double) * dd * batch), *M = malloc(sizeof(double) * dd);
    ck_assert(A && M);
    for (int b = 0; b < batch; b++) {
        tu_fill_uniform(M, dd, -1.0, 1.0, seed + b);
        double *Ab = A + dd * b;
        for (int i = 0; i < dim; i++)
            for (int j = 0; j <= i; j++) {
                double s = 0;
                for (int k = 0; k < dim; k++) s += M[(size_t)i * dim + k] * M[(size_t)j * dim + k];
                s = s / dim + (i == j ? 1.0 : 0.0);
                Ab[(size_t)i * dim + j] = Ab[(size_t)j * dim + i] = s;
            }
    }
    free(M);
    return A;
}

double tu_rel_error(const double *a, const double *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) return INFINITY;
        num += (a[i] - b[i]) * (a[i] - b[i]);
        den += b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

double tu_rel_error_f(const float *a, const float *b, size_t n)
{
    double num = 0, den = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(a[i])) return INFINITY;
        num += ((double)a[i] - b[i]) * ((double)a[i] - b[i]);
        den += (double)b[i] * b[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

static char tmp_dir[256];

static void remove_tmp_dir(void)
{
    if (tmp_dir[0] && getpid() == (pid_t)strtol(strrchr(tmp_dir, '-') + 1, NULL, 10)) {
        char cmd[300];
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
        if (system(cmd) != 0) { /* best effort */ }
    }
}

const char *tu_tmp_path(const char *name)
{
    static _Thread_local char path[512];
    if (!tmp_dir[0]) {
        const char *base = getenv("TMPDIR");
        snprintf(tmp_dir, sizeof tmp_dir, "%s/gmm-test-%ld", base ? base : "/tmp", (long)getpid());
        char cmd[300];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmp_dir);
        if (system(cmd) != 0) return NULL;
        atexit(remove_tmp_dir);
    }
    snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
    return path;
}

const char *tu_mnist_dir(void)
{
    const char *d = getenv("GMM_TEST_MNIST_DIR");
    if (!d || !*d) d = getenv("MNIST_DIR");
    return (d && *d) ? d : NULL;
}

const char *tu_bin_dir(void)
{
    const char *d = getenv("GMM_BIN");
    return (d && *d) ? d : "bin";
}

int tu_run(const char *command, char **output)
{
    char *full = malloc(strlen(command) + 16);
    sprintf(full, "%s 2>&1", command);
    FILE *p = popen(full, "r");
    free(full);
    if (!p) return -1;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 2) buf = realloc(buf, cap *= 2);
    }
    buf[len] = '\0';
    int st = pclose(p);
    if (output) *output = buf; else free(buf);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int vsh(char **out, const char *fmt, va_list ap)
{
    char args[3000], cmd[3600];
    vsnprintf(args, sizeof args, fmt, ap);
    snprintf(cmd, sizeof cmd, "cd '%s' && B='%s' && %s", tu_tmp_path(""), tu_bin_dir(), args);
    return tu_run(cmd, out);
}

int tu_sh(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = vsh(out, fmt, ap);
    va_end(ap);
    return rc;
}

void tu_expect_error(const char *needle, const char *fmt, ...)
{
    char *out = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vsh(&out, fmt, ap);
    va_end(ap);
    ck_assert_msg(rc > 0 && rc < 128, "expected a clean non-zero exit, got %d: %s", rc, out);
    ck_assert_msg(strstr(out, "error: ") != NULL, "no error line in: %s", out);
    ck_assert_msg(strstr(out, needle) != NULL, "'%s' not in: %s", needle, out);
    ck_assert_msg(strstr(out, "Sanitizer") == NULL && strstr(out, "runtime error") == NULL,
                  "sanitizer report: %s", out);
    free(out);
}

const char *tu_fixture_dir(const char *name, int n_images, int side, uint64_t seed, int gzip)
{
    static _Thread_local char dir[512];
    char p[600];
    snprintf(dir, sizeof dir, "%s", tu_tmp_path(name));
    snprintf(p, sizeof p, "%s/t10k-labels-idx1-ubyte", dir);
    struct stat sb;
    if (stat(p, &sb) == 0) return dir; /* written before: the labels go last */
    mkdir(dir, 0755);
    uint8_t *px = malloc((size_t)n_images * side * side), *lab = malloc((size_t)n_images);
    ck_assert(px && lab);
    uint64_t s = seed;
    for (int split = 0; split < 2; split++) {
        for (int i = 0; i < n_images; i++) {
            lab[i] = (uint8_t)(i % 2);
            for (int r = 0; r < side; r++)
                for (int c = 0; c < side; c++) {
                    int bright = (c < side / 2) == (lab[i] == 0);
                    double v = (bright ? 180 : 40) + 60 * (tu_rand_uniform(&s) - 0.5);
                    px[((size_t)i * side + r) * side + c] = (uint8_t)v;
                }
        }
        const char *pre = split ? "t10k" : "train";
        snprintf(p, sizeof p, "%s/%s-images-idx3-ubyte%s", dir, pre, gzip ? ".gz" : "");
        ck_assert_int_eq(idx_write_images(p, px, n_images, side, side, gzip), GMM_OK);
        snprintf(p, sizeof p, "%s/%s-labels-idx1-ubyte", dir, pre);
        ck_assert_int_eq(idx_write_labels(p, lab, n_images, 0), GMM_OK);
    }
    free(px);
    free(lab);
    return dir;
}

int tu_run_suite(Suite *suite)
{
    SRunner *runner = srunner_create(suite);
    srunner_run_all(runner, CK_NORMAL);
    int failed = srunner_ntests_failed(runner);
    srunner_free(runner);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int tu_gpu_available(void)
{
    static int cached = -1;
    if (cached >= 0) return cached;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(gmm_gpu_count() > 0 ? 0 : 1);
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) < 0) return cached = 0;
    return cached = (WIFEXITED(st) && WEXITSTATUS(st) == 0) ? 1 : 0;
}

uint8_t *tu_read_png_rgb(const char *path, int *width, int *height)
{
    png_image img;
    memset(&img, 0, sizeof img);
    img.version = PNG_IMAGE_VERSION;
    ck_assert_msg(png_image_begin_read_from_file(&img, path), "%s: %s", path, img.message);
    img.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc(PNG_IMAGE_SIZE(img));
    ck_assert_ptr_nonnull(rgb);
    ck_assert_msg(png_image_finish_read(&img, NULL, rgb, 0, NULL), "%s: %s", path, img.message);
    *width = (int)img.width;
    *height = (int)img.height;
    return rgb;
}

void tu_poison(double *x, size_t n)
{
    for (size_t i = 0; i < n; i++) x[i] = TU_POISON_F64;
}

const struct gmm_backend *tu_gpu_backend(void)
{
    const gmm_backend *be = NULL;
    gmm_status st = gmm_backend_select(GMM_DEVICE_GPU, NULL, &be, NULL);
    ck_assert_msg(st == GMM_OK, "no GPU backend: %s", gmm_error_message(st));
    ck_assert_str_eq(be->name, "cuda");
    return be;
}

double tu_rel_error_1(double a, double b)
{
    return isfinite(a) ? fabs(a - b) / fmax(fabs(b), 1e-300) : INFINITY;
}

uint8_t *tu_synthetic_bytes(int64_t N, int d, int K, uint64_t seed)
{
    uint8_t *X = malloc((size_t)N * d);
    ck_assert_ptr_nonnull(X);
    uint64_t s = seed;
    for (int64_t i = 0; i < N; i++) {
        int k = (int)(i % K);
        for (int j = 0; j < d; j++) {
            double v = ((j % K) == k ? 200.0 : 60.0) + (12.0 + 4.0 * k) * tu_rand_normal(&s);
            v = v < 0 ? 0 : v > 255 ? 255 : v;
            X[(size_t)i * d + j] = (uint8_t)lround(v);
        }
    }
    return X;
}

long long tu_vm_size_bytes(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %lld kB", &kb) == 1) break;
    if (f) fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* The number in the temporary directory's file `name`, or -1. */
static long read_number(const char *name)
{
    FILE *f = fopen(tu_tmp_path(name), "r");
    long v = -1;
    if (f && fscanf(f, "%ld", &v) != 1) v = -1;
    if (f) fclose(f);
    return v;
}

double tu_signal_rank_mid_fit(const char *mpirun, int np, int victim, int sig, const char *args,
                              long *rc, char **out)
{
    /* each rank writes its pid, then becomes gmm-train */
    ck_assert_int_eq(tu_sh(NULL, "rm -f kill-rank*.pid kill.rc kill.bin && ( %s %d sh -c "
                           "'echo $$ > kill-rank$OMPI_COMM_WORLD_RANK.pid; exec \"$0\" \"$@\"' "
                           "$B/gmm-train %s -v -o kill.bin > kill.log 2>&1; echo $? > kill.rc ) "
                           ">/dev/null 2>&1 &", mpirun, np, args),
                     0);
    char pid_file[64], running[700];
    snprintf(pid_file, sizeof pid_file, "kill-rank%d.pid", victim);
    snprintf(running, sizeof running, "grep -q '^iter   10 ' '%s'", tu_tmp_path("kill.log"));
    double t0 = gmm_clock_seconds();
    long pid = -1;
    while (gmm_clock_seconds() - t0 < 60 && read_number("kill.rc") < 0 &&
           !((pid = read_number(pid_file)) > 0 && tu_run(running, NULL) == 0))
        usleep(50000);
    ck_assert_msg(pid > 0 && read_number("kill.rc") < 0,
                  "the fit did not start, or ended before the kill");
    ck_assert_int_eq(kill((pid_t)pid, sig), 0);
    double t_kill = gmm_clock_seconds();
    while ((*rc = read_number("kill.rc")) < 0 && gmm_clock_seconds() - t_kill < 60) usleep(20000);
    double waited = gmm_clock_seconds() - t_kill;
    if (sig != SIGKILL) kill((pid_t)pid, SIGKILL); /* gone already when the job ended */
    tu_sh(out, "grep -v '^iter' kill.log");
    return waited;
}
