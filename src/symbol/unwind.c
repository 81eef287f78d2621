/*
 * unwind.c - DWARF call chains from stack copies (see unwind.h).
 */
#include "unwind.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "psrec/perf_data.h"
#include "util/vec.h"

/* ---- register sets ------------------------------------------------------ */

#define NREG  33                /* DWARF registers tracked, at most */
#define PC    64                /* perf_of[] value for the pc */
#define NONE  (-1)

struct arch {
	uint16_t machine;
	uint8_t nregs;              /* DWARF 0..nregs-1 are tracked */
	uint8_t sp;                 /* DWARF number of the stack pointer */
	int8_t pc;                  /* DWARF number of the pc, NONE: it has none */
	uint8_t fp;                 /* the frame pointer: rbp, x29 */
	uint64_t pc_mask;           /* the bits of a return address that are address */
	int8_t perf_to_dwarf[64];   /* perf_regs index -> DWARF number, PC, NONE */
};

static const struct arch arch_x86_64 = {
	EM_X86_64, 17, 7, 16, 6, ~0ULL,
	/* perf: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15;
	 * DWARF: 0 rax 1 rdx 2 rcx 3 rbx 4 rsi 5 rdi 6 rbp 7 rsp 8-15 r8-r15
	 * 16 the return address column */
	{ 0, 3, 2, 1, 4, 5, 6, 7, PC, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	  8, 9, 10, 11, 12, 13, 14, 15,
	  NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	  NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	  NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE },
};

static const struct arch arch_aarch64 = {
	/* pointer authentication signs return addresses in the bits above
	 * the 48 of a user address */
	EM_AARCH64, 32, 31, NONE, 29, (1ULL << 48) - 1,
	/* perf: x0..x30, sp, pc; DWARF: x0..x30, 31 sp */
	{ 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
	  16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
	  PC, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE,
	  NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE, NONE },
};

static const struct arch *arch_of(uint16_t machine)
{
	return machine == EM_X86_64 ? &arch_x86_64 : machine == EM_AARCH64 ? &arch_aarch64 : NULL;
}

/* The machine state of one frame. */
struct regs {
	uint64_t r[NREG];
	uint64_t valid;             /* bit n: r[n] is known */
	uint64_t pc;
};

/* ---- compiled CFI rows -------------------------------------------------- */

enum { HOW_AT, HOW_VAL, HOW_REG };      /* [CFA+off], CFA+off, r[src]+off */
enum { RULE_OK, RULE_NONE, RULE_EXPR }; /* usable, no CFI here, needs libdwfl */

#define RULE_REGS 16

struct rule {
	const void *dso;            /* the key: udso, address looked up */
	uint64_t addr;
	uint8_t kind;
	uint8_t cfa_reg, ra, n;
	int64_t cfa_off;
	uint64_t undef;             /* registers the caller does not have */
	struct {
		uint8_t reg, how, src;
		int64_t off;
	} r[RULE_REGS];
};

#define RULE_CACHE (1 << 14)

/* ---- per-DSO and per-process state -------------------------------------- */

struct udso {
	bool loaded;
	struct sym_files f;
	const char *name;
	const struct arch *arch;
	Dwarf_CFI *eh;              /* .eh_frame of the binary */
	Dwarf *dw;                  /* DWARF of the debug file or the binary */
	Dwarf_CFI *df;              /* its .debug_frame */
	bool dw_tried;
	int memfd;                  /* the vdso image as a file, for libdwfl */
};

struct uproc {
	int32_t pid;
	Dwfl *dwfl;
	bool attached;
	const struct udso **mods;   /* reported to dwfl */
	size_t nmods, cap;
};

