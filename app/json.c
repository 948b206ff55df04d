/* The JSON writer of the programs' --json summaries (see json.h). */
#include "app/json.h"

#include <errno.h>
#include <math.h>

#include "data/file_write.h"

gmm_status json_open(json_writer *w, const char *path)
{
    *w = (json_writer){0};
    gmm_status st = GMM_OK;
    w->file = file_write_open(path, &st); /* renamed into place by json_close when complete */
    return w->file ? GMM_OK : st;
}

gmm_status json_close(json_writer *w)
{
    if (!w->file) return gmm_error(GMM_ERR_ARG, "JSON writer: not open");
    FILE *f = w->file;
    w->file = NULL;
    if (w->failed || w->depth != 0) {
        file_write_abort(f); /* nothing left under the name, or the old file */
        return gmm_error(GMM_ERR_ARG, "JSON writer: nesting misused (%d levels open)", w->depth);
    }
    fputc('\n', f);
    return file_write_close(f);
}

/* The length of the well-formed UTF-8 sequence at p (1..4), or 0 when the bytes there are not
 * one (a stray continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short). */
static int utf8_sequence_length(const unsigned char *p)
{
    const unsigned char c = p[0];
    int n;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;      /* overlong */
        else if (c == 0xed) hi = 0x9f; /* UTF-16 surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;      /* overlong */
        else if (c == 0xf4) hi = 0x8f; /* past U+10FFFF */
    } else {
        return 0;
    }
    if (p[1] < lo || p[1] > hi) return 0; /* also the terminating NUL */
    for (int i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

void json_write_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        case '\b': fputs("\\b", f); break;
        case '\f': fputs("\\f", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f) {
                fprintf(f, "\\u%04x", *p);
            } else if (*p >= 0x80) {
                /* UTF-8 passes through; a byte that is not (a path in another encoding) becomes
                 * U+FFFD, the replacement character, so that the document stays valid JSON */
                int n = utf8_sequence_length(p);
                if (n == 0) {
                    fputs("\\ufffd", f);
                    n = 1;
                } else {
                    fwrite(p, 1, (size_t)n, f);
                }
                p += n;
                continue;
            } else {
                fputc(*p, f);
            }
        }
        p++;
    }
    fputc('"', f);
}

/* The separator, the indentation and the key before a value at the current level. */
static void value_prefix(json_writer *w, const char *key)
{
    if (w->count[w->depth]++ > 0) fputc(',', w->file);
    if (w->depth > 0) {
        fputc('\n', w->file);
        for (int i = 0; i < w->depth; i++) fputs("  ", w->file);
    }
    if (key) {
        json_write_string(w->file, key);
        fputs(": ", w->file);
    }
}

static void begin(json_writer *w, const char *key, char open)
{
    if (w->depth >= JSON_MAX_DEPTH) {
        w->failed = 1;
        return;
    }
    value_prefix(w, key);
    fputc(open, w->file);
    w->count[++w->depth] = 0;
}

static void end(json_writer *w, char close)
{
    if (w->depth <= 0) {
        w->failed = 1;
        return;
    }
    int had_values = w->count[w->depth] > 0;
    w->depth--;
    if (had_values) {
        fputc('\n', w->file);
        for (int i = 0; i < w->depth; i++) fputs("  ", w->file);
    }
    fputc(close, w->file);
}

void json_begin_object(json_writer *w, const char *key) { begin(w, key, '{'); }
void json_end_object(json_writer *w) { end(w, '}'); }
void json_begin_array(json_writer *w, const char *key) { begin(w, key, '['); }
void json_end_array(json_writer *w) { end(w, ']'); }

void json_string(json_writer *w, const char *key, const char *value)
{
    value_prefix(w, key);
    if (value)
        json_write_string(w->file, value);
    else
        fputs("null", w->file);
}

void json_number(json_writer *w, const char *key, double value)
{
    value_prefix(w, key);
    if (isfinite(value))
        fprintf(w->file, "%.17g", value);
    else
        fputs("null", w->file);
}

void json_int(json_writer *w, const char *key, long long value)
{
    value_prefix(w, key);
    fprintf(w->file, "%lld", value);
}

void json_bool(json_writer *w, const char *key, int value)
{
    value_prefix(w, key);
    fputs(value ? "true" : "false", w->file);
}

void json_null(json_writer *w, const char *key)
{
    value_prefix(w, key);
    fputs("null", w->file);
}
