/*
 * svgtext.h - symbol names as SVG (XML) text. Names come from binaries and
 * can hold any bytes: markup characters are escaped, invalid UTF-8 becomes
 * U+FFFD and characters XML forbids become visible stand-ins, so the file
 * stays well-formed whatever a binary calls its functions.
 */
#ifndef PSREC_FLAME_SVGTEXT_H
#define PSREC_FLAME_SVGTEXT_H

#include <stddef.h>
#include <stdio.h>

/* Characters (code points) of s as svgtext_put() writes it. */
size_t svgtext_len(const char *s);

/* The first max characters of s (SIZE_MAX: all), escaped for XML text
 * and attribute values in double quotes. s NULL: nothing. */
void svgtext_put(FILE *out, const char *s, size_t max);

#endif
