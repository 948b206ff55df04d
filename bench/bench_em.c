/* gmm-bench em: the time of one EM iteration on the GPU backend (float64, TF32, float32) on
 * MNIST-shaped data, its achieved TFLOP/s against a cuBLAS GEMM measured in the same run, the
 * peak device memory, a whole fit through gmm_fit, and the whole `gmm-train` wall time
 * (loading included) when the program sits beside this one.
 *
 *   gmm-bench em [--data DIR] [--mnist DIR] [--k 10] [--iters 10] [--covariance full]
 *                [--variants] [--no-fit]
 *
 * --data defaults to $FASHION_MNIST_DIR (60000 x 784), --mnist to $MNIST_DIR (19690 digits).
 * An iteration is one E-step plus one M-step through the backend table, timed on the host
 * clock (both return scalars to the host, so each ends synchronised), median of --iters after
 * two warm-up iterations. FLOP counted for full covariance: E-step GEMM 2 N d^2 K, covariance
 * SYRK N d^2 K, means GEMM 2 N d K. --variants also times the production path at other
 * settings of its tuning (no compaction, the E-step's column blocks and rows per pass). The
 * paths that measured slower (other factorisations, covariance and means products, K GEMMs in
 * the E-step) are bench/experiments/, timed against the production kernels by the gmm-bench
 * rows factor_*, cov_*, matmul and estep_kgemm. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench/bench_gpu.h"
#include "bench/bench_ops.h"
#include "data/dataset.h"
#include "kernels/gpu_info.h"
#include "models/backend/backend.h"
#include "models/core/em.h"
#include "models/core/score.h"

typedef struct {
    double iter_ms, e_ms, m_ms;
    double phase_ms[GMM_MSTEP_PHASES]; /* the M-step's parts (medians, timed apart) */
    double peak_gb;
    double last_ll;
    int ok;
    char error[256];
} em_timing;

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

static void time_em(const double *X, int64_t N, int d, int K, gmm_cov_type type,
                    gmm_precision precision, const gmm_tuning *tuning, int iters, em_timing *t)
{
    const gmm_backend *be = NULL;
    gmm_backend_ctx *ctx = NULL;
    double *resp = NULL, *nk = NULL, *ti = NULL, *te = NULL, *tm = NULL;
    size_t free0 = 0, free1 = 0, total = 0;
    gmm_mstep_report rep = {.nk = NULL};
    gmm_status st;
    memset(t, 0, sizeof *t);
    if ((st = gmm_backend_select(GMM_DEVICE_GPU, NULL, &be, NULL)) != GMM_OK) goto fail;
    gmm_gpu_describe(NULL, 0, &free0, &total);
    resp = calloc((size_t)N * K, sizeof(double));
    nk = malloc(sizeof(double) * K);
    ti = malloc(sizeof(double) * iters);
    te = malloc(sizeof(double) * iters);
    tm = malloc(sizeof(double) * iters);
    if (!resp || !nk || !ti || !te || !tm) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory");
        goto fail;
    }
    rep.nk = nk;
    /* a random hard assignment: every component gets about N/K samples */
    for (int64_t i = 0; i < N; i++) resp[i * K + (int)(mix64((uint64_t)i) % (uint64_t)K)] = 1.0;
    if ((st = gmm_backend_create_f64(be, &ctx, X, N, d, K, type, precision, tuning, NULL)) !=
        GMM_OK)
        goto fail;
    if ((st = be->set_resp(ctx, resp)) != GMM_OK) goto fail;
    if ((st = be->m_step(ctx, 1e-6, &rep)) != GMM_OK) goto fail;
    for (int it = -2; it < iters; it++) {
        double t0 = bench_now_ms();
        if ((st = be->e_step(ctx, &t->last_ll)) != GMM_OK) goto fail;
        double t1 = bench_now_ms();
        if ((st = be->m_step(ctx, 1e-6, &rep)) != GMM_OK) goto fail;
        double t2 = bench_now_ms();
        if (it == -1) gmm_gpu_describe(NULL, 0, &free1, &total);
        if (it >= 0) {
            ti[it] = t2 - t0;
            te[it] = t1 - t0;
            tm[it] = t2 - t1;
        }
    }
    t->iter_ms = bench_median(ti, iters);
    t->e_ms = bench_median(te, iters);
    t->m_ms = bench_median(tm, iters);
    /* the parts of the M-step, timed with events in runs of their own (the events cost a
     * little, so they stay out of the runs above) */
    for (int p = 0; p < GMM_MSTEP_PHASES; p++) {
        double parts[GMM_MSTEP_PHASES];
        rep.phase_ms = parts;
        for (int it = 0; it < iters; it++) {
            if ((st = be->m_step(ctx, 1e-6, &rep)) != GMM_OK) goto fail;
            ti[it] = parts[p];
        }
        t->phase_ms[p] = bench_median(ti, iters);
    }
    rep.phase_ms = NULL;
    t->peak_gb = free0 > free1 ? (double)(free0 - free1) / 1e9 : 0;
    t->ok = 1;
    goto done;
