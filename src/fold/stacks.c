/*
 * stacks.c - distinct stacks by hash (see stacks.h).
 */
#include "stacks.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

void stacks_init(struct stacks *s)
{
	memset(s, 0, sizeof(*s));
}

void stacks_free(struct stacks *s)
{
	free(s->pool);
	free(s->v);
	free(s->tab);
	memset(s, 0, sizeof(*s));
}

static uint64_t hash_frames(const struct flame_frame *f, size_t nr)
{
	uint64_t h = 1469598103934665603ULL ^ nr;
	for (size_t i = 0; i < nr; i++) {
		h = (h ^ (uint64_t)(uintptr_t)f[i].name) * 1099511628211ULL;
		h = (h ^ (uint64_t)f[i].kind) * 1099511628211ULL;
	}
	return h ^ (h >> 31);
}

static bool same(const struct stacks *s, const struct stacks_entry *e, const struct flame_frame *f, size_t nr)
{
	if (e->nr != nr)
		return false;
	const struct flame_frame *g = s->pool + e->off;
	for (size_t i = 0; i < nr; i++)
		if (g[i].name != f[i].name || g[i].kind != f[i].kind)
			return false;
	return true;
}

static int grow_tab(struct stacks *s)
{
	size_t cap = s->tab_cap ? s->tab_cap * 2 : 1024;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		size_t j = s->v[i].hash & (cap - 1);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(s->tab);
	s->tab = t;
	s->tab_cap = cap;
	return 0;
}

int stacks_add(struct stacks *s, const struct flame_frame *frames, size_t nr, uint64_t weight)
{
	if ((s->n + 1) * 2 > s->tab_cap && grow_tab(s))
		return -ENOMEM;
	uint64_t h = hash_frames(frames, nr);
	size_t j = h & (s->tab_cap - 1);
	for (; s->tab[j]; j = (j + 1) & (s->tab_cap - 1)) {
		struct stacks_entry *e = &s->v[s->tab[j] - 1];
		if (e->hash == h && same(s, e, frames, nr)) {
			e->weight += weight;
			s->total += weight;
			return 0;
		}
	}
	if (VEC_RESERVE(s->v, s->cap, s->n, 1, 256))
		return -ENOMEM;
	if (VEC_RESERVE(s->pool, s->pool_cap, s->pool_len, nr, 4096))
		return -ENOMEM;
	memcpy(s->pool + s->pool_len, frames, nr * sizeof(*frames));
	s->v[s->n] = (struct stacks_entry){ s->pool_len, (uint32_t)nr, weight, h };
	s->pool_len += nr;
	s->tab[j] = (uint32_t)s->n + 1;
	s->n++;
	s->total += weight;
	return 0;
}

int stacks_export(const struct stacks *s, struct flame_stack **out)
{
	*out = calloc(s->n ? s->n : 1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		(*out)[i] = (struct flame_stack){ s->pool + s->v[i].off, s->v[i].nr, s->v[i].weight };
	return 0;
}