/* The sample being unwound, for the libdwfl callbacks. */
struct cur {
	int32_t pid;
	const struct arch *arch;
	struct regs regs;
	const uint8_t *stack;
	uint64_t sp0, len;
	bool full;                  /* the copy is as long as asked: it may end early */
	bool past_end;              /* a read went past it */
	uint64_t *ips;
	size_t max, n;
	/* where each pc of this sample was found: a recursion returns to a
	 * few call sites over and over, and within one sample (one pid, one
	 * time) the answer for a pc cannot change */
	struct {
		uint64_t pc;
		struct udso *d;
		uint64_t vaddr;
	} memo[8];
	uint8_t memo_used;          /* bit i: memo[i] holds an answer */
};

struct unwind {
	struct symbolizer *sym;
	const struct sideband *sb;
	struct udso *dsos;          /* by sideband DSO index */
	size_t nr_dsos;
	struct rule *rules;
	struct uproc *procs;
	size_t nr_procs, cap_procs, last_proc;
	struct cur cur;
	const struct arch *arch;    /* the recording's, once a sample says */
	bool dwfl_only;
	struct unwind_stats st;
};

int unwind_open(struct unwind **out, struct symbolizer *s, const struct sideband *sb, bool dwfl_only)
{
	struct unwind *u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	u->sym = s;
	u->sb = sb;
	u->dwfl_only = dwfl_only;
	u->nr_dsos = sb->dsos.n;
	u->dsos = calloc(u->nr_dsos ? u->nr_dsos : 1, sizeof(*u->dsos));
	u->rules = calloc(RULE_CACHE, sizeof(*u->rules));
	if (!u->dsos || !u->rules) {
		unwind_close(u);
		return -ENOMEM;
	}
	for (size_t i = 0; i < u->nr_dsos; i++)
		u->dsos[i].memfd = -1;
	*out = u;
	return 0;
}

void unwind_close(struct unwind *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nr_procs; i++) {
		if (u->procs[i].dwfl)
			dwfl_end(u->procs[i].dwfl);
		free(u->procs[i].mods);
	}
	free(u->procs);
	for (size_t i = 0; u->dsos && i < u->nr_dsos; i++) {
		struct udso *d = &u->dsos[i];
		if (d->eh)
			dwarf_cfi_end(d->eh);
		if (d->dw)
			dwarf_end(d->dw);
		if (d->memfd >= 0)
			close(d->memfd);
	}
	free(u->dsos);
	free(u->rules);
	free(u);
}

void unwind_stats(const struct unwind *u, struct unwind_stats *st)
{
	*st = u->st;
}

/* The DSO's files and CFI, opened on first use. NULL: not a file psrec
 * can read CFI from. */
static int udso_get(struct unwind *u, uint32_t i, struct udso **out)
{
	*out = NULL;
	if (i >= u->nr_dsos)
		return 0;
	struct udso *d = &u->dsos[i];
	if (!d->loaded) {
		d->loaded = true;
		const struct dso *o = &u->sb->dsos.v[i];
		d->name = o->name;
		struct sym_dso sd = { o->name, &o->id, o->kernel };
		int err = symbolizer_files(u->sym, &sd, &d->f);
		if (err)
			return err;
		Elf *any = d->f.bin ? d->f.bin : d->f.dbg;
		GElf_Ehdr eh;
		if (any && gelf_getehdr(any, &eh))
			d->arch = arch_of(eh.e_machine);
		if (d->f.bin)
			d->eh = dwarf_getcfi_elf(d->f.bin);
	}
	if (d->arch && d->f.segs && (d->eh || d->f.dbg || d->f.bin))
		*out = d;
	return 0;
}

static bool op_breg(const Dwarf_Op *o, uint8_t *reg, int64_t *off, uint8_t nregs)
{
	uint64_t r;
	if (o->atom == DW_OP_bregx) {
		r = o->number;
		*off = (int64_t)o->number2;
	} else if (o->atom >= DW_OP_breg0 && o->atom <= DW_OP_breg31) {
		r = o->atom - DW_OP_breg0;
		*off = (int64_t)o->number;
	} else {
		return false;
	}
	if (r >= nregs)
		return false;
	*reg = (uint8_t)r;
	return true;
}

