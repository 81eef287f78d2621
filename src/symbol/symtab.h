/*
 * symtab.h - one DSO's functions as a sorted address table, [addr, end)
 * to name, searched with no allocation: the symbolizer's hot path.
 *
 * The readers (elfsyms, kallsyms, perfmap) add symbols in any order, then
 * symtab_finish sorts them, keeps one name per address and closes the
 * symbols that came without a size. Names are pooled by the caller
 * (strpool) and only pointed at.
 *
 * The addresses apart from the rest: the binary search touches only them,
 * eight to a cache line.
 */
#ifndef PSREC_SYMBOL_SYMTAB_H
#define PSREC_SYMBOL_SYMTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct symtab_add;

/* What a found symbol needs, in one cache line. */
struct symtab_sym {
	uint64_t end;                   /* exclusive */
	const char *name;
	bool done;                      /* the symbolizer's mark: name demangled */
};

struct symtab {
	uint64_t *addr;                 /* sorted, distinct: what the search reads */
	struct symtab_sym *sym;         /* beside each addr */
	size_t n;
	const char **raw;               /* the symbolizer's: for a name it demangled, the name as the
					   file has it (allocated at the first; NULL elsewhere) */
	struct symtab_add *pending;     /* added, not yet finished */
	size_t npending, cap;
};

void symtab_init(struct symtab *t);
void symtab_free(struct symtab *t);

/*
 * Add a symbol. size 0: it runs up to the next symbol's address, but never
 * past limit (its section's end; UINT64_MAX for none). Of several symbols
 * at one address the one with the highest rank is kept, then the one with
 * the fewest leading underscores, the longest name, the first in strcmp
 * order (perf report's choice, made deterministic). 0 or -ENOMEM.
 */
int symtab_add(struct symtab *t, uint64_t addr, uint64_t size, uint64_t limit, const char *name,
	       uint32_t rank);

/* Sort what was added; once, before any symtab_find. 0 or -ENOMEM (the
 * table then stays empty; symtab_free still frees what was added). */
int symtab_finish(struct symtab *t);

/* The index of the symbol holding addr: the greatest addr <= a, if a is
 * below its end. */
bool symtab_find(const struct symtab *t, uint64_t a, size_t *i);

#endif
