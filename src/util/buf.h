/*
 * buf.h - a growable byte buffer for building records and feature payloads.
 *
 * Not used on the drain path (ring data is never copied). Appends report
 * allocation failure as -ENOMEM and leave the buffer unchanged, so a
 * builder can return the first error it sees.
 */
#ifndef PSREC_UTIL_BUF_H
#define PSREC_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

#define BUF_INIT { NULL, 0, 0 }

/* Ensure room for `more` bytes past len. 0 or -ENOMEM. */
int buf_reserve(struct buf *b, size_t more);
/* Append n bytes (n may be 0). 0 or -ENOMEM. */
int buf_append(struct buf *b, const void *p, size_t n);
/* Append n zero bytes. */
int buf_append_zeros(struct buf *b, size_t n);
int buf_append_u16(struct buf *b, uint16_t v);
int buf_append_u32(struct buf *b, uint32_t v);
int buf_append_u64(struct buf *b, uint64_t v);
/* Pad with zeros until len is a multiple of align (a power of two). */
int buf_pad(struct buf *b, size_t align);
/* Drop the contents, keep the allocation. */
void buf_reset(struct buf *b);
/* Free the allocation; b becomes empty. Accepts an empty buffer. */
void buf_free(struct buf *b);

#endif