/* libdw's row for addr as a rule: the CFA as register+offset, each
 * register undefined, same, at or at-value CFA+offset, or another
 * register plus an offset; anything else is an expression. */
static void rule_compile(struct unwind *u, struct udso *d, uint64_t addr, struct rule *r)
{
	u->st.rules++;
	*r = (struct rule){ .dso = d, .addr = addr, .kind = RULE_NONE };
	Dwarf_Frame *fr = NULL;
	if (!d->eh || dwarf_cfi_addrframe(d->eh, addr, &fr) != 0) {
		/* .debug_frame, where .eh_frame lacks the function: opened only
		 * then, as reading DWARF may decompress a big debug file */
		if (!d->dw_tried) {
			d->dw_tried = true;
			Elf *dbg = d->f.dbg ? d->f.dbg : d->f.bin;
			if (dbg && (d->dw = dwarf_begin_elf(dbg, DWARF_C_READ, NULL)) != NULL)
				d->df = dwarf_getcfi(d->dw);
		}
		if (!d->df || dwarf_cfi_addrframe(d->df, addr, &fr) != 0)
			return;
	}
	Dwarf_Addr start, end;
	bool signal = false;
	int ra = dwarf_frame_info(fr, &start, &end, &signal);
	Dwarf_Op *ops;
	size_t nops;
	uint8_t nregs = d->arch->nregs;
	r->kind = RULE_EXPR;
	if (ra < 0 || ra >= nregs || signal || dwarf_frame_cfa(fr, &ops, &nops) != 0 || nops != 1 ||
	    !op_breg(&ops[0], &r->cfa_reg, &r->cfa_off, nregs))
		goto out;
	r->ra = (uint8_t)ra;
	for (int reg = 0; reg < nregs; reg++) {
		Dwarf_Op mem[3], *o;
		size_t n;
		if (dwarf_frame_register(fr, reg, mem, &o, &n) != 0)
			goto out;
		if (n == 0) {
			if (o)
				r->undef |= 1ULL << reg;
			continue; /* o NULL: same value */
		}
		if (r->n == RULE_REGS)
			goto out;
		uint8_t how, src = 0;
		int64_t off = 0;
		bool value = o[n - 1].atom == DW_OP_stack_value;
		size_t m = n - value;
		if (m >= 1 && o[0].atom == DW_OP_call_frame_cfa && (m == 1 || (m == 2 && o[1].atom == DW_OP_plus_uconst))) {
			off = m == 2 ? (int64_t)o[1].number : 0;
			how = value ? HOW_VAL : HOW_AT;
		} else if (m == 1 && value && op_breg(&o[0], &src, &off, nregs)) {
			how = HOW_REG;
		} else {
			goto out;
		}
		r->r[r->n].reg = (uint8_t)reg;
		r->r[r->n].how = how;
		r->r[r->n].src = src;
		r->r[r->n++].off = off;
	}
	r->kind = RULE_OK;
out:
	free(fr);
}

