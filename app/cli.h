/* Shared pieces of the command-line programs: strict number parsing, error reporting with the
 * program's name, and the progress/notice printers handed to the library. */
#ifndef GMM_CLI_H
#define GMM_CLI_H

#include <pthread.h>
#include <stdint.h>

#include "data/dataset.h"
#include "kernels/gmm_status.h"
#include "models/core/em.h"
#include "models/core/score.h"

extern const char *cli_program; /* set by main: "gmm-train", ... */

/* Prints "PROGRAM VERSION" (e.g. "gmm-train 1.0.0") on stdout for --version; returns 0, the exit
 * code. The version is the Makefile's SO_VERSION, passed to the app/ objects as GMM_VERSION. */
int cli_version(void);

/* Prints "PROGRAM: error: message" on stderr. Returns 1 (exit code for usage errors) or 2. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "PROGRAM: error: <library detail>" for a failed library call; returns the exit code. */
int cli_fail(gmm_status status);

/* Strict parsers: the whole string must be a number in range; on failure print an error naming
 * the option and the allowed range and return -1. */
int cli_parse_int(const char *option, const char *text, long long min, long long max, long long *out);
/* A number in [min, max] (finite; an out-of-range value is refused with the range). */
int cli_parse_double_range(const char *option, const char *text, double min, double max,
                           double *out);
/* A number in [min, GMM_MAX_ABS_VALUE] (1e100: what a model file may hold). */
int cli_parse_double(const char *option, const char *text, double min, double *out);
/* A byte count with an optional K, M or G suffix (powers of 1024): "512M", "2.5G". */
int cli_parse_bytes(const char *option, const char *text, long long *out);

/* Library callbacks: progress lines on stdout (unless quiet), notices on stderr. */
typedef struct {
    int quiet;
    int n_init;
} cli_progress_state;
void cli_progress(void *user, int init_index, int iteration, double lower_bound, double change,
                  double seconds);
void cli_notice(void *user, const char *message);

double cli_now_seconds(void);

/* This process's share of a split's images (data/dataset.h): rank `rank` of `size` reads only
 * its rows (gmm_comm_row_range; a raw file memory-mapped) of the first `limit` images (<= 0:
 * all). *n_total and *dim are the whole set's. Fewer images than ranks is GMM_ERR_ARG. */
/* Guards a dataset whose images are memory-mapped (nothing when they were read): see below. */
void cli_guard_mapped_dataset(const dataset *ds);

gmm_status cli_load_rank_rows(const char *path, dataset_split split, long long limit, int rank,
                              int size, dataset *ds, int64_t *n_total, int *dim);

/* Whether CUDA was started in this process: the driver opens and maps the /dev/nvidia* devices
 * when it initialises (the first CUDA call), and not before, although cuBLAS's libraries load
 * libcuda itself at program start. "no" after a run proves that the run never touched CUDA. */
int cli_cuda_started(void);
/* With GMM_REPORT_CUDA=1 in the environment, prints "PROGRAM: CUDA started: yes|no" on stderr
 * (the tests check that --device cpu never starts CUDA). Call it last. */
void cli_report_cuda(void);

/* Ends the process with status rc at once (_exit, after flushing every stdio stream): what was
 * to be written is written and closed by then, and the libraries' own teardown at exit (CUDA's,
 * cuBLAS's, OpenBLAS's threads: 0.04 s of a GPU run's wall time on the H100) is skipped.
 * Returns rc instead, for the caller's normal return from main, in sanitizer builds (their leak
 * checks run at exit) and with GMM_FULL_EXIT=1 in the environment (profilers and coverage tools
 * that write at exit); when a stream could not be flushed it returns rc, or 1 if rc was 0, after
 * a message. */
int cli_quick_exit(int rc);

/* gmm_device_open on a thread of its own, so that starting CUDA (context, handles: a few tenths
 * of a second) overlaps reading the data. start never fails; finish joins and returns what
 * gmm_device_open returned, with its message re-raised on the calling thread. For a device
 * other than the CPU, start first ends OpenBLAS's spinning pool and sets
 * CUDA_DEVICE_MAX_CONNECTIONS=4 unless the environment already has it (one process, one GPU). */
typedef struct {
    pthread_t thread;
    int started;
    gmm_device device;
    gmm_gpu *gpu;
    const char *notice;
    gmm_status status;
    char detail[512];
    double seconds; /* how long gmm_device_open took on its thread */
} cli_device_opener;
void cli_device_open_start(cli_device_opener *opener, gmm_device device);
gmm_status cli_device_open_finish(cli_device_opener *opener, gmm_gpu **gpu, const char **notice);

/* The environment variables the programs honour, mapped onto the library's options (library
 * code never reads the environment): GMM_SYNC_DEBUG=1 (synchronise after every kernel launch),
 * and the tuning variables GMM_CUDA_CHUNK_ROWS / GMM_CPU_CHUNK_ROWS (rows per chunk),
 * GMM_CUDA_NO_COMPACT=1 (the covariance products over every row) and GMM_CUDA_KMEANS=gemm (the
 * k-means's GEMMs at any size). GMM_CUDA_POTRF, GMM_CUDA_COV, GMM_CUDA_MEANS and GMM_CUDA_ESTEP
 * chose paths that measured slower; those are bench/experiments/ now and the variables are not
 * read.
 * tuning may be NULL (only the sync switch is applied). */
void cli_apply_environment(gmm_tuning *tuning);

/* First thing in main: under an address-space limit too small for OpenBLAS's threads, the
 * program starts itself again with OPENBLAS_NUM_THREADS=1; under any address-space or data limit
 * OpenBLAS's work buffers are mapped at once, or the program ends with "out of memory" and exit
 * code 2 when they cannot be (app/cli.c says why). */
void cli_fit_blas_to_address_limit(char **argv);

/* A memory-mapped input (cli_load_rank_rows maps a raw image file) that is truncated while the
 * program reads it (a cp over it, another job rewriting it) raises SIGBUS on the first page
 * past its new end. Installed at the start of main: the handler then prints "PROGRAM: error:
 * FILE changed size while being read ..." (write, async-signal-safe) and ends the process with
 * exit code 2 (_exit), instead of the signal's death (exit status 135). A SIGBUS at an address
 * outside the mapping gets the default action. */
void cli_install_sigbus_handler(void);

/* The programs' stop signals: handler for SIGINT and, with with_sigterm, SIGTERM and SIGHUP (a
 * closed terminal), each blocking the others while it runs, system calls restarted after it;
 * SIGPIPE ignored, so that a write to a closed pipe is an error (EPIPE) that leaves no file
 * rather than a silent death. */
void cli_handle_stop_signals(void (*handler)(int), int with_sigterm);

#endif
