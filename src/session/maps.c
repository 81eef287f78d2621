/*
 * maps.c - address spaces over time (see maps.h).
 */
#include "maps.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "util/bsearch.h"
#include "util/vec.h"

struct maps_life {
	uint64_t start;             /* time it began */
	int32_t parent;             /* forked from (-2: none) */
	uint64_t seq;               /* order added, to keep equal times stable */
	struct maps_entry *v;
	uint64_t *max_end;          /* max of v[0..i].end, after maps_finish */
	size_t n, cap;
};

#define NO_PARENT (-2)
/* A fork chain longer than this is a cycle (pid reuse in bad input). */
#define MAX_DEPTH 64

void maps_init(struct maps *m)
{
	memset(m, 0, sizeof(*m));
}

void maps_free(struct maps *m)
{
	for (size_t i = 0; i < m->nr_procs; i++) {
		struct maps_proc *p = &m->procs[i];
		for (size_t j = 0; j < p->nr_lives; j++) {
			free(p->lives[j].v);
			free(p->lives[j].max_end);
		}
		free(p->lives);
	}
	free(m->procs);
	free(m->tab);
	memset(m, 0, sizeof(*m));
}

static size_t pid_slot(uint32_t pid, size_t cap)
{
	return (pid * 2654435761u) & (cap - 1);
}

static struct maps_proc *proc_lookup(const struct maps *m, int32_t pid)
{
	if (!m->tab_cap)
		return NULL;
	for (size_t j = pid_slot((uint32_t)pid, m->tab_cap); m->tab[j]; j = (j + 1) & (m->tab_cap - 1))
		if (m->procs[m->tab[j] - 1].pid == pid)
			return &m->procs[m->tab[j] - 1];
	return NULL;
}

static int grow_tab(struct maps *m)
{
	size_t cap = m->tab_cap ? m->tab_cap * 2 : 64;
	uint32_t *t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < m->nr_procs; i++) {
		size_t j = pid_slot((uint32_t)m->procs[i].pid, cap);
		while (t[j])
			j = (j + 1) & (cap - 1);
		t[j] = (uint32_t)i + 1;
	}
	free(m->tab);
	m->tab = t;
	m->tab_cap = cap;
	return 0;
}

static int new_life(struct maps *m, struct maps_proc *p, uint64_t start, int32_t parent)
{
	if (VEC_RESERVE(p->lives, p->cap_lives, p->nr_lives, 1, 2))
		return -ENOMEM;
	p->lives[p->nr_lives++] = (struct maps_life){ .start = start, .parent = parent, .seq = m->nr_maps };
	return 0;
}

/* The process, created with a first life at time 0 when new. */
static struct maps_proc *proc_get(struct maps *m, int32_t pid)
{
	struct maps_proc *p = proc_lookup(m, pid);
	if (p)
		return p;
	if ((m->nr_procs + 1) * 2 > m->tab_cap && grow_tab(m))
		return NULL;
	if (VEC_RESERVE(m->procs, m->cap_procs, m->nr_procs, 1, 64))
		return NULL;
	p = &m->procs[m->nr_procs];
	*p = (struct maps_proc){ .pid = pid };
	if (new_life(m, p, 0, NO_PARENT))
		return NULL;
	size_t j = pid_slot((uint32_t)pid, m->tab_cap);
	while (m->tab[j])
		j = (j + 1) & (m->tab_cap - 1);
	m->tab[j] = (uint32_t)m->nr_procs + 1;
	m->nr_procs++;
	return p;
}

/* The life a record at time t belongs to: the last begun at or before t
 * (lives are sorted by maps_finish; before that, in the order added). */
static struct maps_life *life_at(const struct maps_proc *p, uint64_t t)
{
	struct maps_life *best = &p->lives[0];
	for (size_t i = 1; i < p->nr_lives; i++)
		if (p->lives[i].start <= t && p->lives[i].start >= best->start)
			best = &p->lives[i];
	return best;
}

