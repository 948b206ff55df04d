/* Implementation of the shared test helpers (see testutil.h). */
#include "tests/testutil.h"

#include "kernels/gpu_info.h"

#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
