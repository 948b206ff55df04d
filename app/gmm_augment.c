/* gmm-augment: an infiMNIST-style training set, written as IDX: N images made from the training
 * images of IN_DIR by random elastic deformations and one-pixel shifts (data/augment.h),
 * reproducible from --seed, generated and written piece by piece in bounded memory (the next
 * piece is made while the last is written). -n 8100000 gives an MNIST8M-size set. */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/cli.h"
#include "app/gmm_augment_args.h"
#include "app/output_paths.h"
#include "data/dataset.h"
#include "data/file_write.h"
#include "data/idx.h"
#include "data/idx_writer.h"
#include "data/png_write.h"
#include "data/augment.h"

/* SIGINT, SIGTERM and SIGHUP: the first stops the run before its next piece (every file being
 * written is removed, exit 130); a second ends it at once, first removing every temporary file
 * (data/file_write.h). SIGPIPE is ignored: a closed pipe is a write error, not a silent death. */
static volatile sig_atomic_t stop_requested;
static void on_stop_signal(int sig)
{
    (void)sig;
    if (stop_requested) {
        file_write_remove_temporaries(); /* async-signal-safe, as is _exit */
        _exit(130);
    }
    stop_requested = 1;
}

/* One piece being written on its own thread while the next is generated. */
typedef struct {
    pthread_t thread;
    int running;
    idx_writer *images, *labels;
    const uint8_t *pixels, *label_bytes;
    int64_t count;
    gmm_status status;
    char detail[512];
} piece_write;

static void *write_piece(void *arg)
{
    piece_write *w = arg;
    w->status = idx_writer_append(w->images, w->pixels, w->count);
    if (w->status == GMM_OK && w->labels)
        w->status = idx_writer_append(w->labels, w->label_bytes, w->count);
    if (w->status != GMM_OK) snprintf(w->detail, sizeof w->detail, "%s", gmm_error_message(w->status));
    return NULL;
}

static gmm_status finish_piece(piece_write *w)
{
    if (!w->running) return GMM_OK;
    pthread_join(w->thread, NULL);
    w->running = 0;
    if (w->status != GMM_OK) return gmm_error(w->status, "%s", w->detail);
    return GMM_OK;
}

/* Five originals, each beside four of its deformations: a square of tiles, which
 * png_write_tile_grid lays out as one original per row. */
static gmm_status write_preview(const char *path, const dataset *ds, const gmm_augment_params *p,
                                uint64_t seed, int keep_originals)
{
    enum { SHOWN = 5, PER_ROW = 5 };
    const int rows = ds->rows, cols = ds->cols, n = rows * cols;
    const int shown = ds->n_samples < SHOWN ? ds->n_samples : SHOWN;
    double *tiles = malloc((size_t)shown * PER_ROW * n * sizeof *tiles);
    uint8_t *img = malloc((size_t)n);
    float *work = malloc(gmm_augment_work_floats(rows, cols) * sizeof *work);
    char captions[SHOWN * PER_ROW][32];
    const char *caption_ptrs[SHOWN * PER_ROW];
    gmm_status st = GMM_OK;
    if (!tiles || !img || !work) {
        st = gmm_error(GMM_ERR_NOMEM, "no memory for the preview");
        goto done;
    }
    for (int s = 0; s < shown; s++)
        for (int j = 0; j < PER_ROW; j++) {
            const int t = s * PER_ROW + j;
            /* the set's image of index s + j M: the original itself for j = 0 */
            const uint64_t index = (uint64_t)s + (uint64_t)j * (uint64_t)ds->n_samples;
            const uint8_t *src = ds->pixels + (size_t)s * n;
            if (j == 0 && keep_originals) memcpy(img, src, (size_t)n);
            else gmm_augment_image(src, rows, cols, p, seed, index, work, img);
            for (int i = 0; i < n; i++) tiles[(size_t)t * n + i] = img[i] / 255.0;
            snprintf(captions[t], sizeof captions[t], j == 0 ? "original" : "no. %llu",
                     (unsigned long long)index);
            caption_ptrs[t] = captions[t];
        }
    st = png_write_tile_grid(path, tiles, shown * PER_ROW, rows, cols, 3, caption_ptrs);
done:
    free(tiles);
    free(img);
    free(work);
    return st;
}

/* Copies IN_DIR's test split, if it has one, as raw IDX into out_dir. */
static gmm_status copy_test_split(const char *in_dir, const char *out_dir, int *copied)
{
    *copied = 0;
    dataset test = {0};
    gmm_status st = dataset_load(in_dir, DATASET_TEST, &test);
    if (st == GMM_ERR_IO) return GMM_OK; /* no test split */
    if (st != GMM_OK) return st;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/t10k-images-idx3-ubyte", out_dir);
    st = idx_write_images(path, test.pixels, test.n_samples, test.rows, test.cols, 0);
    if (st == GMM_OK && test.labels) {
        snprintf(path, sizeof path, "%s/t10k-labels-idx1-ubyte", out_dir);
        st = idx_write_labels(path, test.labels, test.n_samples, 0);
    }
    if (st == GMM_OK) *copied = test.n_samples;
    dataset_free(&test);
    return st;
}

