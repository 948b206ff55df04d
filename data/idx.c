/* IDX (MNIST format) reading; the writing is in data/idx_writer.c. Raw files are read as they
 * are, gzip files inflated member by member through zlib (bytes after the last member are an
 * error); a well-formed single-member .gz file is inflated in one piece by libdeflate when the
 * build has it (data/gunzip.h), several times faster. Only regular files are opened, and the
 * header comes first: a gzip file's 16 header bytes are inflated alone, and a header promising
 * more than the limits or the memory budget (data/file_open.h: physical memory, rlimits, cgroup)
 * fails before anything more is inflated or allocated. A row range of
 * the items can be read alone (a rank's share of a distributed fit): a raw file is then
 * memory-mapped, not read, and a gzip file is inflated only as far as the range's end. */
#include "data/idx.h"

#include "data/file_open.h"
#include "data/gunzip.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
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

/* Where the bytes come from: the file itself (raw IDX), the file inflated member by member
 * through zlib (gzip), or the whole file already inflated in memory by the fast path. */
typedef struct {
    int fd;
    const char *path;
    int gzip;             /* the content is inflated through zs */
    int zs_live;          /* inflateInit2 was called */
    int stream_done;      /* gzip: the last member ended and no byte follows it */
    z_stream zs;
    unsigned char *in;    /* IDX_IN_BUF bytes read from the file, not yet used */
    size_t in_pos, in_len; /* raw files: the bytes of in still to be handed out */
    off_t file_size;
    uint64_t produced;    /* content bytes handed out so far */
    uint64_t wanted;      /* what the header promises, for messages (0 until known) */
    uint8_t *mem;         /* the fast path's inflated content, or NULL */
    size_t mem_len, mem_pos;
} idx_source;

#define IDX_IN_BUF ((size_t)1 << 18)

/* read() that retries on EINTR; -1 on error (errno set). */
static ssize_t read_some(int fd, void *buf, size_t len)
{
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0 || errno != EINTR) return n;
    }
}

/* Refills in with the file's next bytes (after moving the keep bytes still unused in front);
 * returns the count read (0 at the end of the file) or -1. */
static ssize_t src_fill(idx_source *s, const unsigned char *keep, size_t n_keep)
{
    if (n_keep) memmove(s->in, keep, n_keep);
    ssize_t n = read_some(s->fd, s->in + n_keep, IDX_IN_BUF - n_keep);
    s->zs.next_in = s->in;
    s->zs.avail_in = (uInt)(n_keep + (n > 0 ? (size_t)n : 0));
    return n;
}

/* A gzip member just ended: another member may follow (gzip -d reads concatenated members as one
 * stream, so do we); the file may end; anything else is an error naming the extra bytes. */
