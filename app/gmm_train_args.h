/* gmm-train's command line, parsed (gmm_train_parse_args in app/train_args.c), so that the option
 * parser can be driven by a fuzz harness (tests/fuzz/) as well as by main. */
#ifndef GMM_TRAIN_ARGS_H
#define GMM_TRAIN_ARGS_H

#include "models/core/em.h"
#include "models/core/score.h"
#include "models/features/umap_space.h"
#include "models/fit/select_k.h"

typedef struct {
    gmm_options opt;
    const char *output, *png, *images_dir, *diag_dir, *data_path;
    const char *init_from;      /* --init-from, or NULL */
    double blur;
    long long limit;
    int quiet;
    int timings;                /* --timings: one line saying where the run's time went */
    int pca_axes, whiten;       /* --pca D (0: none), --whiten */
    int space_spectral;         /* --space spectral (opt.spectral_dims, opt.knn_neighbors) */
    int space_umap;             /* --space umap (opt.knn_neighbors and the fields below) */
    int embed_dims;             /* --embed-dims (0: 10) */
    double min_dist;            /* --min-dist (default 0) */
    int epochs;                 /* --epochs (0: GMM_UMAP_EPOCHS) */
    int knn_pca;                /* --knn-pca as gmm_umap_options takes it (0: default, < 0: none) */
    gmm_umap_metric metric;     /* --metric (0: auto) */
    double knn_power;           /* --knn-power (0: default) */
    double knn_whiten;          /* --knn-whiten as gmm_umap_options takes it (0: default, < 0: none) */
    const char *map_path;       /* --map FILE: the map of the clusters (umap: map.png; "" none) */
    int k_given, cov_given;     /* -k / --covariance given (--init-from takes them otherwise) */
    int k_is_range;             /* -k A:B[:STEP]: fit every K of k_range, keep the chosen */
    gmm_k_range k_range;        /* k_first, k_last, k_step, criterion (--select) */
    const char *bic_png;        /* --bic-png: BIC and AIC against K ("" none) */
    const char *json_path;      /* --json FILE, or NULL */
    int gpus;                   /* --gpus: 0 not given (one GPU), -1 all, else N */
    gmm_bayes_options bayes;    /* --bayesian's priors (opt.bayes points here when given) */
} gmm_train_args;

/* gmm-train's exit code after an interrupt (SIGINT, SIGTERM). */
#define EXIT_INTERRUPTED 130

/* Parses argv into args. Returns -1 when the program should go on, otherwise the exit code
 * (0 after --help, 1 after a usage error, with the message printed). */
int gmm_train_parse_args(int argc, char **argv, gmm_train_args *args);

#endif