int main(int argc, char **argv)
{
    cli_fit_blas_to_address_limit(argv);
    gmm_augment_args args;
    int parsed = gmm_augment_parse_args(argc, argv, &args);
    if (parsed >= 0) return parsed;
    gmm_augment_params params = args.params;
    const long long count = args.count, seed = args.seed, batch = args.batch;
    const int keep_originals = args.keep_originals, quiet = args.quiet;
    const char *png = args.png;
    const char *in_dir = args.in_dir, *out_dir = args.out_dir;
    /* -n against the image size, from the header alone: refused before anything is made */
    dataset head = {0};
    gmm_status st = dataset_load_range(in_dir, DATASET_TRAIN, 0, 0, 0, &head);
    if (st != GMM_OK) return cli_fail(st);
    int too_many = gmm_augment_check_count(&args, head.rows, head.cols);
    dataset_free(&head);
    if (too_many) return too_many;

    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        return cli_error("cannot create %s: %s", out_dir, strerror(errno));
    char in_real[PATH_MAX], out_real[PATH_MAX];
    if (realpath(in_dir, in_real) && realpath(out_dir, out_real) && !strcmp(in_real, out_real))
        return cli_error("OUT_DIR must not be IN_DIR: the originals would be overwritten");
    int checked = augment_check_outputs(in_dir, out_dir, png); /* before any work */
    if (checked) return checked;
    struct stat sb;
    if (stat(out_dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
        return cli_error("%s is not a directory", out_dir);

    const double t0 = cli_now_seconds();
    dataset ds = {0};
    st = dataset_load(in_dir, DATASET_TRAIN, &ds);
    if (st != GMM_OK) return cli_fail(st);
    int dim;
    if ((st = dataset_image_dim(&ds, &dim)) != GMM_OK) {
        dataset_free(&ds);
        return cli_fail(st);
    }
    if (!quiet)
        fprintf(stderr, "gmm-augment: %d originals of %d x %d from %s; writing %lld images to %s\n",
                ds.n_samples, ds.rows, ds.cols, ds.images_path, count, out_dir);

    cli_handle_stop_signals(on_stop_signal, 1);

    const int64_t piece = batch < count ? batch : count;
    uint8_t *pixels[2] = {malloc((size_t)piece * dim), malloc((size_t)piece * dim)};
    uint8_t *labels[2] = {malloc((size_t)piece), malloc((size_t)piece)};
    idx_writer images_out = {0}, labels_out = {0};
    piece_write writing = {0};
    char path[PATH_MAX];
    int code = 2;
    if (!pixels[0] || !pixels[1] || !labels[0] || !labels[1]) {
        cli_error("no memory for two pieces of %lld images (lower --batch)", (long long)piece);
        goto done;
    }
    snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", out_dir);
    if ((st = idx_writer_open(&images_out, path, 3, count, ds.rows, ds.cols)) != GMM_OK) goto fail;
    if (ds.labels) {
        snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte", out_dir);
        if ((st = idx_writer_open(&labels_out, path, 1, count, 1, 1)) != GMM_OK) goto fail;
    }

    double last_report = cli_now_seconds();
    int which = 0;
    for (int64_t first = 0; first < count; first += piece, which ^= 1) {
        if (stop_requested) {
            code = 130;
            cli_error("interrupted after %lld of %lld images; nothing written", (long long)first,
                      count);
            goto done;
        }
        const int64_t n = count - first < piece ? count - first : piece;
        st = gmm_augment_batch(ds.pixels, ds.labels, ds.n_samples, ds.rows, ds.cols, &params,
                               (uint64_t)seed, keep_originals, first, n, pixels[which],
                               labels[which]);
        if (st != GMM_OK) goto fail;
        if ((st = finish_piece(&writing)) != GMM_OK) goto fail;
        writing = (piece_write){.images = &images_out, .labels = ds.labels ? &labels_out : NULL,
                                .pixels = pixels[which], .label_bytes = labels[which], .count = n};
        if (pthread_create(&writing.thread, NULL, write_piece, &writing) != 0) {
            write_piece(&writing); /* no thread: write it here */
            if ((st = writing.status) != GMM_OK) {
                st = gmm_error(st, "%s", writing.detail);
                goto fail;
            }
        } else {
            writing.running = 1;
        }
        const double now = cli_now_seconds();
        if (!quiet && (now - last_report >= 2.0 || first + n == count)) {
            const double rate = (double)(first + n) / (now - t0);
            fprintf(stderr, "gmm-augment: %lld / %lld images (%.1f%%), %.1f s, %.0f images/s\n",
                    (long long)(first + n), count, 100.0 * (double)(first + n) / (double)count,
                    now - t0, rate);
            last_report = now;
        }
    }
    if ((st = finish_piece(&writing)) != GMM_OK) goto fail;
    if ((st = idx_writer_close(&images_out)) != GMM_OK) goto fail;
    if (ds.labels && (st = idx_writer_close(&labels_out)) != GMM_OK) goto fail;

    int test_copied = 0;
    if ((st = copy_test_split(in_dir, out_dir, &test_copied)) != GMM_OK) goto fail;
    if (!png) {
        snprintf(path, sizeof path, "%s/augment.png", out_dir);
        png = path;
    }
    if (*png && (st = write_preview(png, &ds, &params, (uint64_t)seed, keep_originals)) != GMM_OK)
        goto fail;
    printf("gmm-augment: wrote %lld images%s to %s in %.1f s (seed %lld, alpha %g, sigma %g, "
           "shift %d)%s\n",
           count, ds.labels ? " and labels" : "", out_dir, cli_now_seconds() - t0, seed,
           params.alpha, params.sigma, params.max_shift,
           test_copied ? "; test split copied" : "");
    if (*png) printf("gmm-augment: preview %s\n", png);
    code = 0;
    if (stop_requested) { /* after the last piece: every file is complete */
        cli_error("interrupted after every image was written; the files are complete");
        code = 130;
    }
    goto done;
fail:
    code = cli_fail(st);
done:
    if (writing.running) {
        pthread_join(writing.thread, NULL);
        writing.running = 0;
    }
    idx_writer_abort(&images_out);
    idx_writer_abort(&labels_out);
    free(pixels[0]);
    free(pixels[1]);
    free(labels[0]);
    free(labels[1]);
    dataset_free(&ds);
    return code;
}
