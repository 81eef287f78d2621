/*
 * zdecode.c - zstd stream decoding a piece at a time (see zdecode.h).
 */
#include "zdecode.h"

#include <errno.h>
#include <stdlib.h>
#include <zstd.h>

void zdecode_input(struct zdecode *z, const void *in, size_t n)
{
	z->in = in;
	z->in_len = n;
	z->in_pos = 0;
	z->out = 0;
	z->more = false;
}

int zdecode_step(struct zdecode *z, uint64_t max_out, const char **why)
{
	if (z->in_pos == z->in_len && !z->more)
		return 0;
	if (!z->ds && !(z->ds = ZSTD_createDStream()))
		return -ENOMEM;
	if (!z->buf) {
		if (!(z->buf = malloc(ZDECODE_BUF)))
			return -ENOMEM;
		z->cap = ZDECODE_BUF;
	}
	if (z->len >= z->cap)
		return -ENOBUFS;
	if (z->out > max_out)
		return -EFBIG;
	/* One byte past what max_out allows tells "too big" from "exactly". */
	size_t room = z->cap - z->len;
	if (max_out - z->out < room)
		room = (size_t)(max_out - z->out) + 1;
	ZSTD_inBuffer src = { z->in, z->in_len, z->in_pos };
	ZSTD_outBuffer dst = { z->buf + z->len, room, 0 };
	bool done = false;
	while (dst.pos < dst.size) {
		size_t ret = ZSTD_decompressStream(z->ds, &dst, &src);
		if (ZSTD_isError(ret)) {
			*why = ZSTD_getErrorName(ret);
			return -EBADMSG;
		}
		if (src.pos == src.size && dst.pos < dst.size) {
			done = true; /* all input read and all output flushed */
			break;
		}
	}
	if (z->out + dst.pos > max_out)
		return -EFBIG;
	z->in_pos = src.pos;
	z->more = !done;
	z->out += dst.pos;
	z->len += dst.pos;
	return dst.pos > 0;
}

int zdecode_measure(struct zdecode *z, const void *in, size_t n, uint64_t max_out, uint64_t *bytes,
		    const char **why)
{
	zdecode_input(z, in, n);
	int k;
	do {
		z->len = 0;
		k = zdecode_step(z, max_out, why);
	} while (k == 1);
	*bytes = k == -EFBIG ? max_out + 1 : z->out;
	z->len = 0;
	return k;
}

void zdecode_reset(struct zdecode *z)
{
	z->len = 0;
	zdecode_input(z, NULL, 0);
	if (z->ds)
		ZSTD_DCtx_reset(z->ds, ZSTD_reset_session_only);
}

void zdecode_free(struct zdecode *z)
{
	ZSTD_freeDStream(z->ds);
	free(z->buf);
	*z = (struct zdecode)ZDECODE_INIT;
}
