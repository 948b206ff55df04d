/* gmm-train over row ranges (see train_scale.h). Every rank reads only its rows of the image file
 * (a raw file is memory-mapped, a gzip file inflated up to the range's end) and keeps them as
 * bytes: the fit is models/core/em.c's gmm_fit_view on a U8 data view with the MPI communicator (one
 * GPU per rank, NCCL between them, when every rank has one), so every rank ends with the same
 * model; with --gpus, models/fit/multi_gpu.h's gmm_fit_gpus on the GPUs of this process. Rank 0
 * gathers the labels for the summary, prints the progress and writes the model and the means
 * picture; a rank that fails ends every rank with its message (cli_mpi_fail). */
#include "app/train_scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli.h"
#include "app/report.h"
#include "data/dataset.h"
#include "data/file_open.h"
#include "kernels/gpu_info.h"
#include "models/io/model_io.h"
#include "models/fit/multi_gpu.h"

/* The option that needs all the data in one process, or NULL. */
static const char *unsupported_option(const gmm_train_args *a)
{
    if (a->pca_axes) return "--pca";
    if (a->space_spectral) return "--space spectral";
    if (a->space_umap) return "--space umap";
    if (a->blur > 0) return "--blur";
    if (a->k_is_range) return "-k A:B";
    if (a->images_dir) return "--images";
    if (a->diag_dir) return "--diagnostics";
    if (a->json_path) return "--json";
    if (!a->init_from && a->opt.init != GMM_INIT_KMEANS) return "--init other than kmeans";
    return NULL;
}

int train_scale_wanted(const gmm_train_args *args, const cli_mpi *mpi)
{
    if (mpi->size > 1 || args->gpus != 0) return 1;
    if (unsupported_option(args)) return 0;
    /* one process: this way too when a float64 copy of the images would take more than half of
     * the memory (the header alone is read; a bad file is left to the usual path to report) */
    dataset head = {0};
    if (dataset_load_range(args->data_path, DATASET_TRAIN, 0, 0, 0, &head) != GMM_OK) {
        gmm_error_clear();
        return 0;
    }
    int64_t n = head.n_total;
    if (args->limit > 0 && args->limit < n) n = args->limit;
    double f64_bytes = (double)n * head.rows * head.cols * sizeof(double);
    dataset_free(&head);
    return f64_bytes > 0.5 * (double)file_memory_budget();
}

