/*
 * elfsyms.c - an ELF file's functions and load segments (see elfsyms.h).
 */
#include "elfsyms.h"

#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int elfsyms_segments(Elf *e, bool debug_only, struct elfsyms_segs *s)
{
	size_t n;
	bool first = true;
	uint64_t base = 0;
	s->v = NULL;
	s->n = 0;
	if (elf_getphdrnum(e, &n) || n == 0)
		return -ENOENT;
	s->v = calloc(n, sizeof(*s->v));
	if (!s->v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t len = ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz;
		if (first) {
			uint64_t align = ph.p_align > 1 ? ph.p_align : 1;
			base = ph.p_vaddr & ~(align - 1);
			first = false;
		}
		uint64_t off = debug_only ? ph.p_vaddr - base : ph.p_offset;
		s->v[s->n++] = (struct elfsyms_seg){ off, len, ph.p_vaddr };
	}
	if (s->n == 0) {
		elfsyms_segs_free(s);
		return -ENOENT;
	}
	return 0;
}

void elfsyms_segs_free(struct elfsyms_segs *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}

bool elfsyms_vaddr(const struct elfsyms_segs *s, uint64_t off, uint64_t *vaddr)
{
	/* two or three segments: a scan beats anything cleverer */
	for (size_t i = 0; i < s->n; i++) {
		const struct elfsyms_seg *g = &s->v[i];
		if (off >= g->off && off - g->off < g->len) {
			*vaddr = off - g->off + g->vaddr;
			return true;
		}
	}
	return false;
}

static Elf_Scn *find_table(Elf *e, uint32_t type)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type)
			return scn;
	}
	return NULL;
}

bool elfsyms_has_symtab(Elf *e)
{
	return find_table(e, SHT_SYMTAB) != NULL;
}

/* Per section: whether it holds code, and where it ends (the limit of a
 * symbol without a size). end 0: no code. */
static uint64_t *code_ends(Elf *e, size_t *n)
{
	*n = 0;
	if (elf_getshdrnum(e, n) || *n == 0)
		return NULL;
	uint64_t *ends = calloc(*n, sizeof(*ends));
	if (!ends)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		GElf_Shdr sh;
		Elf_Scn *scn = elf_getscn(e, i);
		if (scn && gelf_getshdr(scn, &sh) && (sh.sh_flags & SHF_EXECINSTR) && sh.sh_size)
			ends[i] = sh.sh_addr + sh.sh_size;
	}
	return ends;
}

static uint32_t bind_rank(unsigned bind)
{
	switch (bind) {
	case STB_GLOBAL:
	case STB_GNU_UNIQUE:
		return 2;
	case STB_LOCAL:
		return 1;
	default:
		return 0;
	}
}

static bool is_function(const GElf_Sym *sym)
{
	switch (GELF_ST_TYPE(sym->st_info)) {
	case STT_FUNC:
	case STT_GNU_IFUNC:
		return true;
	case STT_NOTYPE:
		/* Labels in code (hand-written assembly, ld.so's _dl_start_user)
		 * name their code as perf report names it, up to the next symbol. */
		return true;
	default:
		return false;
	}
}

