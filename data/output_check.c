/* The programs' output paths checked before the work (see output_check.h). */
#include "data/output_check.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One file an output will write: its identity when it exists, else its absolute name. */
typedef struct {
    const char *option;
    char path[PATH_MAX];
    int exists, regular;
    dev_t dev;
    ino_t ino;
    char key[2 * PATH_MAX]; /* the real directory and the name: equal keys, one file */
} out_file;

/* path's directory ("." when none) into dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(dir, len, ".");
    else if (slash == path) snprintf(dir, len, "/");
    else snprintf(dir, len, "%.*s", (int)(slash - path), path);
}

/* The directory must exist, be one, and take new files from this process. */
static gmm_status check_dir_writable(const char *option, const char *path, const char *dir)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return gmm_error(GMM_ERR_IO, "%s %s: cannot write: the directory %s %s", option, path, dir,
                         errno == ENOENT ? "does not exist" : strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return gmm_error(GMM_ERR_IO, "%s %s: cannot write: %s is not a directory", option, path,
                         dir);
    if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
        return gmm_error(GMM_ERR_IO, "%s %s: cannot write in the directory %s: %s", option, path,
                         dir, strerror(errno));
    return GMM_OK;
}

/* Fills f for the file path that option will write, checking where it goes. */
static gmm_status describe_file(const char *option, const char *path, out_file *f)
{
    memset(f, 0, sizeof *f);
    f->option = option;
    if (snprintf(f->path, sizeof f->path, "%s", path) >= (int)sizeof f->path)
        return gmm_error(GMM_ERR_IO, "%s: the file name is too long", option);
    struct stat sb, lsb;
    char dir[PATH_MAX];
    if (stat(path, &sb) == 0) {
        f->exists = 1;
        f->regular = S_ISREG(sb.st_mode);
        f->dev = sb.st_dev;
        f->ino = sb.st_ino;
        if (S_ISDIR(sb.st_mode))
            return gmm_error(GMM_ERR_IO, "%s %s: cannot write: is a directory, not a file", option, path);
        if (!f->regular) return GMM_OK; /* a device or FIFO: written directly */
        char real[PATH_MAX];
        if (!realpath(path, real))
            return gmm_error(GMM_ERR_IO, "%s %s: %s", option, path, strerror(errno));
        snprintf(f->key, sizeof f->key, "%s", real);
        dir_of(real, dir, sizeof dir);
        return check_dir_writable(option, path, dir);
    }
    if (errno != ENOENT) return gmm_error(GMM_ERR_IO, "%s %s: %s", option, path, strerror(errno));
    if (lstat(path, &lsb) == 0) /* a symbolic link to nothing */
        return gmm_error(GMM_ERR_IO, "%s %s: is a symbolic link to a file that does not exist",
                         option, path);
    dir_of(path, dir, sizeof dir);
    gmm_status st = check_dir_writable(option, path, dir);
    if (st != GMM_OK) return st;
    char real[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (realpath(dir, real))
        snprintf(f->key, sizeof f->key, "%s/%s", real, slash ? slash + 1 : path);
    else
        snprintf(f->key, sizeof f->key, "%s", path);
    f->regular = 1;
    return GMM_OK;
}

/* An output directory: there and writable, or to be made in a writable directory. */
static gmm_status check_out_dir(const char *option, const char *path)
{
    struct stat sb;
    if (stat(path, &sb) == 0) {
        if (!S_ISDIR(sb.st_mode))
            return gmm_error(GMM_ERR_IO, "%s %s: is not a directory", option, path);
        if (faccessat(AT_FDCWD, path, W_OK | X_OK, AT_EACCESS) != 0)
            return gmm_error(GMM_ERR_IO, "%s %s: cannot write in it: %s", option, path,
                             strerror(errno));
        return GMM_OK;
    }
    if (errno != ENOENT) return gmm_error(GMM_ERR_IO, "%s %s: %s", option, path, strerror(errno));
    char trimmed[PATH_MAX], dir[PATH_MAX];
    snprintf(trimmed, sizeof trimmed, "%s", path);
    for (size_t n = strlen(trimmed); n > 1 && trimmed[n - 1] == '/'; n--) trimmed[n - 1] = '\0';
    dir_of(trimmed, dir, sizeof dir);
    return check_dir_writable(option, path, dir);
}

static int same_file(const out_file *a, const out_file *b)
{
    if (a->exists && b->exists) return a->dev == b->dev && a->ino == b->ino;
    return !a->exists && !b->exists && a->key[0] && !strcmp(a->key, b->key);
}

gmm_status file_outputs_check(const file_output *out, int n_out, const char *const *inputs,
                              int n_in)
{
    int n_files = 0;
    for (int i = 0; i < n_out; i++) {
        if (!out[i].path || !*out[i].path) continue;
        n_files += out[i].is_dir ? 0 : 1;
        for (const char *const *name = out[i].is_dir ? out[i].names : NULL; name && *name; name++)
            n_files++;
    }
    out_file *files = calloc(n_files > 0 ? (size_t)n_files : 1, sizeof *files);
    if (!files) return gmm_error(GMM_ERR_NOMEM, "out of memory");
    gmm_status st = GMM_OK;
    int n = 0;
    for (int i = 0; i < n_out && st == GMM_OK; i++) {
        const file_output *o = &out[i];
        if (!o->path || !*o->path) continue;
        if (!o->is_dir) {
            st = describe_file(o->option, o->path, &files[n++]);
            continue;
        }
        if ((st = check_out_dir(o->option, o->path)) != GMM_OK) break;
        for (const char *const *name = o->names; name && *name && st == GMM_OK; name++) {
            char inside[PATH_MAX];
            snprintf(inside, sizeof inside, "%s/%s", o->path, *name);
            struct stat sb;
            if (stat(o->path, &sb) != 0) { /* made later: its files cannot be anything yet */
                memset(&files[n], 0, sizeof files[n]);
                files[n].option = o->option;
                snprintf(files[n].path, sizeof files[n].path, "%s", inside);
                n++;
                continue;
            }
            st = describe_file(o->option, inside, &files[n++]);
        }
    }
    for (int i = 0; i < n && st == GMM_OK; i++) {
        if (!files[i].regular) continue; /* devices and FIFOs may be shared */
        for (int j = 0; j < n_in && st == GMM_OK; j++) {
            struct stat sb;
            if (!inputs[j] || !*inputs[j] || stat(inputs[j], &sb) != 0) continue;
            if (files[i].exists && sb.st_dev == files[i].dev && sb.st_ino == files[i].ino)
                st = gmm_error(GMM_ERR_ARG, "%s %s: is the input %s; it would be overwritten",
                               files[i].option, files[i].path, inputs[j]);
        }
        for (int j = 0; j < i && st == GMM_OK; j++)
            if (files[j].regular && same_file(&files[i], &files[j]))
                st = gmm_error(GMM_ERR_ARG, "%s %s and %s %s: the same file, written twice",
                               files[j].option, files[j].path, files[i].option, files[i].path);
    }
    free(files);
    return st;
}

void file_dataset_inputs(const char *data_path, char (*files)[4096])
{
    static const char *const kinds[4] = {"images-idx3", "images.idx3", "labels-idx1", "labels.idx1"};
    for (int i = 0; i < DATASET_INPUT_NAMES; i++) files[i][0] = '\0';
    if (!data_path || !*data_path) return;
    struct stat sb;
    int n = 0;
    if (stat(data_path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        static const char *const splits[2] = {"train", "t10k"};
        for (int s = 0; s < 2; s++)
            for (int k = 0; k < 4; k++)
                for (int gz = 0; gz < 2; gz++)
                    snprintf(files[n++], 4096, "%s/%s-%s-ubyte%s", data_path, splits[s], kinds[k],
                             gz ? ".gz" : "");
        return;
    }
    snprintf(files[n++], 4096, "%s", data_path);
    const char *slash = strrchr(data_path, '/');
    const char *base = slash ? slash + 1 : data_path;
    for (int k = 0; k < 2; k++) {
        const char *hit = strstr(base, kinds[k]);
        if (!hit) continue;
        const char *rest = hit + strlen(kinds[k]);
        size_t rest_len = strlen(rest);
        if (rest_len >= 3 && !strcmp(rest + rest_len - 3, ".gz")) rest_len -= 3;
        for (int gz = 0; gz < 2 && n < DATASET_INPUT_NAMES; gz++)
            snprintf(files[n++], 4096, "%.*s%s%.*s%s", (int)(hit - data_path), data_path,
                     kinds[k + 2], (int)rest_len, rest, gz ? ".gz" : "");
    }
}
