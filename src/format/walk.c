/*
 * walk.c - record framing (see walk.h).
 */
#include "walk.h"

#include <string.h>

#include "util/iov.h"

enum walk_verdict walk_check(const struct pd_event_header *h, uint64_t left)
{
	if (left == 0)
		return WALK_END;
	if (left < sizeof(*h))
		return WALK_SHORT;
	if (h->size < sizeof(*h))
		return WALK_BAD;
	if (h->size > left)
		return WALK_CUT;
	return WALK_WHOLE;
}

enum walk_verdict walk_mem(const uint8_t *base, uint64_t end, uint64_t pos, struct pd_event_header *h)
{
	/* Every reader walks every record through here: read the header in
	 * place rather than through the iovec walk. */
	uint64_t left = pos < end ? end - pos : 0;
	if (left >= sizeof(*h))
		memcpy(h, base + pos, sizeof(*h));
	else
		memset(h, 0, sizeof(*h));
	return walk_check(h, left);
}

enum walk_verdict walk_iov(const struct iovec *iov, int n, size_t end, size_t pos,
			   struct pd_event_header *h)
{
	memset(h, 0, sizeof(*h));
	size_t left = pos < end ? end - pos : 0;
	if (left >= sizeof(*h))
		iov_copy(iov, n, pos, h, sizeof(*h));
	return walk_check(h, left);
}

uint64_t walk_trailer(const uint8_t *rec, const struct pd_event_header *h)
{
	uint32_t n = 0;
	if (h->type == PD_RECORD_HEADER_TRACING_DATA && h->size >= 12)
		memcpy(&n, rec + 8, sizeof(n));
	return n;
}
