/*
 * bsearch.h - binary search in a sorted array, in the two forms psrec
 * needs: the last element not above a key (which map, symbol, compile
 * unit or window holds an address or a time) and the first element not
 * below it (where a key is or would be inserted).
 *
 * base holds n elements of size bytes, sorted ascending as cmp orders
 * them; cmp(key, elem) is bsearch(3)'s: < 0 when key sorts before elem,
 * 0 when equal, > 0 after. Inline, so that a constant cmp is inlined too:
 * these run per frame and per sample.
 */
#ifndef PSREC_UTIL_BSEARCH_H
#define PSREC_UTIL_BSEARCH_H

#include <stdbool.h>
#include <stddef.h>

typedef int (*bsearch_cmp_fn)(const void *key, const void *elem);

/*
 * The last element of base[0..n) that is not above key: true with *i its
 * index, false when there is none (n is 0 or every element is above key).
 * Of equal elements, the last. Each step halves the range with no branch
 * on the comparison (a conditional move where cmp inlines): the searches
 * of random addresses it serves mispredict half their branches otherwise.
 */
static inline bool bsearch_last_le(const void *base, size_t n, size_t size, const void *key,
				   bsearch_cmp_fn cmp, size_t *i)
{
	const char *b = base;
	if (n == 0 || cmp(key, b) < 0)
		return false;
	/* b[lo] <= key, and the answer is in [lo, lo + n) */
	size_t lo = 0;
	while (n > 1) {
		size_t half = n / 2;
		lo = cmp(key, b + (lo + half) * size) >= 0 ? lo + half : lo;
		n -= half;
	}
	*i = lo;
	return true;
}

/*
 * The index of the first element of base[0..n) not below key (n when
 * every element is below it): where key is, or where it would be
 * inserted to keep the order. found (may be NULL): whether that element
 * equals key.
 */
static inline size_t bsearch_first_ge(const void *base, size_t n, size_t size, const void *key,
				      bsearch_cmp_fn cmp, bool *found)
{
	const char *b = base;
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp(key, b + mid * size) > 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (found)
		*found = lo < n && cmp(key, b + lo * size) == 0;
	return lo;
}

#endif
