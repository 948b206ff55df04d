/* gmm-bench scale: EM on an image set kept as bytes (a U8 view: 1 byte a value on the device or
 * streamed from host memory), on 1 or more GPUs (models/fit/multi_gpu.h), in float64 and TF32.
 *
 *   gmm-bench scale --data DIR [-k 10] [--iters 5] [--gpus 1,2] [--precision fp64,tf32]
 *                   [--covariance full] [--memory-budget BYTES]
 *
 * --data is an IDX directory (train-images-idx3-ubyte[.gz], e.g. written by gmm-augment), read
 * with the data/ loader (a raw file memory-mapped); nothing is generated here. Each (GPUs,
 * precision) pair runs one fit of exactly --iters EM iterations (tol 0) from k-means
 * (kmeans_max_iter 10) and prints one row: seconds per EM iteration (the median of the
 * iterations after the first, from the fit's progress callback), the speed-up over 1 GPU at the same precision, whether the data streamed
 * from host memory, GPU 0's device memory in use at the end of an iteration above what it used
 * before the fit (cudaMemGetInfo total - free, the largest sample over the iterations; the
 * other GPUs hold the same buffers for their share of the rows), and the whole fit's wall time
 * (context, initialisation, iterations, final scoring). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench.h"
#include "bench/bench_ops.h"
#include "data/dataset.h"
#include "kernels/clock.h"
#include "kernels/gpu_info.h"
#include "models/data_view.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/fit/multi_gpu.h"

#define MAX_LIST 8

typedef struct {
    double *seconds; /* per iteration */
    int n, cap;
    size_t used_before, peak_used;
} progress_log;

static void on_progress(void *user, int init_index, int iteration, double lower_bound,
                        double change, double seconds)
{
    progress_log *p = (progress_log *)user;
    size_t free_b = 0, total_b = 0;
    (void)init_index, (void)iteration, (void)lower_bound, (void)change;
    if (p->n < p->cap) p->seconds[p->n++] = seconds;
    /* called from rank 0's thread: its current device is GPU 0 */
    if (gmm_gpu_describe(NULL, 0, &free_b, &total_b) == 0 && total_b - free_b > p->peak_used)
        p->peak_used = total_b - free_b;
}

static int parse_list(const char *s, int *out, int max, const char *what)
{
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char *end;
        long v = strtol(tok, &end, 10);
        if (*end || v < 1 || v > 64 || n == max) {
            fprintf(stderr, "gmm-bench scale: bad %s list '%s'\n", what, s);
            free(copy);
            return -1;
        }
        out[n++] = (int)v;
    }
    free(copy);
    return n;
}

static int parse_precisions(const char *s, gmm_precision *out, int max)
{
    int n = 0;
    char *copy = strdup(s), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        gmm_precision p;
        if (!strcmp(tok, "fp64")) p = GMM_PRECISION_FP64;
        else if (!strcmp(tok, "fp32")) p = GMM_PRECISION_FP32;
        else if (!strcmp(tok, "tf32")) p = GMM_PRECISION_TF32;
        else {
            fprintf(stderr, "gmm-bench scale: unknown precision '%s' (fp64, fp32, tf32)\n", tok);
            free(copy);
            return -1;
        }
        if (n == max) break;
        out[n++] = p;
    }
    free(copy);
    return n;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: gmm-bench scale --data DIR [-k 10] [--iters 5] [--gpus 1,2]\n"
                 "                       [--precision fp64,tf32] [--covariance full]\n"
                 "                       [--memory-budget BYTES]\n");
}

