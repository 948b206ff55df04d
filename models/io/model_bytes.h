/* The model file's little-endian byte helpers, shared by its reader and writer
 * (models/io/model_io.c) and its sections (models/io/model_sections.c): a writing cursor, a
 * bounds-checked reading cursor (every get_* fails rather than read past the end). */
#ifndef GMM_MODEL_BYTES_H
#define GMM_MODEL_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

typedef struct {
    unsigned char *p;
} writer;

static inline void put_u32(writer *w, uint32_t x)
{
    for (int i = 0; i < 4; i++) *w->p++ = (unsigned char)(x >> (8 * i));
}

static inline void put_u64(writer *w, uint64_t x)
{
    for (int i = 0; i < 8; i++) *w->p++ = (unsigned char)(x >> (8 * i));
}

static inline void put_f64(writer *w, double x)
{
    uint64_t bits;
    memcpy(&bits, &x, sizeof bits);
    put_u64(w, bits);
}

static inline int host_is_little_endian(void)
{
    const uint32_t one = 1;
    unsigned char first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static inline void put_f64_array(writer *w, const double *x, size_t n)
{
    if (host_is_little_endian()) { /* the file's byte order already: one copy */
        memcpy(w->p, x, sizeof(double) * n);
        w->p += sizeof(double) * n;
        return;
    }
    for (size_t i = 0; i < n; i++) put_f64(w, x[i]);
}

/* A bounds-checked cursor: every get_* fails (returns -1) rather than read past the end. */
typedef struct {
    const unsigned char *p, *end;
} reader;

static inline size_t remaining(const reader *r) { return (size_t)(r->end - r->p); }

static inline int get_u32(reader *r, uint32_t *x)
{
    if (remaining(r) < 4) return -1;
    *x = 0;
    for (int i = 0; i < 4; i++) *x |= (uint32_t)r->p[i] << (8 * i);
    r->p += 4;
    return 0;
}

static inline int get_u64(reader *r, uint64_t *x)
{
    if (remaining(r) < 8) return -1;
    *x = 0;
    for (int i = 0; i < 8; i++) *x |= (uint64_t)r->p[i] << (8 * i);
    r->p += 8;
    return 0;
}

static inline int get_f64(reader *r, double *x)
{
    uint64_t bits;
    if (get_u64(r, &bits) != 0) return -1;
    memcpy(x, &bits, sizeof bits);
    return 0;
}

static inline void get_f64_array(reader *r, double *x, size_t n)
{
    if (host_is_little_endian() && remaining(r) >= sizeof(double) * n) {
        memcpy(x, r->p, sizeof(double) * n);
        r->p += sizeof(double) * n;
        return;
    }
    for (size_t i = 0; i < n; i++) get_f64(r, &x[i]);
}

#endif
