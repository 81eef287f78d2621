/*
 * utf8.c - UTF-8 decoding (see utf8.h).
 */
#include "util/utf8.h"

size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	unsigned b = s[0];
	if (b < 0x80) {
		*cp = b;
		return 1;
	}
	size_t len;
	unsigned lo = 0x80, hi = 0xBF; /* the range of the second byte (Unicode table 3-7) */
	uint32_t c;
	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
		c = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		c = b & 0x0F;
		if (b == 0xE0)
			lo = 0xA0;             /* no overlong forms */
		else if (b == 0xED)
			hi = 0x9F;             /* no surrogates */
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		c = b & 0x07;
		if (b == 0xF0)
			lo = 0x90;
		else if (b == 0xF4)
			hi = 0x8F;             /* nothing past U+10FFFF */
	} else {
		*cp = UTF8_INVALID;
		return 1;
	}
	for (size_t i = 1; i < len; i++) {
		unsigned t = i < n ? s[i] : 0;
		if (t < lo || t > hi) {
			*cp = UTF8_INVALID;
			return i;
		}
		c = (c << 6) | (t & 0x3F);
		lo = 0x80;
		hi = 0xBF;
	}
	*cp = c;
	return len;
}
