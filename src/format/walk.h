/*
 * walk.h - the one rule for framing a stream of perf records.
 *
 * A record starts with an 8-byte header whose size (header included) must
 * be at least 8 and must not run past the end of the bytes that hold it.
 * Every walker over records (the ring scan, the writer's short-write
 * accounting, recover, the reader, the compressor's chunking) asks here,
 * so they agree on where a stream stops and why. What a caller does at
 * the stop differs (error, "need more", end of the kept data), which is
 * why the verdicts are distinct. Pure functions: no allocation, no I/O.
 */
#ifndef PSREC_FORMAT_WALK_H
#define PSREC_FORMAT_WALK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "psrec/perf_data.h"

enum walk_verdict {
	WALK_WHOLE,     /* a whole record of h->size bytes lies at pos */
	WALK_END,       /* no bytes left at pos */
	WALK_SHORT,     /* fewer bytes left than a header: the header is cut */
	WALK_CUT,       /* the record runs past the end: it is cut short */
	WALK_BAD,       /* size below a header's: the framing is broken */
};

/* The verdict on header h with left bytes from its start to the end. h is
 * read only when left holds a whole header. */
enum walk_verdict walk_check(const struct pd_event_header *h, uint64_t left);

/* The record at pos of the contiguous bytes [0, end) of base: *h is
 * filled (zeroed when no whole header is there). pos at or past end is
 * WALK_END. */
enum walk_verdict walk_mem(const uint8_t *base, uint64_t end, uint64_t pos, struct pd_event_header *h);

/* The same over the first end bytes of an iovec list (a ring span that
 * wraps; a header may straddle two iovecs). end must not exceed the
 * list's length. */
enum walk_verdict walk_iov(const struct iovec *iov, int n, size_t end, size_t pos,
			   struct pd_event_header *h);

/* Bytes that follow a whole record outside it: HEADER_TRACING_DATA
 * (pipe mode) carries its data after the record, u32 size at offset 8.
 * 0 for every other type, and for a record too short to say. */
uint64_t walk_trailer(const uint8_t *rec, const struct pd_event_header *h);

#endif
