/* Writing IDX files: whole arrays (idx_write_images/labels of data/idx.h, raw or gzip) and the
 * streaming writer (data/idx_writer.h): header first, items appended, renamed into place once
 * complete; both through data/file_write.h's temporary files. */
#include "data/idx_writer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "data/file_write.h"
#include "data/idx.h"

#define IDX_HEADER_MAX 16
#define IDX_TYPE_UBYTE 0x08
/* as the reader's limit (data/idx.c): no larger file is written */
#define IDX_MAX_DATA_BYTES ((uint64_t)1 << 33)
/* gzwrite takes an unsigned int length; stay well inside it. */
#define IDX_IO_CHUNK ((size_t)1 << 30)

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

gmm_status idx_writer_open(idx_writer *w, const char *path, int n_dims, int64_t n_items, int rows,
                           int cols)
{
    memset(w, 0, sizeof *w);
    if (!path || !*path) return gmm_error(GMM_ERR_ARG, "idx writer: no file name");
    if (n_dims != 1 && n_dims != 3)
        return gmm_error(GMM_ERR_ARG, "%s: IDX writer takes 1 or 3 dimensions, not %d", path, n_dims);
    if (n_dims == 1) rows = cols = 1;
    if (n_items < 1 || n_items > UINT32_MAX || rows < 1 || cols < 1 || rows > 65535 || cols > 65535)
        return gmm_error(GMM_ERR_ARG, "%s: invalid IDX sizes %lld x %d x %d", path,
                         (long long)n_items, rows, cols);
    /* no file larger than the reader accepts (data/idx.c: at most INT32_MAX items and 2^33
     * bytes of data) is started */
    if (n_items > INT32_MAX || (uint64_t)n_items * (uint64_t)rows * (uint64_t)cols >
                                   IDX_MAX_DATA_BYTES)
        return gmm_error(GMM_ERR_ARG, "%s: %lld items of %d x %d bytes would be %llu bytes of "
                         "data; an IDX file may hold at most %d items and %llu bytes", path,
                         (long long)n_items, rows, cols,
                         (unsigned long long)((uint64_t)n_items * (uint64_t)rows * (uint64_t)cols),
                         INT32_MAX, (unsigned long long)IDX_MAX_DATA_BYTES);
    if (strlen(path) >= sizeof w->path)
        return gmm_error(GMM_ERR_ARG, "%s: file name too long", path);
    strcpy(w->path, path);
    w->item_bytes = (uint64_t)rows * (uint64_t)cols;
    w->n_items = (uint64_t)n_items;

    gmm_status opened = GMM_OK;
    w->file = file_write_open(path, &opened); /* a temporary file, renamed by idx_writer_close */
    if (!w->file) return opened;
    snprintf(w->partial_path, sizeof w->partial_path, "%s", file_write_temp_name(w->file));
    unsigned char header[16] = {0, 0, 0x08, (unsigned char)n_dims};
    put_be32(header + 4, (uint32_t)n_items);
    put_be32(header + 8, (uint32_t)rows);
    put_be32(header + 12, (uint32_t)cols);
    size_t header_len = 4 + 4 * (size_t)n_dims;
    if (fwrite(header, 1, header_len, w->file) != header_len) {
        gmm_status st = gmm_error(GMM_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
        idx_writer_abort(w);
        return st;
    }
    return GMM_OK;
}

gmm_status idx_writer_append(idx_writer *w, const uint8_t *items, int64_t n)
{
    if (!w->file) return gmm_error(GMM_ERR_ARG, "%s: IDX writer is not open", w->path);
    if (n < 0 || (uint64_t)n > w->n_items - w->written)
        return gmm_error(GMM_ERR_ARG, "%s: %lld more items than the %llu the header promises",
                         w->path, (long long)n, (unsigned long long)w->n_items);
    size_t bytes = (size_t)((uint64_t)n * w->item_bytes);
    if (bytes && fwrite(items, 1, bytes, w->file) != bytes) {
        gmm_status st = gmm_error(GMM_ERR_IO, "%s: write failed: %s", w->path, strerror(errno));
        idx_writer_abort(w);
        return st;
    }
    w->written += (uint64_t)n;
    return GMM_OK;
}

gmm_status idx_writer_close(idx_writer *w)
{
    if (!w->file) return gmm_error(GMM_ERR_ARG, "%s: IDX writer is not open", w->path);
    gmm_status st = GMM_OK;
    if (w->written != w->n_items) {
        st = gmm_error(GMM_ERR_ARG, "%s: %llu items written of the %llu the header promises",
                       w->path, (unsigned long long)w->written, (unsigned long long)w->n_items);
        goto fail;
    }
    FILE *f = w->file;
    w->file = NULL;
    w->partial_path[0] = '\0';
    return file_write_close(f); /* flushed, renamed into place; or removed */
fail:
    idx_writer_abort(w);
    return st;
}

void idx_writer_abort(idx_writer *w)
{
    if (!w) return;
    file_write_abort(w->file); /* the temporary file removed */
    w->file = NULL;
    w->partial_path[0] = '\0';
}

static gmm_status idx_write(const char *path, const uint8_t *data, int n_dims, int n_items,
                            int rows, int cols, int gzip)
{
    gmm_status st = GMM_OK;
    if (!path || !data) return gmm_error(GMM_ERR_ARG, "idx: NULL path or data");
    if (n_items <= 0 || rows <= 0 || cols <= 0)
        return gmm_error(GMM_ERR_ARG, "%s: invalid sizes %d x %d x %d", path, n_items, rows, cols);
    const uint64_t total = (uint64_t)n_items * (uint64_t)rows * (uint64_t)cols;
    if ((uint64_t)rows * cols > IDX_MAX_DATA_BYTES || total > IDX_MAX_DATA_BYTES)
        return gmm_error(GMM_ERR_ARG, "%s: %d x %d x %d is too large for an IDX file", path,
                         n_items, rows, cols);

    /* a temporary file beside path (data/file_write.h) that zlib writes through a descriptor
     * of its own; "T" makes zlib write the bytes as they are, so both forms share one path */
    FILE *out = file_write_open(path, &st);
    if (!out) return st;
    int gz_fd = dup(fileno(out));
    gzFile gz = gz_fd >= 0 ? gzdopen(gz_fd, gzip ? "wb6" : "wbT") : NULL;
    if (!gz) {
        if (gz_fd >= 0) close(gz_fd);
        file_write_abort(out);
        return gmm_error(GMM_ERR_IO, "%s: cannot start writing", path);
    }

    unsigned char header[IDX_HEADER_MAX];
    header[0] = header[1] = 0;
    header[2] = IDX_TYPE_UBYTE;
    header[3] = (unsigned char)n_dims;
    put_be32(header + 4, (uint32_t)n_items);
    if (n_dims == 3) {
        put_be32(header + 8, (uint32_t)rows);
        put_be32(header + 12, (uint32_t)cols);
    }
    const size_t header_len = 4 + 4 * (size_t)n_dims;
    if (gzwrite(gz, header, (unsigned)header_len) != (int)header_len) goto write_error;
    for (uint64_t done = 0; done < total;) {
        size_t n = total - done < IDX_IO_CHUNK ? (size_t)(total - done) : IDX_IO_CHUNK;
        if (gzwrite(gz, data + done, (unsigned)n) != (int)n) goto write_error;
        done += n;
    }
    int zst = gzclose(gz);
    gz = NULL;
    if (zst != Z_OK) {
        st = gmm_error(GMM_ERR_IO, "%s: write failed on close: %s", path,
                       zst == Z_ERRNO ? strerror(errno) : "zlib error");
        goto fail;
    }
    st = file_write_close(out);
    out = NULL;
    return st;

write_error: {
    int errnum = Z_OK;
    const char *msg = gzerror(gz, &errnum);
    st = gmm_error(GMM_ERR_IO, "%s: write failed: %s", path,
                   errnum == Z_ERRNO ? strerror(errno) : msg);
}
fail:
    if (gz) gzclose(gz);
    file_write_abort(out);
    return st;
}

gmm_status idx_write_images(const char *path, const uint8_t *pixels, int n_items, int rows,
                            int cols, int gzip)
{
    return idx_write(path, pixels, 3, n_items, rows, cols, gzip);
}

gmm_status idx_write_labels(const char *path, const uint8_t *labels, int n_items, int gzip)
{
    return idx_write(path, labels, 1, n_items, 1, 1, gzip);
}
