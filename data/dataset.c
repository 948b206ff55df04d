/* Finding a split's IDX files (in a directory or beside an image file) and loading them. */
#include "data/dataset.h"
#include "data/file_open.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "data/idx.h"

/* The spellings found in the wild: the official names (raw or as downloaded) and the dotted form
 * that some mirrors and archives use. Raw files come first: they are what a user who unpacked the
 * download meant us to read. */
static const char *const image_names[2][4] = {
    {"train-images-idx3-ubyte", "train-images-idx3-ubyte.gz", "train-images.idx3-ubyte",
     "train-images.idx3-ubyte.gz"},
    {"t10k-images-idx3-ubyte", "t10k-images-idx3-ubyte.gz", "t10k-images.idx3-ubyte",
     "t10k-images.idx3-ubyte.gz"},
};

static bool is_regular_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISREG(sb.st_mode);
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Writes into labels (size dataset.labels_path) the label file beside images_path, or "" when
 * its name has no images part or no such file exists. The same compression is tried first. */
static void find_labels_beside(const char *images_path, char *labels, size_t size)
{
    static const char *const from[] = {"images-idx3", "images.idx3"};
    static const char *const to[] = {"labels-idx1", "labels.idx1"};
    labels[0] = '\0';
    const char *slash = strrchr(images_path, '/');
    const char *base = slash ? slash + 1 : images_path;
    for (int f = 0; f < 2; f++) {
        const char *hit = strstr(base, from[f]);
        if (!hit) continue;
        char stem[1024];
        int n = snprintf(stem, sizeof stem, "%.*s%s%s", (int)(hit - images_path), images_path,
                         to[f], hit + strlen(from[f]));
        if (n < 0 || (size_t)n >= sizeof stem) return;
        bool gz = ends_with(stem, ".gz");
        if (gz) stem[n - 3] = '\0';
        char candidate[1024];
        for (int pass = 0; pass < 2; pass++) {
            bool with_gz = (pass == 0) == gz;
            n = snprintf(candidate, sizeof candidate, "%s%s", stem, with_gz ? ".gz" : "");
            if (n < 0 || (size_t)n >= sizeof candidate || n >= (int)size) continue;
            if (is_regular_file(candidate)) {
                memcpy(labels, candidate, (size_t)n + 1);
                return;
            }
        }
        return;
    }
}

/* What the entry at path (named name) is when it exists and is not a regular file ("name is a
 * FIFO", "name is a symbolic link to a character device", ...); "" when it does not exist. */
static void describe_not_regular(const char *path, const char *name, char *out, size_t size)
{
    struct stat link_sb, sb;
    out[0] = '\0';
    if (lstat(path, &link_sb) != 0) return;
    const int is_link = S_ISLNK(link_sb.st_mode);
    if (is_link && stat(path, &sb) != 0) {
        snprintf(out, size, "%s is a symbolic link that leads nowhere (%s)", name,
                 strerror(errno));
        return;
    }
    if (!is_link) sb = link_sb;
    const char *kind = S_ISDIR(sb.st_mode)    ? "directory"
                       : S_ISFIFO(sb.st_mode) ? "FIFO (named pipe)"
                       : S_ISCHR(sb.st_mode)  ? "character device"
                       : S_ISBLK(sb.st_mode)  ? "block device"
                       : S_ISSOCK(sb.st_mode) ? "socket"
                                              : "special file";
    snprintf(out, size, "%s is %s %s", name, is_link ? "a symbolic link to a" : "a", kind);
}

/* The images of [first, first + count) (count < 0: all) and their labels. */
static gmm_status load_files(const char *images_path, const char *labels_path, int64_t first,
                             int64_t count, int map, dataset *out)
{
    gmm_status st;
    idx_array images = {0}, labels = {0};
    st = idx_read_range(images_path, 3, first, count, map, &images);
    if (st != GMM_OK) goto fail;
    if (labels_path[0]) {
        /* the label file's header first: it must promise as many items as the images' */
        st = idx_read_range(labels_path, 1, 0, 0, 0, &labels);
        if (st == GMM_OK && labels.n_total != images.n_total)
            st = gmm_error(GMM_ERR_FORMAT,
                           "%s has %d labels but %s has %d images; the two files do not belong "
                           "together",
                           labels_path, labels.n_total, images_path, images.n_total);
        if (st == GMM_OK && images.n_items > 0)
            st = idx_read_range(labels_path, 1, first, images.n_items, 0, &labels);
        if (st != GMM_OK) goto fail;
    }
    out->n_samples = images.n_items;
    out->n_total = images.n_total;
    out->first = images.first;
    out->rows = images.rows;
    out->cols = images.cols;
    out->pixels = images.data;
    out->pixels_map = images.map;
    out->map_len = images.map_len;
    out->labels = labels.data; /* NULL when there was no label file */
    snprintf(out->images_path, sizeof out->images_path, "%s", images_path);
    snprintf(out->labels_path, sizeof out->labels_path, "%s", labels_path);
    return GMM_OK;
fail:
    idx_free(&images);
    idx_free(&labels);
    return st;
}

