/* gmm-train: fit a Gaussian mixture to MNIST-format images, save model.bin and a PNG of the
 * cluster means, print progress per EM iteration and a summary (and clustering scores when the
 * data has labels). */
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/diagnostics_report.h"
#include "app/gmm_train_args.h"
#include "app/images.h"
#include "app/output_paths.h"
#include "app/pca_apply.h"
#include "app/spectral_space.h"
#include "app/umap_space.h"
#include "app/train_scale.h"
#include "app/train_signals.h"
#include "app/report.h"
#include "app/select_k_report.h"
#include "app/summary_json.h"
#include "data/dataset.h"
#include "data/idx.h"
#include "kernels/gpu_info.h"
#include "models/core/em.h"
#include "models/core/init.h"
#include "models/io/model_io.h"
#include "models/features/pca.h"

/* What the library does not know about a model and the file records: the image shape, the
 * blur and the data path (set for the final model and for every checkpoint). */
typedef struct {
    const char *output;
    int image_rows, image_cols;
    double blur;
    const char *data_path;
    int quiet;
    gmm_feature_space *space; /* --pca or --space spectral: lent to the model, freed at the end */
} model_labels;
static model_labels file_labels;

static void label_model(gmm_model *m)
{
    m->image_rows = file_labels.image_rows;
    m->image_cols = file_labels.image_cols;
    m->blur_sigma = file_labels.blur; /* gmm-predict applies the same blur */
    snprintf(m->data_path, sizeof m->data_path, "%s", file_labels.data_path);
    m->space = file_labels.space;
}

/* options.on_checkpoint: the model so far, written atomically over the output file. A failed
 * write is a warning: the fit goes on, and the final save reports a lasting problem. */
static gmm_status write_checkpoint(void *user, const gmm_model *so_far)
{
    (void)user;
    gmm_model m = *so_far; /* a shallow copy: the arrays are only read */
    label_model(&m);
    gmm_status st = gmm_model_save(file_labels.output, &m);
    if (st != GMM_OK)
        fprintf(stderr, "gmm-train: warning: checkpoint after iteration %d not written: %s\n",
                so_far->n_iter, gmm_error_message(st));
    else if (!file_labels.quiet)
        printf("checkpoint: the model after iteration %d written to %s\n", so_far->n_iter,
               file_labels.output);
    fflush(stdout);
    return GMM_OK;
}

/* The model file is written on a thread of its own from the moment the fit's parameters are
 * final (options.on_fitted): beside the fit's final E-step, the summary and pictures and the
 * device's release (the 49 MB of a K = 10 full model and its fsync take 0.08 s on a 2-core
 * machine, as long as the release on the H100 machine). */
typedef struct {
    pthread_t thread;
    int begun;   /* save_model_start was called */
    int started; /* on a thread (else it ran in save_model_start) */
    const char *path;
    const gmm_model *model;
    gmm_status status;
    char detail[512];
    double seconds;
} model_saver;

static void *save_model_thread(void *arg)
{
    model_saver *s = arg;
    double t0 = cli_now_seconds();
    s->status = gmm_model_save(s->path, s->model);
    if (s->status != GMM_OK) snprintf(s->detail, sizeof s->detail, "%s", gmm_error_message(s->status));
    s->seconds = cli_now_seconds() - t0;
    return NULL;
}

static void save_model_start(model_saver *s, const char *path, const gmm_model *model)
{
    s->begun = 1;
    s->path = path;
    s->model = model;
    s->started = pthread_create(&s->thread, NULL, save_model_thread, s) == 0;
    if (!s->started) save_model_thread(s); /* no thread: here and now */
}

/* options.on_fitted: the fitted model, labelled, starts on its way to the output file while the
 * fit scores the data (fitted_saver: main's, set before the fit). */
static model_saver *fitted_saver;
static void save_when_fitted(void *user, gmm_model *model)
{
    (void)user;
    label_model(model);
    save_model_start(fitted_saver, file_labels.output, model);
}

/* Waits for the file; its status, with the message re-raised on this thread. */
static gmm_status save_model_finish(model_saver *s)
{
    if (s->started) {
        pthread_join(s->thread, NULL);
        s->started = 0;
    }
    if (s->status != GMM_OK) return gmm_error(s->status, "%s", s->detail);
    return GMM_OK;
}