int train_scale_run(gmm_train_args *args, cli_mpi *mpi, gmm_should_stop_fn should_stop)
{
    const int root = mpi->rank == 0, size = mpi->size;
    const char *where = size > 1 ? "a run under mpirun" : "a --gpus run";
    if (root && size == 1 && args->gpus == 0 && !args->quiet)
        printf("the images as float64 would take more than half of this machine's memory: "
               "they are kept as bytes (memory-mapped when the file is raw)\n");
    gmm_options opt = args->opt;
    gmm_status st = GMM_OK;
    dataset ds = {0};
    gmm_model model = {0}, start = {0};
    gmm_fit_scores scores = {0};
    int *all_labels = NULL, rc = 0;
    gmm_gpu *gpu = NULL;
    uint8_t *all_truth = NULL;
    cli_progress_state progress = {.quiet = args->quiet, .n_init = opt.n_init};
    const char *bad = unsupported_option(args);
    if (bad) {
        rc = cli_error("%s needs all the data in one process: not in %s", bad, where);
        goto done;
    }
    if (args->gpus != 0 && size > 1) {
        rc = cli_error("--gpus splits the rows over the GPUs of one process; under mpirun every "
                       "rank takes one GPU of its host");
        goto done;
    }
    int n_gpus = args->gpus < 0 ? gmm_gpu_count() : args->gpus;
    if (args->gpus != 0 && n_gpus > gmm_gpu_count()) {
        rc = cli_error("--gpus %d: this host has %d GPU%s", n_gpus, gmm_gpu_count(),
                       gmm_gpu_count() == 1 ? "" : "s");
        goto done;
    }
    double t_start = cli_now_seconds();
    int dim = 0;
    int64_t n_total = 0;
    if ((st = cli_load_rank_rows(args->data_path, DATASET_TRAIN, args->limit, mpi->rank, size,
                                 &ds, &n_total, &dim)) != GMM_OK ||
        (st = gmm_options_validate(&opt, n_total, dim)) != GMM_OK)
        goto failed;
    const int64_t first = ds.first, count = ds.n_samples;
    if (args->init_from) {
        if ((st = gmm_model_load(args->init_from, &start)) != GMM_OK) goto failed;
        opt.init_model = &start;
        if (!args->k_given) opt.n_components = start.n_components;
        if (!args->cov_given) opt.covariance_type = start.covariance_type;
    }
    /* under mpirun: one GPU per rank (NCCL between them) when every rank has one */
    if (size > 1 && opt.device != GMM_DEVICE_CPU) {
        int none = gmm_gpu_count() < 1;
        if ((st = gmm_comm_any(&mpi->comm, &none)) != GMM_OK) goto failed;
        if (none && opt.device == GMM_DEVICE_GPU) {
            st = gmm_error(GMM_ERR_NO_DEVICE, "--device gpu: a rank has no CUDA GPU");
            goto failed;
        }
        if (!none && (st = cli_mpi_gpu(mpi, 1, &gpu)) != GMM_OK) goto failed;
        opt.device = none ? GMM_DEVICE_CPU : GMM_DEVICE_GPU;
        opt.gpu = gpu;
    }
    const gmm_data_view view = {.elem = GMM_ELEM_U8, .rows = ds.pixels, .n_rows = count,
                                .dim = dim, .first_row = first, .n_total = n_total};
    opt.comm = size > 1 ? &mpi->comm : NULL;
    opt.should_stop = should_stop;
    opt.on_progress = root ? cli_progress : NULL;
    opt.on_notice = root ? cli_notice : NULL;
    opt.user = &progress;
    double t_loaded = cli_now_seconds();
    if (root && !args->quiet) {
        printf("data: %s: %lld images of %d x %d%s, %d rank%s of %lld rows or fewer, kept as "
               "bytes (read in %.2f s)\n", ds.images_path, (long long)n_total, ds.rows, ds.cols,
               ds.labels ? ", labelled" : "", size, size == 1 ? "" : "s",
               (long long)((n_total + size - 1) / size), t_loaded - t_start);
        printf("fitting K=%d %s covariance, reg_covar=%g, tol=%g, max_iter=%d, init=%s, "
               "n_init=%d, seed=%llu\n", opt.n_components, gmm_cov_type_name(opt.covariance_type),
               opt.reg_covar, opt.tol, opt.max_iter,
               args->init_from ? "from the given model" : gmm_init_name(opt.init), opt.n_init,
               (unsigned long long)opt.seed);
        fflush(stdout);
    }
    /* the summary reads the labels and log-likelihoods: no N x K responsibilities on the host */
    opt.scores_without_proba = 1;
    if (args->gpus != 0)
        st = gmm_fit_gpus(&view, n_gpus, &opt, &model, &scores);
    else
        st = gmm_fit_view(&view, &opt, &model, &scores);
    if (st != GMM_OK && st != GMM_INTERRUPTED) goto failed;
    model.image_rows = ds.rows;
    model.image_cols = ds.cols;
    snprintf(model.data_path, sizeof model.data_path, "%s", args->data_path);
    if (st == GMM_INTERRUPTED && !model.weights) { /* inside the initialisation: no model */
        if (root)
            fprintf(stderr, "gmm-train: interrupted during initialisation; no model written\n");
        rc = EXIT_INTERRUPTED;
        goto done;
    }
    if (st == GMM_INTERRUPTED) {
        if (root && (st = gmm_model_save(args->output, &model)) != GMM_OK) goto failed;
        if (root)
            fprintf(stderr, "gmm-train: interrupted; the model (%d iterations, lower bound %.6f) "
                    "written to %s; continue with --init-from %s\n", model.n_iter,
                    model.lower_bound, args->output, args->output);
        rc = EXIT_INTERRUPTED;
        goto done;
    }
    double t_fit = cli_now_seconds();
    /* the summary of all the rows: labels gathered on rank 0 */
    if (root) {
        all_labels = malloc(sizeof(int) * (size_t)n_total);
        all_truth = ds.labels ? malloc((size_t)n_total) : NULL;
        if (!all_labels || (ds.labels && !all_truth)) {
            st = gmm_error(GMM_ERR_NOMEM, "out of memory for %lld labels", (long long)n_total);
            goto failed;
        }
    }
    if ((st = cli_mpi_gather_int(mpi, scores.labels, count, all_labels)) != GMM_OK) goto failed;
    if (ds.labels && (st = cli_mpi_gather_u8(mpi, ds.labels, count, all_truth)) != GMM_OK)
        goto failed;
    if (root) {
        printf("%s in %d iterations, %.2f s fitting (%.2f s in all); lower bound %.10f%s\n",
               model.converged ? "converged" : "NOT converged", model.n_iter, t_fit - t_loaded,
               t_fit - t_start, model.lower_bound,
               scores.data_streamed ? " (the data streamed from host memory)" : "");
        gmm_fit_scores all = scores;
        all.n_samples = n_total;
        all.labels = all_labels;
        if ((rc = report_training(&model, &all, all_truth))) goto done;
        if (args->png && *args->png) {
            if ((st = report_means_png(args->png, &model)) != GMM_OK) goto failed;
            printf("cluster means written to %s\n", args->png);
        }
        if ((st = gmm_model_save(args->output, &model)) != GMM_OK) goto failed;
        printf("model written to %s\n", args->output);
        if (args->timings) { /* rank 0's (or GPU 0's) phases; every rank waits for the others */
            const gmm_fit_scores *f = &scores;
            double t_end = cli_now_seconds();
            printf("timings: data ready %.3f s (this rank's rows); fit: set-up %.3f s, "
                   "initialisation %.3f s, EM %.3f s (%d iterations, %.1f ms each), final scores "
                   "%.3f s; summary, picture and model %.3f s; %.3f s in all\n",
                   t_loaded - t_start, f->seconds_setup, f->seconds_init, f->seconds_em,
                   f->n_iter_total,
                   f->n_iter_total > 0 ? 1e3 * f->seconds_em / f->n_iter_total : 0.0,
                   f->seconds_scores, t_end - t_fit, t_end - t_start);
        }
    }
    goto done;
failed:
    rc = cli_mpi_fail(mpi, st);
done:
    free(all_labels);
    free(all_truth);
    gmm_fit_scores_free(&scores);
    gmm_model_free(&model);
    gmm_model_free(&start);
    dataset_free(&ds);
    gmm_gpu_destroy(gpu);
    return rc;
}
