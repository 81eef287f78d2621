/*
 * kallsyms.h - the kernel's functions from a kallsyms text (/proc/kallsyms,
 * or the copy the build-id cache keeps of it): "ADDR TYPE NAME [module]"
 * lines. Only the text symbols (t, T, w, W) are kept; a module's symbols
 * are in the same text, at its load address.
 *
 * Sizes are not given: a kernel address belongs to the greatest symbol at
 * or below it. Addresses of 0 (kptr_restrict hides them) are skipped.
 */
#ifndef PSREC_SYMBOL_KALLSYMS_H
#define PSREC_SYMBOL_KALLSYMS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symbol/symtab.h"
#include "util/strpool.h"

/*
 * Add f's text symbols to t (not finished), names stored in p but not
 * interned (strpool_store: most are never used). *text: the
 * address of _text (else _stext, else 0), which a recording's kernel map
 * gives as its pgoff, so a copy from another boot (KASLR) can be moved.
 * *added: symbols added (0 when every address was hidden). 0, -ENOMEM, or
 * -EIO from reading f.
 */
int kallsyms_read(FILE *f, struct symtab *t, struct strpool *p, uint64_t *text, size_t *added);

#endif
