/*
 * svgtext.c - escaping and UTF-8 repair for SVG text (see svgtext.h).
 *
 * Invalid UTF-8 is decoded as the Unicode standard recommends (one U+FFFD
 * per maximal invalid subpart, what browsers' decoders do), so a name is
 * as long here as in the browser, where the embedded JavaScript counts its
 * characters again to truncate names on zoom. XML 1.0 allows no C0 control
 * character, not even as &#1;, so those (and DEL) become their Control
 * Pictures (U+2400 + c: a tab shows as a visible symbol), and C1 controls
 * and the noncharacters U+FFFE/U+FFFF become U+FFFD.
 */
#include "flame/svgtext.h"

#include <stdint.h>
#include <string.h>

#include "util/utf8.h"

#define REPLACEMENT 0xFFFDu

/* The code point at s (not at its NUL) and its length in bytes (>= 1);
 * REPLACEMENT for a maximal invalid subpart. */
static size_t next_cp(const unsigned char *s, uint32_t *cp)
{
	size_t n = utf8_next(s, SIZE_MAX, cp);
	if (*cp == UTF8_INVALID)
		*cp = REPLACEMENT;
	return n;
}

/* What stands for cp in the SVG; 0 for "cp itself, as its own bytes". */
static uint32_t stand_in(uint32_t cp)
{
	if (cp < 0x20)
		return 0x2400 + cp;
	if (cp == 0x7F)
		return 0x2421;
	if ((cp >= 0x80 && cp <= 0x9F) || cp == 0xFFFE || cp == 0xFFFF)
		return REPLACEMENT;
	return 0;
}

size_t svgtext_len(const char *s)
{
	size_t n = 0;
	if (!s)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; n++) {
		uint32_t cp;
		p += next_cp(p, &cp);
	}
	return n;
}

static size_t utf8_put(char *d, uint32_t cp)
{
	if (cp < 0x80) {
		d[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		d[0] = (char)(0xC0 | (cp >> 6));
		d[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	d[0] = (char)(0xE0 | (cp >> 12)); /* stand-ins are all in the BMP */
	d[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
	d[2] = (char)(0x80 | (cp & 0x3F));
	return 3;
}

void svgtext_put(FILE *out, const char *s, size_t max)
{
	/* A chunk at a time: one fwrite per name rather than one call per byte. */
	char buf[512];
	size_t used = 0;
	if (!s)
		return;
	for (const unsigned char *p = (const unsigned char *)s; *p && max > 0; max--) {
		if (used > sizeof(buf) - 8) {
			fwrite(buf, 1, used, out);
			used = 0;
		}
		uint32_t cp;
		size_t n = next_cp(p, &cp);
		const char *esc = NULL;
		switch (cp) {
		case '<': esc = "&lt;"; break;
		case '>': esc = "&gt;"; break;
		case '&': esc = "&amp;"; break;
		case '"': esc = "&quot;"; break;
		case '\'': esc = "&#39;"; break;
		default: break;
		}
		uint32_t alt = cp == REPLACEMENT ? REPLACEMENT : stand_in(cp);
		if (esc) {
			size_t l = strlen(esc);
			memcpy(buf + used, esc, l);
			used += l;
		} else if (alt) {
			used += utf8_put(buf + used, alt);
		} else {
			memcpy(buf + used, p, n);
			used += n;
		}
		p += n;
	}
	if (used)
		fwrite(buf, 1, used, out);
}
