/* IDX (MNIST format) reading and writing through zlib, which reads raw and gzip files alike; a
 * well-formed single-member .gz file is inflated in one piece by libdeflate when the build has it
 * (data/gunzip.h), several times faster, and everything else takes the zlib path. */
#include "data/idx.h"

#include "data/gunzip.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define IDX_HEADER_MAX 16
#define IDX_TYPE_UBYTE 0x08
/* Far above any real image set, yet low enough that a corrupt header cannot make us ask for an
 * absurd allocation (and that every size below fits comfortably in size_t and int64). */
#define IDX_MAX_DATA_BYTES ((uint64_t)1 << 33)
/* gzread takes an unsigned int length; stay well inside it. */
#define IDX_IO_CHUNK ((size_t)1 << 30)
/* When the data are compressed we cannot know the real length before reading, so the buffer grows
 * in steps up to what the header claims instead of trusting a possibly corrupt header upfront. */
#define IDX_FIRST_ALLOC ((size_t)1 << 26)

static const char *idx_type_name(unsigned type)
{
    switch (type) {
    case 0x08: return "unsigned byte";
    case 0x09: return "signed byte";
    case 0x0B: return "short";
    case 0x0C: return "int";
    case 0x0D: return "float";
    case 0x0E: return "double";
    default: return "unknown";
    }
}

static uint32_t be32(const unsigned char *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static void put_be32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
}

/* Where the bytes come from: zlib's stream (raw or gzip), or the whole file already inflated in
 * memory by the fast path. */
typedef struct {
    gzFile gz;          /* NULL when mem holds the file's content */
    uint8_t *mem;
    size_t mem_len, mem_pos;
} idx_source;

static int src_read(idx_source *src, void *buf, unsigned len)
{
    if (src->gz) return gzread(src->gz, buf, len);
    size_t n = src->mem_len - src->mem_pos < len ? src->mem_len - src->mem_pos : len;
    memcpy(buf, src->mem + src->mem_pos, n);
    src->mem_pos += n;
    return (int)n;
}

/* The fast path: the whole regular file read, and inflated by libdeflate when it is one clean gzip
 * member whose trailer's length (ISIZE) is plausible. 1 when src->mem now holds the content; 0
 * (nothing kept, file offset back at 0) when the zlib path must read it. */
