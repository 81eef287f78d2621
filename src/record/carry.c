/*
 * carry.c - side-band records copied out of a ring span (see carry.h).
 */
#include "carry.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "format/walk.h"
#include "psrec/perf_data.h"

static bool sideband(uint32_t type)
{
	return type == PD_RECORD_MMAP || type == PD_RECORD_COMM || type == PD_RECORD_EXIT ||
	       type == PD_RECORD_FORK || type == PD_RECORD_MMAP2;
}

int carry_sideband(const struct ring *r, size_t len, struct buf *out)
{
	uint64_t mask = r->size - 1;
	uint64_t pos = r->tail;
	uint64_t end = r->head - r->tail < len ? r->head : r->tail + len;
	while (pos != end) {
		/* An 8-aligned header never straddles the wrap (ring.c). */
		struct pd_event_header h;
		memcpy(&h, r->data + (pos & mask), sizeof(h));
		if (walk_check(&h, end - pos) != WALK_WHOLE || (h.size & 7))
			return -EBADMSG;
		if (sideband(h.type)) {
			/* A record may straddle the wrap: copy it in two pieces. */
			uint64_t at = pos & mask;
			uint64_t first = r->size - at < h.size ? r->size - at : h.size;
			int err = buf_append(out, r->data + at, (size_t)first);
			if (!err && first < h.size)
				err = buf_append(out, r->data, (size_t)(h.size - first));
			if (err)
				return err;
		}
		pos += h.size;
	}
	return 0;
}
