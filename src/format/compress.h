/*
 * compress.h - zstd framing of ring data into PERF_RECORD_COMPRESSED (81)
 * records, as perf record -z writes them and perf 6.1 reads them
 * (perf-data-format.md 7).
 *
 * One compression stream per recording (the window carries across spans,
 * which is what makes small spans compress well). Each ring span is fed
 * whole and flushed, and its compressed bytes are cut into records of at
 * most COMPRESS_MAX_PAYLOAD bytes that never mix two spans, so one record
 * never decompresses to more than the largest span: the COMPRESSED
 * feature's mmap_len (the reader's buffer size) is the ring size. The frame
 * is never ended, like perf's; every record up to the last flush decodes,
 * so a killed recording loses nothing it wrote. Record sizes are not
 * padded to 8 (perf does not pad type 81 either).
 *
 * The output buffer is allocated once, for the largest span: nothing is
 * allocated on the drain path.
 */
#ifndef PSREC_FORMAT_COMPRESS_H
#define PSREC_FORMAT_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* perf keeps a record (header included) within a u16 size. */
#define COMPRESS_MAX_PAYLOAD (65535 - 8)

struct compressor {
	void *cctx;             /* ZSTD_CCtx */
	uint8_t *out;           /* records of the last span */
	size_t out_cap;
	size_t max_span;
	int level;
	uint64_t in_bytes;      /* totals, for the ratio */
	uint64_t out_bytes;
};

/* level 1-22; max_span = the largest span ever fed (the ring size). */
int compress_init(struct compressor *c, int level, size_t max_span);

/*
 * Compress one span (1 or 2 iovecs, at most max_span bytes) into
 * COMPRESSED records in c->out; *len gets their total size. -EINVAL for
 * an oversized span, -EIO if zstd fails.
 */
int compress_span(struct compressor *c, const struct iovec *iov, int n, size_t *len);

/* original / compressed, for the COMPRESSED feature (informational). */
uint32_t compress_ratio(const struct compressor *c);

void compress_free(struct compressor *c);

#endif