static const struct rule *rule_get(struct unwind *u, struct udso *d, uint64_t addr)
{
	uint64_t h = (addr ^ (uint64_t)(uintptr_t)d * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;
	struct rule *r = &u->rules[h >> (64 - 14)];
	if (r->dso != d || r->addr != addr)
		rule_compile(u, d, addr, r);
	return r;
}

/* ---- reading the copy --------------------------------------------------- */

static bool stack_read(struct cur *c, uint64_t addr, uint64_t *v)
{
	if (addr < c->sp0 || addr - c->sp0 > c->len || c->len - (addr - c->sp0) < 8) {
		if (addr >= c->sp0)
			c->past_end = true;
		return false;
	}
	memcpy(v, c->stack + (addr - c->sp0), 8);
	return true;
}

/* ---- the fast path ------------------------------------------------------ */

/* Where pc is, as a DSO and an ELF address; false when in no file with CFI. */
static int locate(struct unwind *u, uint64_t pc, uint64_t time, struct udso **d, uint64_t *vaddr)
{
	struct cur *c = &u->cur;
	unsigned h = (unsigned)((pc * 0x9e3779b97f4a7c15ULL) >> 61);
	if ((c->memo_used >> h & 1) && c->memo[h].pc == pc) {
		*d = c->memo[h].d;
		*vaddr = c->memo[h].vaddr;
		return 0;
	}
	*d = NULL;
	*vaddr = 0;
	const struct maps_entry *m = sideband_map(u->sb, c->pid, pc, time, PD_MISC_USER);
	if (m) {
		int err = udso_get(u, m->dso, d);
		if (err)
			return err;
		if (*d && !elfsyms_vaddr((*d)->f.segs, pc - m->start + m->pgoff, vaddr))
			*d = NULL;
	}
	c->memo[h].pc = pc;
	c->memo[h].d = *d;
	c->memo[h].vaddr = *vaddr;
	c->memo_used |= (uint8_t)(1u << h);
	return 0;
}

enum { STEP_OK, STEP_END, STEP_OUTERMOST, STEP_EXPR };

/* One frame outward: regs become the caller's, in place (a copy of the
 * register file per frame was 40% of the time). */
/* Code without CFI (hand-written assembly, libasan's crt bits): the
 * frame record a frame pointer heads, {saved fp, return address}, as
 * libdwfl (and so perf) falls back to. Only the fp, sp and pc are known
 * in the caller. */
static int step_fp(struct cur *c, struct regs *g)
{
	uint8_t fp = c->arch->fp, sp = c->arch->sp;
	uint64_t f = g->r[fp], saved, ra;
	if (!(g->valid >> fp & 1) || f < g->r[sp] || !stack_read(c, f, &saved) || !stack_read(c, f + 8, &ra) ||
	    ra == 0)
		return STEP_END;
	g->r[sp] = f + 16;
	g->r[fp] = saved;
	g->valid = 1ULL << sp | 1ULL << fp;
	g->pc = ra & c->arch->pc_mask;
	if (c->arch->pc != NONE) {
		g->r[c->arch->pc] = ra;
		g->valid |= 1ULL << c->arch->pc;
	}
	return STEP_OK;
}

static int step(struct cur *c, const struct rule *r, struct regs *g)
{
	if (r->kind == RULE_NONE)
		return step_fp(c, g);
	if (r->kind == RULE_EXPR)
		return STEP_EXPR;
	if (!(g->valid >> r->cfa_reg & 1))
		return STEP_END;
	uint64_t cfa = g->r[r->cfa_reg] + (uint64_t)r->cfa_off;
	uint64_t v[RULE_REGS], set = 0, unset = r->undef;
	/* every value from the callee's registers, then all written */
	for (unsigned i = 0; i < r->n; i++) {
		switch (r->r[i].how) {
		case HOW_AT:
			if (!stack_read(c, cfa + (uint64_t)r->r[i].off, &v[i]))
				return STEP_END;
			break;
		case HOW_VAL:
			v[i] = cfa + (uint64_t)r->r[i].off;
			break;
		default:
			if (!(g->valid >> r->r[i].src & 1)) {
				unset |= 1ULL << r->r[i].reg;
				v[i] = 0;
				continue;
			}
			v[i] = g->r[r->r[i].src] + (uint64_t)r->r[i].off;
			break;
		}
		set |= 1ULL << r->r[i].reg;
	}
	uint8_t sp = c->arch->sp;
	uint64_t old_sp = g->r[sp], old_pc = g->pc;
	g->valid &= ~unset;
	for (unsigned i = 0; i < r->n; i++) {
		if (set >> r->r[i].reg & 1) {
			g->r[r->r[i].reg] = v[i];
			g->valid |= 1ULL << r->r[i].reg;
		}
	}
	if (!(set >> sp & 1)) {
		g->r[sp] = cfa;
		g->valid |= 1ULL << sp;
	}
	if (!(g->valid >> r->ra & 1))
		return STEP_OUTERMOST; /* its return address is undefined: _start */
	g->pc = g->r[r->ra] & c->arch->pc_mask;
	/* the stack grows down: a caller below its callee is garbage */
	if (g->pc == 0 || g->r[sp] < old_sp || (g->r[sp] == old_sp && g->pc == old_pc))
		return STEP_END;
	return STEP_OK;
}

/* ---- the slow path: libdwfl --------------------------------------------- */

static int no_elf(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base, char **file, Elf **elf)
{
	(void)mod, (void)ud, (void)name, (void)base, (void)file, (void)elf;
	return -1;
}

static int debuginfo_fd(Dwfl_Module *mod, void **ud, const char *name, Dwarf_Addr base, const char *file,
			const char *link, GElf_Word crc, char **path)
{
	(void)mod, (void)name, (void)base, (void)file, (void)link, (void)crc, (void)path;
	const struct udso *d = *ud;
	return d && d->f.dbg_fd >= 0 ? fcntl(d->f.dbg_fd, F_DUPFD_CLOEXEC, 0) : -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = no_elf,
	.find_debuginfo = debuginfo_fd,
	.section_address = dwfl_offline_section_address,
};

static pid_t cb_next_thread(Dwfl *dwfl, void *arg, void **targ)
{
	(void)dwfl;
	struct unwind *u = arg;
	if (*targ)
		return 0;
	*targ = u;
	return u->cur.pid;
}

static bool cb_get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **targ)
{
	(void)dwfl, (void)tid;
	*targ = arg;
	return true;
}

