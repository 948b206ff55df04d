/* Implementation of the shared command-line helpers (see cli.h). */
#include "app/cli.h"

#include "models/backend/backend.h"
#include "models/dist/comm.h"
#include "models/features/finite_check.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "kernels/blas_cpu.h"
#include "kernels/clock.h"
#include "kernels/gpu.h"
#include "kernels/gpu_info.h"

#ifndef GMM_VERSION
#error "GMM_VERSION: the Makefile passes the version (its SO_VERSION) to the app/ objects"
#endif

const char *cli_program = "gmm";

int cli_version(void)
{
    printf("%s %s\n", cli_program, GMM_VERSION);
    return 0;
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: error: ", cli_program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 1;
}

int cli_fail(gmm_status status)
{
    /* a failed allocation says so first, whatever its detail's words ("cannot allocate ...") */
    const char *message = gmm_error_message(status);
    const int say_oom = status == GMM_ERR_NOMEM && !strstr(message, "out of memory");
    fprintf(stderr, "%s: error: %s%s\n", cli_program, say_oom ? "out of memory: " : "", message);
    return 2;
}

/* "must be >= MIN" for a value below a range that only the type bounds above, else "must be
 * between MIN and MAX" (a value above the range, or past the 64-bit range: never "must be >= 1"
 * for a value that is too large) */
static void int_range_error(const char *option, long long min, long long max, int below,
                            const char *got)
{
    if (below && (max == INT32_MAX || max == INT64_MAX))
        cli_error("%s must be >= %lld, got %s", option, min, got);
    else
        cli_error("%s must be between %lld and %lld, got %s", option, min, max, got);
}

