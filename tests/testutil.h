/* Helpers shared by the Check suites: random data, relative errors, temporary files, the
 * environment's data directories, PNG colours read back, and the standard main() that runs one
 * suite. */
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

/* ||a - b|| / ||b|| in the 2-norm; returns INFINITY when any element of a is NaN or inf. */
double tu_rel_error(const double *a, const double *b, size_t n);
double tu_rel_error_f(const float *a, const float *b, size_t n);

/* A fresh path in a per-process temporary directory (removed at exit): dir/name. */
const char *tu_tmp_path(const char *name);

/* The real MNIST directory for tests (GMM_TEST_MNIST_DIR, else MNIST_DIR), or NULL. */
const char *tu_mnist_dir(void);
/* The programs' directory (GMM_BIN, default "bin"). */
const char *tu_bin_dir(void);
/* Runs a shell command, capturing stdout+stderr into *output (malloc'd, may be NULL); returns
 * the exit status (or -1 when it did not exit normally). */
int tu_run(const char *command, char **output);

/* 1 when a GPU is usable, asked in a child process so that CUDA is never initialised in the
 * parent before Check forks (design rule 10). */
int tu_gpu_available(void);

/* Reads a PNG as 8-bit RGB (gray expanded) through libpng's simplified reader; fails the test
 * when it cannot. Returns the malloc'd pixels, row-major, 3 bytes each. */
uint8_t *tu_read_png_rgb(const char *path, int *width, int *height);

/* Runs the suite (CK_NORMAL output) and returns the process exit code. */
int tu_run_suite(Suite *suite);

#define TU_POISON_F64 (__builtin_nan(""))

#endif