/* --init-from's model against the training images (after the --pca check): a model fitted in a
 * spectral or UMAP space cannot be continued on pixels, and a pixel-space model must be for
 * images of this shape, not only of this many values (14 x 56 is not 28 x 28). Returns 0, or
 * exit code 2 (bad data) after a message naming both. */
static int check_start_model(const char *init_from, const gmm_model *start, const dataset *ds,
                             int dim)
{
    if (start->space) {
        cli_error("--init-from %s: the model was fitted in a %s space of %d dimensions (made "
                  "from %d x %d images), not on the pixels; --init-from continues a pixel-space "
                  "model only (a %s fit is not continued: fit it again)",
                  init_from, gmm_feature_space_name(start->space), start->dim,
                  start->image_rows, start->image_cols, gmm_feature_space_name(start->space));
        return 2;
    }
    if (start->dim != dim || (start->image_rows > 0 && (start->image_rows != ds->rows ||
                                                          start->image_cols != ds->cols))) {
        cli_error("--init-from %s: the model is for %d features (%d x %d images), the data has "
                  "%d x %d images", init_from, start->dim, start->image_rows, start->image_cols,
                  ds->rows, ds->cols);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    cli_fit_blas_to_address_limit(argv);
    cli_install_sigbus_handler(); /* a mapped input truncated mid-run: exit 2, not SIGBUS */
    gmm_train_args args;
    int parsed = gmm_train_parse_args(argc, argv, &args);
    if (parsed >= 0) return parsed;
    train_signals_exit_at_once(); /* nothing to save yet: an interrupt ends it, exit 130 */
    /* every output's directory there and writable, no output an input: before any work */
    if ((parsed = train_check_outputs(&args)) != 0) return parsed;
    cli_mpi mpi;
    int mpi_rc = cli_mpi_start(&argc, &argv, &mpi);
    if (mpi_rc) return mpi_rc;
    if (train_scale_wanted(&args, &mpi)) {
        train_signals_stop_gracefully(mpi.size <= 1);
        int scale_rc = train_scale_run(&args, &mpi, train_stop_was_requested);
        cli_mpi_finish(&mpi);
        return scale_rc;
    }
    gmm_options opt = args.opt;
    const char *output = args.output, *png = args.png, *images_dir = args.images_dir,
               *diag_dir = args.diag_dir, *data_path = args.data_path, *init_from = args.init_from;
    double blur = args.blur;
    long long limit = args.limit;
    int quiet = args.quiet, k_given = args.k_given, cov_given = args.cov_given;
    int timings = args.timings;

    int rc = 0;
    gmm_status st;
    dataset ds = {0};
    double *X = NULL, *pixels = NULL; /* with --pca: X projected, pixels for the pictures */
    gmm_projection *projection = NULL;
    gmm_spectral_space *space = NULL;
    gmm_umap_space *umap_space = NULL;
    gmm_feature_space *feature_space = NULL; /* owns projection or space once made */
    gmm_model model = {0}, start = {0};
    diag_scores scores = {0};
    gmm_fit_scores fit_scores = {0}, summary_scores = {0}; /* summary_scores: a view, not owned */
    k_table k_fits = {0};
    iter_log iterations = {0};
    gmm_gpu *gpu = NULL;
    cli_progress_state progress = {0};
    diag_trace trace = {.cli = &progress};
    double t_start = cli_now_seconds(), t_end = 0, t_read = 0;
    model_saver saver = {0};
    /* one GPU resources object for the whole run (NULL on the CPU): fit, kNN, blur, pictures;
     * CUDA starts on its own thread while the data is read */
    if (init_from) {
        /* the starting model first: a wrong one fails before the data is read */
        if ((st = gmm_model_load(init_from, &start)) != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        if (!k_given) opt.n_components = start.n_components;
        if (!cov_given) opt.covariance_type = start.covariance_type;
        if (opt.n_components != start.n_components) {
            rc = cli_error("--init-from %s: the model has %d components, -k %d was given",
                           init_from, start.n_components, opt.n_components);
            goto done;
        }
        if (opt.covariance_type != start.covariance_type) {
            rc = cli_error("--init-from %s: the model has %s covariance, --covariance %s was given",
                           init_from, gmm_cov_type_name(start.covariance_type),
                           gmm_cov_type_name(opt.covariance_type));
            goto done;
        }
        if (blur > 0 && start.blur_sigma != blur) {
            rc = cli_error("--init-from %s: --blur %g contradicts the model, which was trained "
                           "with blur %g", init_from, blur, start.blur_sigma);
            goto done;
        }
        blur = start.blur_sigma; /* the images are smoothed as they were for the model */
        opt.init_model = &start;
    }
    cli_device_opener opener;
    cli_device_open_start(&opener, opt.device);
    const char *device_notice = NULL;
    /* an image file of 1 GiB or more is mapped, not read: its pages go to the device (or are
     * converted) from the page cache, without a copy of them in this process */
    st = dataset_load_range(data_path, DATASET_TRAIN, 0, -1, IDX_MAP_LARGE, &ds);
    if (st == GMM_OK) cli_guard_mapped_dataset(&ds); /* a file cut under us: an error, no crash */
    t_read = cli_now_seconds();
    gmm_status device_status = cli_device_open_finish(&opener, &gpu, &device_notice);
    if (opt.verbose >= 2 && opt.device != GMM_DEVICE_CPU)
        fprintf(stderr,
                "gmm-train: data read in %.3f s; device started in %.3f s beside it "
                "(CUDA_DEVICE_MAX_CONNECTIONS %s)\n",
                t_read - t_start, opener.seconds,
                getenv("CUDA_DEVICE_MAX_CONNECTIONS") ? getenv("CUDA_DEVICE_MAX_CONNECTIONS")
                                                      : "unset");
    if (st == GMM_OK) st = device_status;
    if (st != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (device_notice) cli_notice(NULL, device_notice);
    opt.gpu = gpu;
    /* auto has chosen the CPU here: the fit does not choose again (nor say so twice) */
    if (!gpu && opt.device == GMM_DEVICE_AUTO) opt.device = GMM_DEVICE_CPU;
    if (limit > 0 && limit < ds.n_samples) {
        dataset_truncate(&ds, (int)limit);
        fprintf(stderr, "gmm-train: using the first %d images (--limit)\n", ds.n_samples);
    }
    int dim = 0;
    if ((st = dataset_image_dim(&ds, &dim)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (init_from && (args.pca_axes || gmm_space_pca(start.space))) {
        rc = cli_error("--init-from does not yet continue a --pca fit");
        goto done;
    }
    if (init_from && (rc = check_start_model(init_from, &start, &ds, dim))) goto done;
    if ((st = gmm_options_validate(&opt, ds.n_samples, dim)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    /* On the GPU, when nothing before or after the fit needs the float64 matrix on the host,
     * the fit reads the image bytes themselves (a U8 view: uploaded as 1 byte a value and
     * converted there, the same values), not a copy converted here and uploaded as 8 */
    const int fit_on_bytes = gpu && blur <= 0 && !args.pca_axes && !args.space_spectral &&
                             !args.space_umap &&
                             !args.k_is_range && !diag_dir && !images_dir &&
                             (opt.init == GMM_INIT_KMEANS || init_from);
    if (!fit_on_bytes && (st = dataset_to_double(&ds, &X)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (blur > 0) {
        if ((st = images_blur(X, ds.n_samples, ds.rows, ds.cols, blur, gpu)) != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        if (!quiet)
            printf("blurred every image with a 5x5 Gaussian, sigma %g%s\n", blur,
                   init_from ? " (recorded in the starting model)" : "");
    }
    if ((rc = pca_train_apply(args.pca_axes, args.whiten, &X, ds.n_samples, &dim, gpu, quiet,
                              &projection, &pixels)))
        goto done;
    if (args.space_spectral &&
        (rc = spectral_train_apply(&ds, &opt, &X, &dim, gpu, quiet, &space, &pixels)))
        goto done;
    if (args.space_umap &&
        (rc = umap_train_apply(&ds, &args, &opt, &X, &dim, gpu, quiet, &umap_space, &pixels)))
        goto done;
    double t_loaded = cli_now_seconds();
    if (!quiet)
        printf("data: %s: %d images of %d x %d%s (loaded in %.2f s)\n", ds.images_path,
               ds.n_samples, ds.rows, ds.cols, ds.labels ? ", labelled" : "", t_loaded - t_start);
    if (!quiet && init_from)
        printf("fitting K=%d %s covariance, reg_covar=%g, tol=%g, max_iter=%d, continuing from %s "
               "(%s after %d iterations, lower bound %.6f)\n",
               opt.n_components, gmm_cov_type_name(opt.covariance_type), opt.reg_covar, opt.tol,
               opt.max_iter, init_from, start.converged ? "converged" : "not converged",
               start.n_iter, start.lower_bound);
    else if (!quiet && args.k_is_range)
        printf("fitting K=%d..%d (step %d) %s covariance, reg_covar=%g, tol=%g, max_iter=%d, "
               "init=%s, n_init=%d, seed=%llu; keeping the lowest %s\n", args.k_range.k_first,
               args.k_range.k_last, args.k_range.k_step, gmm_cov_type_name(opt.covariance_type),
               opt.reg_covar, opt.tol, opt.max_iter, gmm_init_name(opt.init), opt.n_init,
               (unsigned long long)opt.seed, select_k_criterion_label(args.k_range.criterion));
    else if (!quiet)
        printf("fitting K=%d %s covariance, reg_covar=%g, tol=%g, max_iter=%d, init=%s, n_init=%d, seed=%llu\n",
               opt.n_components, gmm_cov_type_name(opt.covariance_type), opt.reg_covar, opt.tol,
               opt.max_iter, gmm_init_name(opt.init), opt.n_init, (unsigned long long)opt.seed);
    fflush(stdout);
    progress.quiet = quiet;
    progress.n_init = opt.n_init;
    opt.on_progress = diag_progress;
    opt.on_notice = cli_notice;
    opt.user = &trace;
    if (args.json_path) { /* every iteration recorded for the summary, then printed as before */
        iterations = (iter_log){.fixed_k = args.k_is_range ? 0 : opt.n_components,
                                .next = diag_progress, .next_user = &trace};
        opt.on_progress = iter_log_progress;
        opt.user = &iterations;
    }
    if (projection || space || umap_space) {
        st = projection ? gmm_feature_space_from_pca(projection, &feature_space)
             : space    ? gmm_feature_space_from_spectral(space, &feature_space)
                        : gmm_feature_space_from_umap(umap_space, &feature_space);
        if (st != GMM_OK) { /* the variant is freed with the failure */
            projection = NULL;
            space = NULL;
            umap_space = NULL;
            rc = cli_fail(st);
            goto done;
        }
    }
    file_labels = (model_labels){.output = output, .image_rows = ds.rows, .image_cols = ds.cols,
                                 .blur = blur, .data_path = data_path, .quiet = quiet,
                                 .space = feature_space};
    opt.should_stop = train_stop_was_requested;
    if (opt.checkpoint_every > 0) opt.on_checkpoint = write_checkpoint;
    if (opt.init == GMM_INIT_KNN && !quiet) {
        int64_t graph = gmm_knn_sample_size(&opt);
        printf("knn init: density peaks of the %d-nearest-neighbour graph of %lld points\n",
               gmm_knn_neighbors(&opt), (long long)(ds.n_samples < graph ? ds.n_samples : graph));
        fflush(stdout);
    }
    train_signals_stop_gracefully(1); /* before this an interrupt ends the program at once */
    if (args.k_is_range) {
        st = select_k_fit(&args, X, ds.n_samples, dim, blur, projection, &opt, &k_fits, &model, &fit_scores,
                          args.json_path ? iter_log_mark_k : NULL, &iterations);
        if ((st == GMM_OK || st == GMM_INTERRUPTED) && (rc = select_k_report(&args, &k_fits)))
            goto done;
        if (st == GMM_INTERRUPTED && k_fits.chosen < 0) {
            fprintf(stderr, "gmm-train: %s before the first K was fitted; nothing written\n",
                    gmm_error_message(st));
            rc = EXIT_INTERRUPTED;
            goto done;
        }
        opt.n_components = model.n_components;
    } else if (fit_on_bytes) {
        fitted_saver = &saver;
        if (!ds.labels) opt.on_fitted = save_when_fitted; /* else after the labels are matched */
        const gmm_data_view bytes = {.elem = GMM_ELEM_U8, .rows = ds.pixels,
                                     .n_rows = ds.n_samples, .dim = dim, .first_row = 0,
                                     .n_total = ds.n_samples};
        /* the summary reads the labels and log-likelihoods: no N x K responsibilities */
        opt.scores_without_proba = !(images_dir || diag_dir);
        st = gmm_fit_view(&bytes, &opt, &model, &fit_scores);
    } else {
        fitted_saver = &saver;
        if (!ds.labels) opt.on_fitted = save_when_fitted;
        st = gmm_fit_scored(X, ds.n_samples, dim, &opt, &model, &fit_scores);
    }
    if (st == GMM_INTERRUPTED && !model.weights) {
        /* stopped inside the initialisation: there is no model, and the output (an older model
         * there, perhaps) is left as it was */
        fprintf(stderr, "gmm-train: interrupted during initialisation; no model written (%s)\n",
                gmm_error_message(st));
        rc = EXIT_INTERRUPTED;
        goto done;
    }
    if (st == GMM_INTERRUPTED) {
        char where[256]; /* the library's words, before the save can record others */
        snprintf(where, sizeof where, "%s", gmm_error_message(st));
        label_model(&model);
        if ((st = gmm_model_save(output, &model)) != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        fprintf(stderr, "gmm-train: %s; the model (%s, %d iterations, lower bound %.6f) "
                "written to %s; continue with --init-from %s\n", where,
                model.converged ? "converged" : "not converged", model.n_iter, model.lower_bound,
                output, output);
        rc = EXIT_INTERRUPTED;
        goto done;
    }
    if (st != GMM_OK) {
        rc = cli_fail(st);
        if (st == GMM_ERR_NOMEM && strstr(gmm_error_message(st), "device memory"))
            fprintf(stderr, "gmm-train: hint: --precision tf32 keeps the data in float32 (half "
                    "the memory), or train on fewer images with --limit N\n");
        goto done;
    }
    double t_fit = cli_now_seconds();
    printf("%s in %d iterations, %.2f s fitting (%.2f s in all); lower bound %.6f\n",
           model.converged ? "converged" : "NOT converged", model.n_iter, t_fit - t_loaded,
           t_fit - t_start, model.lower_bound);
    /* the summary and the pictures judge the model in float64 whatever the fit's precision:
     * the fit's final scores are float64 (models/core/em.h), computed on its own device from
     * the data it holds, with no float64 copy of the images here */
    if (!saver.begun) { /* a K range's chosen model, or labelled data */
        label_model(&model);
        /* the model file remembers which component stands for which label */
        if (ds.labels &&
            (rc = report_match_labels(&model, fit_scores.labels, ds.labels, ds.n_samples)))
            goto done;
        save_model_start(&saver, output, &model); /* the model is only read from here on */
    }
    if (train_stop_was_requested(NULL)) goto interrupted_after_fit;
    rc = report_training(&model, &fit_scores, ds.labels);
    if (!rc && *args.map_path && gmm_space_umap(model.space)) {
        char title[160];
        snprintf(title, sizeof title, "%d images, K = %d, seed %llu", ds.n_samples,
                 model.n_components, (unsigned long long)opt.seed);
        rc = umap_map_write(args.map_path, &model, gmm_space_umap(model.space)->map, ds.n_samples,
                            fit_scores.labels, ds.labels, title);
    }
    /* the summary reads the final scores wherever they are: the pictures and diagnostics take
     * the arrays over (they stay alive in scores until the end), the numbers are kept here */
    summary_scores = fit_scores;
    if (!rc && (images_dir || diag_dir) &&
        (st = diag_scores_adopt(&model, &fit_scores, &scores)) != GMM_OK)
        rc = cli_fail(st);
    if (rc) goto done;
    if (png && *png) {
        if ((st = report_means_png(png, &model)) != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        printf("cluster means written to %s\n", png);
    }
    if (train_stop_was_requested(NULL)) goto interrupted_after_fit;
    if (diag_dir) {
        rc = diagnostics_report_write(diag_dir, &model, X, pixels, ds.n_samples, &scores, &trace,
                                      gpu);
        if (rc) goto done;
    }
    if (train_stop_was_requested(NULL)) goto interrupted_after_fit;
    if (images_dir) {
        if ((rc = diagnostics_make_dir(images_dir))) goto done;
        st = images_write(images_dir, &model, pixels ? pixels : X, ds.n_samples, scores.labels,
                          scores.distance_sq, opt.seed, gpu);
        if (st != GMM_OK) {
            rc = cli_fail(st);
            goto done;
        }
        printf("images written to %s/ (means_entropy.png, samples.png, typical.png)\n", images_dir);
    }
    double t_pictures = cli_now_seconds(), t_released = t_pictures;
    if (gpu) {
        /* the device is released while the file is still being written, not at exit */
        gmm_gpu_destroy(gpu);
        gpu = NULL;
        gmm_cuda_release();
        t_released = cli_now_seconds();
    }
    if ((st = save_model_finish(&saver)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    if (train_stop_was_requested(NULL)) goto interrupted_after_fit; /* during the write: the model is complete */
    printf("model written to %s\n", output);
    t_end = cli_now_seconds();
    if (!quiet)
        printf("time: %.2f s loading (and starting the device), %.2f s fitting, %.2f s summary and "
               "pictures, %.2f s writing the model (beside them); %.2f s in all\n",
               t_loaded - t_start, t_fit - t_loaded, t_pictures - t_fit, saver.seconds,
               t_end - t_start);
    if (timings) {
        const gmm_fit_scores *f = &fit_scores;
        printf("timings: data read %.3f s", t_read - t_start);
        if (opt.device != GMM_DEVICE_CPU) /* a thread started the device beside the read */
            printf(", device started %.3f s beside it", opener.seconds);
        /* the fit's time outside its four phases (its checks before, its teardown after) */
        double rest = t_fit - t_loaded - f->seconds_setup - f->seconds_init - f->seconds_em -
                      f->seconds_scores;
        printf(", data ready %.3f s; fit: set-up %.3f s, initialisation %.3f s, EM %.3f s (%d "
               "iterations, %.1f ms each), final scores %.3f s, other %.3f s; summary and "
               "pictures %.3f s",
               t_loaded - t_start, f->seconds_setup, f->seconds_init, f->seconds_em,
               f->n_iter_total, f->n_iter_total > 0 ? 1e3 * f->seconds_em / f->n_iter_total : 0.0,
               f->seconds_scores, rest > 0 ? rest : 0.0, t_pictures - t_fit);
        if (t_released > t_pictures) printf(", device released %.3f s", t_released - t_pictures);
        printf("; model written %.3f s beside them; %.3f s in all\n", saver.seconds,
               t_end - t_start);
    }
    if (args.json_path) {
        train_summary summary = {.args = &args, .opt = &opt, .ds = &ds, .model = &model,
                                 .scores = &summary_scores, .iterations = &iterations,
                                 .k_table = args.k_is_range ? &k_fits : NULL,
                                 .seconds_load = t_loaded - t_start, .seconds_fit = t_fit - t_loaded,
                                 .seconds_pictures = t_pictures - t_fit,
                                 .seconds_save = saver.seconds, .seconds_total = t_end - t_start};
        if ((rc = train_json_write(args.json_path, &summary))) goto done;
        printf("summary written to %s\n", args.json_path);
    }
    if (train_stop_was_requested(NULL)) { /* at the very end: everything is written, the exit says it */
        fprintf(stderr, "gmm-train: interrupted; every output was complete and is written\n");
        rc = EXIT_INTERRUPTED;
    }
    goto done;
interrupted_after_fit:
    /* the fit had ended: the model is complete, the summary and pictures are skipped */
    if ((st = save_model_finish(&saver)) != GMM_OK) {
        rc = cli_fail(st);
        goto done;
    }
    fprintf(stderr, "gmm-train: interrupted after the fit; the model (%s in %d iterations) "
            "written to %s; the summary and pictures skipped\n",
            model.converged ? "converged" : "not converged", model.n_iter, output);
    rc = EXIT_INTERRUPTED;
done:
    if (saver.started) save_model_finish(&saver); /* never free the model under the writer */
    diag_trace_free(&trace);
    iter_log_free(&iterations);
    k_table_free(&k_fits);
    diag_scores_free(&scores);
    gmm_fit_scores_free(&fit_scores);
    if (model.space == feature_space) model.space = NULL; /* lent by label_model */
    if (feature_space) gmm_feature_space_free(feature_space);
    else {
        gmm_projection_free(projection);
        gmm_spectral_space_free(space);
        gmm_umap_space_free(umap_space);
    }
    free(pixels);
    gmm_model_free(&model);
    gmm_model_free(&start);
    free(X);
    dataset_free(&ds);
    gmm_gpu_destroy(gpu);
    cli_report_cuda();
    return mpi.started ? rc : cli_quick_exit(rc); /* the model is written and closed by now */
}
