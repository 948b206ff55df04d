/* Helpers shared by the Check suites: random data, relative errors, temporary files, the
 * environment's data directories, the programs run from a shell and an IDX fixture for them, PNG
 * colours read back, and the standard main() that runs one suite. */
#ifndef GMM_TESTUTIL_H
#define GMM_TESTUTIL_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

/* Deterministic generator for test data (splitmix64). */
uint64_t tu_rand_u64(uint64_t *state);
double tu_rand_uniform(uint64_t *state);       /* [0, 1) */
double tu_rand_normal(uint64_t *state);        /* standard normal */
void tu_fill_uniform(double *x, size_t n, double lo, double hi, uint64_t seed);
void tu_fill_uniform_f(float *x, size_t n, float lo, float hi, uint64_t seed);
/* `batch` symmetric positive definite dim x dim matrices back to back (both triangles):
 * M M^T / dim + I with M uniform in [-1, 1] from seed + b (dense, modestly conditioned); malloc'd. */
double *tu_make_spd(int dim, int batch, uint64_t seed);

/* ||a - b|| / ||b|| in the 2-norm; returns INFINITY when any element of a is NaN or inf. */
double tu_rel_error(const double *a, const double *b, size_t n);
double tu_rel_error_f(const float *a, const float *b, size_t n);
/* |a - b| / |b| for one value (|b| floored at 1e-300); INFINITY when a is NaN or inf. */
double tu_rel_error_1(double a, double b);

/* A fresh path in a per-process temporary directory (removed at exit): dir/name. */
const char *tu_tmp_path(const char *name);

/* The real MNIST directory for tests (GMM_TEST_MNIST_DIR, else MNIST_DIR), or NULL. */
const char *tu_mnist_dir(void);
/* The programs' directory (GMM_BIN, default "bin"). */
const char *tu_bin_dir(void);
/* Runs a shell command, capturing stdout+stderr into *output (malloc'd, may be NULL); returns
 * the exit status (or -1 when it did not exit normally). */
int tu_run(const char *command, char **output);

/* Runs a shell command built from fmt in the temporary directory (tu_tmp_path("")), with B set
 * to the programs' directory so that programs are called as $B/gmm-...; returns its exit code
 * and keeps its output (stdout and stderr) in *out (malloc'd; out may be NULL). */
int tu_sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Runs the command as tu_sh and checks that it failed cleanly: a non-zero exit (not a signal),
 * an "error: " line, needle in the output, and no sanitizer report. */
/* A rank killed mid-fit: runs `MPIRUN NP gmm-train ARGS -v -o kill.bin` in the background in
 * the temporary directory (mpirun is the command prefix up to -np, e.g. "timeout 300 mpirun
 * --oversubscribe -np"; args a fit that would run for hours), sends signal `sig` (SIGKILL: a rank
 * that dies; SIGSTOP: one that hangs alive) to rank `victim`'s process once rank 0 has printed
 * 10 EM iterations, and waits (at most 60 s) for mpirun to end; a stopped rank still there then
 * gets SIGKILL. Returns the seconds from the signal to the end; *rc the job's exit code (-1: it
 * did not end), *out its output without the iteration lines (malloc'd). Fails the test when the
 * fit did not start or ended before the signal. */
double tu_signal_rank_mid_fit(const char *mpirun, int np, int victim, int sig, const char *args,
                              long *rc, char **out);

/* This process's address space now (VmSize of /proc/self/status, bytes), or -1 when unknown:
 * the base of a child's address-space limit in the limit tests. */
long long tu_vm_size_bytes(void);

void tu_expect_error(const char *needle, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A directory tu_tmp_path(name) with train-* and t10k-* splits of n_images side x side images,
 * labelled 0, 1, 0, 1, ...: label 0 has a bright left half, label 1 a bright right half (180
 * against 40, plus uniform noise of width 60 drawn from seed, both splits from one stream). The
 * images file is gzip'ed when gzip is 1. Written once; later calls return the path. */
const char *tu_fixture_dir(const char *name, int n_images, int side, uint64_t seed, int gzip);

/* N x d image bytes around K centres: row i belongs to component i % K, bright (~200) where
 * j % K == k and dark (~60) elsewhere, with noise of spread 12 + 4 k, clamped to [0, 255]
 * (malloc'd). */
uint8_t *tu_synthetic_bytes(int64_t N, int d, int K, uint64_t seed);

/* 1 when a GPU is usable, asked in a child process so that CUDA is never initialised in the
 * parent before Check forks (design rule 10). */
int tu_gpu_available(void);

/* Reads a PNG as 8-bit RGB (gray expanded) through libpng's simplified reader; fails the test
 * when it cannot. Returns the malloc'd pixels, row-major, 3 bytes each. */
uint8_t *tu_read_png_rgb(const char *path, int *width, int *height);

/* Runs the suite (CK_NORMAL output) and returns the process exit code. */
int tu_run_suite(Suite *suite);

#define TU_POISON_F64 (__builtin_nan(""))

/* Fills x with TU_POISON_F64 so that unwritten outputs show. */
void tu_poison(double *x, size_t n);

/* The CUDA backend (fails the test when there is none: call after tu_gpu_available()). */
struct gmm_backend;
const struct gmm_backend *tu_gpu_backend(void);

/* Fails the test with the library's message when expr is not GMM_OK. */
#define TU_CHECK_OK(expr)                                                                      \
    do {                                                                                       \
        gmm_status st_ = (expr);                                                               \
        ck_assert_msg(st_ == GMM_OK, "%s: %s", #expr, gmm_error_message(st_));                \
    } while (0)

#endif
