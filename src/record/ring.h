/*
 * ring.h - reading one perf mmap ring buffer without copying records.
 *
 * The kernel appends records at data_head; we consume from data_tail. Both
 * are free-running byte counters; records are 8-byte aligned and may wrap
 * the end of the buffer. A read hands out the whole unread span [tail, head)
 * as at most two iovecs pointing into the mapping (two when it wraps), so
 * the writer sends raw bytes straight from the ring to the file: a record
 * straddling the wrap comes out intact because bytes are bytes. The tail is
 * released only after the bytes are written.
 *
 * Pure logic over a header page and a data area: unit tests drive it with
 * a fake in-memory ring. No allocation, no system calls.
 */
#ifndef PSREC_RECORD_RING_H
#define PSREC_RECORD_RING_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "psrec/perf_data.h"

struct ring {
	struct perf_event_mmap_page *meta;  /* the header page */
	uint8_t *data;                      /* data area, size bytes */
	uint64_t size;                      /* a power of two */
	uint64_t tail;                      /* start of the unread span */
	uint64_t head;                      /* end of the span handed out */
};

/* What a scan of a span found, for the summary and SAMPLE_TIME. */
struct ring_tally {
	uint64_t records;
	uint64_t samples;
	uint64_t lost;          /* sum of LOST records' counts */
	uint64_t lost_samples;  /* sum of LOST_SAMPLES records' counts */
	uint64_t first_time;    /* smallest SAMPLE time seen (0: none yet) */
	uint64_t last_time;     /* largest SAMPLE time seen */
};

/* Attach to a ring: size must be a power of two; tail starts at the
 * kernel's data_tail. */
void ring_init(struct ring *r, struct perf_event_mmap_page *meta, void *data, uint64_t size);

/*
 * Take the unread span: fills iov[0..1] and returns how many iovecs (0 when
 * empty, 2 when the span wraps); *bytes gets its length. Returns -EBADMSG
 * if the kernel's head is behind our tail or more than a ring ahead (only a
 * corrupted ring can do that).
 */
int ring_read_span(struct ring *r, struct iovec iov[2], size_t *bytes);

/* Give the span taken by the last ring_read_span() back to the kernel. */
void ring_release(struct ring *r);

/*
 * Walk the record headers of the span taken by the last ring_read_span()
 * (without copying) and add to *t: records, SAMPLEs, LOST and LOST_SAMPLES
 * counts, first/last sample time (time_off = byte offset of TIME in a
 * SAMPLE, or -1). Returns -EBADMSG at a record header with an impossible
 * size; the counts up to it are kept.
 */
int ring_scan(const struct ring *r, int time_off, struct ring_tally *t);

/* The same for the records that lie wholly in the first len bytes of the
 * span (what a short write kept). */
int ring_scan_prefix(const struct ring *r, int time_off, size_t len, struct ring_tally *t);

/*
 * Call fn for each record lying wholly in the first len bytes of the span
 * taken by the last ring_read_span() (pos: its ring position; a record
 * may straddle the wrap, its 8-byte header never does). Stops at fn's
 * first non-zero return, which it returns, or -EBADMSG at a broken header.
 */
int ring_walk_prefix(const struct ring *r, size_t len,
		     int (*fn)(void *ctx, const struct ring *r, uint64_t pos, const struct pd_event_header *h),
		     void *ctx);

/* Add the counts of src to dst (first/last time merged). */
void ring_tally_add(struct ring_tally *dst, const struct ring_tally *src);

#endif