int bench_scale(int argc, char **argv)
{
    const char *data_dir = NULL, *gpus_arg = "1", *prec_arg = "fp64,tf32", *cov_arg = "full";
    int K = 10, iters = 5, gpus[MAX_LIST], n_gpus_list, n_prec;
    long long budget = 0;
    gmm_precision precs[MAX_LIST];
    gmm_cov_type type;
    static const struct option longopts[] = {
        {"data", required_argument, NULL, 'd'},      {"iters", required_argument, NULL, 'i'},
        {"gpus", required_argument, NULL, 'g'},      {"precision", required_argument, NULL, 'p'},
        {"covariance", required_argument, NULL, 'c'},
        {"memory-budget", required_argument, NULL, 'b'},
        {"help", no_argument, NULL, 'h'},            {NULL, 0, NULL, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "k:h", longopts, NULL)) != -1) {
        char *end = NULL;
        switch (c) {
        case 'd': data_dir = optarg; break;
        case 'k':
            K = (int)strtol(optarg, &end, 10);
            if (*end || K < 1) {
                fprintf(stderr, "gmm-bench scale: bad -k '%s'\n", optarg);
                return 2;
            }
            break;
        case 'i':
            iters = (int)strtol(optarg, &end, 10);
            if (*end || iters < 2) {
                fprintf(stderr, "gmm-bench scale: --iters must be an integer >= 2, got '%s'\n",
                        optarg);
                return 2;
            }
            break;
        case 'g': gpus_arg = optarg; break;
        case 'p': prec_arg = optarg; break;
        case 'c': cov_arg = optarg; break;
        case 'b':
            budget = strtoll(optarg, &end, 10);
            if (*end || budget < 0) {
                fprintf(stderr, "gmm-bench scale: bad --memory-budget '%s' (bytes)\n", optarg);
                return 2;
            }
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (!data_dir) {
        fprintf(stderr, "gmm-bench scale: --data DIR (an IDX image directory) is required\n");
        return 2;
    }
    if ((n_gpus_list = parse_list(gpus_arg, gpus, MAX_LIST, "--gpus")) < 1) return 2;
    if ((n_prec = parse_precisions(prec_arg, precs, MAX_LIST)) < 1) return 2;
    if (gmm_cov_type_parse(cov_arg, &type) != 0) {
        fprintf(stderr, "gmm-bench scale: unknown --covariance '%s' (full, tied, diag, "
                        "spherical)\n", cov_arg);
        return 2;
    }
    int have = gmm_gpu_count();
    for (int i = 0; i < n_gpus_list; i++)
        if (gpus[i] > have) {
            fprintf(stderr, "gmm-bench scale: --gpus asks for %d GPUs, %d present\n", gpus[i],
                    have);
            return 2;
        }

    dataset ds;
    double t_load = gmm_clock_seconds();
    gmm_status st = dataset_load_range(data_dir, DATASET_TRAIN, 0, -1, 1, &ds);
    if (st != GMM_OK) {
        fprintf(stderr, "gmm-bench scale: %s\n", gmm_error_message(st));
        return 1;
    }
    const int d = ds.rows * ds.cols;
    gmm_data_view view = {GMM_ELEM_U8, ds.pixels, ds.n_samples, d, 0, ds.n_samples};
    printf("scale: %d x %d bytes (%.2f GB) from %s, loaded in %.1f s; K = %d, %s, %d EM "
           "iterations, memory budget %s%lld\n",
           ds.n_samples, d, (double)ds.n_samples * d / 1e9, data_dir,
           gmm_clock_seconds() - t_load, K, gmm_cov_type_name(type), iters,
           budget ? "" : "(free memory) ", budget);
    printf("%-5s %-9s %-9s %12s %9s %14s %11s\n", "gpus", "precision", "streamed", "s/iteration",
           "speed-up", "GPU0 mem GB", "fit wall s");
    int rc = 0;
    for (int p = 0; p < n_prec; p++) {
        double one_gpu = -1;
        for (int g = 0; g < n_gpus_list; g++) {
            gmm_options o;
            gmm_model m;
            gmm_fit_scores sc;
            progress_log log = {0};
            size_t free_b = 0, total_b = 0;
            gmm_options_default(&o);
            o.n_components = K;
            o.covariance_type = type;
            o.precision = precs[p];
            o.max_iter = iters;
            o.tol = 0;
            o.kmeans_max_iter = 10;
            o.tuning.memory_budget = budget;
            log.cap = iters;
            log.seconds = calloc((size_t)iters, sizeof(double));
            if (gmm_gpu_describe(NULL, 0, &free_b, &total_b) == 0)
                log.used_before = total_b - free_b;
            o.on_progress = on_progress;
            o.user = &log;
            double t0 = gmm_clock_seconds();
            st = gmm_fit_gpus(&view, gpus[g], &o, &m, &sc);
            double wall = gmm_clock_seconds() - t0;
            const char *pname = precs[p] == GMM_PRECISION_FP64   ? "fp64"
                                : precs[p] == GMM_PRECISION_FP32 ? "fp32"
                                                                 : "tf32";
            if (st != GMM_OK) {
                printf("%-5d %-9s failed: %s\n", gpus[g], pname, gmm_error_message(st));
                rc = 1;
                free(log.seconds);
                continue;
            }
            /* the median of the iterations after the first */
            double per = log.n > 1 ? bench_median(log.seconds + 1, log.n - 1) : -1;
            if (gpus[g] == 1) one_gpu = per;
            char speed[32] = "-";
            if (one_gpu > 0 && per > 0) snprintf(speed, sizeof speed, "%.2fx", one_gpu / per);
            double mem =
                log.peak_used > log.used_before ? (log.peak_used - log.used_before) / 1e9 : 0;
            printf("%-5d %-9s %-9s %12.4f %9s %14.2f %11.2f\n", gpus[g], pname,
                   sc.data_streamed ? "yes" : "no", per, speed, mem, wall);
            fflush(stdout);
            gmm_model_free(&m);
            gmm_fit_scores_free(&sc);
            free(log.seconds);
        }
    }
    printf("GPU0 mem: cudaMemGetInfo (total - free) on GPU 0, the largest sample at the end of an "
           "EM iteration, minus its use before the fit. streamed: the backend read the rows from "
           "host memory in chunks (--memory-budget forces it).\n");
    dataset_free(&ds);
    return rc;
}
