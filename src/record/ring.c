/*
 * ring.c - perf ring buffer span reading (see ring.h).
 *
 * Memory ordering follows the kernel's contract (perf_event.h): load
 * data_head with acquire before reading records, store data_tail with
 * release after the bytes have been consumed.
 */
#include "ring.h"

#include <errno.h>
#include <string.h>

#include "format/walk.h"
#include "psrec/perf_data.h"

void ring_init(struct ring *r, struct perf_event_mmap_page *meta, void *data, uint64_t size)
{
	r->meta = meta;
	r->data = data;
	r->size = size;
	r->tail = __atomic_load_n(&meta->data_tail, __ATOMIC_RELAXED);
	r->head = r->tail;
}

int ring_read_span(struct ring *r, struct iovec iov[2], size_t *bytes)
{
	uint64_t head = __atomic_load_n(&r->meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t len = head - r->tail;

	*bytes = 0;
	if (len > r->size)
		return -EBADMSG;
	r->head = head;
	if (len == 0)
		return 0;

	uint64_t mask = r->size - 1;
	uint64_t start = r->tail & mask;
	uint64_t first = r->size - start;
	*bytes = (size_t)len;
	iov[0].iov_base = r->data + start;
	if (len <= first) {
		iov[0].iov_len = (size_t)len;
		return 1;
	}
	iov[0].iov_len = (size_t)first;
	iov[1].iov_base = r->data;
	iov[1].iov_len = (size_t)(len - first);
	return 2;
}

void ring_release(struct ring *r)
{
	__atomic_store_n(&r->meta->data_tail, r->head, __ATOMIC_RELEASE);
	r->tail = r->head;
}

/* A u64 at an 8-aligned ring position never straddles the wrap. */
static uint64_t ring_u64(const struct ring *r, uint64_t pos)
{
	uint64_t v;
	memcpy(&v, r->data + (pos & (r->size - 1)), sizeof(v));
	return v;
}

int ring_scan(const struct ring *r, int time_off, struct ring_tally *t)
{
	return ring_scan_prefix(r, time_off, (size_t)(r->head - r->tail), t);
}

int ring_scan_prefix(const struct ring *r, int time_off, size_t len, struct ring_tally *t)
{
	uint64_t pos = r->tail;
	uint64_t end = r->head - r->tail < len ? r->head : r->tail + len;
	while (pos != end) {
		/* An 8-aligned header never straddles the wrap: fetch it whole,
		 * then judge it against the span (framing) and the prefix. */
		struct pd_event_header h;
		memcpy(&h, r->data + (pos & (r->size - 1)), sizeof(h));
		if (walk_check(&h, r->head - pos) != WALK_WHOLE || (h.size & 7))
			return -EBADMSG;
		if (walk_check(&h, end - pos) != WALK_WHOLE)
			break;
		t->records++;
		switch (h.type) {
		case PD_RECORD_SAMPLE:
			t->samples++;
			if (time_off >= 0 && (uint64_t)time_off + 8 <= h.size) {
				uint64_t ts = ring_u64(r, pos + (uint64_t)time_off);
				if (t->first_time == 0 || ts < t->first_time)
					t->first_time = ts;
				if (ts > t->last_time)
					t->last_time = ts;
			}
			break;
		case PD_RECORD_LOST:
			if (h.size >= 24)
				t->lost += ring_u64(r, pos + 16);
			break;
		case PD_RECORD_LOST_SAMPLES:
			if (h.size >= 16)
				t->lost_samples += ring_u64(r, pos + 8);
			break;
		default:
			break;
		}
		pos += h.size;
	}
	return 0;
}

int ring_walk_prefix(const struct ring *r, size_t len,
		     int (*fn)(void *ctx, const struct ring *r, uint64_t pos, const struct pd_event_header *h),
		     void *ctx)
{
	uint64_t pos = r->tail;
	uint64_t end = r->head - r->tail < len ? r->head : r->tail + len;
	while (pos != end) {
		struct pd_event_header h;
		memcpy(&h, r->data + (pos & (r->size - 1)), sizeof(h));
		if (walk_check(&h, end - pos) != WALK_WHOLE || (h.size & 7))
			return -EBADMSG;
		int ret = fn(ctx, r, pos, &h);
		if (ret)
			return ret;
		pos += h.size;
	}
	return 0;
}

void ring_tally_add(struct ring_tally *dst, const struct ring_tally *src)
{
	dst->records += src->records;
	dst->samples += src->samples;
	dst->lost += src->lost;
	dst->lost_samples += src->lost_samples;
	if (src->first_time && (dst->first_time == 0 || src->first_time < dst->first_time))
		dst->first_time = src->first_time;
	if (src->last_time > dst->last_time)
		dst->last_time = src->last_time;
}
