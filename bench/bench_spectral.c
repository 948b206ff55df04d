/* gmm-bench spectral: the time of the spectral embedding of the kNN graph (models/features/spectral.h) on
 * real images: the kNN search, the graph, the Lanczos eigensolver, on the GPU and (with --cpu)
 * on the CPU, for every data directory given (default $MNIST_DIR, the 19690 digits, then
 * $FASHION_MNIST_DIR, 60000 images). bench/bench_spectral_vs_sklearn.sh runs it beside
 * scikit-learn's SpectralEmbedding on the same images.
 *
 *   gmm-bench spectral [--data DIR]... [--dims 10] [--neighbors 10] [--limit N] [--cpu] [--no-gpu]
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ops.h"
#include "data/dataset.h"
#include "models/features/spectral.h"

static int run_one(const char *dir, int limit, const gmm_spectral_options *o, int on_gpu)
{
    dataset ds;
    float *X = NULL;
    if (bench_load_images("spectral", dir, limit, &ds, &X)) return 1;
    const int64_t n = ds.n_samples;
    const int d = ds.rows * ds.cols;
    gmm_status st;
    gmm_gpu *gpu = NULL;
    int rc = 0;
    if (on_gpu && (st = gmm_gpu_create(&gpu)) != GMM_OK) {
        printf("%-10s %7lld  %-4s  %s\n", "spectral", (long long)n, "GPU", gmm_error_message(st));
        rc = 1;
        goto done;
    }
    for (int rep = 0; rep < (on_gpu ? 2 : 1); rep++) { /* on the GPU the first run warms up */
        gmm_spectral e;
        const double t0 = bench_now_ms() / 1e3;
        st = gmm_spectral_embed(X, n, d, o, gpu, &e);
        const double total = bench_now_ms() / 1e3 - t0;
        if (st != GMM_OK) {
            printf("%-10s %7lld  %-4s  %s\n", "spectral", (long long)n, on_gpu ? "GPU" : "CPU",
                   gmm_error_message(st));
            rc = 1;
            break;
        }
        if (!on_gpu || rep == 1)
            printf("%-10s %7lld  %-4s  %4d  %3d  %8.3f  %8.3f  %8.3f  %8.3f  %5d  %9.2e  %d\n",
                   "spectral", (long long)n, on_gpu ? "GPU" : "CPU", e.n_dims, e.n_neighbors,
                   e.seconds_knn, e.seconds_graph, e.seconds_eigen, total, e.lanczos.steps,
                   e.lanczos.max_residual, e.graph_components);
        gmm_spectral_free(&e);
    }
done:
    gmm_gpu_destroy(gpu);
    free(X);
    dataset_free(&ds);
    return rc;
}

int bench_spectral(int argc, char **argv)
{
    const char *dirs[8];
    int n_dirs = 0, limit = 0, cpu = 0, gpu = 1;
    gmm_spectral_options o = {.n_neighbors = 10, .n_dims = 10};
    static const struct option longopts[] = {
        {"data", required_argument, 0, 'd'}, {"dims", required_argument, 0, 'D'},
        {"neighbors", required_argument, 0, 'k'}, {"limit", required_argument, 0, 'l'},
        {"cpu", no_argument, 0, 'c'}, {"no-gpu", no_argument, 0, 'g'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            if (n_dirs < 8) dirs[n_dirs++] = optarg;
            break;
        case 'D': o.n_dims = atoi(optarg); break;
        case 'k': o.n_neighbors = atoi(optarg); break;
        case 'l': limit = atoi(optarg); break;
        case 'c': cpu = 1; break;
        case 'g':
            gpu = 0;
            cpu = 1;
            break;
        case 'h':
            printf("usage: gmm-bench spectral [--data DIR]... [--dims 10] [--neighbors 10] "
                   "[--limit N] [--cpu] [--no-gpu]\n"
                   "Times the spectral embedding of the kNN graph (kNN search, graph, Lanczos)\n"
                   "of each DIR's training images (default $MNIST_DIR then $FASHION_MNIST_DIR);\n"
                   "the GPU time is the second of two runs.\n");
            return 0;
        default: return 2;
        }
    }
    if (!(n_dirs = bench_data_dirs("spectral", dirs, n_dirs))) return 2;
    if (gpu && !bench_have_gpu()) {
        printf("gmm-bench spectral: no GPU; CPU only\n");
        gpu = 0;
        cpu = 1;
    }
    printf("%-10s %7s  %-4s  %4s  %3s  %8s  %8s  %8s  %8s  %5s  %9s  %s\n", "op", "n", "dev",
           "dims", "k", "knn_s", "graph_s", "eigen_s", "total_s", "steps", "residual",
           "components");
    int rc = 0;
    for (int i = 0; i < n_dirs; i++) {
        if (gpu) rc |= run_one(dirs[i], limit, &o, 1);
        if (cpu) rc |= run_one(dirs[i], limit, &o, 0);
    }
    return rc;
}