int cli_parse_int(const char *option, const char *text, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (!*text || *end || (errno && errno != ERANGE)) {
        cli_error("%s expects an integer, got '%s'", option, text);
        return -1;
    }
    if (errno == ERANGE || v < min || v > max) { /* ERANGE: past the 64-bit range */
        int_range_error(option, min, max, errno == ERANGE ? v < 0 : v < min, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double_range(const char *option, const char *text, double min, double max,
                           double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    /* ERANGE on underflow still gives a usable (tiny or zero) number: only overflow is refused */
    int overflow = errno == ERANGE && isinf(v);
    if (!*text || *end || (errno && errno != ERANGE) || isnan(v)) {
        cli_error("%s expects a number, got '%s'", option, text);
        return -1;
    }
    if (overflow || v < min || v > max) {
        if (v < min && max >= GMM_MAX_ABS_VALUE) /* below a range bounded above by the default */
            cli_error("%s must be >= %g, got '%s'", option, min, text);
        else
            cli_error("%s must be between %g and %g, got '%s'", option, min, max, text);
        return -1;
    }
    *out = v;
    return 0;
}

int cli_parse_double(const char *option, const char *text, double min, double *out)
{
    return cli_parse_double_range(option, text, min, GMM_MAX_ABS_VALUE, out);
}

int cli_parse_bytes(const char *option, const char *text, long long *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    double unit = !*end ? 1 : !strcmp(end, "K") || !strcmp(end, "k") ? 1024.0
                             : !strcmp(end, "M") ? 1048576.0
                             : !strcmp(end, "G") ? 1073741824.0 : 0;
    if (!*text || errno || !isfinite(v) || unit == 0 || end == text) {
        cli_error("%s expects a size in bytes (K, M, G suffixes), got '%s'", option, text);
        return -1;
    }
    v *= unit;
    if (v < 1 || v > 9.0e18) {
        cli_error("%s must be between 1 byte and 8 EiB, got '%s'", option, text);
        return -1;
    }
    *out = (long long)v;
    return 0;
}

void cli_progress(void *user, int init_index, int iteration, double lower_bound, double change,
                  double seconds)
{
    const cli_progress_state *st = user;
    if (st && st->quiet) return;
    if (st && st->n_init > 1)
        printf("init %d ", init_index + 1);
    if (iteration == 1)
        printf("iter %4d  lower bound %14.6f  change %12s  %7.3f s\n", iteration, lower_bound,
               "-", seconds);
    else
        printf("iter %4d  lower bound %14.6f  change %+12.4e  %7.3f s\n", iteration, lower_bound,
               change, seconds);
    fflush(stdout);
}

void cli_notice(void *user, const char *message)
{
    (void)user;
    fprintf(stderr, "%s: %s\n", cli_program, message);
}

/* The mapped input that the SIGBUS handler knows: its bytes and the message it prints. */
static const char *volatile guarded_map;
static volatile size_t guarded_len;
static char guarded_message[1400];
static volatile size_t guarded_message_len;

static void on_sigbus(int sig, siginfo_t *info, void *context)
{
    (void)context;
    const char *addr = info ? (const char *)info->si_addr : NULL;
    const char *map = guarded_map;
    if (map && addr >= map && addr < map + guarded_len) {
        ssize_t ignored = write(STDERR_FILENO, guarded_message, guarded_message_len);
        (void)ignored;
        _exit(2);
    }
    /* not the mapped input: the default action, which the fault raises again on return */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
}

void cli_handle_stop_signals(void (*handler)(int), int with_sigterm)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT); /* one handler at a time: the second waits for the first */
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    if (with_sigterm) {
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
    }
    signal(SIGPIPE, SIG_IGN);
}

void cli_install_sigbus_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

/* The mapping the SIGBUS handler turns into an error naming the file. */
static void guard_mapped_input(const char *path, const void *map, size_t len)
{
    guarded_map = NULL; /* no half-written message is ever printed */
    int n = snprintf(guarded_message, sizeof guarded_message,
                     "%s: error: %s changed size while being read (truncated or replaced during "
                     "the run; it is memory-mapped, not copied): stopped\n",
                     cli_program, path);
    if (n < 0) return;
    guarded_message_len = (size_t)n < sizeof guarded_message ? (size_t)n
                                                             : sizeof guarded_message - 1;
    guarded_len = len;
    guarded_map = map;
}

void cli_guard_mapped_dataset(const dataset *ds)
{
    if (ds->pixels_map) guard_mapped_input(ds->images_path, ds->pixels_map, ds->map_len);
}

gmm_status cli_load_rank_rows(const char *path, dataset_split split, long long limit, int rank,
                              int size, dataset *ds, int64_t *n_total, int *dim)
{
    dataset head = {0};
    int64_t first, count;
    /* the header alone tells every rank how many images there are, then each reads its own */
    gmm_status st = dataset_load_range(path, split, 0, 0, 0, &head);
    if (st == GMM_OK) st = dataset_image_dim(&head, dim);
    *n_total = head.n_total;
    dataset_free(&head);
    if (st != GMM_OK) return st;
    if (limit > 0 && limit < *n_total) *n_total = limit;
    if (*n_total < size)
        return gmm_error(GMM_ERR_ARG, "%d ranks for %lld images: every rank needs at least one",
                         size, (long long)*n_total);
    gmm_comm_row_range(*n_total, rank, size, &first, &count);
    st = dataset_load_range(path, split, first, count, 1, ds);
    if (st == GMM_OK && ds->pixels_map)
        guard_mapped_input(ds->images_path, ds->pixels_map, ds->map_len);
    return st;
}

double cli_now_seconds(void) { return gmm_clock_seconds(); }

static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* OpenBLAS starts its thread pool when it is loaded, before main, and maps a 128 MiB buffer for
 * each thread that calls into it; when a map fails it retries for ever (a hang, not an error).
 * Under an address-space limit (ulimit -v) too small for that per core, the program starts
 * itself again with OPENBLAS_NUM_THREADS=1, which OpenBLAS reads at load: one thread, the same
 * results. Once only (the variable is then set), and never when the user set it.
 * That alone was not enough: one thread still maps its 128 MiB buffer at its first level-3 call,
 * and by then (the PCA's covariance, after the images were read and converted) the data had
 * taken the room: under ulimit -v 340-450 MB gmm-train --pca 50 spun for ever inside
 * cblas_dsyrk. So under any address-space or data limit the buffers are mapped first, here
 * (la_blas_reserve_buffers: a probe of their size, then one small product that maps them; a few
 * milliseconds, and nothing at all without a limit), and a later allocation that fails is the
 * program's own, reported as out of memory; when even the buffers do not fit, the program ends
 * here with that message and exit code 2. */
void cli_fit_blas_to_address_limit(char **argv)
{
    struct rlimit as_limit, data_limit;
    const int as_set = getrlimit(RLIMIT_AS, &as_limit) == 0 && as_limit.rlim_cur != RLIM_INFINITY;
    const int data_set =
        getrlimit(RLIMIT_DATA, &data_limit) == 0 && data_limit.rlim_cur != RLIM_INFINITY;
    if (!as_set && !data_set) return;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (as_set && !getenv("OPENBLAS_NUM_THREADS") && cores > 1 &&
        (double)as_limit.rlim_cur < (double)(cores + 2) * 256.0 * 1024 * 1024 &&
        setenv("OPENBLAS_NUM_THREADS", "1", 1) == 0)
        execv("/proc/self/exe", argv); /* returns only on failure: then go on as we are */
    for (int i = 1; argv && argv[i]; i++) /* --help and --version need no BLAS */
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h") || !strcmp(argv[i], "--version"))
            return;
    size_t needed = 0;
    if (la_blas_reserve_buffers(&needed) != 0) {
        const char *slash = argv && argv[0] ? strrchr(argv[0], '/') : NULL;
        const unsigned long long limit =
            (unsigned long long)(as_set ? as_limit.rlim_cur : data_limit.rlim_cur);
        fprintf(stderr, "%s: error: out of memory: the %s limit of %llu MiB leaves no room for "
                "the %zu MiB of work buffers of the BLAS library (raise the limit%s)\n",
                slash ? slash + 1 : argv && argv[0] ? argv[0] : cli_program,
                as_set ? "address-space (ulimit -v)" : "data-segment (ulimit -d)", limit >> 20,
                needed >> 20,
                needed > LA_BLAS_BUFFER_BYTES + ((size_t)1 << 20)
                    ? ", or set OPENBLAS_NUM_THREADS=1: one buffer"
                    : "");
        exit(2);
    }
}

void cli_apply_environment(gmm_tuning *tuning)
{
    const char *v;
    if ((v = env_value("GMM_SYNC_DEBUG")) && strcmp(v, "0") != 0) gmm_cuda_set_sync_debug(1);
    if (!tuning) return;
    /* the CUDA and CPU chunk variables both set the one chunk size; the CPU's wins for the CPU */
    if ((v = env_value("GMM_CUDA_CHUNK_ROWS")) && atoll(v) > 0) tuning->chunk_rows = atoll(v);
    if ((v = env_value("GMM_CPU_CHUNK_ROWS")) && atoll(v) > 0) tuning->chunk_rows = atoll(v);
    if ((v = env_value("GMM_CUDA_NO_COMPACT")) && strcmp(v, "0") != 0) tuning->no_compaction = 1;
    if ((v = env_value("GMM_CUDA_KMEANS")) && strcmp(v, "gemm") == 0) tuning->kmeans_gemm = 1;
    if ((v = env_value("GMM_ESTEP_ALL_PAIRS")) && strcmp(v, "0") != 0) tuning->estep_all_pairs = 1;
}

static void *gpu_libs_load_thread(void *arg)
{
    (void)arg;
    gmm_gpu_libs_load(); /* its status is gmm_gpu_create's too */
    return NULL;
}

/* CUDA's start in parts that overlap: the driver (gmm_gpu_count), then the context on this
 * thread while another loads cuBLAS (~0.1 s each on an H100 machine; cuSOLVER waits for its
 * first use). The load waits for the driver: beside the driver's own library load it would hold
 * the dynamic loader's lock against it, and the two would take as long as one after the other. */
static void *device_open_thread(void *arg)
{
    cli_device_opener *o = arg;
    double t0 = cli_now_seconds();
    pthread_t libs;
    int libs_started = 0;
    if (o->device != GMM_DEVICE_CPU && gmm_gpu_count() > 0) { /* cpu: not a single CUDA call */
        libs_started = pthread_create(&libs, NULL, gpu_libs_load_thread, NULL) == 0;
        gmm_cuda_start_context();
    }
    o->status = gmm_device_open(o->device, &o->gpu, &o->notice);
    if (libs_started) pthread_join(libs, NULL);
    o->seconds = cli_now_seconds() - t0;
    if (o->status != GMM_OK)
        snprintf(o->detail, sizeof o->detail, "%s", gmm_error_message(o->status));
    return NULL;
}

void cli_device_open_start(cli_device_opener *opener, gmm_device device)
{
    memset(opener, 0, sizeof *opener);
    opener->device = device;
    /* OpenBLAS's pool, spinning from before main, would take the CPUs that CUDA's start and the
     * data's reading need (a CPU fit after all starts it again on its first threaded call) */
    if (device != GMM_DEVICE_CPU) la_blas_threads_release();
    /* one process on one GPU: 4 hardware queues instead of CUDA's 8 (the user's value is kept).
     * The context is created and released sooner (fewer channels to set up with the GPU's
     * firmware: on the H100 machine the start 0.22-0.27 -> 0.20-0.23 s, the release 0.07-0.08 ->
     * 0.05-0.06 s), and the M-step's 16 lanes ran no slower on 4 queues (gmm-bench em: 11.86 and
     * 11.99 ms per Fashion iteration, 4.82 and 4.82 on the digits); 2 queues slowed the digits'
     * M-step. Set before CUDA's first call, which reads it. */
    if (device != GMM_DEVICE_CPU) setenv("CUDA_DEVICE_MAX_CONNECTIONS", "4", 0);
    /* --device cpu needs no thread (and makes no CUDA call at all) */
    if (device != GMM_DEVICE_CPU &&
        pthread_create(&opener->thread, NULL, device_open_thread, opener) == 0)
        opener->started = 1;
}

gmm_status cli_device_open_finish(cli_device_opener *opener, gmm_gpu **gpu, const char **notice)
{
    if (opener->started) {
        pthread_join(opener->thread, NULL);
        opener->started = 0;
    } else if (!opener->gpu && opener->status == GMM_OK) {
        device_open_thread(opener); /* no thread: open here */
    }
    *gpu = opener->gpu;
    *notice = opener->notice;
    opener->gpu = NULL;
    if (opener->status != GMM_OK) return gmm_error(opener->status, "%s", opener->detail);
    return GMM_OK;
}

int cli_cuda_started(void)
{
    int found = 0;
    DIR *fds = opendir("/proc/self/fd");
    struct dirent *e;
    while (fds && !found && (e = readdir(fds))) {
        char link[300], target[256];
        snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0) continue;
        target[n] = '\0';
        found = strncmp(target, "/dev/nvidia", 11) == 0;
    }
    if (fds) closedir(fds);
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    while (f && !found && fgets(line, sizeof line, f)) found = strstr(line, "/dev/nvidia") != NULL;
    if (f) fclose(f);
    return found;
}

int cli_quick_exit(int rc)
{
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_UNDEFINED__)
    return rc;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
    return rc;
#endif
#endif
    if (fflush(NULL) != 0) {
        fprintf(stderr, "%s: could not write the output: %s\n", cli_program, strerror(errno));
        return rc ? rc : 1;
    }
    const char *v = getenv("GMM_FULL_EXIT");
    if (v && *v && strcmp(v, "0") != 0) return rc;
    _exit(rc);
}

void cli_report_cuda(void)
{
    const char *v = getenv("GMM_REPORT_CUDA");
    if (v && *v && strcmp(v, "0") != 0)
        fprintf(stderr, "%s: CUDA started: %s\n", cli_program, cli_cuda_started() ? "yes" : "no");
}
