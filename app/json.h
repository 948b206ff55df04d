/* A small JSON writer for the programs' --json summaries: objects and arrays nested up to
 * JSON_MAX_DEPTH, strings escaped (quotes, backslash, control characters as \uXXXX), finite
 * numbers as %.17g (they read back exactly) and NaN or infinities as null. */
#ifndef GMM_JSON_H
#define GMM_JSON_H

#include <stdio.h>

#include "kernels/gmm_status.h"

#define JSON_MAX_DEPTH 16

typedef struct {
    FILE *file;
    int depth;
    int count[JSON_MAX_DEPTH + 1]; /* values written so far at each level */
    int failed;                    /* nesting misused or too deep */
} json_writer;

/* Opens path for writing (data/file_write.h: a temporary file beside it, renamed into place by
 * json_close). GMM_OK, or the error naming the path and why. */
gmm_status json_open(json_writer *w, const char *path);
/* Closes the file and renames it into place; an error (the old file kept, nothing partial left)
 * when a write failed or the nesting was not closed properly. */
gmm_status json_close(json_writer *w);

/* key is the member name inside an object, NULL inside an array (and for the outermost). */
void json_begin_object(json_writer *w, const char *key);
void json_end_object(json_writer *w);
void json_begin_array(json_writer *w, const char *key);
void json_end_array(json_writer *w);
void json_string(json_writer *w, const char *key, const char *value); /* NULL: null */
void json_number(json_writer *w, const char *key, double value);
void json_int(json_writer *w, const char *key, long long value);
void json_bool(json_writer *w, const char *key, int value);
void json_null(json_writer *w, const char *key);

/* Writes s as a JSON string literal (with its quotes) to f: always valid UTF-8, a byte that is
 * not part of a well-formed UTF-8 sequence (a path in another encoding) written as \ufffd. */
void json_write_string(FILE *f, const char *s);

#endif
