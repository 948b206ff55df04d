/* gmm-train's options: the --help text and the parser that turns argv into gmm_train_args
 * (app/gmm_train_args.h), apart from main so that a fuzz harness drives it too. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "app/cli.h"
#include "app/gmm_train_args.h"
#include "models/fit/spectral_init.h"
#include "models/features/umap.h"
#include "models/io/model_io.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gmm-train DIR|FILE [options]\n"
            "\n"
            "Fits a Gaussian mixture with EM (scikit-learn GaussianMixture semantics) to the\n"
            "training images of DIR (train-images-idx3-ubyte[.gz], labels used if present)\n"
            "or to one IDX image file, then writes the model and a PNG of the cluster means.\n"
            "\n"
            "options:\n"
            "  -k, --n-components K   number of components (default 10)\n"
            "  -k A:B[:STEP]          fit every K from A to B (step STEP, default 1), each with\n"
            "                         --n-init initialisations; print a table (K, iterations,\n"
            "                         lower bound, BIC, AIC, ICL, test-split log-likelihood,\n"
            "                         time) and keep the K with the lowest BIC\n"
            "  --select C             bic (default), aic or icl (BIC + 2 x the entropy of the\n"
            "                         responsibilities): what -k A:B chooses by\n"
            "  --bic-png FILE         -k A:B: BIC, AIC and ICL against K (default bic.png;\n"
            "                         '' none)\n"
            "  --bayesian             a variational (Bayesian) mixture, scikit-learn's\n"
            "                         BayesianGaussianMixture: -k is then an upper bound, the\n"
            "                         components the data does not need keep a weight near 0\n"
            "                         and the summary says how many keep weight\n"
            "  --weight-prior P       --bayesian: dirichlet_process (default: a stick-breaking\n"
            "                         prior that switches surplus components off) or\n"
            "                         dirichlet_distribution\n"
            "  --weight-concentration X  --bayesian: the weight prior's concentration (> 0;\n"
            "                         default 1/K: smaller keeps fewer components)\n"
            "  --json FILE            a JSON summary: options, lower bound and time of every\n"
            "                         iteration, final scores, metrics, the K table, timings\n"
            "  --covariance T         full (default), tied, diag, spherical\n"
            "  --max-iter N           EM iterations at most (default 100)\n"
            "  --tol X                convergence threshold on the change of the mean\n"
            "                         log-likelihood lower bound (default 1e-3; 0..1e100)\n"
            "  --reg-covar X          added to covariance diagonals (default 1e-6; 0..1e50)\n"
            "  --init M               kmeans (default), k-means++, random, random_from_data,\n"
            "                         knn (density peaks of the k-nearest-neighbour graph),\n"
            "                         spectral (the responsibilities of a mixture fitted in\n"
            "                         the spectral embedding of the kNN graph), merge (a\n"
            "                         mixture of 2K components, the best of --n-init runs,\n"
            "                         joined into K along the kNN graph of 10000 images:\n"
            "                         components that share the most neighbours per image\n"
            "                         go together, fragments first; EM then runs once)\n"
            "  --kmeans-sample N|all  --init kmeans: on more than N images, k-means++ and\n"
            "                         Lloyd run on a uniform sample of N of them, then every\n"
            "                         image takes its nearest center (default: a sample of\n"
            "                         262144 above 1048576 images; all: every image)\n"
            "  --kmeans-passes N      Lloyd passes over all images after the sample's\n"
            "                         k-means, at most (default 1; 1..2147483647)\n"
            "  --knn-neighbors K      --init knn/spectral/merge, --space spectral/umap:\n"
            "                         neighbours per point, itself counted (default 10; 15\n"
            "                         for --space umap; 1..127, at least 2 for the spaces)\n"
            "  --knn-sample N         --init knn: points in the kNN graph (default 60000;\n"
            "                         all of them when there are fewer)\n"
            "  --n-init N             initialisations; the best lower bound is kept (default 1;\n"
            "                         10 with --space umap; with --init merge, the starts of\n"
            "                         its 2K-component mixture)\n"
            "  --init-from FILE       continue EM from a saved model (its K and covariance\n"
            "                         type unless given; they must agree with the data)\n"
            "  --checkpoint N         write the model file every N EM iterations (not\n"
            "                         converged, its iteration count recorded)\n"
            "  --seed S               random seed (default 0); the same seed gives the same fit\n"
            "  --limit N              train on the first N images only\n"
            "  --device D             auto (default: GPU if present), cpu, gpu\n"
            "  --precision P          fp64 (default), fp32 (full/tied on the CPU), tf32 (GPU\n"
            "                         only); fp32/tf32 are faster and less exact\n"
            "  --gpus N|all           split the rows over N GPUs of this host (NCCL sums the\n"
            "                         statistics); the same model as one GPU\n"
            "  --device-memory BYTES  memory the fit may hold for the data and its buffers\n"
            "                         (K, M, G suffixes; default: what the device has free);\n"
            "                         data that does not fit streams from host memory\n"
            "  -o, --output FILE      model file (default model.bin)\n"
            "  --png FILE             PNG grid of the cluster means (default means.png;\n"
            "                         --png '' writes none)\n"
            "  --images DIR           write samples.png, typical.png, means_entropy.png to DIR\n"
            "  --diagnostics DIR      write Mahalanobis/chi-square, separation and\n"
            "                         log-likelihood tables and plots to DIR\n"
            "  --blur SIGMA           smooth every image with a 5x5 Gaussian (SIGMA > 0) before\n"
            "                         fitting; the model records it and gmm-predict applies it\n"
            "                         (default none; 0.5 with --space umap; 0: none; else\n"
            "                         0.01..100)\n"
            "  --pca D                fit the mixture to the images' top D principal axes\n"
            "                         (after --blur); the model keeps the projection and\n"
            "                         gmm-predict applies it; pictures stay in pixel space\n"
            "  --whiten               with --pca: scale each axis to unit variance\n"
            "  --space S              pixels (default); umap: fit the mixture in the UMAP\n"
            "                         embedding of the images' kNN graph (the best clusters:\n"
            "                         no other flag needed: --n-init 10, --init merge and\n"
            "                         --blur 0.5 unless given); or\n"
            "                         spectral: in its Laplacian eigenmaps. The model keeps\n"
            "                         what gmm-predict needs to place new images (the\n"
            "                         training images, their coordinates); pictures stay in\n"
            "                         pixel space\n"
            "  --spectral-dims D      --space/--init spectral: embedding dimensions (default 10)\n"
            "  --embed-dims D         --space umap: embedding dimensions (default 10, 1..100)\n"
            "  --min-dist X           --space umap: UMAP's min_dist (default 0: packed\n"
            "                         clusters; 0..1)\n"
            "  --epochs N             --space umap: layout epochs (default 500)\n"
            "  --knn-pca D            --space umap: find the neighbours among the images' top D\n"
            "                         principal axes (default 50, fitted to at most 20000\n"
            "                         images; 0: in the pixels)\n"
            "  --knn-power P          --space umap: raise the pixels to the power P before the\n"
            "                         principal axes (default 0.5, the square root, with\n"
            "                         --knn-pca; 1: as they are; 0 < P <= 1)\n"
            "  --knn-whiten W         --space umap: divide each principal coordinate by its\n"
            "                         axis's variance^(W/2) (default 0.5; 0: not; 1: whiten)\n"
            "  --metric M             --space umap: the neighbours' distance: cosine, euclidean\n"
            "                         or auto (default: cosine with --knn-pca, else euclidean)\n"
            "  --map FILE             --space umap: the map of the clusters, every image a dot\n"
            "                         in a 2-D layout coloured by component (and by label\n"
            "                         beside it), the means at their clusters (default\n"
            "                         map.png; --map '' writes none)\n"
            "  -q, --quiet            no per-iteration progress lines\n"
            "  -v, --verbose          also the time of each phase (data, device, fit)\n"
            "  --timings              one line at the end: where the run's time went (data,\n"
            "                         device, set-up, initialisation, EM, scores, pictures,\n"
            "                         writing), also with -q\n"
            "  --version              print the program's version and exit\n"
            "  -h, --help             this help\n"
            "\n"
            "Interrupting (Ctrl-C, SIGTERM) during the fit finishes the current EM iteration,\n"
            "writes the model so far (not converged) and exits with 130; a second interrupt\n"
            "exits at once, writing nothing. During the initialisation it stops at once and\n"
            "writes no model (the output file is left as it was). Exit codes: 0 done, 1 bad\n"
            "usage, 2 bad data or failed fit, 130 interrupted.\n"
            "\n"
            "Under mpirun (Open MPI) every rank reads its own row range of the file, the\n"
            "statistics are summed over the ranks (MPI on the CPU, NCCL between one GPU per\n"
            "rank) and rank 0 writes the model, the pictures and the progress. Such a fit, or\n"
            "one over --gpus, keeps the images as bytes and starts from --init kmeans; --pca,\n"
            "--space spectral/umap, --blur, -k A:B, --images, --diagnostics and --json need all the\n"
            "data in one process.\n");
}

enum { OPT_COV = 256, OPT_MAX_ITER, OPT_TOL, OPT_REG, OPT_INIT, OPT_N_INIT, OPT_SEED, OPT_LIMIT,
       OPT_DEVICE, OPT_PRECISION, OPT_PNG, OPT_KNN_NEIGHBORS, OPT_KNN_SAMPLE, OPT_KMEANS_SAMPLE,
       OPT_KMEANS_PASSES, OPT_IMAGES,
       OPT_DIAGNOSTICS, OPT_BLUR, OPT_CHECKPOINT, OPT_INIT_FROM, OPT_TIMINGS, OPT_SELECT,
       OPT_BIC_PNG, OPT_JSON, OPT_PCA, OPT_WHITEN, OPT_SPACE,
       OPT_SPECTRAL_DIMS, OPT_GPUS, OPT_DEVICE_MEMORY, OPT_VERSION, OPT_EMBED_DIMS,
       OPT_MIN_DIST, OPT_EPOCHS, OPT_MAP, OPT_KNN_PCA, OPT_METRIC, OPT_KNN_POWER,
       OPT_KNN_WHITEN, OPT_BAYESIAN, OPT_WEIGHT_PRIOR,
       OPT_WEIGHT_CONCENTRATION };

/* -k A:B[:STEP] into range; 0, or the exit code after a usage error. */
static int parse_k_range(const char *text, gmm_k_range *range)
{
    char buf[64];
    long long v[3] = {0, 0, 1};
    if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
        return cli_error("-k: the range '%.20s...' is too long", text);
    char *save = NULL, *part = strtok_r(buf, ":", &save);
    int n = 0;
    for (; part && n < 3; part = strtok_r(NULL, ":", &save), n++)
        if (cli_parse_int("-k", part, INT_MIN, INT_MAX, &v[n])) return 1;
    if (part || n < 2 || text[strlen(text) - 1] == ':' || strstr(text, "::") || text[0] == ':')
        return cli_error("-k: a range is A:B or A:B:STEP, got '%s'", text);
    range->k_first = (int)v[0];
    range->k_last = (int)v[1];
    range->k_step = (int)v[2];
    /* everything but the number of images, which is known after reading them */
    gmm_status st = gmm_k_range_validate(range, INT64_MAX, NULL);
    if (st != GMM_OK) return cli_error("-k %s: %s", text, gmm_error_message(st));
    return 0;
}

