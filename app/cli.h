/* Shared pieces of the command-line programs: strict number parsing, error reporting with the
 * program's name, and the progress/notice printers handed to the library. */
#ifndef GMM_CLI_H
#define GMM_CLI_H

#include <stdint.h>

#include "kernels/gmm_status.h"
#include "models/gmm.h"

extern const char *cli_program; /* set by main: "gmm-train", ... */

/* Prints "PROGRAM: error: message" on stderr. Returns 1 (exit code for usage errors) or 2. */
int cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Prints "PROGRAM: error: <library detail>" for a failed library call; returns the exit code. */
int cli_fail(gmm_status status);

/* Strict parsers: the whole string must be a number in range; on failure print an error naming
 * the option and return -1. */
int cli_parse_int(const char *option, const char *text, long long min, long long max, long long *out);
int cli_parse_double(const char *option, const char *text, double min, double *out);

/* Library callbacks: progress lines on stdout (unless quiet), notices on stderr. */
typedef struct {
    int quiet;
    int n_init;
} cli_progress_state;
void cli_progress(void *user, int init_index, int iteration, double lower_bound, double change,
                  double seconds);
void cli_notice(void *user, const char *message);

double cli_now_seconds(void);

/* The environment variables the programs honour, mapped onto the library's options (library
 * code never reads the environment): GMM_SYNC_DEBUG=1 (synchronise after every kernel launch),
 * and the tuning variables GMM_CUDA_CHUNK_ROWS / GMM_CPU_CHUNK_ROWS (rows per chunk),
 * GMM_CUDA_NO_COMPACT=1, GMM_CUDA_ESTEP=kgemm, GMM_CUDA_POTRF=loop,
 * GMM_CUDA_COV=gemm|syrk|lower|tiled, GMM_CUDA_MEANS=matmul|gemm.
 * tuning may be NULL (only the sync switch is applied). */
void cli_apply_environment(gmm_tuning *tuning);

#endif
