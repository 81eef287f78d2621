/*
 * compress.h - zstd framing of ring data into PERF_RECORD_COMPRESSED (81)
 * records, as perf record -z writes them and perf 6.1 reads them
 * (perf-data-format.md 7).
 *
 * One compression stream per recording (the window carries across spans,
 * which is what makes small spans compress well); the frame is never
 * ended, like perf's. A span is cut, at record boundaries, into chunks of
 * at most COMPRESS_CHUNK_MAX bytes; each chunk is fed and flushed on its
 * own, so its compressed bytes are whole zstd blocks that fit one record.
 * That is the point: perf decompresses each COMPRESSED record as it meets
 * it and aborts on one that yields no output ("Couldn't decompress data"),
 * which is what a record holding part of a block does. perf record -z
 * cuts its output every 65,527 bytes whatever the blocks, and writes such
 * records for incompressible data; psrec never does. So every COMPRESSED
 * record decodes, given the ones before it, to whole records.
 *
 * A record too big for a chunk (a --call-graph dwarf sample near the u16
 * limit) is written as it is, uncompressed, between the COMPRESSED ones,
 * and never fed to zstd (the decoder's history must match). If a span's
 * framing is broken, its remaining bytes are chunked blindly.
 *
 * Every chunk's output end and input end are kept (c->chunk), so a caller
 * whose write stopped part-way knows which input records made it.
 * Buffers are allocated once, for the largest span: nothing is allocated
 * on the drain path. Record sizes are not padded to 8 (perf does not pad
 * type 81 either).
 */
#ifndef PSREC_FORMAT_COMPRESS_H
#define PSREC_FORMAT_COMPRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

/* perf keeps a record (header included) within a u16 size. */
#define COMPRESS_MAX_PAYLOAD (65535 - 8)
/* Input per chunk: its flushed output (at most the input plus a frame
 * header and a few block headers) always fits COMPRESS_MAX_PAYLOAD. */
#define COMPRESS_CHUNK_MAX 65000

struct compress_chunk {
	size_t out_end;         /* end of this chunk's record in c->out */
	size_t in_end;          /* end of its input in the span */
};

struct compressor {
	void *cctx;             /* ZSTD_CCtx */
	uint8_t *out;           /* records of the last span */
	size_t out_cap;
	size_t max_span;
	int level;
	struct compress_chunk *chunk;   /* of the last span */
	size_t nr_chunks, max_chunks;
	uint64_t in_bytes;      /* totals, for the ratio */
	uint64_t out_bytes;
	uint64_t raw_records;   /* written uncompressed (too big for a chunk) */
};

/* The least max_span: one record of the largest size perf allows. */
#define COMPRESS_SPAN_MIN 65536

/* level 1-22; max_span = the largest span ever fed (the ring size; at
 * least COMPRESS_SPAN_MIN is taken). */
int compress_init(struct compressor *c, int level, size_t max_span);

/*
 * Compress one span (1 or 2 iovecs, at most max_span bytes) into records
 * in c->out; *len gets their total size. -EINVAL for an oversized span,
 * -EIO if zstd fails.
 */
int compress_span(struct compressor *c, const struct iovec *iov, int n, size_t *len);

/* Start a new zstd frame history: the next record decodes without the
 * ones before it (a new file, --switch-output). The totals stay. */
void compress_reset(struct compressor *c);

/* Bytes of the last span's input whose records lie wholly in the first
 * out_kept bytes of its output. */
size_t compress_input_kept(const struct compressor *c, size_t out_kept);

/* original / compressed, for the COMPRESSED feature (informational). */
uint32_t compress_ratio(const struct compressor *c);

void compress_free(struct compressor *c);

#endif