static bool cb_memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct unwind *u = arg;
	uint64_t v;
	if (!stack_read(&u->cur, addr, &v))
		return false;
	*result = v;
	return true;
}

static bool cb_set_initial_registers(Dwfl_Thread *t, void *targ)
{
	struct unwind *u = targ;
	const struct regs *g = &u->cur.regs;
	for (unsigned reg = 0; reg < u->cur.arch->nregs; reg++) {
		Dwarf_Word v = g->r[reg];
		if ((g->valid >> reg & 1) && !dwfl_thread_state_registers(t, (int)reg, 1, &v))
			return false;
	}
	dwfl_thread_state_register_pc(t, g->pc);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = cb_next_thread,
	.get_thread = cb_get_thread,
	.memory_read = cb_memory_read,
	.set_initial_registers = cb_set_initial_registers,
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return DWARF_CB_ABORT;
	/* the first frame is the sample's pc, which ips[0] already has */
	if (u->cur.n == 0) {
		u->cur.n = 1;
		return DWARF_CB_OK;
	}
	if (pc == 0 || u->cur.n >= u->cur.max)
		return DWARF_CB_ABORT;
	u->cur.ips[u->cur.n++] = pc;
	return DWARF_CB_OK;
}

static struct uproc *uproc_get(struct unwind *u, int32_t pid)
{
	if (u->last_proc < u->nr_procs && u->procs[u->last_proc].pid == pid)
		return &u->procs[u->last_proc];
	for (size_t i = 0; i < u->nr_procs; i++)
		if (u->procs[i].pid == pid)
			return &u->procs[u->last_proc = i];
	if (VEC_RESERVE(u->procs, u->cap_procs, u->nr_procs, 1, 16))
		return NULL;
	u->procs[u->nr_procs] = (struct uproc){ .pid = pid };
	return &u->procs[u->last_proc = u->nr_procs++];
}

static void uproc_reset(struct uproc *p)
{
	if (p->dwfl)
		dwfl_end(p->dwfl);
	p->dwfl = NULL;
	p->attached = false;
	p->nmods = 0;
}

/* A file descriptor libdwfl may own for d's binary. */
static int module_fd(struct udso *d)
{
	if (d->f.bin_fd >= 0)
		return fcntl(d->f.bin_fd, F_DUPFD_CLOEXEC, 0);
	if (d->memfd < 0) {
		size_t len;
		char *image = d->f.bin ? elf_rawfile(d->f.bin, &len) : NULL;
		if (!image)
			return -1;
		int fd = memfd_create("psrec-vdso", MFD_CLOEXEC);
		if (fd < 0)
			return -1;
		if (write(fd, image, len) != (ssize_t)len) {
			close(fd);
			return -1;
		}
		d->memfd = fd;
	}
	return fcntl(d->memfd, F_DUPFD_CLOEXEC, 0);
}