int maps_add(struct maps *m, int32_t pid, uint64_t time, uint64_t start, uint64_t len, uint64_t pgoff,
	     uint32_t dso)
{
	if (len == 0 || start + len < start)
		return 0;
	struct maps_proc *p = proc_get(m, pid);
	if (!p)
		return -ENOMEM;
	/* Which life it belongs to is known only once every exec and fork
	 * is in: the first life holds them all until maps_finish. */
	struct maps_life *l = &p->lives[0];
	if (VEC_RESERVE(l->v, l->cap, l->n, 1, 16))
		return -ENOMEM;
	l->v[l->n++] = (struct maps_entry){ start, start + len, pgoff, time, dso };
	m->nr_maps++;
	return 0;
}

int maps_fork(struct maps *m, int32_t pid, int32_t ppid, uint64_t time)
{
	if (pid == ppid)
		return 0;
	struct maps_proc *p = proc_get(m, pid);
	if (!p)
		return -ENOMEM;
	/* A fork at time 0 (synthesized) gives the first life its parent. */
	if (time == 0 && p->lives[0].parent == NO_PARENT) {
		p->lives[0].parent = ppid;
		return 0;
	}
	return new_life(m, p, time, ppid);
}

int maps_exec(struct maps *m, int32_t pid, uint64_t time)
{
	struct maps_proc *p = proc_get(m, pid);
	if (!p)
		return -ENOMEM;
	return new_life(m, p, time, NO_PARENT);
}

static int cmp_life(const void *a, const void *b)
{
	const struct maps_life *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int cmp_entry(const void *a, const void *b)
{
	const struct maps_entry *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time < y->time ? -1 : x->time > y->time;
}

void maps_finish(struct maps *m)
{
	for (size_t i = 0; i < m->nr_procs; i++) {
		struct maps_proc *p = &m->procs[i];
		/* lives[0] is the first life, holding every map of the process. */
		struct maps_entry *all = p->lives[0].v;
		size_t n_all = p->lives[0].n;
		p->lives[0].v = NULL;
		p->lives[0].n = p->lives[0].cap = 0;
		if (p->nr_lives > 1)
			qsort(p->lives, p->nr_lives, sizeof(*p->lives), cmp_life);
		for (size_t k = 0; k < n_all; k++) {
			struct maps_life *l = life_at(p, all[k].time);
			if (VEC_RESERVE(l->v, l->cap, l->n, 1, 16))
				continue;
			l->v[l->n++] = all[k];
		}
		free(all);
		for (size_t j = 0; j < p->nr_lives; j++) {
			struct maps_life *l = &p->lives[j];
			if (l->n > 1)
				qsort(l->v, l->n, sizeof(*l->v), cmp_entry);
			free(l->max_end);
			l->max_end = l->n ? malloc(l->n * sizeof(*l->max_end)) : NULL;
			uint64_t mx = 0;
			for (size_t k = 0; l->max_end && k < l->n; k++) {
				if (l->v[k].end > mx)
					mx = l->v[k].end;
				l->max_end[k] = mx;
			}
		}
	}
}

/* bsearch_cmp_fn of an address and an entry: the entries are by start. */
static int cmp_start(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, s = ((const struct maps_entry *)elem)->start;
	return (a > s) - (a < s);
}

static const struct maps_entry *life_find(const struct maps_life *l, uint64_t addr, uint64_t time)
{
	if (!l->n || !l->max_end)
		return NULL;
	/* lo: past the last entry starting at or below addr */
	size_t i, lo = bsearch_last_le(l->v, l->n, sizeof(*l->v), &addr, cmp_start, &i) ? i + 1 : 0;
	const struct maps_entry *best = NULL;
	for (size_t k = lo; k-- > 0 && l->max_end[k] > addr;) {
		const struct maps_entry *e = &l->v[k];
		if (e->end > addr && e->time <= time && (!best || e->time > best->time))
			best = e;
	}
	return best;
}

static const struct maps_entry *find_depth(const struct maps *m, int32_t pid, uint64_t addr, uint64_t time,
					   int depth)
{
	const struct maps_proc *p = proc_lookup(m, pid);
	if (!p || depth > MAX_DEPTH)
		return NULL;
	const struct maps_life *l = life_at(p, time);
	const struct maps_entry *e = life_find(l, addr, time);
	if (!e && l->parent != NO_PARENT)
		e = find_depth(m, l->parent, addr, l->start, depth + 1);
	return e;
}

const struct maps_entry *maps_find(const struct maps *m, int32_t pid, uint64_t addr, uint64_t time)
{
	return find_depth(m, pid, addr, time, 0);
}
