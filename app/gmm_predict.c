/* gmm-predict: load model.bin, assign images to components (by default the test split of the
 * directory the model was trained on), print the mean log-likelihood and, when labels exist,
 * accuracy, NMI, ARI and the confusion matrix; optionally write the assignments as CSV. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/cli_mpi.h"
#include "kernels/gpu_info.h"
#include "app/diagnostics_report.h"
#include "app/gmm_predict_args.h"
#include "app/images.h"
#include "app/output_paths.h"
#include "app/pca_apply.h"
#include "app/spectral_space.h"
#include "app/umap_space.h"
#include "app/report.h"
#include "app/summary_json.h"
#include "data/dataset.h"
#include "data/file_write.h"
#include "models/core/em.h"
#include "models/core/score.h"
#include "models/io/model_io.h"

static void usage(FILE *out)
{
    fprintf(out,
            "usage: gmm-predict MODEL [DIR|FILE] [options]\n"
            "\n"
            "Assigns images to the components of MODEL (written by gmm-train). Without DIR|FILE\n"
            "it predicts the test split (t10k-images-idx3-ubyte[.gz]) of the directory the model\n"
            "was trained on; a directory argument means its test split too.\n"
            "\n"
            "options:\n"
            "  --out FILE       write the assignments as CSV (index,component[,label][,p_0..])\n"
            "  --proba          include the responsibilities p_k (predict_proba) in the CSV\n"
            "  --limit N        predict the first N images only\n"
            "  --device D       auto (default), cpu, gpu\n"
            "  --diagnostics DIR  write Mahalanobis/chi-square, separation and log-likelihood\n"
            "                   tables and plots for these images to DIR\n"
            "  --images DIR     write samples.png, typical.png, means_entropy.png to DIR\n"
            "  --blur SIGMA     smooth the images with a 5x5 Gaussian; not needed for a model\n"
            "                   trained with --blur (it records SIGMA and is applied as is),\n"
            "                   an error when it differs from the model's\n"
            "  --json FILE      a JSON summary (model, data, N, mean log-likelihood, BIC, AIC,\n"
            "                   metrics, images per component and per component and label)\n"
            "  --map FILE       a model fitted with --space umap: the map of the clusters with\n"
            "                   these images placed in it (default map.png; '' writes none)\n"
            "  --version        print the program's version and exit\n"
            "  -h, --help       this help\n");
}

/* SIGINT, SIGTERM and SIGHUP end the program at once (exit 130), first removing every
 * temporary file being written (data/file_write.h), so that no output is left half written and
 * an older one stays; SIGPIPE is ignored, so that a closed pipe is a write error (EPIPE). */
static void on_stop_signal(int sig)
{
    (void)sig;
    file_write_remove_temporaries(); /* async-signal-safe, as are write and _exit */
    static const char msg[] = "\ngmm-predict: interrupted; no output left half written\n";
    ssize_t ignored = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)ignored;
    _exit(130);
}