fail:
    snprintf(t->error, sizeof t->error, "%s", gmm_error_message(st));
done:
    if (be && ctx) be->destroy(ctx);
    free(resp);
    free(nk);
    free(ti);
    free(te);
    free(tm);
}

static double gemm_tflops(int precision, int m, int n, int k, double *ms_out)
{
    double ms = -1;
    if (bench_gpu_gemm(precision, m, n, k, 5, &ms) != GMM_OK || ms <= 0) return -1;
    if (ms_out) *ms_out = ms;
    return 2.0 * m * n * (double)k / (ms * 1e-3) / 1e12;
}

static void self_dir(char *out, size_t len)
{
    ssize_t n = readlink("/proc/self/exe", out, len - 1);
    if (n <= 0) {
        snprintf(out, len, ".");
        return;
    }
    out[n] = '\0';
    char *slash = strrchr(out, '/');
    if (slash) *slash = '\0';
}

static int load(const char *dir, double **X, int64_t *N, int *d)
{
    dataset ds;
    gmm_status st = dataset_load(dir, DATASET_TRAIN, &ds);
    if (st != GMM_OK) {
        fprintf(stderr, "gmm-bench em: %s: %s\n", dir, gmm_error_message(st));
        return -1;
    }
    st = dataset_to_double(&ds, X);
    *N = ds.n_samples;
    *d = ds.rows * ds.cols;
    dataset_free(&ds);
    if (st != GMM_OK) {
        fprintf(stderr, "gmm-bench em: %s\n", gmm_error_message(st));
        return -1;
    }
    return 0;
}

