/* gmm-bench: the kernel layer's experiments, each at its original size: CPU twin (all cores) vs
 * hand-written CUDA kernel vs vendor library, printed as one table with achieved GFLOP/s or GB/s,
 * the percentage of the ceilings measured in the same run, and the targets of benchmarks.md.
 * Where the hand-written kernel lost to the library and left it, the CUDA column times its
 * version 1 in bench/experiments/ (marked "kernel: experiment v1" in `gmm-bench list`). The
 * factor_*, cov_* and estep_kgemm rows time the CUDA backend's former tuning modes, and
 * estep_fused a fused E-step kernel (experiment vN, CUDA column), against the production path
 * (version 0, lib column). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ops.h"

#ifndef GMM_VERSION
#error "GMM_VERSION: the Makefile passes the version (its SO_VERSION) to gmm_bench.c"
#endif
#include "bench/bench_gpu.h"
#include "kernels/gpu_info.h"

typedef struct {
    const char *name;
    bench_fn fn;
    const char *what;
} bench_entry;

static const bench_entry BENCHES[] = {
    {"matmul", bench_matmul, "means product R^T X, 10x60000 by 60000x784, fp64"},
    {"covariance", bench_covariance, "covariance of centred 60000x784, fp64"},
    {"wcov", bench_wcov, "weighted covariance 60000x784, fp64"},
    {"cholesky", bench_cholesky, "Cholesky 4096x4096, fp64 (kernel: experiment v1)"},
    {"cholesky_batched", bench_cholesky_batched, "Cholesky 10 x 784x784, fp64 (kernel: experiment v1)"},
    {"trsm", bench_trsm, "triangular solve 784x784, 60000 right-hand sides, fp64 (kernel: experiment v1)"},
    {"chol_inverse", bench_chol_inverse, "precision Cholesky factors U = R^-1, 10 x 784x784, fp64"},
    {"factor_batched", bench_factor_batched, "U = R^-1 by potrfBatched + TRSMs on the lanes vs chol_inverse (experiment v1)"},
    {"factor_loop", bench_factor_loop, "U = R^-1 by potrf one by one + TRSMs on the lanes vs chol_inverse (experiment v2)"},
    {"factor_batched_trtri", bench_factor_batched_trtri, "U = R^-1 by potrfBatched + trtri on the lanes vs chol_inverse (experiment v3)"},
    {"factor_lanes_trtri", bench_factor_lanes_trtri, "U = R^-1 by potrf + trtri per lane vs chol_inverse (experiment v4)"},
    {"factor_lanes", bench_factor_lanes, "U = R^-1 by potrf + TRSM per lane vs chol_inverse (experiment v5)"},
    {"factor_graph", bench_factor_graph, "U = R^-1 by v5's calls in a CUDA graph vs chol_inverse (experiment v6)"},
    {"cov_gemm", bench_cov_gemm, "M-step covariance products, 10 x 6000x784, one DGEMM each vs the block triangle (experiment v1)"},
    {"cov_syrk", bench_cov_syrk, "M-step covariance products, 10 x 6000x784, DSYRK vs the block triangle (experiment v2)"},
    {"cov_tiled", bench_cov_tiled, "M-step covariance products, 10 x 6000x784, tensor-core SYRK vs the block triangle (experiment v3)"},
    {"knn", bench_knn, "kNN m = n = 32768, d = 256, k = 20, fp32 (kernel: experiment v1)"},
    {"knn_cpu_blas", bench_knn_cpu_blas, "CPU self-kNN n = 19690, d = 784, k = 15, fp32: knn_cpu_blas (CPU column) vs knn_cpu (note)"},
    {"histogram", bench_histogram, "per-query distance histograms"},
    {"entropy", bench_entropy, "local entropy 2560x2560, 5x5"},
    {"matvec", bench_matvec, "matrix-vector 10000x10000, fp32"},
    {"matvec_f64", bench_matvec_f64, "matrix-vector 10000x10000, fp64 (kernel: experiment v1)"},
    {"transpose", bench_transpose, "transpose 10000x10000, fp32"},
    {"conv2d", bench_conv2d, "2-D convolution 10000x10000, 3x3, int32"},
    {"estep_rows", bench_estep_rows, "E-step rows: 60000 x (10 x 784) product to log-responsibilities, fp64"},
    {"estep_kgemm", bench_estep_kgemm, "E-step product 60000x784 * 784x7840 as 10 DGEMMs vs one (experiment v1)"},
    {"estep_fused", bench_estep_fused, "E-step distances 60000x784, K = 10: one DMMA kernel vs blocked DGEMMs + rows (experiment v1)"},
};
#define N_BENCHES (sizeof BENCHES / sizeof BENCHES[0])

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gmm-bench <op>|all|list [--repeats N] [--no-cpu] [--scale S]\n"
            "       gmm-bench em [options]      (the EM iteration benchmark)\n"
            "       gmm-bench spectral [options] (the spectral embedding of the kNN graph)\n"
            "       gmm-bench umap [options] (the UMAP embedding: kNN, fuzzy graph, layout)\n"
            "       gmm-bench scale --data DIR [options] (EM on byte images over 1..n GPUs)\n"
            "       gmm-bench --version\n"
            "\n"
            "Runs each operation at its original experiment's size: CPU twin (all cores), CUDA\n"
            "kernel and vendor library, and prints one table: median times (after warm-up,\n"
            "CUDA events), speed-ups, GFLOP/s or GB/s, %% of the ceilings measured in this run,\n"
            "the target and whether it was met.\n"
            "\n"
            "  --repeats N   timed repeats per version (median reported; default 10;\n"
            "                CPU twins at most 3)\n"
            "  --no-cpu      skip the CPU twins (GPU results are then checked against the library)\n"
            "  --scale S     sizes times S, 0 < S <= 1 (default 1)\n"
            "  --version     print the program's version and exit\n");
}

static void fmt_ms(char *buf, size_t n, double ms)
{
    if (ms < 0) snprintf(buf, n, "-");
    else if (ms < 1) snprintf(buf, n, "%.4f", ms);
    else if (ms < 100) snprintf(buf, n, "%.3f", ms);
    else snprintf(buf, n, "%.1f", ms);
}

static void fmt_ratio(char *buf, size_t n, double num, double den)
{
    if (num < 0 || den <= 0) snprintf(buf, n, "-");
    else snprintf(buf, n, "%.2fx", num / den);
}

/* Rate of one run in the row's unit: GFLOP/s or GB/s. */
static double rate(const bench_row *r, double ms) { return ms > 0 ? r->work / (ms * 1e-3) / 1e9 : -1; }

