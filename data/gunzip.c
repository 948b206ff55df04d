/* libdeflate behind gunzip.h. */
#include "data/gunzip.h"

#include <libdeflate.h>

int gunzip_fast_available(void) { return 1; }

int gunzip_fast_exact(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
    struct libdeflate_decompressor *d = libdeflate_alloc_decompressor();
    if (!d) return 0;
    size_t in_used = 0, out_got = 0;
    enum libdeflate_result r =
        libdeflate_gzip_decompress_ex(d, in, in_len, out, out_len, &in_used, &out_got);
    libdeflate_free_decompressor(d);
    return r == LIBDEFLATE_SUCCESS && in_used == in_len && out_got == out_len;
}

uint32_t data_crc32(const void *data, size_t n) { return libdeflate_crc32(0, data, n); }

uint32_t data_crc32_update(uint32_t crc, const void *data, size_t n)
{
    return libdeflate_crc32(crc, data, n);
}
