/*
 * carry.c - side-band records copied out of a ring span (see carry.h).
 */
#include "carry.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "psrec/perf_data.h"

static bool sideband(uint32_t type)
{
	return type == PD_RECORD_MMAP || type == PD_RECORD_COMM || type == PD_RECORD_EXIT ||
	       type == PD_RECORD_FORK || type == PD_RECORD_MMAP2;
}

static int copy(void *ctx, const struct ring *r, uint64_t pos, const struct pd_event_header *h)
{
	struct buf *out = ctx;
	if (!sideband(h->type))
		return 0;
	/* A record may straddle the wrap: copy it in two pieces. */
	uint64_t at = pos & (r->size - 1);
	uint64_t first = r->size - at < h->size ? r->size - at : h->size;
	int err = buf_append(out, r->data + at, (size_t)first);
	if (!err && first < h->size)
		err = buf_append(out, r->data, (size_t)(h->size - first));
	return err;
}

int carry_sideband(const struct ring *r, size_t len, struct buf *out)
{
	return ring_walk_prefix(r, len, copy, out);
}
