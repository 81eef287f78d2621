/*
 * textesc.h - text from a recording made safe to print.
 *
 * What a profiled program or a file names (a thread's comm, a symbol, a
 * DSO path, a marker's text, an event name) may hold any bytes, and an
 * ESC printed raw drives the reader's terminal (clears it, retitles it,
 * answers back). Control characters - C0 (tab and newline too), DEL, and
 * C1 (U+0080 to U+009F, which terminals may obey as ESC sequences) - and
 * bytes that are not UTF-8 are written \xNN, byte by byte, in lower-case
 * hex; printable ASCII and UTF-8 text are kept. The same bytes always give
 * the same text.
 */
#ifndef PSREC_UTIL_TEXTESC_H
#define PSREC_UTIL_TEXTESC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util/buf.h"

/* '\' as "\\" too, so that the text reads back unambiguously (a marker's
 * msg, which perf script prints). Without it a backslash is kept. */
#define TEXTESC_BACKSLASH 1u

/* Whether p[0, n) prints as it is. */
bool textesc_clean(const void *p, size_t n, unsigned flags);

/* Append the escaped form of p[0, n) to b: 0 or -ENOMEM. *changed, when
 * not NULL, tells whether anything was escaped. */
int textesc_buf(struct buf *b, const void *p, size_t n, unsigned flags, bool *changed);

/* Write the escaped form of p[0, n) to out: 0 or -EIO. */
int textesc_put(FILE *out, const void *p, size_t n, unsigned flags);

#endif
