/*
 * symbolizer.h - addresses to function names, offline, with libelf: what
 * psrec fold and psrec flamegraph print for each frame.
 *
 * A DSO is looked up once and indexed once (a sorted symbol table, binary
 * search per address); names are interned, so a name pointer is stable
 * until symbolizer_close() and equal names of one DSO are one pointer.
 *
 * Where a DSO's file comes from, in order: the build-id cache
 * (buildid_dir/.build-id/xx/rest/{debug,elf}, default ~/.debug),
 * /usr/lib/debug/.build-id/xx/rest.debug, the path (symfs prefixed), its
 * .gnu_debuglink file (beside it, its .debug/ dir, /usr/lib/debug/DIR).
 * A file whose build-id differs from the recorded one is never used (one
 * warning per DSO). Symbols: .symtab, else .dynsym (a stripped binary's
 * debuglink file usually has the .symtab). Kernel frames: the kallsyms
 * copy in the cache whose build-id is the recording's, else /proc/kallsyms
 * when the running kernel has the recorded id. JIT code: /tmp/perf-PID.map
 * (or buildid_dir/tmp/perf-PID.map, as psrec archive lays it out).
 * Otherwise "dso+0xOFFSET" (offset in the file), then "[unknown]".
 */
#ifndef PSREC_SYMBOL_SYMBOLIZER_H
#define PSREC_SYMBOL_SYMBOLIZER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buildid/buildid.h"
#include "symbol/elfsyms.h"
#include "symbol/kind.h"
#include "util/err.h"

struct sym_config {
	const char *buildid_dir;    /* NULL: ~/.debug of the user (store_open) */
	const char *symfs;          /* NULL: none; else a root prefixed to paths */
	bool demangle;              /* C++ and Rust names, as perf report does */
};

/* One mapped DSO as the recording names it. */
struct sym_dso {
	const char *name;           /* "/usr/lib/x.so", "[kernel.kallsyms]", "[vdso]", "//anon" */
	const struct build_id *id;  /* NULL or size 0: unknown */
	bool kernel;
};

struct sym_frame {
	const char *name;           /* interned; valid until symbolizer_close */
	int kind;                   /* SYM_KIND_* (symbol/kind.h) */
	const char *raw;            /* the symbol before demangling (pprof's system_name); == name when
				       it was not demangled */
};

struct symbolizer;

int symbolizer_open(struct symbolizer **s, const struct sym_config *c, struct err *e);
void symbolizer_close(struct symbolizer *s);

/*
 * The frame of ip, in DSO d mapped at [start, ...) from file offset pgoff
 * (kernel: start and pgoff as the kernel MMAP gives them), in process pid
 * (for perf-PID.map). d NULL: the address is in no known map (perf-PID.map
 * is still tried). Never fails but for -ENOMEM: what cannot be named gets
 * "dso+0xOFF" or "[unknown]".
 */
int symbolizer_frame(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff,
		     uint64_t ip, int32_t pid, struct sym_frame *f);

/*
 * The calls inlined at addr (an address in the process, in d mapped as
 * for symbolizer_frame; a return address minus one for a caller), from
 * the DWARF of d's debug file or binary: "name (inlined)" for each,
 * outermost first, interned; none without DWARF. The function holding
 * them is symbolizer_frame's. 0 or -ENOMEM.
 */
int symbolizer_inlines(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff,
		       uint64_t addr, const char *const **names, size_t *n);

/*
 * Where addr (as for symbolizer_inlines) is in the source, from the same
 * DWARF: for the function holding it, then each call symbolizer_inlines
 * names there (outermost first, the same calls), the file declaring it
 * (interned; NULL when the DWARF does not say) and the line it is running
 * (for each but the innermost, the line of the next call inlined into it;
 * for the innermost, the line table's line of addr; 0 when unknown). At
 * most max levels; *n is 0 without DWARF at addr. 0 or -ENOMEM.
 */
struct sym_source {
	const char *file;
	int64_t line;
};
int symbolizer_sources(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff, uint64_t addr,
		       struct sym_source *out, size_t max, size_t *n);

/*
 * The ELF files behind DSO d, for the unwinder (symbol/unwind.h), found
 * as for its symbols and owned by s: the mapped file (its .eh_frame) and
 * its separate debug file (.debug_frame, DWARF), each NULL when not found,
 * and the segments that turn a file offset into an ELF address (NULL when
 * neither file was found). handle: one pointer per distinct DSO (name and
 * build-id), stable until symbolizer_close. 0 or -ENOMEM.
 */
struct sym_files {
	Elf *bin, *dbg;
	int bin_fd;                 /* -1: bin is in memory (the vdso) */
	int dbg_fd;
	const struct elfsyms_segs *segs;
	const void *handle;
};
int symbolizer_files(struct symbolizer *s, const struct sym_dso *d, struct sym_files *f);

/* What went unresolved, for one summary warning: DSOs whose file was not
 * found or had another build-id (names, comma separated, at most len
 * bytes), and how many frames they cost. */
struct sym_stats {
	uint64_t frames, unresolved;
	size_t dsos_missing, dsos_mismatch;
};
void symbolizer_stats(const struct symbolizer *s, struct sym_stats *st, char *names, size_t len);

#endif
