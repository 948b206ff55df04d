/* Stand-ins for gunzip.h in a build without libdeflate: no fast path, zlib's CRC-32. */
#include "data/gunzip.h"

#include <zlib.h>

int gunzip_fast_available(void) { return 0; }

int gunzip_fast_exact(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len)
{
    (void)in; (void)in_len; (void)out; (void)out_len;
    return 0;
}

uint32_t data_crc32(const void *data, size_t n) { return data_crc32_update(0, data, n); }

uint32_t data_crc32_update(uint32_t crc_so_far, const void *data, size_t n)
{
    /* zlib's crc32 takes an unsigned int length: feed it in 1 GiB pieces */
    const unsigned char *p = data;
    uLong crc = crc_so_far;
    while (n > 0) {
        uInt chunk = n > (1u << 30) ? (1u << 30) : (uInt)n;
        crc = crc32(crc, p, chunk);
        p += chunk;
        n -= chunk;
    }
    return (uint32_t)crc;
}
