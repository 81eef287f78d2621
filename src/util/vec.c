/* vec.c - growing an array by doubling (see vec.h). */
#include "vec.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

int vec_grow(void **v, size_t *cap, size_t n, size_t more, size_t size, size_t min)
{
	if (more <= *cap - n)
		return 0;
	if (size == 0 || more > SIZE_MAX - n)
		return -ENOMEM;
	size_t need = n + more, max = PTRDIFF_MAX / size;
	if (need > max)
		return -ENOMEM;
	size_t c = *cap ? *cap : (min ? min : 1);
	/* doubling past the largest array there can be stops at it */
	while (c < need)
		c = c > max / 2 ? max : c * 2;
	void *p = realloc(*v, c * size);
	if (!p)
		return -ENOMEM;
	*v = p;
	*cap = c;
	return 0;
}