static int fast_gunzip(int fd, const struct stat *sb, idx_source *src)
{
    if (!gunzip_fast_available() || !S_ISREG(sb->st_mode) || sb->st_size < 18 ||
        (uint64_t)sb->st_size > IDX_MAX_DATA_BYTES)
        return 0;
    size_t in_len = (size_t)sb->st_size;
    uint8_t *in = malloc(in_len), *out = NULL;
    size_t got = 0;
    while (in && got < in_len) {
        ssize_t n = read(fd, in + got, in_len - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    int ok = in && got == in_len && in[0] == 0x1f && in[1] == 0x8b;
    size_t isize = 0;
    if (ok) {
        for (int i = 0; i < 4; i++) isize |= (size_t)in[in_len - 4 + i] << (8 * i);
        /* deflate expands at most 1032:1, so a trailer claiming more is not believed (nor
         * allocated for): the zlib path then says what is wrong */
        ok = isize >= 8 && isize <= IDX_MAX_DATA_BYTES && isize <= (uint64_t)in_len * 1032 &&
             (out = malloc(isize)) != NULL && gunzip_fast_exact(in, in_len, out, isize);
    }
    free(in);
    if (!ok) {
        free(out);
        return lseek(fd, 0, SEEK_SET) == 0 ? 0 : -1;
    }
    src->mem = out;
    src->mem_len = isize;
    src->mem_pos = 0;
    return 1;
}

/* After gzread returned less than asked: a zlib error (corrupt or cut gzip stream, read error)
 * becomes the status; GMM_OK means the underlying file simply ended. */
static gmm_status gz_read_error(idx_source *src, const char *path, uint64_t done, uint64_t wanted)
{
    if (!src->gz) return GMM_OK; /* inflated in memory: only its end */
    gzFile gz = src->gz;
    int errnum = Z_OK;
    const char *msg = gzerror(gz, &errnum);
    if (errnum == Z_BUF_ERROR)
        return gmm_error(GMM_ERR_FORMAT,
                         "%s: truncated gzip stream (compressed data end early) after %" PRIu64
                         " of %" PRIu64 " bytes",
                         path, done, wanted);
    if (errnum == Z_DATA_ERROR)
        return gmm_error(GMM_ERR_FORMAT, "%s: corrupt gzip stream (%s)", path, msg);
    if (errnum == Z_MEM_ERROR) return gmm_error(GMM_ERR_NOMEM, "%s: zlib out of memory", path);
    if (errnum == Z_ERRNO)
        return gmm_error(GMM_ERR_IO, "%s: read error: %s", path, strerror(errno));
    if (errnum != Z_OK) return gmm_error(GMM_ERR_IO, "%s: read error: %s", path, msg);
    return GMM_OK;
}

/* Reads up to len bytes, looping because gzread may return short counts. *got is what arrived. */
static gmm_status gz_read_full(idx_source *gz, const char *path, void *buf, size_t len, size_t *got,
                               uint64_t done_before, uint64_t wanted)
{
    unsigned char *p = buf;
    size_t total = 0;
    while (total < len) {
        size_t ask = len - total < IDX_IO_CHUNK ? len - total : IDX_IO_CHUNK;
        int n = src_read(gz, p + total, (unsigned)ask);
        if (n < 0) return gz_read_error(gz, path, done_before + total, wanted);
        if (n == 0) break;
        total += (size_t)n;
    }
    *got = total;
    if (total < len) return gz_read_error(gz, path, done_before + total, wanted);
    return GMM_OK;
}

static gmm_status idx_read(const char *path, int want_dims, idx_array *out)
{
    gmm_status st = GMM_OK;
    idx_source src = {0};
    idx_source *gz = &src; /* the reading calls below take the source */
    uint8_t *data = NULL;
    int fd = -1;
    const unsigned expected_magic = IDX_TYPE_UBYTE << 8 | (unsigned)want_dims;
    const char *kind = want_dims == 3 ? "image" : "label";

    if (!out) return gmm_error(GMM_ERR_ARG, "idx: NULL output");
    memset(out, 0, sizeof *out);
    if (!path) return gmm_error(GMM_ERR_ARG, "idx: NULL path");

    fd = open(path, O_RDONLY);
    if (fd < 0) return gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        st = gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (S_ISDIR(sb.st_mode)) {
        st = gmm_error(GMM_ERR_IO, "%s: is a directory, expected an IDX %s file", path, kind);
        goto fail;
    }
    int fast = fast_gunzip(fd, &sb, &src);
    if (fast < 0) {
        st = gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
        goto fail;
    }
    if (!fast) {
        src.gz = gzdopen(fd, "rb");
        if (!src.gz) {
            st = gmm_error(GMM_ERR_NOMEM, "%s: cannot start zlib reader", path);
            goto fail;
        }
        fd = -1; /* owned by gz now */
        gzbuffer(src.gz, 1u << 18);
    }

    unsigned char header[IDX_HEADER_MAX];
    size_t got = 0;
    st = gz_read_full(gz, path, header, 4, &got, 0, 4);
    if (st != GMM_OK) goto fail;
    if (got == 0) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: empty file, expected an IDX %s file", path, kind);
        goto fail;
    }
    if (got < 4) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: truncated: %zu bytes, too short for an IDX header",
                       path, got);
        goto fail;
    }
    const int compressed = src.gz ? !gzdirect(src.gz) : 1;
    const uint32_t magic = be32(header);
    const unsigned type = header[2], n_dims = header[3];
    if (header[0] != 0 || header[1] != 0) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: wrong magic number 0x%08" PRIx32 ", expected 0x%08x (IDX %s file)",
                       path, magic, expected_magic, kind);
        goto fail;
    }
    if (type != IDX_TYPE_UBYTE) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: unsupported element type 0x%02X (%s) in magic number 0x%08" PRIx32
                       ", expected 0x08 (unsigned byte, magic 0x%08x)",
                       path, type, idx_type_name(type), magic, expected_magic);
        goto fail;
    }
    if ((int)n_dims != want_dims) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: wrong number of dimensions %u in magic number 0x%08" PRIx32
                       ", expected %d (IDX %s file, magic 0x%08x)%s",
                       path, n_dims, magic, want_dims, kind, expected_magic,
                       n_dims == 1 ? "; this looks like a label file"
                       : n_dims == 3 ? "; this looks like an image file" : "");
        goto fail;
    }

    const size_t header_len = 4 + 4 * (size_t)n_dims;
    st = gz_read_full(gz, path, header + 4, header_len - 4, &got, 4, header_len);
    if (st != GMM_OK) goto fail;
    if (got < header_len - 4) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: truncated: header ends after %zu of %zu bytes", path,
                       4 + got, header_len);
        goto fail;
    }
    uint32_t dims[3] = {1, 1, 1};
    for (unsigned i = 0; i < n_dims; i++) dims[i] = be32(header + 4 + 4 * i);
    const uint32_t count = dims[0], rows = want_dims == 3 ? dims[1] : 1,
                   cols = want_dims == 3 ? dims[2] : 1;
    if (count == 0 || rows == 0 || cols == 0) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: header has a zero dimension (count %" PRIu32 ", rows %" PRIu32
                       ", cols %" PRIu32 ")",
                       path, count, rows, cols);
        goto fail;
    }
    /* Each factor is < 2^32, so every partial product is checked before it could overflow. */
    const uint64_t item_bytes = (uint64_t)rows * cols;
    if (count > INT_MAX || rows > INT_MAX || cols > INT_MAX || item_bytes > IDX_MAX_DATA_BYTES ||
        (uint64_t)count * item_bytes > IDX_MAX_DATA_BYTES ||
        (uint64_t)count * item_bytes > SIZE_MAX - header_len) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: header claims absurd sizes (count %" PRIu32 ", rows %" PRIu32
                       ", cols %" PRIu32 "; limit 2^33 bytes of data)",
                       path, count, rows, cols);
        goto fail;
    }
    const uint64_t data_bytes = (uint64_t)count * item_bytes;
    const uint64_t expected_len = header_len + data_bytes;

    /* A raw file's length is known up front: say exactly what is wrong before allocating. */
    if (!compressed && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size != expected_len) {
        if ((uint64_t)sb.st_size < expected_len)
            st = gmm_error(GMM_ERR_FORMAT,
                           "%s: truncated: header declares %" PRIu32 " items of %" PRIu32
                           "x%" PRIu32 " (%" PRIu64 " bytes of data, %" PRIu64 " with the "
                           "header) but the file has only %jd bytes",
                           path, count, rows, cols, data_bytes, expected_len,
                           (intmax_t)sb.st_size);
        else
            st = gmm_error(GMM_ERR_FORMAT,
                           "%s: %" PRIu64 " trailing byte%s after the %" PRIu32 " items of %"
                           PRIu32 "x%" PRIu32 " that the header declares (file size %jd, "
                           "expected %" PRIu64 ")",
                           path, (uint64_t)sb.st_size - expected_len,
                           (uint64_t)sb.st_size - expected_len == 1 ? "" : "s", count, rows, cols,
                           (intmax_t)sb.st_size, expected_len);
        goto fail;
    }

    /* in memory already: the length is known, so one allocation of what the header claims when
     * the content holds that much */
    size_t cap = compressed && data_bytes > IDX_FIRST_ALLOC &&
                         !(src.mem && src.mem_len >= expected_len)
                     ? IDX_FIRST_ALLOC
                     : (size_t)data_bytes;
    data = malloc(cap);
    if (!data) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, cap);
        goto fail;
    }
    size_t have = 0;
    for (;;) {
        st = gz_read_full(gz, path, data + have, cap - have, &got, header_len + have,
                          expected_len);
        have += got;
        if (st != GMM_OK) goto fail;
        if (have < cap) break; /* the file ended */
        if (have == data_bytes) break;
        size_t next = cap > (size_t)data_bytes / 2 ? (size_t)data_bytes : cap * 2;
        uint8_t *bigger = realloc(data, next);
        if (!bigger) {
            st = gmm_error(GMM_ERR_NOMEM, "%s: cannot allocate %zu bytes", path, next);
            goto fail;
        }
        data = bigger;
        cap = next;
    }
    if (have < data_bytes) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: truncated: header declares %" PRIu32 " items of %" PRIu32 "x%" PRIu32
                       " (%" PRIu64 " bytes of data) but only %zu bytes follow the header",
                       path, count, rows, cols, data_bytes, have);
        goto fail;
    }

    /* Trailing data means the header and the content disagree; reading on also surfaces a gzip
     * stream cut between the last data byte and its CRC trailer. */
    unsigned char extra[4096];
    uint64_t n_extra = 0;
    for (;;) {
        int n = src_read(gz, extra, sizeof extra);
        if (n < 0) {
            st = gz_read_error(gz, path, expected_len + n_extra, expected_len);
            goto fail;
        }
        if (n == 0) {
            st = gz_read_error(gz, path, expected_len + n_extra, expected_len);
            if (st != GMM_OK) goto fail;
            break;
        }
        n_extra += (uint64_t)n;
        if (n_extra > ((uint64_t)1 << 30)) break; /* enough to report; do not read forever */
    }
    if (n_extra > 0) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: %s%" PRIu64 " trailing byte%s after the %" PRIu32 " items of %" PRIu32
                       "x%" PRIu32 " that the header declares",
                       path, n_extra > ((uint64_t)1 << 30) ? "more than " : "", n_extra,
                       n_extra == 1 ? "" : "s", count, rows, cols);
        goto fail;
    }

    int zst = src.gz ? gzclose(src.gz) : Z_OK;
    src.gz = NULL;
    if (zst != Z_OK) {
        st = gmm_error(GMM_ERR_IO, "%s: error closing file (zlib code %d)", path, zst);
        goto fail;
    }
    free(src.mem);
    if (fd >= 0) close(fd);
    out->n_items = (int)count;
    out->rows = (int)rows;
    out->cols = (int)cols;
    out->data = data;
    return GMM_OK;

fail:
    free(data);
    if (src.gz) gzclose(src.gz);
    free(src.mem);
    if (fd >= 0) close(fd);
    return st;
}

gmm_status idx_read_images(const char *path, idx_array *out) { return idx_read(path, 3, out); }

gmm_status idx_read_labels(const char *path, idx_array *out) { return idx_read(path, 1, out); }

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

    /* "T" makes zlib write the bytes as they are, so both forms share one code path. */
    errno = 0;
    gzFile gz = gzopen(path, gzip ? "wb6" : "wbT");
    if (!gz) return gmm_error(GMM_ERR_IO, "%s: %s", path, errno ? strerror(errno) : "cannot open");

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
    return GMM_OK;

write_error: {
    int errnum = Z_OK;
    const char *msg = gzerror(gz, &errnum);
    st = gmm_error(GMM_ERR_IO, "%s: write failed: %s", path,
                   errnum == Z_ERRNO ? strerror(errno) : msg);
}
fail:
    if (gz) gzclose(gz);
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

void idx_free(idx_array *array)
{
    if (!array) return;
    free(array->data);
    memset(array, 0, sizeof *array);
}