int elfsyms_read(Elf *e, struct symtab *t, struct strpool *p, size_t *added)
{
	*added = 0;
	Elf_Scn *scn = find_table(e, SHT_SYMTAB);
	if (!scn)
		scn = find_table(e, SHT_DYNSYM);
	if (!scn)
		return -ENOENT;
	GElf_Shdr sh;
	Elf_Data *data = gelf_getshdr(scn, &sh) ? elf_getdata(scn, NULL) : NULL;
	if (!data || !sh.sh_entsize)
		return -EINVAL;
	size_t nsec;
	uint64_t *ends = code_ends(e, &nsec);
	if (!ends)
		return nsec ? -ENOMEM : -EINVAL;
	int err = 0;
	size_t nsym = sh.sh_size / sh.sh_entsize;
	for (size_t i = 0; i < nsym && !err; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym) || !is_function(&sym))
			continue;
		/* SHN_UNDEF: an import; SHN_ABS and the like: no code */
		if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE || sym.st_shndx >= nsec ||
		    !ends[sym.st_shndx])
			continue;
		const char *name = elf_strptr(e, sh.sh_link, sym.st_name);
		/* "$x", "$d": ARM mapping symbols mark code and data, name nothing */
		if (!name || !name[0] || name[0] == '$')
			continue;
		const char *pooled = strpool_intern(p, name, strlen(name));
		if (!pooled)
			err = -ENOMEM;
		else
			err = symtab_add(t, sym.st_value, sym.st_size, ends[sym.st_shndx], pooled,
					 bind_rank(GELF_ST_BIND(sym.st_info)));
		if (!err)
			(*added)++;
	}
	free(ends);
	return err;
}

/* A section by name, of a type (SHT_PROGBITS, SHT_RELA). */
static Elf_Scn *find_named(Elf *e, const char *name, uint32_t type, GElf_Shdr *sh)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		const char *n;
		if (gelf_getshdr(scn, sh) && sh->sh_type == type && (n = elf_strptr(e, shstrndx, sh->sh_name)) &&
		    strcmp(n, name) == 0)
			return scn;
	}
	return NULL;
}

int elfsyms_plt(Elf *e, struct symtab *t, struct strpool *p, size_t *added)
{
	*added = 0;
	GElf_Ehdr eh;
	GElf_Shdr rsh, psh, dsh;
	Elf_Scn *rel = find_named(e, ".rela.plt", SHT_RELA, &rsh);
	if (!gelf_getehdr(e, &eh) || !rel || !rsh.sh_entsize)
		return 0;
	/* with IBT the stubs calls go to are in .plt.sec, one per slot;
	 * otherwise in .plt after its resolver entry (x86_64: one 16-byte
	 * entry; aarch64: a 32-byte header) */
	uint64_t first = 0, entsize = 16;
	Elf_Scn *plt = find_named(e, ".plt.sec", SHT_PROGBITS, &psh);
	if (!plt) {
		if (!(plt = find_named(e, ".plt", SHT_PROGBITS, &psh)))
			return 0;
		if (eh.e_machine == EM_X86_64)
			first = psh.sh_entsize ? psh.sh_entsize : 16;
		else if (eh.e_machine == EM_AARCH64)
			first = 32;
		else
			return 0; /* a layout psrec does not know */
	}
	if (eh.e_machine == EM_X86_64 && psh.sh_entsize)
		entsize = psh.sh_entsize;
	Elf_Scn *dyn = elf_getscn(e, rsh.sh_link);
	Elf_Data *rd = elf_getdata(rel, NULL), *dd = dyn ? elf_getdata(dyn, NULL) : NULL;
	if (!rd || !dd || !gelf_getshdr(dyn, &dsh) || rd->d_type != ELF_T_RELA)
		return 0;
	size_t n = rsh.sh_size / rsh.sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		uint64_t at = psh.sh_addr + first + i * entsize;
		if (!gelf_getrela(rd, (int)i, &r) || at + entsize > psh.sh_addr + psh.sh_size)
			break;
		const char *name = gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym) ?
					   elf_strptr(e, dsh.sh_link, sym.st_name) : NULL;
		if (!name || !name[0])
			continue;
		char buf[512];
		int len = snprintf(buf, sizeof(buf), "%s@plt", name);
		if (len < 0 || (size_t)len >= sizeof(buf))
			continue;
		const char *pooled = strpool_intern(p, buf, (size_t)len);
		if (!pooled)
			return -ENOMEM;
		/* below every real symbol: one at a stub's address wins */
		int err = symtab_add(t, at, entsize, UINT64_MAX, pooled, 0);
		if (err)
			return err;
		(*added)++;
	}
	return 0;
}
