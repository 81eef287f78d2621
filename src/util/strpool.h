/*
 * strpool.h - interned strings: each distinct string stored once, at an
 * address that stays put until the pool is freed, so that the frames the
 * symbolizer hands out compare by pointer (fold's stack table hashes and
 * compares frames that way).
 *
 * Strings live in large chunks (no per-string allocation, no realloc that
 * would move them); a hash set finds the copy of a string already pooled.
 */
#ifndef PSREC_UTIL_STRPOOL_H
#define PSREC_UTIL_STRPOOL_H

#include <stddef.h>
#include <stdint.h>

struct strpool_chunk;
struct strpool_slot;

struct strpool {
	struct strpool_chunk *chunks;   /* newest first */
	char *cur;                      /* free space of the newest chunk */
	size_t left;
	struct strpool_slot *tab;       /* open addressing, power-of-two size */
	size_t cap, n;
};

void strpool_init(struct strpool *p);
void strpool_free(struct strpool *p);

/* A copy of s[0..len) (NUL-terminated) that is not interned: no hash, no
 * lookup, for a table of names most of which are never used (kallsyms'
 * 100k); intern the ones used later. NULL when memory runs out. */
const char *strpool_store(struct strpool *p, const char *s, size_t len);

/* The pooled copy of s[0..len) (NUL-terminated; s need not be), or NULL
 * when memory runs out. Strings longer than UINT32_MAX are refused (NULL). */
const char *strpool_intern(struct strpool *p, const char *s, size_t len);

#endif
