/*
 * stacks.h - distinct stacks and their weights: what a fold accumulates.
 *
 * Memory grows with the number of distinct stacks, never with the number
 * of samples. A frame is a name pointer and a kind; names are interned by
 * the symbolizer, so two frames are equal when both match (pointer
 * comparison: an equal name from another DSO is another frame, which is
 * what a flamegraph's merge by string does anyway once printed).
 */
#ifndef PSREC_FOLD_STACKS_H
#define PSREC_FOLD_STACKS_H

#include <stddef.h>
#include <stdint.h>

#include "flame/flamegraph.h"

struct stacks_entry {
	size_t off;                 /* first frame in the pool */
	uint32_t nr;
	uint64_t weight;
	uint64_t hash;
};

struct stacks {
	struct flame_frame *pool;
	size_t pool_len, pool_cap;
	struct stacks_entry *v;
	size_t n, cap;
	uint32_t *tab;              /* open addressing: index + 1, 0 empty */
	size_t tab_cap;
	uint64_t total;             /* sum of weights */
};

void stacks_init(struct stacks *s);
void stacks_free(struct stacks *s);

/* Add weight to the stack frames[0..nr) (outermost first). 0 or -ENOMEM. */
int stacks_add(struct stacks *s, const struct flame_frame *frames, size_t nr, uint64_t weight);

/* The stacks as flame_stack records pointing into s (valid while s is
 * unchanged); the caller frees *out. 0 or -ENOMEM. */
int stacks_export(const struct stacks *s, struct flame_stack **out);

#endif
