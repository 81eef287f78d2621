/*
 * perfmap.h - JIT code's symbols from a /tmp/perf-PID.map file, the
 * convention perf and the JITs (V8, the JVM's agents, LuaJIT, .NET) share:
 * one "START SIZE NAME" line a function, START and SIZE in hex (0x
 * optional), NAME to the end of the line.
 *
 * A JIT reuses memory: of two entries at one address the later line wins.
 */
#ifndef PSREC_SYMBOL_PERFMAP_H
#define PSREC_SYMBOL_PERFMAP_H

#include <stddef.h>
#include <stdio.h>

#include "symbol/symtab.h"
#include "util/strpool.h"

/* Add f's entries to t (not finished), names pooled in p; lines that do not
 * parse are skipped. *added: entries added. 0, -ENOMEM, or -EIO. */
int perfmap_read(FILE *f, struct symtab *t, struct strpool *p, size_t *added);

#endif