int gmm_train_parse_args(int argc, char **argv, gmm_train_args *args)
{
    cli_program = "gmm-train";
    gmm_options opt;
    gmm_options_default(&opt);
    cli_apply_environment(&opt.tuning);
    opt.n_components = 10;
    const char *output = "model.bin", *png = "means.png", *images_dir = NULL, *diag_dir = NULL;
    double blur = 0;
    long long pca_axes = 0;
    int whiten = 0, spectral = 0, umap = 0, n_init_given = 0, knn_given = 0, blur_given = 0;
    int init_given = 0;
    int metric_given = 0;
    long long embed_dims = 0, epochs = 0, knn_pca = -1;
    gmm_umap_metric metric = GMM_UMAP_METRIC_AUTO;
    double min_dist = 0, knn_power = 0, knn_whiten = -1; /* power 0, whiten -1: not given */
    const char *map_path = NULL;
    const char *init_from = NULL;
    long long limit = 0, v;
    int quiet = 0, k_given = 0, cov_given = 0, timings = 0, k_is_range = 0, gpus = 0;
    gmm_k_range k_range = {0};
    const char *bic_png = "bic.png", *json_path = NULL;
    int bayesian = 0, weight_prior_given = 0;
    gmm_bayes_options bayes = {0};
    static const struct option longopts[] = {
        {"n-components", required_argument, 0, 'k'}, {"covariance", required_argument, 0, OPT_COV},
        {"max-iter", required_argument, 0, OPT_MAX_ITER}, {"tol", required_argument, 0, OPT_TOL},
        {"reg-covar", required_argument, 0, OPT_REG}, {"init", required_argument, 0, OPT_INIT},
        {"n-init", required_argument, 0, OPT_N_INIT}, {"seed", required_argument, 0, OPT_SEED},
        {"limit", required_argument, 0, OPT_LIMIT}, {"device", required_argument, 0, OPT_DEVICE},
        {"precision", required_argument, 0, OPT_PRECISION}, {"output", required_argument, 0, 'o'},
        {"png", required_argument, 0, OPT_PNG},
        {"knn-neighbors", required_argument, 0, OPT_KNN_NEIGHBORS},
        {"knn-sample", required_argument, 0, OPT_KNN_SAMPLE},
        {"kmeans-sample", required_argument, 0, OPT_KMEANS_SAMPLE},
        {"kmeans-passes", required_argument, 0, OPT_KMEANS_PASSES},
        {"images", required_argument, 0, OPT_IMAGES},
        {"diagnostics", required_argument, 0, OPT_DIAGNOSTICS},
        {"blur", required_argument, 0, OPT_BLUR}, {"quiet", no_argument, 0, 'q'},
        {"checkpoint", required_argument, 0, OPT_CHECKPOINT},
        {"init-from", required_argument, 0, OPT_INIT_FROM},
        {"verbose", no_argument, 0, 'v'}, {"timings", no_argument, 0, OPT_TIMINGS},
        {"pca", required_argument, 0, OPT_PCA}, {"whiten", no_argument, 0, OPT_WHITEN},
        {"space", required_argument, 0, OPT_SPACE},
        {"spectral-dims", required_argument, 0, OPT_SPECTRAL_DIMS},
        {"embed-dims", required_argument, 0, OPT_EMBED_DIMS},
        {"min-dist", required_argument, 0, OPT_MIN_DIST},
        {"epochs", required_argument, 0, OPT_EPOCHS}, {"map", required_argument, 0, OPT_MAP},
        {"knn-pca", required_argument, 0, OPT_KNN_PCA},
        {"metric", required_argument, 0, OPT_METRIC},
        {"knn-power", required_argument, 0, OPT_KNN_POWER},
        {"knn-whiten", required_argument, 0, OPT_KNN_WHITEN},
        {"gpus", required_argument, 0, OPT_GPUS},
        {"device-memory", required_argument, 0, OPT_DEVICE_MEMORY},
        {"select", required_argument, 0, OPT_SELECT},
        {"bic-png", required_argument, 0, OPT_BIC_PNG}, {"json", required_argument, 0, OPT_JSON},
        {"bayesian", no_argument, 0, OPT_BAYESIAN},
        {"weight-prior", required_argument, 0, OPT_WEIGHT_PRIOR},
        {"weight-concentration", required_argument, 0, OPT_WEIGHT_CONCENTRATION},
        {"version", no_argument, 0, OPT_VERSION}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":k:o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'k':
            k_is_range = strchr(optarg, ':') != NULL;
            if (k_is_range) {
                if (parse_k_range(optarg, &k_range)) return 1;
            } else {
                if (cli_parse_int("-k", optarg, 1, INT_MAX, &v)) return 1;
                opt.n_components = (int)v;
            }
            k_given = 1;
            break;
        case OPT_SELECT:
            if (gmm_k_criterion_parse(optarg, &k_range.criterion))
                return cli_error("--select must be bic, aic or icl, got '%s'", optarg);
            break;
        case OPT_BIC_PNG: bic_png = optarg; break;
        case OPT_BAYESIAN: bayesian = 1; break;
        case OPT_WEIGHT_PRIOR:
            if (gmm_weight_prior_parse(optarg, &bayes.weight_prior_type))
                return cli_error("--weight-prior must be dirichlet_process or "
                                 "dirichlet_distribution, got '%s'", optarg);
            weight_prior_given = 1;
            break;
        case OPT_WEIGHT_CONCENTRATION:
            if (cli_parse_double_range("--weight-concentration", optarg, 1e-300, 1e300,
                                       &bayes.weight_concentration_prior))
                return 1;
            weight_prior_given = 1;
            break;
        case OPT_JSON:
            if (!*optarg) return cli_error("--json needs a file name");
            json_path = optarg;
            break;
        case OPT_COV:
            if (gmm_cov_type_parse(optarg, &opt.covariance_type))
                return cli_error("--covariance must be full, tied, diag or spherical, got '%s'", optarg);
            cov_given = 1;
            break;
        case OPT_MAX_ITER:
            if (cli_parse_int("--max-iter", optarg, 1, INT_MAX, &v)) return 1;
            opt.max_iter = (int)v;
            break;
        case OPT_TOL:
            if (cli_parse_double_range("--tol", optarg, 0.0, GMM_TOL_MAX, &opt.tol)) return 1;
            break;
        case OPT_REG:
            if (cli_parse_double_range("--reg-covar", optarg, 0.0, GMM_REG_COVAR_MAX,
                                       &opt.reg_covar)) return 1;
            break;
        case OPT_INIT:
            if (gmm_init_parse(optarg, &opt.init))
                return cli_error("--init must be kmeans, k-means++, random, random_from_data, "
                                 "knn, spectral or merge, got '%s'", optarg);
            init_given = 1;
            break;
        case OPT_N_INIT:
            if (cli_parse_int("--n-init", optarg, 1, INT_MAX, &v)) return 1;
            opt.n_init = (int)v;
            n_init_given = 1;
            break;
        case OPT_SEED:
            if (cli_parse_int("--seed", optarg, 0, INT64_MAX, &v)) return 1;
            opt.seed = (uint64_t)v;
            break;
        case OPT_LIMIT:
            if (cli_parse_int("--limit", optarg, 1, INT_MAX, &limit)) return 1;
            break;
        case OPT_DEVICE:
            if (!strcmp(optarg, "auto")) opt.device = GMM_DEVICE_AUTO;
            else if (!strcmp(optarg, "cpu")) opt.device = GMM_DEVICE_CPU;
            else if (!strcmp(optarg, "gpu")) opt.device = GMM_DEVICE_GPU;
            else return cli_error("--device must be auto, cpu or gpu, got '%s'", optarg);
            break;
        case OPT_PRECISION:
            if (gmm_precision_parse(optarg, &opt.precision))
                return cli_error("--precision must be fp64, fp32 or tf32, got '%s'", optarg);
            break;
        case 'o': output = optarg; break;
        case OPT_PNG: png = optarg; break;
        case OPT_KNN_NEIGHBORS:
            if (cli_parse_int("--knn-neighbors", optarg, 1, 127, &v)) return 1;
            opt.knn_neighbors = (int)v;
            knn_given = 1;
            break;
        case OPT_KNN_SAMPLE:
            if (cli_parse_int("--knn-sample", optarg, 2, INT_MAX, &v)) return 1;
            opt.knn_sample_size = v;
            break;
        case OPT_KMEANS_SAMPLE:
            if (strcmp(optarg, "all") == 0) {
                opt.kmeans_sample_size = -1;
                break;
            }
            if (cli_parse_int("--kmeans-sample", optarg, 1, LLONG_MAX, &v)) return 1;
            opt.kmeans_sample_size = v;
            break;
        case OPT_KMEANS_PASSES:
            if (cli_parse_int("--kmeans-passes", optarg, 1, INT_MAX, &v)) return 1;
            opt.kmeans_full_passes = (int)v;
            break;
        case OPT_IMAGES:
            if (!*optarg) return cli_error("--images needs a directory");
            images_dir = optarg;
            break;
        case OPT_DIAGNOSTICS:
            if (!*optarg) return cli_error("--diagnostics needs a directory");
            diag_dir = optarg;
            break;
        case OPT_BLUR:
            if (cli_parse_double("--blur", optarg, 0.0, &blur)) return 1;
            if (blur != 0 && (!(blur >= GMM_BLUR_SIGMA_MIN) || blur > GMM_BLUR_SIGMA_MAX))
                return cli_error("--blur must be 0 (none) or in [%g, %g], got '%s'",
                                 GMM_BLUR_SIGMA_MIN, GMM_BLUR_SIGMA_MAX, optarg);
            blur_given = 1;
            break;
        case OPT_CHECKPOINT:
            if (cli_parse_int("--checkpoint", optarg, 1, INT_MAX, &v)) return 1;
            opt.checkpoint_every = (int)v;
            break;
        case OPT_INIT_FROM:
            if (!*optarg) return cli_error("--init-from needs a model file");
            init_from = optarg;
            break;
        case 'q': quiet = 1; break;
        case 'v': opt.verbose = 2; break;
        case OPT_TIMINGS: timings = 1; break;
        case OPT_PCA:
            if (cli_parse_int("--pca", optarg, 1, INT_MAX, &pca_axes)) return 1;
            break;
        case OPT_WHITEN: whiten = 1; break;
        case OPT_SPACE:
            spectral = !strcmp(optarg, "spectral");
            umap = !strcmp(optarg, "umap");
            if (!spectral && !umap && strcmp(optarg, "pixels"))
                return cli_error("--space must be pixels, umap or spectral, got '%s'", optarg);
            break;
        case OPT_EMBED_DIMS:
            if (cli_parse_int("--embed-dims", optarg, 1, 100, &embed_dims)) return 1;
            break;
        case OPT_MIN_DIST:
            if (cli_parse_double_range("--min-dist", optarg, 0.0, 1.0, &min_dist)) return 1;
            break;
        case OPT_EPOCHS:
            if (cli_parse_int("--epochs", optarg, 1, 100000, &epochs)) return 1;
            break;
        case OPT_MAP: map_path = optarg; break;
        case OPT_KNN_PCA:
            if (cli_parse_int("--knn-pca", optarg, 0, 100000, &knn_pca)) return 1;
            break;
        case OPT_METRIC:
            if (!strcmp(optarg, "auto")) metric = GMM_UMAP_METRIC_AUTO;
            else if (!strcmp(optarg, "euclidean")) metric = GMM_UMAP_EUCLIDEAN;
            else if (!strcmp(optarg, "cosine")) metric = GMM_UMAP_COSINE;
            else return cli_error("--metric must be auto, euclidean or cosine, got '%s'", optarg);
            metric_given = 1;
            break;
        case OPT_KNN_POWER:
            if (cli_parse_double_range("--knn-power", optarg, 0.0, 1.0, &knn_power)) return 1;
            if (!(knn_power > 0))
                return cli_error("--knn-power must be above 0 (1: the values as they are), got "
                                 "'%s'", optarg);
            break;
        case OPT_KNN_WHITEN:
            if (cli_parse_double_range("--knn-whiten", optarg, 0.0, 1.0, &knn_whiten)) return 1;
            break;
        case OPT_SPECTRAL_DIMS:
            if (cli_parse_int("--spectral-dims", optarg, 1, 1000, &v)) return 1;
            opt.spectral_dims = (int)v;
            break;
        case OPT_GPUS:
            if (!strcmp(optarg, "all")) gpus = -1;
            else if (cli_parse_int("--gpus", optarg, 1, 64, &v)) return 1;
            else gpus = (int)v;
            break;
        case OPT_DEVICE_MEMORY:
            if (cli_parse_bytes("--device-memory", optarg, &v)) return 1;
            opt.tuning.memory_budget = v;
            break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: return cli_version();
        case ':': return cli_error("option %s needs a value (see --help)", argv[optind - 1]);
        default:
            return cli_error("unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return cli_error("missing the data directory or IDX file");
    }
    if (argc - optind > 1) return cli_error("unexpected argument '%s' (see --help)", argv[optind + 1]);
    if (!*output) return cli_error("-o needs a file name");
    if (whiten && !pca_axes) return cli_error("--whiten needs --pca D (it scales the PCA axes)");
    if (spectral && pca_axes)
        return cli_error("--space spectral and --pca are not combined: the embedding is made from "
                         "the pixels");
    if (spectral && init_from)
        return cli_error("--init-from does not continue a --space spectral fit");
    if (spectral && opt.init == GMM_INIT_SPECTRAL)
        return cli_error("--init spectral starts a pixel-space fit; with --space spectral the "
                         "fit is already in the embedding");
    if (spectral && opt.knn_neighbors == 1)
        return cli_error("--space spectral needs --knn-neighbors of at least 2");
    if (umap && pca_axes)
        return cli_error("--space umap and --pca are not combined: the embedding is made from "
                         "the pixels");
    if (umap && init_from)
        return cli_error("--init-from does not continue a --space umap fit");
    if (umap && opt.init == GMM_INIT_SPECTRAL)
        return cli_error("--init spectral starts a pixel-space fit; with --space umap the fit "
                         "is already in the embedding");
    if (umap && opt.knn_neighbors == 1)
        return cli_error("--space umap needs --knn-neighbors of at least 2");
    if (!umap && (embed_dims || epochs || min_dist > 0 || map_path || knn_pca >= 0 ||
                  metric_given || knn_power > 0 || knn_whiten >= 0))
        return cli_error("--embed-dims, --min-dist, --epochs, --knn-pca, --knn-power, "
                         "--knn-whiten, --metric and --map belong to --space umap");
    if (knn_whiten > 0 && knn_pca == 0)
        return cli_error("--knn-whiten scales the principal axes, and --knn-pca 0 searches the "
                         "pixels without them");
    if (umap && !knn_given) opt.knn_neighbors = 15;
    if (umap && !n_init_given) opt.n_init = 10;
    if (umap && !init_given) opt.init = GMM_INIT_MERGE; /* a long cluster, not two components */
    if (umap && !blur_given) blur = GMM_UMAP_BLUR; /* neighbours by shape, not by stroke position */
    if (k_is_range && init_from)
        return cli_error("--init-from continues one model: it takes one K, not the range -k %d:%d",
                         k_range.k_first, k_range.k_last);
    if (k_is_range && opt.checkpoint_every > 0)
        return cli_error("--checkpoint writes one model as it is fitted: not with a K range");
    if (k_is_range) opt.n_components = k_range.k_first;
    {
        const int k_most = k_is_range ? k_range.k_last : opt.n_components;
        if (opt.kmeans_sample_size > 0 && opt.kmeans_sample_size < k_most)
            return cli_error("--kmeans-sample %lld is fewer images than the %d components of -k",
                             (long long)opt.kmeans_sample_size, k_most);
    }
    if (gpus != 0 && opt.device == GMM_DEVICE_CPU)
        return cli_error("--gpus and --device cpu contradict each other");
    if (weight_prior_given && !bayesian)
        return cli_error("--weight-prior and --weight-concentration belong to --bayesian");
    if (bayesian && k_is_range)
        return cli_error("--bayesian chooses the number of components itself: -k %d is its "
                         "upper bound, not a range", k_range.k_last);
    if (bayesian && gpus != 0)
        return cli_error("--bayesian runs on one GPU or the CPU, not over --gpus");
    gmm_options_plug_fitted_init(&opt);
    *args = (gmm_train_args){.gpus = gpus, .opt = opt, .output = output, .png = png,
                             .images_dir = images_dir,
                             .diag_dir = diag_dir, .data_path = argv[optind], .blur = blur,
                             .limit = limit, .quiet = quiet, .timings = timings,
                             .init_from = init_from,
                             .k_given = k_given, .cov_given = cov_given,
                             .pca_axes = (int)pca_axes, .whiten = whiten,
                             .space_spectral = spectral, .space_umap = umap,
                             .embed_dims = (int)embed_dims, .min_dist = min_dist,
                             .epochs = (int)epochs,
                             .knn_pca = knn_pca < 0 ? 0 : knn_pca == 0 ? -1 : (int)knn_pca,
                             .metric = metric, .knn_power = knn_power,
                             .knn_whiten = knn_whiten < 0 ? 0 : knn_whiten == 0 ? -1 : knn_whiten,
                             .map_path = umap ? (map_path ? map_path : "map.png") : "",
                             .k_is_range = k_is_range, .k_range = k_range, .bic_png = bic_png,
                             .json_path = json_path, .bayes = bayes};
    if (bayesian) args->opt.bayes = &args->bayes; /* the options point into args */
    return -1;
}
