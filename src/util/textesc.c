/*
 * textesc.c - escaping control characters and broken UTF-8 (see
 * textesc.h).
 */
#include "util/textesc.h"

#include <errno.h>
#include <stdint.h>

#include "util/utf8.h"

/* Where escaped text goes: a buffer, else a stream. */
struct sink {
	struct buf *b;
	FILE *f;
	int err;
};

static void emit(struct sink *s, const void *p, size_t n)
{
	if (s->err || n == 0)
		return;
	if (s->b)
		s->err = buf_append(s->b, p, n);
	else if (fwrite(p, 1, n, s->f) != n)
		s->err = -EIO;
}

/* The length of the leading part of p[0, n) that prints as it is. */
static size_t clean_run(const unsigned char *p, size_t n, unsigned flags)
{
	size_t i = 0;
	while (i < n) {
		unsigned c = p[i];
		if (c >= 0x20 && c < 0x7f) {
			if (c == '\\' && (flags & TEXTESC_BACKSLASH))
				break;
			i++;
			continue;
		}
		if (c < 0x80)
			break;
		uint32_t cp;
		size_t l = utf8_next(p + i, n - i, &cp);
		if (cp == UTF8_INVALID || cp < 0xA0)
			break;
		i += l;
	}
	return i;
}

static bool escape(struct sink *s, const unsigned char *p, size_t n, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	bool changed = false;
	for (size_t i = 0; i < n && !s->err;) {
		size_t run = clean_run(p + i, n - i, flags);
		emit(s, p + i, run);
		i += run;
		if (i == n)
			break;
		/* a byte, or a C1 control or an invalid subpart byte by byte */
		uint32_t cp;
		size_t l = p[i] < 0x80 ? 1 : utf8_next(p + i, n - i, &cp);
		for (size_t k = 0; k < l; k++) {
			unsigned c = p[i + k];
			char e[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
			if (c == '\\')
				emit(s, "\\\\", 2);
			else
				emit(s, e, sizeof(e));
		}
		i += l;
		changed = true;
	}
	return changed;
}

bool textesc_clean(const void *p, size_t n, unsigned flags)
{
	return clean_run(p, n, flags) == n;
}

int textesc_buf(struct buf *b, const void *p, size_t n, unsigned flags, bool *changed)
{
	struct sink s = { b, NULL, 0 };
	bool c = escape(&s, p, n, flags);
	if (changed)
		*changed = c;
	return s.err;
}

int textesc_put(FILE *out, const void *p, size_t n, unsigned flags)
{
	struct sink s = { NULL, out, 0 };
	escape(&s, p, n, flags);
	return s.err;
}
