/* gmm-bench umap: the time of the UMAP embedding (models/features/umap.h) on real images: the kNN
 * search, the fuzzy graph, the spectral start, the SGD layout (and the 2-D map layout with
 * --map), on the GPU and (with --cpu) on the CPU, for every data directory given (default
 * $MNIST_DIR, the 19690 digits, then $FASHION_MNIST_DIR, 60000 images). The embedding time is
 * principal axes + kNN + graph + start + layout: what the mixture's space costs; the map is
 * extra. The images are as read (no blur).
 *
 *   gmm-bench umap [--data DIR]... [--dims 10] [--neighbors 15] [--epochs N] [--limit N]
 *                  [--map] [--cpu] [--no-gpu]
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_ops.h"
#include "data/dataset.h"
#include "models/features/umap.h"

static int run_one(const char *dir, int limit, const gmm_umap_options *o, int on_gpu)
{
    dataset ds;
    float *X = NULL;
    if (bench_load_images("umap", dir, limit, &ds, &X)) return 1;
    const int64_t n = ds.n_samples;
    const int d = ds.rows * ds.cols;
    gmm_status st;
    gmm_gpu *gpu = NULL;
    int rc = 0;
    if (on_gpu && (st = gmm_gpu_create(&gpu)) != GMM_OK) {
        printf("%-6s %7lld  %-4s  %s\n", "umap", (long long)n, "GPU", gmm_error_message(st));
        rc = 1;
        goto done;
    }
    for (int rep = 0; rep < (on_gpu ? 2 : 1); rep++) { /* on the GPU the first run warms up */
        gmm_umap_space *s = NULL;
        gmm_umap_report r;
        const double t0 = bench_now_ms() / 1e3;
        st = gmm_umap_embed(X, n, d, ds.pixels, o, gpu, &s, &r);
        const double total = bench_now_ms() / 1e3 - t0;
        if (st != GMM_OK) {
            printf("%-6s %7lld  %-4s  %s\n", "umap", (long long)n, on_gpu ? "GPU" : "CPU",
                   gmm_error_message(st));
            rc = 1;
            break;
        }
        if (!on_gpu || rep == 1)
            printf("%-6s %7lld  %-4s  %4d  %3d  %6d  %8.3f  %8.3f  %8.3f  %8.3f  %8.3f  %8.3f  "
                   "%8.3f  %8.3f  %9lld\n", "umap", (long long)n, on_gpu ? "GPU" : "CPU",
                   s->n_dims, s->n_neighbors, r.n_epochs, r.seconds_pca, r.seconds_knn,
                   r.seconds_graph, r.seconds_init, r.seconds_layout,
                   r.seconds_pca + r.seconds_knn + r.seconds_graph + r.seconds_init +
                       r.seconds_layout,
                   r.seconds_map, total, (long long)r.n_edges);
        gmm_umap_space_free(s);
    }
done:
    gmm_gpu_destroy(gpu);
    free(X);
    dataset_free(&ds);
    return rc;
}

int bench_umap(int argc, char **argv)
{
    const char *dirs[8];
    int n_dirs = 0, limit = 0, cpu = 0, gpu = 1;
    gmm_umap_options o = {0};
    static const struct option longopts[] = {
        {"data", required_argument, 0, 'd'}, {"dims", required_argument, 0, 'D'},
        {"neighbors", required_argument, 0, 'k'}, {"epochs", required_argument, 0, 'e'},
        {"limit", required_argument, 0, 'l'}, {"map", no_argument, 0, 'm'},
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
        case 'e': o.n_epochs = atoi(optarg); break;
        case 'l': limit = atoi(optarg); break;
        case 'm': o.map_dims = 2; break;
        case 'c': cpu = 1; break;
        case 'g':
            gpu = 0;
            cpu = 1;
            break;
        case 'h':
            printf("usage: gmm-bench umap [--data DIR]... [--dims 10] [--neighbors 15] "
                   "[--epochs N] [--limit N] [--map] [--cpu] [--no-gpu]\n"
                   "Times the UMAP embedding (kNN search, fuzzy graph, spectral start, SGD\n"
                   "layout; with --map also the 2-D map layout) of each DIR's training images\n"
                   "(default $MNIST_DIR then $FASHION_MNIST_DIR); embed_s is the space's time\n"
                   "without the map; the GPU time is the second of two runs.\n");
            return 0;
        default: return 2;
        }
    }
    if (!(n_dirs = bench_data_dirs("umap", dirs, n_dirs))) return 2;
    if (gpu && !bench_have_gpu()) {
        printf("gmm-bench umap: no GPU; CPU only\n");
        gpu = 0;
        cpu = 1;
    }
    printf("%-6s %7s  %-4s  %4s  %3s  %6s  %8s  %8s  %8s  %8s  %8s  %8s  %8s  %8s  %9s\n", "op",
           "n", "dev", "dims", "k", "epochs", "pca_s", "knn_s", "graph_s", "start_s", "layout_s",
           "embed_s",
           "map_s", "total_s", "edges");
    int rc = 0;
    for (int i = 0; i < n_dirs; i++) {
        if (gpu) rc |= run_one(dirs[i], limit, &o, 1);
        if (cpu) rc |= run_one(dirs[i], limit, &o, 0);
    }
    return rc;
}
