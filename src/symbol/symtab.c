/*
 * symtab.c - sorted address tables (see symtab.h).
 */
#include "symtab.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util/bsearch.h"
#include "util/vec.h"

struct symtab_add {
	uint64_t addr, size, limit;
	const char *name;
	uint32_t rank;
	size_t seq;                 /* order added: the last tie-break */
};

void symtab_init(struct symtab *t)
{
	memset(t, 0, sizeof(*t));
}

void symtab_free(struct symtab *t)
{
	free(t->addr);
	free(t->sym);
	free(t->raw);
	free(t->pending);
	memset(t, 0, sizeof(*t));
}

int symtab_add(struct symtab *t, uint64_t addr, uint64_t size, uint64_t limit, const char *name,
	       uint32_t rank)
{
	if (VEC_RESERVE(t->pending, t->cap, t->npending, 1, 256))
		return -ENOMEM;
	t->pending[t->npending] = (struct symtab_add){ addr, size, limit, name, rank, t->npending };
	t->npending++;
	return 0;
}

static size_t underscores(const char *s)
{
	return strspn(s, "_");
}

/* Address order; at one address the symbol to keep comes first. */
static int add_cmp(const void *pa, const void *pb)
{
	const struct symtab_add *a = pa, *b = pb;
	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	/* perf's order: a sized symbol over a label, then by binding... */
	if ((a->size != 0) != (b->size != 0))
		return a->size ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank > b->rank ? -1 : 1;
	size_t ua = underscores(a->name), ub = underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	size_t la = strlen(a->name), lb = strlen(b->name);
	if (la != lb)
		return la > lb ? -1 : 1;
	/* Then the one earlier in the symbol table, as perf keeps it
	 * (pthread_create@GLIBC_2.2.5 before pthread_create@@GLIBC_2.34). */
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int symtab_finish(struct symtab *t)
{
	size_t n = t->npending;
	uint64_t *addr = malloc((n ? n : 1) * sizeof(*addr));
	struct symtab_sym *sym = malloc((n ? n : 1) * sizeof(*sym));
	if (!addr || !sym) {
		free(addr);
		free(sym);
		return -ENOMEM;
	}
	/* kallsyms comes sorted by address: then only the runs of names at
	 * one address need ordering (sorting 120k symbols anyway was a tenth
	 * of a short fold) */
	size_t sorted = 1;
	while (sorted < n && t->pending[sorted - 1].addr <= t->pending[sorted].addr)
		sorted++;
	if (sorted < n) {
		qsort(t->pending, n, sizeof(*t->pending), add_cmp);
	} else {
		for (size_t i = 0, j; i < n; i = j) {
			for (j = i + 1; j < n && t->pending[j].addr == t->pending[i].addr; j++)
				;
			if (j - i > 1)
				qsort(t->pending + i, j - i, sizeof(*t->pending), add_cmp);
		}
	}
	size_t k = 0;
	for (size_t i = 0; i < n;) {
		const struct symtab_add *first = &t->pending[i];
		uint64_t e = 0;
		size_t j = i;
		/* an alias's size serves when the chosen name has none */
		for (; j < n && t->pending[j].addr == first->addr; j++) {
			uint64_t sz = t->pending[j].size;
			uint64_t ej = sz > UINT64_MAX - first->addr ? UINT64_MAX : first->addr + sz;
			if (sz && ej > e)
				e = ej;
		}
		if (!e) {
			e = first->limit;
			if (j < n && t->pending[j].addr < e)
				e = t->pending[j].addr;
		}
		if (e > first->addr) {
			addr[k] = first->addr;
			sym[k++] = (struct symtab_sym){ e, first->name, false };
		}
		i = j;
	}
	free(t->pending);
	t->addr = addr;
	t->sym = sym;
	t->n = k;
	t->pending = NULL;
	t->npending = t->cap = 0;
	return 0;
}

static int addr_cmp(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, b = *(const uint64_t *)elem;
	return a < b ? -1 : a > b;
}

bool symtab_find(const struct symtab *t, uint64_t a, size_t *i)
{
	/* the greatest addr <= a; bsearch_last_le's steps have no branch to
	 * mispredict: random addresses cost a third as much */
	size_t k;
	if (!bsearch_last_le(t->addr, t->n, sizeof(*t->addr), &a, addr_cmp, &k) || a >= t->sym[k].end)
		return false;
	*i = k;
	return true;
}