static void print_table(const bench_row *rows, const int *results, int n, const bench_config *c,
                        int have_gpu)
{
    printf("\n%-20s %-34s %10s %10s %10s %8s %8s %12s %7s %12s %9s %8s %9s  %s\n", "op", "size",
           "CPU ms", "CUDA ms", "lib ms", "vs CPU", "vs lib", "CUDA rate", "%ceil", "lib rate",
           "target ms", "target", "rel err", "note");
    for (int i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        if (results[i] < 0 && r->cpu_ms < 0 && r->cuda_ms < 0) {
            printf("%-20s %-34s %s\n", r->op, r->size[0] ? r->size : "-",
                   r->note[0] ? r->note : "not implemented yet");
            continue;
        }
        char cpu[16], cu[16], lib[16], vcpu[16], vlib[16], cr[24], pc[16], lr[24], tg[16], met[16],
            err[16];
        fmt_ms(cpu, sizeof cpu, r->cpu_ms);
        fmt_ms(cu, sizeof cu, r->cuda_ms);
        fmt_ms(lib, sizeof lib, r->lib_ms);
        fmt_ratio(vcpu, sizeof vcpu, r->cpu_ms, r->cuda_ms);
        fmt_ratio(vlib, sizeof vlib, r->lib_ms, r->cuda_ms);
        const char *unit = r->bytes_bound ? "GB/s" : "GFLOP/s";
        double cr_v = rate(r, r->cuda_ms), lr_v = rate(r, r->lib_ms);
        if (cr_v > 0) snprintf(cr, sizeof cr, "%.0f %s", cr_v, unit);
        else snprintf(cr, sizeof cr, "-");
        if (lr_v > 0) snprintf(lr, sizeof lr, "%.0f %s", lr_v, unit);
        else snprintf(lr, sizeof lr, "-");
        if (cr_v > 0 && r->ceiling > 0) snprintf(pc, sizeof pc, "%.1f%%", 100 * cr_v / r->ceiling);
        else snprintf(pc, sizeof pc, "-");
        fmt_ms(tg, sizeof tg, r->target_ms > 0 ? r->target_ms : -1);
        if (r->target_ms <= 0 || r->cuda_ms < 0) snprintf(met, sizeof met, "-");
        else snprintf(met, sizeof met, "%s", r->cuda_ms <= r->target_ms ? "met" : "MISSED");
        if (r->max_rel_err >= 0) snprintf(err, sizeof err, "%.1e", r->max_rel_err);
        else snprintf(err, sizeof err, "-");
        printf("%-20s %-34s %10s %10s %10s %8s %8s %12s %7s %12s %9s %8s %9s  %s%s\n", r->op,
               r->size, cpu, cu, lib, vcpu, vlib, cr, pc, lr, tg, met, err,
               results[i] > 0 ? "FAILED: " : "", r->note);
    }
    if (have_gpu)
        printf("\nceilings measured in this run: fp64 GEMM %.1f TFLOP/s, fp32 GEMM %.1f TFLOP/s, "
               "TF32 GEMM %.1f TFLOP/s, device copy %.2f TB/s (read + write)\n",
               c->fp64_gemm_tflops, c->fp32_gemm_tflops, c->tf32_gemm_tflops, c->copy_tbps);
    else
        printf("\nGPU columns skipped: %s\n",
               gmm_cuda_built() ? "no CUDA device found" : "no CUDA backend (libgmm-cuda.so.1)");
    printf("times: median of %d repeats after %d warm-up runs (CPU twins: median of %d); "
           "rate and %%ceil are the CUDA kernel's; scale %.3g\n",
           c->repeats, c->warmup, bench_cpu_repeats(c), c->scale);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
        usage(stdout);
        return 0;
    }
    if (!strcmp(argv[1], "--version")) {
        printf("gmm-bench %s\n", GMM_VERSION);
        return 0;
    }
    if (!strcmp(argv[1], "em")) return bench_em(argc - 1, argv + 1);
    if (!strcmp(argv[1], "spectral")) return bench_spectral(argc - 1, argv + 1);
    if (!strcmp(argv[1], "umap")) return bench_umap(argc - 1, argv + 1);
    if (!strcmp(argv[1], "scale")) return bench_scale(argc - 1, argv + 1);
    if (!strcmp(argv[1], "list")) {
        for (size_t i = 0; i < N_BENCHES; i++) printf("%-20s %s\n", BENCHES[i].name, BENCHES[i].what);
        printf("%-20s %s\n", "em", "one EM iteration, 60000x784, K = 10 (gmm-bench em --help)");
        printf("%-20s %s\n", "spectral", "spectral embedding of the kNN graph (gmm-bench spectral --help)");
        printf("%-20s %s\n", "umap", "UMAP embedding of the images (gmm-bench umap --help)");
        return 0;
    }
    const char *which = argv[1];
    bench_config config = {.repeats = 10, .warmup = 2, .skip_cpu = 0, .scale = 1.0};
    static const struct option long_opts[] = {{"repeats", required_argument, 0, 'r'},
                                              {"no-cpu", no_argument, 0, 'n'},
                                              {"scale", required_argument, 0, 's'},
                                              {"help", no_argument, 0, 'h'},
                                              {0, 0, 0, 0}};
    optind = 2;
    int opt;
    while ((opt = getopt_long(argc, argv, "h", long_opts, NULL)) != -1) {
        char *end = NULL;
        switch (opt) {
        case 'r':
            config.repeats = (int)strtol(optarg, &end, 10);
            if (!end || *end || config.repeats < 1 || config.repeats > 1000) {
                fprintf(stderr, "gmm-bench: --repeats wants 1..1000\n");
                return 2;
            }
            break;
        case 'n': config.skip_cpu = 1; break;
        case 's':
            config.scale = strtod(optarg, &end);
            if (!end || *end || !(config.scale > 0 && config.scale <= 1)) {
                fprintf(stderr, "gmm-bench: --scale wants 0 < S <= 1\n");
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "gmm-bench: unexpected argument '%s'\n", argv[optind]);
        return 2;
    }
    int selected[N_BENCHES], n_sel = 0;
    for (size_t i = 0; i < N_BENCHES; i++)
        if (!strcmp(which, "all") || !strcmp(which, BENCHES[i].name)) selected[n_sel++] = (int)i;
    if (!n_sel) {
        fprintf(stderr, "gmm-bench: unknown operation '%s' (try gmm-bench list)\n", which);
        return 2;
    }

    int have_gpu = bench_have_gpu();
    if (have_gpu) {
        char name[128] = "?";
        size_t free_b = 0, total_b = 0;
        gmm_gpu_describe(name, sizeof name, &free_b, &total_b);
        fprintf(stderr, "gmm-bench: device %s, %.1f GiB; measuring the ceilings...\n", name,
                total_b / (1024.0 * 1024 * 1024));
        gmm_status s = bench_gpu_ceilings(config.scale, &config.fp64_gemm_tflops,
                                          &config.fp32_gemm_tflops, &config.tf32_gemm_tflops,
                                          &config.copy_tbps);
        if (s != GMM_OK)
            fprintf(stderr, "gmm-bench: ceilings not measured: %s\n", gmm_error_message(s));
    } else {
        fprintf(stderr, "gmm-bench: no GPU (%s): CPU twins only, GPU columns skipped\n",
                gmm_cuda_built() ? "no CUDA device" : "no CUDA backend (libgmm-cuda.so.1)");
    }

    bench_row rows[N_BENCHES];
    int results[N_BENCHES], failed = 0;
    for (int i = 0; i < n_sel; i++) {
        const bench_entry *b = &BENCHES[selected[i]];
        bench_row_init(&rows[i], b->name);
        fprintf(stderr, "gmm-bench: %s...\n", b->name);
        gmm_error_clear();
        results[i] = b->fn(&config, &rows[i]);
        if (results[i] > 0) failed = 1;
    }
    print_table(rows, results, n_sel, &config, have_gpu);
    return failed ? 1 : 0;
}