/* Report the DSO mapped at pc to p's Dwfl, once. true when pc is in a
 * module now and was not before. */
static bool uproc_report(struct unwind *u, struct uproc *p, uint64_t pc, uint64_t time)
{
	const struct maps_entry *m = sideband_map(u->sb, p->pid, pc, time, PD_MISC_USER);
	struct udso *d;
	uint64_t vaddr;
	if (!m || udso_get(u, m->dso, &d) != 0 || !d || !d->f.bin ||
	    !elfsyms_vaddr(d->f.segs, m->pgoff, &vaddr))
		return false;
	for (size_t i = 0; i < p->nmods; i++)
		if (p->mods[i] == d)
			return false;
	if (VEC_RESERVE(p->mods, p->cap, p->nmods, 1, 8))
		return false;
	if (!p->dwfl && !(p->dwfl = dwfl_begin(&dwfl_callbacks)))
		return false;
	int fd = module_fd(d);
	if (fd < 0)
		return false;
	dwfl_report_begin_add(p->dwfl);
	Dwfl_Module *mod = dwfl_report_elf(p->dwfl, d->name, d->name, fd, m->start - vaddr, false);
	dwfl_report_end(p->dwfl, NULL, NULL);
	if (!mod) {
		close(fd);
		return false;
	}
	void **ud;
	dwfl_module_info(mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL);
	*ud = d;
	p->mods[p->nmods++] = d;
	return true;
}

/* The whole sample through libdwfl, reporting modules as it reaches them. */
static void unwind_dwfl(struct unwind *u, uint64_t time)
{
	struct cur *c = &u->cur;
	struct uproc *p = uproc_get(u, c->pid);
	if (!p)
		return;
	u->st.dwfl++;
	size_t first = c->n; /* frames the fast path found before it */
	for (size_t i = 0; i < first; i++)
		uproc_report(u, p, c->ips[i], time);
	for (int round = 0; round < 8; round++) {
		uint64_t last = c->n ? c->ips[c->n - 1] : c->regs.pc;
		if (!uproc_report(u, p, last, time) && round > 0)
			break;
		if (!p->dwfl)
			return;
		if (!p->attached) {
			if (!dwfl_attach_state(p->dwfl, NULL, c->pid, &thread_callbacks, u)) {
				uproc_reset(p);
				return;
			}
			p->attached = true;
		}
		c->n = 0;
		c->past_end = false;
		dwfl_getthread_frames(p->dwfl, c->pid, frame_cb, u);
		if (c->n == 0)
			c->n = 1;
	}
}

/* ---- one sample --------------------------------------------------------- */

static bool regs_load(struct cur *c, const struct sample_user *su)
{
	memset(&c->regs, 0, sizeof(c->regs));
	bool have_pc = false;
	unsigned k = 0;
	for (unsigned bit = 0; bit < 64; bit++) {
		if (!(su->mask >> bit & 1))
			continue;
		uint64_t v;
		memcpy(&v, su->regs + 8 * k++, 8);
		int d = c->arch->perf_to_dwarf[bit];
		if (d == PC) {
			c->regs.pc = v;
			have_pc = true;
			/* x86_64's rip is a DWARF register too: PLT entries compute
			 * their CFA from it */
			if (c->arch->pc != NONE) {
				c->regs.r[c->arch->pc] = v;
				c->regs.valid |= 1ULL << c->arch->pc;
			}
		} else if (d >= 0) {
			c->regs.r[d] = v;
			c->regs.valid |= 1ULL << d;
		}
	}
	return have_pc && (c->regs.valid >> c->arch->sp & 1);
}

