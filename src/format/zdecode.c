/*
 * zdecode.c - zstd stream decoding into a growing buffer (see zdecode.h).
 */
#include "zdecode.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <zstd.h>

/* First size of the output buffer; it doubles from there. */
#define ZDECODE_MIN (64u << 10)

/* Room for at least one more byte in buf, never past limit. */
static int zdecode_grow(struct zdecode *z, size_t limit)
{
	size_t cap = z->cap * 2 > ZDECODE_MIN ? z->cap * 2 : ZDECODE_MIN;
	if (cap > limit)
		cap = limit;
	uint8_t *nb = realloc(z->buf, cap);
	if (!nb)
		return -ENOMEM;
	z->buf = nb;
	z->cap = cap;
	return 0;
}

int zdecode_feed(struct zdecode *z, const void *in, size_t n, size_t limit, const char **why)
{
	if (!z->ds && !(z->ds = ZSTD_createDStream()))
		return -ENOMEM;
	ZSTD_inBuffer src = { in, n, 0 };
	size_t len = z->len;
	bool too_big = false;
	for (;;) {
		if (len == z->cap && z->cap < limit) {
			int err = zdecode_grow(z, limit);
			if (err)
				return err;
		}
		ZSTD_outBuffer out = { z->buf, z->cap < limit ? z->cap : limit, len };
		size_t ret = ZSTD_decompressStream(z->ds, &out, &src);
		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -EBADMSG;
		}
		len = out.pos;
		if (out.pos < out.size) {
			if (src.pos == src.size)
				break; /* all input read and all output flushed */
			continue;
		}
		if (out.size < limit)
			continue; /* full: grow and go on */
		if (src.pos < src.size) {
			too_big = true;
			break;
		}
		/* Input used up with the buffer exactly at the limit: zstd may
		 * still hold output. Any byte more means it was too big. */
		uint8_t probe;
		ZSTD_inBuffer none = { NULL, 0, 0 };
		ZSTD_outBuffer one = { &probe, 1, 0 };
		ret = ZSTD_decompressStream(z->ds, &one, &none);
		too_big = ZSTD_isError(ret) || one.pos > 0;
		break;
	}
	if (too_big)
		return -EFBIG;
	z->len = len;
	return 0;
}

void zdecode_reset(struct zdecode *z)
{
	z->len = 0;
	if (z->ds)
		ZSTD_DCtx_reset(z->ds, ZSTD_reset_session_only);
}

void zdecode_free(struct zdecode *z)
{
	ZSTD_freeDStream(z->ds);
	free(z->buf);
	*z = (struct zdecode)ZDECODE_INIT;
}
