/*
 * vec.h - growable arrays: the caller keeps a typed pointer, a count and
 * a capacity (in elements, both size_t), and asks for room before it
 * stores; the array grows by doubling, so n appends cost O(n) copies.
 *
 * On failure nothing changes (the array, its elements and the capacity
 * stay as they were) and -ENOMEM is returned, also when the byte size
 * would overflow or pass PTRDIFF_MAX (no allocator gives that much), so
 * a hostile count can never wrap into a small allocation.
 *
 *	if (VEC_RESERVE(t->v, t->cap, t->n, 1, 64))
 *		return -ENOMEM;
 *	t->v[t->n++] = x;
 */
#ifndef PSREC_UTIL_VEC_H
#define PSREC_UTIL_VEC_H

#include <stddef.h>

/*
 * Room in *v (an array of *cap elements of size bytes, n of them used,
 * n <= *cap) for more elements past n: when there is not, *v is
 * reallocated to *cap doubled (min elements when *cap is 0) as often as
 * it takes. 0, or -ENOMEM with *v and *cap unchanged. For an array whose
 * element size is known only at run time (a void *); typed arrays use
 * VEC_RESERVE.
 */
int vec_grow(void **v, size_t *cap, size_t n, size_t more, size_t size, size_t min);

static inline int vec_reserve(void **v, size_t *cap, size_t n, size_t more, size_t size, size_t min)
{
	return more <= *cap - n ? 0 : vec_grow(v, cap, n, more, size, min);
}

/*
 * vec_reserve for a typed array v (an lvalue, e.g. t->v) of cap elements
 * (a size_t lvalue), n used: v is assigned the grown array. 0 or -ENOMEM.
 * The arguments are evaluated more than once: no side effects in them.
 */
#define VEC_RESERVE(v, cap, n, more, min)                                                    \
	__extension__({                                                                      \
		void *vec_p_ = (v);                                                          \
		int vec_err_ = vec_reserve(&vec_p_, &(cap), (n), (more), sizeof(*(v)), (min)); \
		(v) = vec_p_;                                                                \
		vec_err_;                                                                    \
	})

#endif