/* The value of perf register bit in the sample, if it has it. */
static bool reg_value(const struct sample_user *su, unsigned bit, uint64_t *v)
{
	if (bit >= 64 || !(su->mask >> bit & 1))
		return false;
	unsigned k = (unsigned)__builtin_popcountll(su->mask & ((1ULL << bit) - 1));
	memcpy(v, su->regs + 8 * k, 8);
	return true;
}

/* A recording has one register set: the first sample whose pc, read as
 * one architecture's, lands in a file of that architecture says which. */
static int arch_guess(struct unwind *u, const struct sample_user *su, uint64_t time)
{
	static const struct arch *const all[] = { &arch_x86_64, &arch_aarch64 };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		unsigned bit = 0;
		while (bit < 64 && all[i]->perf_to_dwarf[bit] != PC)
			bit++;
		uint64_t pc, vaddr;
		struct udso *d;
		if (!reg_value(su, bit, &pc))
			continue;
		int err = locate(u, pc, time, &d, &vaddr);
		if (err)
			return err;
		if (d && d->arch == all[i]) {
			u->arch = all[i];
			return 0;
		}
	}
	return 0;
}

int unwind_sample(struct unwind *u, int32_t pid, uint64_t time, const struct sample_user *su, uint64_t *ips,
		  size_t max, size_t *n)
{
	*n = 0;
	if (su->abi != PD_REGS_ABI_64 || !su->regs || max == 0) {
		/* a 32-bit process (ABI_32): no register set for it here */
		if (su->abi == PD_REGS_ABI_32 && su->regs) {
			u->st.samples++;
			u->st.failed++;
		}
		return UNWIND_FAILED;
	}
	struct cur *c = &u->cur;
	*c = (struct cur){ .pid = pid, .ips = ips, .max = max };
	u->st.samples++;
	struct udso *d = NULL;
	uint64_t vaddr = 0;
	if (!u->arch) {
		int err = arch_guess(u, su, time);
		if (err)
			return err;
	}
	c->arch = u->arch;
	uint64_t pc = 0;
	if (!c->arch || !regs_load(c, su)) {
		/* the leaf alone: what perf calls the sample's ip */
		if (reg_value(su, 8, &pc) || reg_value(su, 32, &pc))
			ips[(*n)++] = pc;
		u->st.failed++;
		return UNWIND_FAILED;
	}
	int err = locate(u, c->regs.pc, time, &d, &vaddr);
	if (err)
		return err;
	if (!d) {
		/* in no file with CFI (JIT code, a file not found) */
		ips[(*n)++] = c->regs.pc;
		u->st.failed++;
		return UNWIND_FAILED;
	}
	c->stack = su->stack;
	c->sp0 = c->regs.r[c->arch->sp];
	c->len = su->stack ? su->stack_len : 0;
	c->full = su->stack_size && su->stack_len >= su->stack_size;
	struct regs g = c->regs;
	ips[c->n++] = g.pc;
	int st = u->dwfl_only ? STEP_EXPR : STEP_END;
	while (c->n < max && !u->dwfl_only) {
		const struct rule *r = rule_get(u, d, vaddr);
		st = step(c, r, &g);
		if (st != STEP_OK)
			break;
		/* a frame-pointer guess must at least return into mapped code */
		if (r->kind == RULE_NONE && !sideband_map(u->sb, pid, g.pc - 1, time, PD_MISC_USER)) {
			st = STEP_END;
			break;
		}
		ips[c->n++] = g.pc;
		/* a return address: the call is the byte before it */
		err = locate(u, g.pc - 1, time, &d, &vaddr);
		if (err)
			return err;
		if (!d) {
			st = STEP_END;
			break;
		}
	}
	if (st == STEP_EXPR)
		unwind_dwfl(u, time);
	*n = c->n;
	if (c->past_end && c->full) {
		u->st.truncated++;
		return UNWIND_TRUNCATED;
	}
	if (c->n == 1 && st != STEP_OUTERMOST) {
		u->st.failed++;
		return UNWIND_FAILED;
	}
	return UNWIND_DONE;
}