int bench_em(int argc, char **argv)
{
    const char *data = getenv("FASHION_MNIST_DIR");
    const char *mnist = getenv("MNIST_DIR");
    int K = 10, iters = 10, variants = 0, do_fit = 1;
    const char *only = NULL; /* --only TEXT: the rows (variants included) whose label has TEXT */
    gmm_cov_type type = GMM_COV_FULL;
    static const struct option longopts[] = {
        {"data", required_argument, NULL, 'd'},  {"mnist", required_argument, NULL, 'm'},
        {"k", required_argument, NULL, 'k'},     {"iters", required_argument, NULL, 'i'},
        {"covariance", required_argument, NULL, 'c'},
        {"variants", no_argument, NULL, 'v'},    {"no-fit", no_argument, NULL, 'n'},
        {"only", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': data = optarg; break;
        case 'm': mnist = optarg; break;
        case 'k': K = atoi(optarg); break;
        case 'i': iters = atoi(optarg); break;
        case 'c':
            if (gmm_cov_type_parse(optarg, &type) != 0) {
                fprintf(stderr, "gmm-bench em: unknown covariance type '%s'\n", optarg);
                return 2;
            }
            break;
        case 'v': variants = 1; break;
        case 'n': do_fit = 0; break;
        case 'o': only = optarg; break;
        case 'h':
            printf("usage: gmm-bench em [--data DIR] [--mnist DIR] [--k K] [--iters N] "
                   "[--covariance T] [--variants] [--only TEXT] [--no-fit]\n");
            return 0;
        default: return 2;
        }
    }
    if (K < 1 || iters < 1) {
        fprintf(stderr, "gmm-bench em: --k and --iters must be positive\n");
        return 2;
    }
    char gpu_name[256];
    size_t free_b = 0, total_b = 0;
    if (gmm_gpu_describe(gpu_name, sizeof gpu_name, &free_b, &total_b) != 0) {
        printf("gmm-bench em: no GPU (or a build without CUDA): nothing to time\n");
        return 0;
    }
    printf("gmm-bench em on %s (%.1f GB, %.1f GB free), K = %d, %s covariance, %d timed "
           "iterations after 2 warm-up\n",
           gpu_name, total_b / 1e9, free_b / 1e9, K, gmm_cov_type_name(type), iters);

    /* ceilings, measured now */
    double e_gemm_ms = -1;
    double ceil64 = gemm_tflops(0, 8192, 8192, 8192, NULL);
    double ceil32 = gemm_tflops(1, 8192, 8192, 8192, NULL);
    double ceiltf = gemm_tflops(2, 8192, 8192, 8192, NULL);
    gemm_tflops(0, 60000, 784 * K, 784, &e_gemm_ms);
    printf("ceilings: cuBLAS 8192^3 GEMM fp64 %.1f TFLOP/s, fp32 %.1f, tf32 %.1f; "
           "E-step shaped DGEMM 60000x784 by 784x%d: %.2f ms\n",
           ceil64, ceil32, ceiltf, 784 * K, e_gemm_ms);
    fflush(stdout);

    const char *dirs[2] = {data, mnist};
    const char *names[2] = {"fashion-mnist", "mnist"};
    char rows[160][200];
    int n_rows = 0;
    double fit_s[2] = {-1, -1}, train_s[2] = {-1, -1};
    int fit_iters[2] = {0, 0};
    char bin_dir[PATH_MAX];
    self_dir(bin_dir, sizeof bin_dir);

    for (int ds = 0; ds < 2; ds++) {
        if (!dirs[ds] || !*dirs[ds]) {
            printf("%s: no directory (set %s or pass --%s)\n", names[ds],
                   ds == 0 ? "FASHION_MNIST_DIR" : "MNIST_DIR", ds == 0 ? "data" : "mnist");
            continue;
        }
        double *X = NULL;
        int64_t N = 0;
        int d = 0;
        if (load(dirs[ds], &X, &N, &d) != 0) continue;
        double flops = 2.0 * N * d * (double)d * K + (double)N * d * d * K + 2.0 * N * d * K;
        if (type != GMM_COV_FULL) flops = 0;
        struct {
            gmm_precision p;
            gmm_tuning tuning;
            const char *label;
        } runs[] = {
            {GMM_PRECISION_FP64, {0}, "fp64"},
            {GMM_PRECISION_FP64, {.estep_all_pairs = 1}, "fp64 all pairs"},
            {GMM_PRECISION_TF32, {0}, "tf32"},
            {GMM_PRECISION_FP32, {0}, "fp32"},
            {GMM_PRECISION_FP64, {.no_compaction = 1}, "fp64 no compaction"},
            {GMM_PRECISION_TF32, {.no_compaction = 1}, "tf32 no compaction"},
            {GMM_PRECISION_FP64, {.estep_blocks = 1}, "fp64 E one GEMM"},
            {GMM_PRECISION_FP64, {.estep_blocks = 4}, "fp64 E 4 blocks"},
            {GMM_PRECISION_FP64, {.estep_blocks = 7}, "fp64 E 7 blocks"},
            {GMM_PRECISION_FP64, {.estep_blocks = 13}, "fp64 E 13 blocks"},
            {GMM_PRECISION_FP64, {.estep_blocks = 25}, "fp64 E 25 blocks"},
            {GMM_PRECISION_FP32, {.estep_blocks = 1}, "fp32 E one GEMM"},
            {GMM_PRECISION_TF32, {.estep_blocks = 2}, "tf32 E 2 blocks"},
            {GMM_PRECISION_TF32, {.estep_blocks = 3}, "tf32 E 3 blocks"},
            {GMM_PRECISION_TF32, {.estep_blocks = 4}, "tf32 E 4 blocks"},
            {GMM_PRECISION_TF32, {.estep_blocks = 5}, "tf32 E 5 blocks"},
            {GMM_PRECISION_TF32, {.estep_blocks = 7}, "tf32 E 7 blocks"},
            {GMM_PRECISION_TF32, {.estep_rows = 1024}, "tf32 E 1024 rows"},
            {GMM_PRECISION_TF32, {.estep_rows = 2048}, "tf32 E 2048 rows"},
            {GMM_PRECISION_TF32, {.estep_rows = 4096}, "tf32 E 4096 rows"},
            {GMM_PRECISION_FP64, {.estep_rows = 1024}, "fp64 E 1024 rows"},
            {GMM_PRECISION_FP64, {.estep_rows = 4096}, "fp64 E 4096 rows"},
            {GMM_PRECISION_FP64, {.estep_all_pairs = -1}, "fp64 order at any size"},
        };
        int n_runs = variants || only ? (int)(sizeof runs / sizeof runs[0]) : 6;
        for (int r = 0; r < n_runs && n_rows < 160; r++) {
            em_timing t;
            if (only && !strstr(runs[r].label, only)) continue;
            time_em(X, N, d, K, type, runs[r].p, &runs[r].tuning, iters, &t);
            double ceiling = runs[r].p == GMM_PRECISION_FP64   ? ceil64
                             : runs[r].p == GMM_PRECISION_TF32 ? ceiltf
                                                               : ceil32;
            if (!t.ok) {
                snprintf(rows[n_rows++], sizeof rows[0], "%-13s %6lld %-18s failed: %.100s",
                         names[ds], (long long)N, runs[r].label, t.error);
                continue;
            }
            double tflops = flops > 0 ? flops / (t.iter_ms * 1e-3) / 1e12 : 0;
            snprintf(rows[n_rows++], sizeof rows[0],
                     "%-13s %6lld %-18s %9.2f %8.2f %8.2f %8.1f %7.0f%% %8.2f %14.6f", names[ds],
                     (long long)N, runs[r].label, t.iter_ms, t.e_ms, t.m_ms, tflops,
                     ceiling > 0 ? 100 * tflops / ceiling : 0, t.peak_gb, t.last_ll);
            printf("%s\n", rows[n_rows - 1]);
            if (n_rows < 160 && t.phase_ms[2] > 0) {
                static const char *const part_names[] = GMM_MSTEP_PHASE_NAMES;
                int len = snprintf(rows[n_rows], sizeof rows[0], "%-13s %6s   M-step parts ms:",
                                   "", "");
                for (int p = 0; p < GMM_MSTEP_PHASES; p++)
                    len += snprintf(rows[n_rows] + len, sizeof rows[0] - (size_t)len, " %s %.2f",
                                    part_names[p], t.phase_ms[p]);
                printf("%s\n", rows[n_rows++]);
            }
            fflush(stdout);
        }
        if (do_fit) {
            gmm_options o;
            gmm_options_default(&o);
            o.n_components = K;
            o.covariance_type = type;
            o.device = GMM_DEVICE_GPU;
            gmm_model m = {0};
            double t0 = bench_now_ms();
            gmm_status st = gmm_fit(X, N, d, &o, &m);
            double t1 = bench_now_ms();
            if (st == GMM_OK) {
                fit_s[ds] = (t1 - t0) / 1e3;
                fit_iters[ds] = m.n_iter;
            } else {
                printf("%s: gmm_fit failed: %s\n", names[ds], gmm_error_message(st));
            }
            gmm_model_free(&m);
            char train[PATH_MAX + 16], cmd[3 * PATH_MAX];
            snprintf(train, sizeof train, "%s/gmm-train", bin_dir);
            if (access(train, X_OK) == 0) {
                snprintf(cmd, sizeof cmd,
                         "'%s' '%s' -k %d --device gpu -q -o /tmp/gmm-bench-em-%d.bin --png '' "
                         ">/tmp/gmm-bench-em-train.log 2>&1",
                         train, dirs[ds], K, (int)getpid());
                t0 = bench_now_ms();
                int rc = system(cmd);
                t1 = bench_now_ms();
                if (rc == 0)
                    train_s[ds] = (t1 - t0) / 1e3;
                else
                    printf("%s: gmm-train exited with %d (log: /tmp/gmm-bench-em-train.log)\n",
                           names[ds], rc);
                snprintf(cmd, sizeof cmd, "/tmp/gmm-bench-em-%d.bin", (int)getpid());
                unlink(cmd);
            }
        }
        free(X);
    }

    printf("\n%-13s %6s %-18s %9s %8s %8s %8s %8s %8s %14s\n", "data", "N", "precision",
           "ms/iter", "E ms", "M ms", "TFLOP/s", "% GEMM", "mem GB", "mean loglik");
    for (int r = 0; r < n_rows; r++) printf("%s\n", rows[r]);
    for (int ds = 0; ds < 2; ds++) {
        if (fit_s[ds] >= 0)
            printf("%s: gmm_fit (k-means++ seeding, Lloyd and EM on the GPU, tol 1e-3): %.2f s, "
                   "%d iterations\n",
                   names[ds], fit_s[ds], fit_iters[ds]);
        if (train_s[ds] >= 0)
            printf("%s: whole gmm-train -k %d --device gpu (loading included): %.2f s\n",
                   names[ds], K, train_s[ds]);
    }
    printf("targets (H100, N = 60000, full, K = 10): <= 35 ms/iter fp64, <= 10 ms tf32, "
           "whole fit < 5 s\n");
    return 0;
}