static gmm_status src_next_member(idx_source *s)
{
    if (s->zs.avail_in < 2) {
        ssize_t n = src_fill(s, s->zs.next_in, s->zs.avail_in);
        if (n < 0) return gmm_error(GMM_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
    }
    if (s->zs.avail_in == 0) {
        s->stream_done = 1;
        return GMM_OK;
    }
    if (s->zs.avail_in < 2 || s->zs.next_in[0] != 0x1f || s->zs.next_in[1] != 0x8b) {
        off_t pos = lseek(s->fd, 0, SEEK_CUR);
        uint64_t extra = s->zs.avail_in;
        if (pos >= 0 && s->file_size >= pos) extra += (uint64_t)(s->file_size - pos);
        return gmm_error(GMM_ERR_FORMAT,
                         "%s: %" PRIu64 " byte%s after the end of the gzip stream (neither the end "
                         "of the file nor another gzip member)",
                         s->path, extra, extra == 1 ? "" : "s");
    }
    if (inflateReset(&s->zs) != Z_OK)
        return gmm_error(GMM_ERR_FORMAT, "%s: cannot restart zlib for the next gzip member",
                         s->path);
    return GMM_OK;
}

/* Reads up to len content bytes into buf; *got is what arrived (less than len only at the end of
 * the content). A corrupt or cut gzip stream or a read error is the status. */
static gmm_status src_read(idx_source *s, void *buf, size_t len, size_t *got)
{
    unsigned char *out = buf;
    size_t total = 0;
    *got = 0;
    if (s->mem) {
        size_t n = s->mem_len - s->mem_pos < len ? s->mem_len - s->mem_pos : len;
        memcpy(out, s->mem + s->mem_pos, n);
        s->mem_pos += n;
        total = n;
    } else if (!s->gzip) {
        while (total < len) {
            if (s->in_pos < s->in_len) {
                size_t n = s->in_len - s->in_pos < len - total ? s->in_len - s->in_pos : len - total;
                memcpy(out + total, s->in + s->in_pos, n);
                s->in_pos += n;
                total += n;
                continue;
            }
            size_t ask = len - total < IDX_IO_CHUNK ? len - total : IDX_IO_CHUNK;
            ssize_t n = read_some(s->fd, out + total, ask);
            if (n < 0) return gmm_error(GMM_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
            if (n == 0) break;
            total += (size_t)n;
        }
    } else {
        while (total < len && !s->stream_done) {
            if (s->zs.avail_in == 0) {
                ssize_t n = src_fill(s, NULL, 0);
                if (n < 0)
                    return gmm_error(GMM_ERR_IO, "%s: read error: %s", s->path, strerror(errno));
                if (n == 0) {
                    uint64_t done = s->produced + total;
                    return gmm_error(GMM_ERR_FORMAT,
                                     "%s: truncated gzip stream (compressed data end early) "
                                     "after %" PRIu64 " of %" PRIu64 " bytes",
                                     s->path, done, s->wanted > done ? s->wanted : done);
                }
            }
            size_t ask = len - total < IDX_IO_CHUNK ? len - total : IDX_IO_CHUNK;
            s->zs.next_out = out + total;
            s->zs.avail_out = (uInt)ask;
            int zr = inflate(&s->zs, Z_NO_FLUSH);
            total += ask - s->zs.avail_out;
            if (zr == Z_STREAM_END) {
                gmm_status st = src_next_member(s);
                if (st != GMM_OK) return st;
            } else if (zr == Z_DATA_ERROR) {
                return gmm_error(GMM_ERR_FORMAT, "%s: corrupt gzip stream (%s)", s->path,
                                 s->zs.msg ? s->zs.msg : "invalid data");
            } else if (zr == Z_MEM_ERROR) {
                return gmm_error(GMM_ERR_NOMEM, "%s: zlib out of memory", s->path);
            } else if (zr != Z_OK && !(zr == Z_BUF_ERROR && s->zs.avail_in == 0)) {
                return gmm_error(GMM_ERR_FORMAT, "%s: gzip stream error (zlib code %d)", s->path,
                                 zr);
            }
        }
    }
    s->produced += total;
    *got = total;
    return GMM_OK;
}

/* The fast path, taken once the header has been read through zlib and checked: the whole
 * regular file read (pread: the zlib reader's place in the file is kept) and inflated by
 * libdeflate when it is one clean gzip member whose trailer's length (ISIZE, the content's
 * length modulo 2^32) is the content_len that the header implies, and the file and the content
 * fit the memory budget. 1 when src->mem now holds the content; 0 (nothing kept) when the zlib
 * path must go on. */
static int fast_gunzip(int fd, const struct stat *sb, uint64_t content_len, idx_source *src)
{
    if (!gunzip_fast_available() || sb->st_size < 18 ||
        (uint64_t)sb->st_size > IDX_MAX_DATA_BYTES || content_len > IDX_MAX_DATA_BYTES ||
        /* deflate expands at most 1032:1: a header claiming more is not allocated for here (the
         * zlib path then says what is wrong, holding only what the stream really holds) */
        content_len > (uint64_t)sb->st_size * 1032 ||
        (uint64_t)sb->st_size + content_len > file_memory_budget())
        return 0;
    size_t in_len = (size_t)sb->st_size;
    uint8_t *in = malloc(in_len), *out = NULL;
    file_advise_huge(in, in_len);
    int ok = in && file_read_exact(fd, src->path, in, in_len, 0) == GMM_OK && in[0] == 0x1f &&
             in[1] == 0x8b;
    if (!ok) gmm_error_clear();
    if (ok) {
        uint32_t isize = 0;
        for (int i = 0; i < 4; i++) isize |= (uint32_t)in[in_len - 4 + i] << (8 * i);
        ok = isize == (uint32_t)content_len && (out = malloc((size_t)content_len)) != NULL;
        if (ok) file_advise_huge(out, (size_t)content_len);
        ok = ok && gunzip_fast_exact(in, in_len, out, (size_t)content_len);
    }
    free(in);
    if (!ok) {
        free(out);
        return 0;
    }
    src->mem = out;
    src->mem_len = (size_t)content_len;
    src->mem_pos = 0;
    return 1;
}

/* Reads up to len bytes; *got is what arrived. Short only at the end of the content. */
static gmm_status gz_read_full(idx_source *src, const char *path, void *buf, size_t len,
                               size_t *got, uint64_t done_before, uint64_t wanted)
{
    (void)path;
    (void)done_before;
    if (wanted > src->wanted) src->wanted = wanted;
    return src_read(src, buf, len, got);
}

/* Items [first, first + want) of the file (want < 0: to the end); map: a raw file is mapped. */
static gmm_status idx_read(const char *path, int want_dims, int64_t first, int64_t want, int map,
                           idx_array *out)
{
    gmm_status st = GMM_OK;
    idx_source src = {0};
    idx_source *gz = &src; /* the reading calls below take the source */
    uint8_t *data = NULL;
    int fd = -1;
    const unsigned expected_magic = IDX_TYPE_UBYTE << 8 | (unsigned)want_dims;
    const char *kind = want_dims == 3 ? "image" : "label";
    const char *expected = want_dims == 3 ? "an IDX image file" : "an IDX label file";

    if (!out) return gmm_error(GMM_ERR_ARG, "idx: NULL output");
    memset(out, 0, sizeof *out);
    if (!path) return gmm_error(GMM_ERR_ARG, "idx: NULL path");

    struct stat sb;
    fd = file_open_regular(path, expected, &sb, &st);
    if (fd < 0) return st;
    src.fd = fd;
    src.path = path;
    src.file_size = sb.st_size;
    /* Headers first: a gzip file's header is inflated alone (zlib, 16 bytes) and checked
     * against the limits and the memory budget before anything more is inflated or allocated;
     * only then may the fast path inflate the whole file. */
    src.in = malloc(IDX_IN_BUF);
    if (!src.in) {
        st = gmm_error(GMM_ERR_NOMEM, "%s: cannot allocate a read buffer", path);
        goto fail;
    }
    ssize_t n = src_fill(&src, NULL, 0);
    if (n < 0) {
        st = gmm_error(GMM_ERR_IO, "%s: read error: %s", path, strerror(errno));
        goto fail;
    }
    src.in_len = (size_t)n;
    if (n >= 2 && src.in[0] == 0x1f && src.in[1] == 0x8b) {
        src.gzip = 1;
        if (inflateInit2(&src.zs, 16 + MAX_WBITS) != Z_OK) {
            st = gmm_error(GMM_ERR_NOMEM, "%s: cannot start zlib reader", path);
            goto fail;
        }
        src.zs_live = 1;
        src.zs.next_in = src.in;
        src.zs.avail_in = (uInt)n;
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
    const int compressed = src.gzip;
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
    const uint64_t expected_len = header_len + (uint64_t)count * item_bytes;
    if (first < 0 || first > (int64_t)count || (want >= 0 && want > (int64_t)count - first)) {
        st = gmm_error(GMM_ERR_FORMAT, "%s: items [%lld, %lld) asked for, but the header declares "
                       "%" PRIu32 " items", path, (long long)first,
                       (long long)(want < 0 ? (int64_t)count : first + want), count);
        goto fail;
    }
    const uint64_t n_range = want < 0 ? (uint64_t)count - (uint64_t)first : (uint64_t)want;
    const int to_end = (uint64_t)first + n_range == count; /* the trailing check applies */
    const uint64_t skip_bytes = (uint64_t)first * item_bytes;
    const uint64_t data_bytes = n_range * item_bytes; /* what is read */
    if (n_range == 0) { /* the header alone: how many items there are */
        if (src.zs_live) inflateEnd(&src.zs);
        free(src.in);
        free(src.mem);
        close(fd);
        *out = (idx_array){.n_total = (int)count, .first = (int)first, .rows = (int)rows,
                           .cols = (int)cols};
        return GMM_OK;
    }
    /* Programs index an image's values with an int: its size must fit one. */
    if (item_bytes > INT_MAX) {
        st = gmm_error(GMM_ERR_FORMAT,
                       "%s: header declares images of %" PRIu32 " x %" PRIu32 " = %" PRIu64
                       " values, more than %d",
                       path, rows, cols, item_bytes, INT_MAX);
        goto fail;
    }
    /* Before reading or allocating anything: will it fit in the memory there is? */
    const uint64_t budget = file_memory_budget();
    if (data_bytes > budget) {
        st = gmm_error(GMM_ERR_NOMEM,
                       "%s: header declares %" PRIu32 " items of %" PRIu32 "x%" PRIu32
                       " = %" PRIu64 " bytes of data, more than the %" PRIu64
                       " bytes this process may have (physical memory, ulimit -v/-d, cgroup limit)",
                       path, count, rows, cols, data_bytes, budget);
        goto fail;
    }

    /* the fast path inflates the whole file: only when all of it is wanted (a rank's range is
     * inflated by zlib only as far as it goes), and only now that the header has been checked */
    if (compressed && first == 0 && want < 0 && fast_gunzip(fd, &sb, expected_len, &src)) {
        inflateEnd(&src.zs);
        src.zs_live = 0;
        src.mem_pos = header_len;
    }

    /* A raw file's length is known up front: say exactly what is wrong before allocating. */
    if (!compressed && (uint64_t)sb.st_size != expected_len) {
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

    if (map && !compressed && (map != IDX_MAP_LARGE || expected_len >= IDX_MAP_LARGE_BYTES)) {
        /* the pages are the file's: nothing is read or copied until the fit touches them */
        void *m = mmap(NULL, (size_t)expected_len, PROT_READ, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED) {
            st = gmm_error(GMM_ERR_IO, "%s: cannot map the file: %s", path, strerror(errno));
            goto fail;
        }
        close(fd);
        free(src.in);
        out->n_items = (int)n_range;
        out->n_total = (int)count;
        out->first = (int)first;
        out->rows = (int)rows;
        out->cols = (int)cols;
        out->data = (uint8_t *)m + header_len + skip_bytes;
        out->map = m;
        out->map_len = (size_t)expected_len;
        return GMM_OK;
    }
    if (skip_bytes > 0 && !compressed) {
        if (lseek(fd, (off_t)(header_len + skip_bytes), SEEK_SET) < 0) {
            st = gmm_error(GMM_ERR_IO, "%s: %s", path, strerror(errno));
            goto fail;
        }
        src.in_pos = src.in_len; /* what the first fill read is before the range */
    }
    for (uint64_t skipped = 0; skip_bytes > 0 && compressed && skipped < skip_bytes;) {
        unsigned char scratch[1 << 16];
        size_t ask = skip_bytes - skipped < sizeof scratch ? (size_t)(skip_bytes - skipped)
                                                           : sizeof scratch;
        st = gz_read_full(gz, path, scratch, ask, &got, header_len + skipped, expected_len);
        if (st != GMM_OK) goto fail;
        if (got < ask) {
            st = gmm_error(GMM_ERR_FORMAT, "%s: truncated: the content ends after %" PRIu64
                           " of the %" PRIu64 " bytes that the header declares", path,
                           header_len + skipped + got, expected_len);
            goto fail;
        }
        skipped += got;
    }

    /* inflated whole already and exactly the header and the items: the items moved to the
     * buffer's start become the array (no second buffer to fault in and copy into) */
    if (src.mem && skip_bytes == 0 && to_end && src.mem_len == expected_len &&
        src.mem_pos == header_len) {
        memmove(src.mem, src.mem + header_len, (size_t)data_bytes);
        data = realloc(src.mem, (size_t)data_bytes); /* shrinking: keeps the block on failure */
        if (!data) data = src.mem;
        src.mem = NULL;
        goto loaded;
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
        st = gz_read_full(gz, path, data + have, cap - have, &got, header_len + skip_bytes + have,
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
                       " (%" PRIu64 " bytes of data) but only %" PRIu64 " bytes follow the header",
                       path, count, rows, cols, (uint64_t)count * item_bytes,
                       (uint64_t)(skip_bytes + have));
        goto fail;
    }

    /* Trailing data means the header and the content disagree; reading on also surfaces a gzip
     * stream cut between the last data byte and its CRC trailer, and bytes after the stream. */
    unsigned char extra[4096];
    uint64_t n_extra = 0;
    for (; to_end;) {
        st = src_read(&src, extra, sizeof extra, &got);
        if (st != GMM_OK) goto fail;
        if (got == 0) break;
        n_extra += got;
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

loaded:
    if (src.zs_live) inflateEnd(&src.zs);
    free(src.in);
    free(src.mem);
    close(fd);
    out->n_items = (int)n_range;
    out->n_total = (int)count;
    out->first = (int)first;
    out->rows = (int)rows;
    out->cols = (int)cols;
    out->data = data;
    return GMM_OK;

fail:
    free(data);
    if (src.zs_live) inflateEnd(&src.zs);
    free(src.in);
    free(src.mem);
    if (fd >= 0) close(fd);
    return st;
}

gmm_status idx_read_images(const char *path, idx_array *out)
{
    return idx_read(path, 3, 0, -1, 0, out);
}

gmm_status idx_read_labels(const char *path, idx_array *out)
{
    return idx_read(path, 1, 0, -1, 0, out);
}

gmm_status idx_read_range(const char *path, int want_dims, int64_t first, int64_t count, int map,
                          idx_array *out)
{
    if (want_dims != 1 && want_dims != 3) return gmm_error(GMM_ERR_ARG, "idx: dims must be 1 or 3");
    return idx_read(path, want_dims, first, count, map, out);
}

void idx_free(idx_array *array)
{
    if (!array) return;
    if (array->map)
        munmap(array->map, array->map_len);
    else
        free(array->data);
    memset(array, 0, sizeof *array);
}