/* The test split beside the training data the model remembers. */
static int default_data_path(const gmm_model *model, char *path, size_t len)
{
    struct stat sb;
    if (!model->data_path[0]) return -1;
    if (stat(model->data_path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        snprintf(path, len, "%s", model->data_path);
        return 0;
    }
    /* a single training file: its t10k twin */
    const char *base = strrchr(model->data_path, '/');
    base = base ? base + 1 : model->data_path;
    if (strncmp(base, "train-", 6) != 0) return -1;
    snprintf(path, len, "%.*st10k-%s", (int)(base - model->data_path), model->data_path, base + 6);
    return 0;
}

/* Why default_data_path found nothing: no path recorded, or one that does not lead anywhere from
 * here (a relative path is relative to the directory gmm-train ran in). Returns exit code 1. */
static int explain_no_data_path(const gmm_model *model)
{
    if (!model->data_path[0])
        return cli_error("the model does not name its training data; give the data to predict");
    char cwd[PATH_MAX];
    if (model->data_path[0] != '/')
        return cli_error("the model records its training data as '%s', a path relative to the "
                         "directory gmm-train ran in, not found from here (%s); give the data to "
                         "predict", model->data_path, getcwd(cwd, sizeof cwd) ? cwd : "?");
    return cli_error("the model records its training data as '%s', which is not a directory "
                     "nor a train-* file with a t10k-* twin; give the data to predict",
                     model->data_path);
}

/* The images against the model: the shape it was trained on (when it records one), not only
 * the number of values (14 x 56 images are not 28 x 28 ones). Returns 0, or exit code 2 (bad
 * data) after a message naming both. */
static int check_image_shape(const gmm_model *model, const dataset *ds, int dim)
{
    if (model->image_rows > 0 &&
        (model->image_rows != ds->rows || model->image_cols != ds->cols)) {
        cli_error("%s has %d x %d images but the model expects %d values of %d x %d images "
                  "(the shape it was trained on)", ds->images_path, ds->rows, ds->cols,
                  gmm_model_input_dim(model), model->image_rows, model->image_cols);
        return 2;
    }
    if (dim != gmm_model_input_dim(model)) {
        cli_error("%s has %d x %d images (%d values) but the model expects %d values",
                  ds->images_path, ds->rows, ds->cols, dim, gmm_model_input_dim(model));
        return 2;
    }
    return 0;
}

/* The blur to apply: the model's (recorded by gmm-train --blur), which an explicit --blur may
 * repeat but not contradict; a model without one takes --blur as given, since a version-1 model
 * file could not record it. Returns 0, or the exit code after an error. */
static int choose_blur(const gmm_model *model, double *blur)
{
    double recorded = model->blur_sigma;
    if (recorded > 0 && *blur > 0 && fabs(*blur - recorded) > 1e-12 * recorded)
        return cli_error("--blur %g contradicts the model, which was trained with --blur %g "
                         "(leave --blur out: the model's is applied)", *blur, recorded);
    if (recorded > 0) *blur = recorded;
    else if (*blur > 0)
        cli_notice(NULL, "the model records no blur; smoothing the images with --blur as asked");
    return 0;
}

enum { OPT_OUT = 256, OPT_PROBA, OPT_LIMIT, OPT_DEVICE, OPT_DIAGNOSTICS, OPT_IMAGES, OPT_BLUR,
       OPT_JSON, OPT_VERSION, OPT_MAP };

int gmm_predict_parse_args(int argc, char **argv, gmm_predict_args *args)
{
    cli_program = "gmm-predict";
    const char *out_csv = NULL, *json_path = NULL, *map_path = NULL;
    int proba = 0;
    long long limit = 0;
    const char *diag_dir = NULL, *images_dir = NULL;
    double blur = 0;
    gmm_device device = GMM_DEVICE_AUTO;
    static const struct option longopts[] = {
        {"out", required_argument, 0, OPT_OUT}, {"proba", no_argument, 0, OPT_PROBA},
        {"limit", required_argument, 0, OPT_LIMIT}, {"device", required_argument, 0, OPT_DEVICE},
        {"diagnostics", required_argument, 0, OPT_DIAGNOSTICS},
        {"images", required_argument, 0, OPT_IMAGES}, {"blur", required_argument, 0, OPT_BLUR},
        {"json", required_argument, 0, OPT_JSON}, {"version", no_argument, 0, OPT_VERSION},
        {"map", required_argument, 0, OPT_MAP},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_OUT: out_csv = optarg; break;
        case OPT_PROBA: proba = 1; break;
        case OPT_MAP: map_path = optarg; break;
        case OPT_JSON:
            if (!*optarg) return cli_error("--json needs a file name");
            json_path = optarg;
            break;
        case OPT_DIAGNOSTICS:
            if (!*optarg) return cli_error("--diagnostics needs a directory");
            diag_dir = optarg;
            break;
        case OPT_IMAGES:
            if (!*optarg) return cli_error("--images needs a directory");
            images_dir = optarg;
            break;
        case OPT_BLUR:
            if (cli_parse_double("--blur", optarg, 0.0, &blur)) return 1;
            if (!(blur >= GMM_BLUR_SIGMA_MIN) || blur > GMM_BLUR_SIGMA_MAX)
                return cli_error("--blur must be in [%g, %g], got '%s'", GMM_BLUR_SIGMA_MIN,
                                 GMM_BLUR_SIGMA_MAX, optarg);
            break;
        case OPT_LIMIT:
            if (cli_parse_int("--limit", optarg, 1, INT32_MAX, &limit)) return 1;
            break;
        case OPT_DEVICE:
            if (!strcmp(optarg, "auto")) device = GMM_DEVICE_AUTO;
            else if (!strcmp(optarg, "cpu")) device = GMM_DEVICE_CPU;
            else if (!strcmp(optarg, "gpu")) device = GMM_DEVICE_GPU;
            else return cli_error("--device must be auto, cpu or gpu, got '%s'", optarg);
            break;
        case 'h': usage(stdout); return 0;
        case OPT_VERSION: return cli_version();
        case ':': return cli_error("option %s needs a value (see --help)", argv[optind - 1]);
        default: return cli_error("unknown option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind >= argc) {
        usage(stderr);
        return cli_error("missing the model file");
    }
    if (argc - optind > 2) return cli_error("unexpected argument '%s' (see --help)", argv[optind + 2]);
    if (proba && !out_csv) return cli_error("--proba needs --out FILE");
    *args = (gmm_predict_args){.model_path = argv[optind],
                               .data_path = argc - optind == 2 ? argv[optind + 1] : NULL,
                               .out_csv = out_csv, .diag_dir = diag_dir,
                               .images_dir = images_dir, .proba = proba, .limit = limit,
                               .blur = blur, .device = device, .json_path = json_path,
                               .map_path = map_path};
    return -1;
}

/* Under mpirun: every rank scores its row range of the images (read alone, as gmm-train's ranks
 * read theirs), rank 0 gathers the assignments (and with --proba the N x K responsibilities, in
 * rank order) and prints and writes what one process would: the summary and --out. A failed
 * rank ends every rank with its message. */
static int predict_on_ranks(const gmm_predict_args *args, const gmm_model *model,
                            const char *data_path, cli_mpi *mpi)
{
    const int root = mpi->rank == 0;
    gmm_status st = GMM_OK;
    dataset ds = {0};
    double *X = NULL, *loglik = NULL, *resp = NULL, *all_resp = NULL;
    int *assign = NULL, *all_assign = NULL, rc = 0, dim = 0;
    uint8_t *all_truth = NULL;
    gmm_gpu *gpu = NULL;
    FILE *csv = NULL;
    const int K = model->n_components;
    if (args->diag_dir || args->images_dir || args->json_path || gmm_space_pca(model->space) ||
        gmm_space_spectral(model->space) || gmm_space_umap(model->space) ||
        model->blur_sigma > 0 || args->blur > 0)
        return cli_error("under mpirun gmm-predict writes the summary and --out (with --proba) "
                         "only, for a model fitted on the pixels without --blur (--diagnostics, "
                         "--images, --json, --pca and --space spectral/umap models need one "
                         "process)");
    int64_t n_total = 0;
    if ((st = cli_load_rank_rows(data_path, DATASET_TEST, args->limit, mpi->rank, mpi->size, &ds,
                                 &n_total, &dim)) != GMM_OK)
        goto failed;
    const int64_t count = ds.n_samples;
    if ((model->image_rows > 0 && (model->image_rows != ds.rows || model->image_cols != ds.cols)) ||
        dim != gmm_model_input_dim(model)) {
        st = gmm_error(GMM_ERR_FORMAT, "%s has %d x %d images (%d values) but the model was "
                       "trained on %d x %d images (%d values)", ds.images_path, ds.rows, ds.cols,
                       dim, model->image_rows, model->image_cols, gmm_model_input_dim(model));
        goto failed;
    }
    if ((st = dataset_to_double(&ds, &X)) != GMM_OK) goto failed;
    loglik = malloc(sizeof(double) * count);
    assign = malloc(sizeof(int) * count);
    if (args->proba) resp = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1) * K);
    if (root) {
        all_assign = malloc(sizeof(int) * n_total);
        all_truth = ds.labels ? malloc(n_total) : NULL;
        if (args->proba) all_resp = malloc(sizeof(double) * (size_t)n_total * K);
    }
    if (!loglik || !assign || (args->proba && !resp) ||
        (root && (!all_assign || (ds.labels && !all_truth) || (args->proba && !all_resp)))) {
        st = gmm_error(GMM_ERR_NOMEM, "out of memory for %lld images", (long long)count);
        goto failed;
    }
    /* each rank on a GPU of its own (local rank mod the GPUs) when it scores on one */
    if (args->device != GMM_DEVICE_CPU && gmm_gpu_count() > 0 &&
        (st = cli_mpi_gpu(mpi, 0, &gpu)) != GMM_OK)
        goto failed;
    if ((st = gmm_score_samples_on(model, X, count, gpu ? GMM_DEVICE_GPU : args->device, gpu,
                                   loglik, resp, assign)) != GMM_OK)
        goto failed;
    double sum = 0;
    for (int64_t i = 0; i < count; i++) sum += loglik[i];
    if ((st = gmm_comm_sum(&mpi->comm, &sum, 1)) != GMM_OK ||
        (st = cli_mpi_gather_int(mpi, assign, count, all_assign)) != GMM_OK ||
        (ds.labels && (st = cli_mpi_gather_u8(mpi, ds.labels, count, all_truth)) != GMM_OK) ||
        (resp && (st = cli_mpi_gather_double(mpi, resp, count * K, all_resp)) != GMM_OK))
        goto failed;
    if (!root) goto done;
    double mean = sum / (double)n_total;
    printf("data: %s: N = %lld images of %d x %d, scored by %d ranks\n", ds.images_path,
           (long long)n_total, ds.rows, ds.cols, mpi->size);
    report_data_score(model, mean, n_total);
    if (all_truth && (rc = report_clustering(all_assign, model->n_components, all_truth, n_total)))
        goto done;
    if (!all_truth) printf("no labels found: clustering scores skipped\n");
    if (args->out_csv) {
        if (!(csv = file_write_open(args->out_csv, &st))) { /* in place when complete */
            rc = cli_fail(st);
            goto done;
        }
        fprintf(csv, "index,component%s", all_truth ? ",label" : "");
        for (int k = 0; all_resp && k < K; k++) fprintf(csv, ",p_%d", k);
        fprintf(csv, "\n");
        for (int64_t i = 0; i < n_total; i++) {
            fprintf(csv, "%lld,%d", (long long)i, all_assign[i]);
            if (all_truth) fprintf(csv, ",%d", all_truth[i]);
            for (int k = 0; all_resp && k < K; k++)
                fprintf(csv, ",%.6g", all_resp[(size_t)i * K + k]);
            fprintf(csv, "\n");
        }
        st = file_write_close(csv);
        csv = NULL;
        if (st != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        printf("assignments written to %s\n", args->out_csv);
    }
    goto done;
failed:
    rc = cli_mpi_fail(mpi, st);
done:
    file_write_abort(csv); /* a failure half way: nothing left under the name */
    dataset_free(&ds);
    free(X);
    free(loglik);
    free(assign);
    free(resp);
    free(all_resp);
    free(all_assign);
    free(all_truth);
    gmm_gpu_destroy(gpu);
    return rc;
}

int main(int argc, char **argv)
{
    cli_fit_blas_to_address_limit(argv);
    cli_install_sigbus_handler(); /* a mapped input truncated mid-run: exit 2, not SIGBUS */
    cli_apply_environment(NULL);
    gmm_predict_args args;
    int parsed = gmm_predict_parse_args(argc, argv, &args);
    if (parsed >= 0) return parsed;
    cli_handle_stop_signals(on_stop_signal, 1);
    if ((parsed = predict_check_outputs(&args, args.data_path)) != 0) return parsed;
    const char *out_csv = args.out_csv, *diag_dir = args.diag_dir, *images_dir = args.images_dir;
    int proba = args.proba;
    long long limit = args.limit;
    double blur = args.blur;
    gmm_device device = args.device;
    gmm_gpu *gpu = NULL;

    int rc = 0;
    gmm_status st;
    gmm_model model = {0};
    dataset ds = {0};
    double *X = NULL, *pixels = NULL, *loglik = NULL, *resp = NULL; /* pixels: with a projection */
    int *assign = NULL;
    float *map = NULL; /* a umap model's map: the images' places in it */
    FILE *csv = NULL;
    diag_scores scores = {0};
    cli_device_opener opener = {0};
    cli_mpi mpi;
    if ((rc = cli_mpi_start(&argc, &argv, &mpi))) return rc;
    /* one process: CUDA starts on its own thread while the model and the data are read (ranks
     * take their GPUs in predict_on_ranks) */
    if (mpi.size <= 1) cli_device_open_start(&opener, device);
    if ((st = gmm_model_load(args.model_path, &model)) != GMM_OK) {
        rc = cli_mpi_fail(&mpi, st);
        goto done;
    }
    char data_path[1100];
    if (args.data_path) {
        snprintf(data_path, sizeof data_path, "%s", args.data_path);
    } else if (default_data_path(&model, data_path, sizeof data_path) != 0) {
        rc = explain_no_data_path(&model);
        goto done;
    }
    if (!args.data_path && (rc = predict_check_outputs(&args, data_path))) goto done;
    if (mpi.size > 1) {
        rc = predict_on_ranks(&args, &model, data_path, &mpi);
        goto done;
    }
    if ((rc = choose_blur(&model, &blur))) goto done;
    if ((st = dataset_load(data_path, DATASET_TEST, &ds)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (limit > 0) dataset_truncate(&ds, (int)limit);
    int dim = 0, K = model.n_components;
    if ((st = dataset_image_dim(&ds, &dim)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if ((rc = check_image_shape(&model, &ds, dim))) goto done;
    loglik = malloc(sizeof(double) * ds.n_samples);
    assign = malloc(sizeof(int) * ds.n_samples);
    int need_resp = proba || diag_dir || images_dir;
    if (need_resp) resp = malloc(sizeof(double) * (size_t)ds.n_samples * K);
    if (!loglik || !assign || (need_resp && !resp)) {
        rc = cli_error("out of memory");
        goto done;
    }
    if (blur > 0)
        printf("blurred every image with a 5x5 Gaussian, sigma %g (%s)\n", blur,
               model.blur_sigma > 0 ? "recorded in the model" : "--blur");
    /* one GPU resources object for the run (NULL on the CPU): scoring, blur, pictures */
    const char *device_notice = NULL;
    if ((st = cli_device_open_finish(&opener, &gpu, &device_notice)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (device_notice) cli_notice(NULL, device_notice);
    if ((st = dataset_to_double(&ds, &X)) != GMM_OK ||
        (blur > 0 && (st = images_blur(X, ds.n_samples, ds.rows, ds.cols, blur, gpu)) != GMM_OK)) {
        rc = cli_fail(st);
        goto done;
    }
    if ((rc = pca_predict_apply(&model, &X, ds.n_samples, gpu, &pixels))) goto done;
    if ((rc = spectral_predict_apply(&model, &X, ds.n_samples, gpu, &pixels))) goto done;
    const char *map_path = args.map_path ? args.map_path : "map.png";
    if (args.map_path && *args.map_path &&
        !(gmm_space_umap(model.space) && gmm_space_umap(model.space)->map_dims)) {
        rc = cli_error("--map: the model keeps no map (only a --space umap model trained with one "
                       "has it)");
        goto done;
    }
    if ((rc = umap_predict_apply(&model, &X, ds.n_samples, gpu, &pixels, *map_path ? &map : NULL)))
        goto done;
    if (gmm_space_umap(model.space))
        printf("placed every image in the model's %d-dimensional umap space (its %d nearest of "
               "the %lld training images, then %d epochs)\n", gmm_space_umap(model.space)->n_dims,
               gmm_space_umap(model.space)->n_neighbors,
               (long long)gmm_space_umap(model.space)->n_train,
               gmm_space_umap(model.space)->n_train <= 10000 ? 100 : 30);
    if (gmm_space_spectral(model.space))
        printf("embedded every image in the model's %d-dimensional spectral space (its %d "
               "nearest of the %lld training images)\n", gmm_space_spectral(model.space)->n_dims,
               gmm_space_spectral(model.space)->n_neighbors, (long long)gmm_space_spectral(model.space)->n_train);
    if (gmm_space_pca(model.space))
        printf("projected every image on the model's %d PCA axes%s\n", gmm_space_pca(model.space)->n_axes,
               gmm_space_pca(model.space)->whiten ? " (whitened)" : "");
    if ((st = gmm_score_samples_on(&model, X, ds.n_samples, device, gpu, loglik, resp, assign)) !=
        GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    double mean = 0;
    for (int i = 0; i < ds.n_samples; i++) mean += loglik[i];
    mean /= ds.n_samples;
    printf("data: %s: N = %d images of %d x %d\n", ds.images_path, ds.n_samples, ds.rows, ds.cols);
    report_data_score(&model, mean, ds.n_samples);
    if (ds.labels) {
        if ((rc = report_clustering(assign, K, ds.labels, ds.n_samples)) ||
            (rc = report_stored_matching(&model, assign, ds.labels, ds.n_samples)))
            goto done;
    } else {
        printf("no labels found: clustering scores skipped\n");
    }
    if (map) {
        char title[160];
        snprintf(title, sizeof title, "%d new images placed in the map of %s", ds.n_samples,
                 args.model_path);
        if ((rc = umap_map_write(map_path, &model, map, ds.n_samples, assign, ds.labels, title)))
            goto done;
    }
    if (args.json_path) {
        if ((rc = predict_json_write(args.json_path, args.model_path, &model, &ds, mean, assign)))
            goto done;
        printf("summary written to %s\n", args.json_path);
    }
    if (out_csv) {
        if (!(csv = file_write_open(out_csv, &st))) { /* in place when complete */
            rc = cli_fail(st);
            goto done;
        }
        fprintf(csv, "index,component%s", ds.labels ? ",label" : "");
        for (int k = 0; proba && k < K; k++) fprintf(csv, ",p_%d", k);
        fprintf(csv, "\n");
        for (int i = 0; i < ds.n_samples; i++) {
            fprintf(csv, "%d,%d", i, assign[i]);
            if (ds.labels) fprintf(csv, ",%d", ds.labels[i]);
            for (int k = 0; proba && k < K; k++) fprintf(csv, ",%.6g", resp[(size_t)i * K + k]);
            fprintf(csv, "\n");
        }
        st = file_write_close(csv);
        csv = NULL;
        if (st != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        printf("assignments written to %s\n", out_csv);
    }
    if (diag_dir || images_dir) {
        /* the diagnostics take over the scores computed above: nothing is scored twice */
        gmm_fit_scores computed = {.n_samples = ds.n_samples, .n_components = K,
                                   .mean_log_likelihood = mean, .log_likelihood = loglik,
                                   .proba = resp, .labels = assign};
        loglik = resp = NULL;
        assign = NULL;
        if ((st = diag_scores_adopt(&model, &computed, &scores)) != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
    }
    if (diag_dir &&
        (rc = diagnostics_report_write(diag_dir, &model, X, pixels, ds.n_samples, &scores, NULL, gpu)))
        goto done;
    if (images_dir) {
        if ((rc = diagnostics_make_dir(images_dir))) goto done;
        st = images_write(images_dir, &model, pixels ? pixels : X, ds.n_samples, scores.labels,
                          scores.distance_sq, model.seed, gpu);
        if (st != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        printf("images written to %s/ (means_entropy.png, samples.png, typical.png)\n", images_dir);
    }
done:
    diag_scores_free(&scores);
    file_write_abort(csv);
    gmm_model_free(&model);
    dataset_free(&ds);
    free(X);
    free(pixels);
    free(loglik);
    free(resp);
    free(assign);
    free(map);
    if (opener.started) { /* ended before the device was needed */
        gmm_gpu *unused = NULL;
        const char *notice = NULL;
        (void)cli_device_open_finish(&opener, &unused, &notice);
        gmm_gpu_destroy(unused);
    }
    gmm_gpu_destroy(gpu);
    cli_mpi_finish(&mpi);
    cli_report_cuda();
    return rc;
}
