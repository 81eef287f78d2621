/*
 * elfsyms.h - what one ELF file tells the symbolizer: its functions
 * (.symtab, else .dynsym) and its PT_LOAD segments, which turn an offset
 * in the mapped file into the virtual address the symbols are given in
 * (PIE executables, shared objects, a map of the second segment).
 *
 * Only the tables are kept; the caller closes the Elf handle afterwards.
 */
#ifndef PSREC_SYMBOL_ELFSYMS_H
#define PSREC_SYMBOL_ELFSYMS_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbol/symtab.h"
#include "util/strpool.h"

struct elfsyms_seg {
	uint64_t off, len, vaddr;       /* len: the larger of p_filesz and p_memsz */
};

struct elfsyms_segs {
	struct elfsyms_seg *v;
	size_t n;
};

/*
 * The PT_LOAD segments of e into *s (freed with elfsyms_segs_free).
 * 0, -ENOENT when it has none, -ENOMEM.
 *
 * A separate debug file keeps the binary's p_vaddr but not its p_offset
 * (its sections are NOBITS). With debug_only (no binary to read them from)
 * each offset is rebuilt as the distance from the first segment's
 * page-aligned address, which is how ld lays out code; data segments may
 * come out wrong, code does not.
 */
int elfsyms_segments(Elf *e, bool debug_only, struct elfsyms_segs *s);
void elfsyms_segs_free(struct elfsyms_segs *s);

/* The virtual address of file offset off; false when no segment holds it. */
bool elfsyms_vaddr(const struct elfsyms_segs *s, uint64_t off, uint64_t *vaddr);

/* Whether e has a .symtab: the full table a stripped file leaves only
 * .dynsym of. */
bool elfsyms_has_symtab(Elf *e);

/*
 * Add e's functions to t (not finished), names pooled in p: .symtab when
 * the file has one, else .dynsym. Functions are STT_FUNC, STT_GNU_IFUNC,
 * and sized STT_NOTYPE symbols, defined in an executable section (a debug
 * file's NOBITS .text counts). Ranks: global over local over weak, as perf
 * report prefers. The number of symbols added in *added. 0, -ENOENT (no
 * symbol table), -EINVAL (one libelf cannot read), -ENOMEM.
 */
int elfsyms_read(Elf *e, struct symtab *t, struct strpool *p, size_t *added);

/*
 * Add "name@plt" for each PLT stub of e (a binary, not a debug file: the
 * .rela.plt and .plt it reads hold nothing there), as perf names them:
 * stub i is the i-th JUMP_SLOT relocation's symbol, in .plt.sec when the
 * file has one, else in .plt after its resolver entry. x86_64 and aarch64;
 * nothing for other machines or a file without a PLT. 0 or -ENOMEM.
 */
int elfsyms_plt(Elf *e, struct symtab *t, struct strpool *p, size_t *added);

#endif
