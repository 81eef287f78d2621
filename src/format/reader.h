/*
 * reader.h - iterating over a perf.data file.
 *
 * Reads files written by psrec and by perf, in file or pipe format (a
 * stream saved from perf record -o -), native endian. The whole input is
 * mapped (standard input too: a pipe is spooled into an unnamed temporary
 * file first), or given as memory; every offset and length taken from it is
 * bounds-checked before use, so truncated, oversized or garbage input
 * yields an error naming the offset, never a crash. Records of any type
 * are returned; callers skip types they do not know (the reader never
 * rejects a record for its type, only for its framing).
 *
 * COMPRESSED records (perf record -z) are decompressed on the fly: the
 * records inside them are returned, not the COMPRESSED record itself
 * (r->nr_compressed counts those). A record that straddles two COMPRESSED
 * records is reassembled, as perf does.
 */
#ifndef PSREC_FORMAT_READER_H
#define PSREC_FORMAT_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/zdecode.h"
#include "psrec/perf_data.h"
#include "util/err.h"

struct reader_attr {
	struct pd_attr attr;        /* zero-extended to 128 bytes */
	const uint64_t *ids;        /* points into the input (may be unaligned-safe copy) */
	size_t nr_ids;
};

struct reader_record {
	uint64_t offset;            /* file offset of the record header (of the
				       COMPRESSED record, for one inside it) */
	uint32_t type;
	uint16_t misc;
	uint16_t size;
	const uint8_t *data;        /* the whole record, header included; valid
				       until the next reader_next() */
	bool compressed;            /* came out of a COMPRESSED record */
};

struct reader_blob {
	const uint8_t *p;
	size_t len;
};

struct reader {
	const uint8_t *base;
	size_t len;
	bool mapped;                /* base is an mmap to undo */
	bool release;               /* pages read may be dropped (MADV_DONTNEED):
				       base maps a file; set by the caller of
				       reader_open_mem* whose memory does */
	struct pd_file_header hdr;
	struct reader_attr *attrs;
	size_t nr_attrs;
	uint64_t *id_store;         /* aligned copy of every ids array */
	uint64_t data_begin, data_end, pos;
	uint64_t released;          /* mapped input below this was dropped from memory */
	bool pipe;                  /* pipe format: attrs and features are records */
	struct reader_blob pipe_feat[PD_FEAT_BITS];
	/* decompression of COMPRESSED records */
	struct zdecode z;           /* output in z.buf, z.len bytes */
	size_t dpos;                /* next record in z.buf */
	uint64_t dsrc;              /* offset of the COMPRESSED record being read */
	size_t mmap_len;            /* from the COMPRESSED feature; 0: none */
	uint8_t *owned;             /* input read from a pipe, freed at close */
	uint64_t nr_compressed;
	uint64_t error_at;          /* after reader_next failed: the offset of the
				       record (COMPRESSED, for data inside one)
				       from which the data does not read */
};

/* Map and validate the header, attrs and ids of a file ("-": standard
 * input, read whole into memory). */
int reader_open_file(struct reader *r, const char *path, struct err *e);
/* The same over memory the caller keeps alive until reader_close(). */
int reader_open_mem(struct reader *r, const void *p, size_t len, struct err *e);
/* File format over memory, with hdr taken instead of the bytes at p
 * (psrec recover checks a header before it writes it). */
int reader_open_mem_as(struct reader *r, const void *p, size_t len, const struct pd_file_header *hdr,
		       struct err *e);
void reader_close(struct reader *r);

/* Next record of the data section: 1 and *rec filled, 0 at the end, or
 * -EINVAL with a message naming the offset (framing broken). */
int reader_next(struct reader *r, struct reader_record *rec, struct err *e);

/* Rewind to the first record. */
void reader_rewind(struct reader *r);

/* Whether the header's feature bitmap has `feat`. */
bool reader_has_feature(const struct reader *r, unsigned feat);
/* The payload of a feature section: 0, -ENOENT when absent, -EINVAL (with
 * a message) when its table entry or payload lies outside the file. */
int reader_feature(const struct reader *r, unsigned feat, const uint8_t **p, size_t *len,
		   struct err *e);

/* The attr a record belongs to, from its sample id (IDENTIFIER or ID in a
 * SAMPLE, the sample_id trailer otherwise); the first attr for id 0 or when
 * the file has a single attr. NULL if the id is not in any ids section. */
const struct reader_attr *reader_record_attr(const struct reader *r, const struct reader_record *rec);

/* Decode a perf_header_string at p (len bytes left): 0 and s, slen filled on
 * success (s points into p and stops at the first NUL); *used = bytes consumed. */
int reader_string(const uint8_t *p, size_t len, const char **s, size_t *slen, size_t *used);

#endif
