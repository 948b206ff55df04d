/* Whole-buffer gzip decompression and CRC-32 through libdeflate when the build has it (several
 * times faster than zlib's streaming inflate and crc32: it is most of the time of loading a
 * 60000-image .gz file), built from gunzip.c; gunzip_nolibdeflate.c stands in otherwise (the
 * Makefile picks one, as it does for CUDA). The IDX reader takes this path only for a well-formed
 * single-member gzip file; anything unusual goes to its zlib path, which reports errors exactly. */
#ifndef GMM_GUNZIP_H
#define GMM_GUNZIP_H

#include <stddef.h>
#include <stdint.h>

/* 1 when libdeflate is built in. */
int gunzip_fast_available(void);

/* Decompresses the one gzip member that fills in[0 .. in_len) into out, which must take exactly
 * out_len bytes. Returns 1 when the member decompressed cleanly, used all of the input and
 * produced exactly out_len bytes; 0 otherwise (not available, corrupt, truncated, another member
 * or bytes after it, a different length). */
int gunzip_fast_exact(const uint8_t *in, size_t in_len, uint8_t *out, size_t out_len);

/* CRC-32 (the gzip/zlib polynomial) of n bytes, any n. */
uint32_t data_crc32(const void *data, size_t n);
/* The CRC-32 of the bytes so far (crc) followed by data[0 .. n): data_crc32(a ++ b) is
 * data_crc32_update(data_crc32(a), b). */
uint32_t data_crc32_update(uint32_t crc, const void *data, size_t n);

#endif
