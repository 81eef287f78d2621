/* buf.c - growable byte buffer (see buf.h). */
#include "buf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

int buf_reserve(struct buf *b, size_t more)
{
	return VEC_RESERVE(b->data, b->cap, b->len, more, 256);
}

int buf_append(struct buf *b, const void *p, size_t n)
{
	if (n == 0)
		return 0;
	int err = buf_reserve(b, n);
	if (err)
		return err;
	memcpy(b->data + b->len, p, n);
	b->len += n;
	return 0;
}

int buf_append_zeros(struct buf *b, size_t n)
{
	if (n == 0)
		return 0;
	int err = buf_reserve(b, n);
	if (err)
		return err;
	memset(b->data + b->len, 0, n);
	b->len += n;
	return 0;
}

int buf_append_u16(struct buf *b, uint16_t v) { return buf_append(b, &v, sizeof(v)); }
int buf_append_u32(struct buf *b, uint32_t v) { return buf_append(b, &v, sizeof(v)); }
int buf_append_u64(struct buf *b, uint64_t v) { return buf_append(b, &v, sizeof(v)); }

int buf_pad(struct buf *b, size_t align)
{
	size_t rem = b->len & (align - 1);
	return rem ? buf_append_zeros(b, align - rem) : 0;
}

void buf_reset(struct buf *b)
{
	b->len = 0;
}

void buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}