/* The split's image file (and the label file beside it, or "") for a directory or a file. */
static gmm_status find_files(const char *path, dataset_split split, char *images_path,
                             char *labels_path, size_t size)
{
    if (!path || !*path) return gmm_error(GMM_ERR_ARG, "dataset_load: empty path");
    if (split != DATASET_TRAIN && split != DATASET_TEST)
        return gmm_error(GMM_ERR_ARG, "dataset_load: unknown split %d", (int)split);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        if (errno == ENOENT) return gmm_error(GMM_ERR_IO, "%s: no such file or directory", path);
        return gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
    }
    if (!S_ISDIR(sb.st_mode)) {
        if (strlen(path) >= size) return gmm_error(GMM_ERR_ARG, "%s: path too long", path);
        snprintf(images_path, size, "%s", path);
        find_labels_beside(images_path, labels_path, size);
        return GMM_OK;
    }
    const char *sep = ends_with(path, "/") ? "" : "/";
    const char *const *names = image_names[split];
    images_path[0] = '\0';
    char skipped[160] = ""; /* the first entry of those names that is not a regular file */
    for (int i = 0; i < 4; i++) {
        int n = snprintf(images_path, size, "%s%s%s", path, sep, names[i]);
        if (n < 0 || (size_t)n >= size) return gmm_error(GMM_ERR_ARG, "%s: path too long", path);
        if (is_regular_file(images_path)) break;
        if (!skipped[0]) describe_not_regular(images_path, names[i], skipped, sizeof skipped);
        images_path[0] = '\0';
    }
    if (!images_path[0] && skipped[0])
        return gmm_error(GMM_ERR_IO, "%s: no %s images found: %s, not a regular file (only "
                         "regular files are read)",
                         path, split == DATASET_TRAIN ? "training" : "test", skipped);
    if (!images_path[0])
        return gmm_error(GMM_ERR_IO,
                         "%s: no %s images found (looked for %s, %s, %s, %s); "
                         "gmm-download-mnist %s fetches MNIST",
                         path, split == DATASET_TRAIN ? "training" : "test", names[0], names[1],
                         names[2], names[3], path);
    find_labels_beside(images_path, labels_path, size);
    return GMM_OK;
}

gmm_status dataset_load(const char *path, dataset_split split, dataset *out)
{
    return dataset_load_range(path, split, 0, -1, 0, out);
}

gmm_status dataset_load_range(const char *path, dataset_split split, int64_t first, int64_t count,
                              int map, dataset *out)
{
    if (!out) return gmm_error(GMM_ERR_ARG, "dataset_load: NULL output");
    memset(out, 0, sizeof *out);
    char images_path[sizeof out->images_path], labels_path[sizeof out->labels_path];
    gmm_status st = find_files(path, split, images_path, labels_path, sizeof images_path);
    if (st != GMM_OK) return st;
    return load_files(images_path, labels_path, first, count, map, out);
}

gmm_status dataset_image_dim(const dataset *ds, int *dim)
{
    if (!ds || !dim) return gmm_error(GMM_ERR_ARG, "dataset_image_dim: NULL argument");
    *dim = 0;
    const int64_t values = (int64_t)ds->rows * (int64_t)ds->cols;
    if (ds->rows < 1 || ds->cols < 1)
        return gmm_error(GMM_ERR_FORMAT, "%s: images of %d x %d values", ds->images_path,
                         ds->rows, ds->cols);
    if (values > DATASET_MAX_IMAGE_VALUES)
        return gmm_error(GMM_ERR_FORMAT,
                         "%s: images of %d x %d = %lld values, more than the %d (4096 x 4096) "
                         "that gmm takes",
                         ds->images_path, ds->rows, ds->cols, (long long)values,
                         DATASET_MAX_IMAGE_VALUES);
    *dim = (int)values;
    return GMM_OK;
}

void dataset_truncate(dataset *ds, int n)
{
    if (!ds || n <= 0 || n >= ds->n_samples) return;
    ds->n_samples = n;
    if (ds->first == 0) ds->n_total = n;
    /* Give the tail back; keeping the larger blocks is harmless if the shrink fails. */
    size_t pixel_bytes = (size_t)n * (size_t)ds->rows * (size_t)ds->cols;
    uint8_t *p = ds->pixels_map ? NULL : realloc(ds->pixels, pixel_bytes);
    if (p) ds->pixels = p;
    if (ds->labels) {
        uint8_t *l = realloc(ds->labels, (size_t)n);
        if (l) ds->labels = l;
    }
}

gmm_status dataset_to_double(const dataset *ds, double **out)
{
    if (!out) return gmm_error(GMM_ERR_ARG, "dataset_to_double: NULL output");
    *out = NULL;
    if (!ds || !ds->pixels || ds->n_samples <= 0)
        return gmm_error(GMM_ERR_ARG, "dataset_to_double: empty dataset");
    size_t n = (size_t)ds->n_samples * (size_t)ds->rows * (size_t)ds->cols;
    double *x = malloc(n * sizeof *x);
    if (!x)
        return gmm_error(GMM_ERR_NOMEM, "dataset_to_double: cannot allocate %zu doubles (%s)", n,
                         ds->images_path);
    /* in parallel, on huge pages where there are: most of the time here is the first touch of
     * the new pages */
    file_advise_huge(x, n * sizeof *x);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < (int64_t)n; i++) x[i] = ds->pixels[i] / 255.0;
    *out = x;
    return GMM_OK;
}

void dataset_free(dataset *ds)
{
    if (!ds) return;
    if (ds->pixels_map)
        munmap(ds->pixels_map, ds->map_len);
    else
        free(ds->pixels);
    free(ds->labels);
    memset(ds, 0, sizeof *ds);
}
