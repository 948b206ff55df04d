/* gmm-bench's shared pieces: one row of the results table per operation, timing helpers and
 * the ceilings (a large cuBLAS GEMM and a large device-to-device copy) measured in the same run.
 * Each operation's experiment is a function `int bench_<op>(const bench_config *, bench_row *)`
 * in bench/bench_<group>.c, listed in the table of bench/gmm_bench.c. */
#ifndef GMM_BENCH_H
#define GMM_BENCH_H

#include <stdint.h>

typedef struct {
    int repeats;        /* timed repeats (median reported), default 10 */
    int warmup;         /* untimed runs first, default 2 */
    int skip_cpu;       /* 1: do not time the CPU twin (it can take seconds) */
    double scale;       /* size scale in (0, 1]: 1 = the original experiment's size */
    /* ceilings measured once per run (0 when no GPU) */
    double fp64_gemm_tflops;
    double fp32_gemm_tflops;
    double tf32_gemm_tflops;
    double copy_tbps;   /* bytes read + written per second / 1e12 */
} bench_config;

typedef struct {
    char op[32];        /* e.g. "matmul" */
    char size[64];      /* e.g. "10x60000 * 60000x784 fp64" */
    double cpu_ms;      /* CPU twin, all cores; < 0 when not run */
    double cuda_ms;     /* hand-written kernel; < 0 when not run */
    double lib_ms;      /* vendor library (cuBLAS/cuSOLVER); < 0 when none */
    double work;        /* FLOP (when unit is GFLOP/s) or bytes (GB/s) of one run */
    int bytes_bound;    /* 1: report GB/s against the copy ceiling; 0: GFLOP/s against GEMM */
    double ceiling;     /* the ceiling this op is compared to, in GFLOP/s or GB/s */
    double target_ms;   /* the target from benchmarks.md for the CUDA kernel, 0 if none */
    double max_rel_err; /* kernel vs CPU twin (or library) on this run's data */
    char note[96];
} bench_row;

typedef int (*bench_fn)(const bench_config *config, bench_row *row);

/* Wall-clock milliseconds (CLOCK_MONOTONIC). */
double bench_now_ms(void);
/* Median of n values (sorts in place). */
double bench_median(double *values, int n);

#endif
