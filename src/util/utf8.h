/*
 * utf8.h - decoding UTF-8 that may be broken: names and texts from a
 * recording hold whatever bytes the profiled program or the file had.
 *
 * Invalid input is decoded as the Unicode standard recommends: one
 * UTF8_INVALID per maximal invalid subpart (what browsers' decoders do),
 * so overlong forms, surrogates and code points past U+10FFFF are invalid
 * and a cut sequence never swallows the byte after it.
 */
#ifndef PSREC_UTIL_UTF8_H
#define PSREC_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

#define UTF8_INVALID UINT32_MAX

/* The code point at s, n >= 1 bytes left, and its length in bytes (1 to
 * 4, at most n); for a maximal invalid subpart, *cp = UTF8_INVALID and
 * its length. n may be SIZE_MAX for a NUL-terminated string: a NUL is
 * never a continuation byte, so nothing past it is read. */
size_t utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

#endif
