/*
 * symbolizer.c - frames to names (see symbolizer.h): finding each DSO's
 * files and checking them against the recorded build-id, once per DSO;
 * the kernel's, the vdso's and the JIT maps' tables; the fallback names.
 * The tables themselves are built by elfsyms, kallsyms and perfmap.
 */
#include "symbolizer.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <libelf.h>
#include <libiberty/demangle.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid/elfid.h"
#include "buildid/store.h"
#include "symbol/debuglink.h"
#include "symbol/elfsyms.h"
#include "symbol/kallsyms.h"
#include "symbol/perfmap.h"
#include "symbol/symtab.h"
#include "util/bsearch.h"
#include "util/strpool.h"
#include "util/sysfile.h"
#include "util/vec.h"

#define KERNEL_NAME "[kernel.kallsyms]"
#define VDSO_NAME "[vdso]"
#define DELETED " (deleted)"

enum dso_type {
	DSO_FILE,                       /* an absolute path */
	DSO_VDSO,
	DSO_KERNEL,
	DSO_MODULE,                     /* kernel, another name */
	DSO_ANON,                       /* memory without a file: JIT maps */
	DSO_OTHER,                      /* "[stack]", "[vsyscall]": nothing to read */
};

enum dso_state {
	DSO_NEW,                        /* not looked for yet */
	DSO_OK,
	DSO_MISSING,                    /* no file, or one without symbols */
	DSO_MISMATCH,                   /* only files of other builds */
};

struct efile {
	int fd;
	Elf *elf;
	struct build_id id;             /* size 0: the file has none */
};

struct sdso {
	const char *name;               /* pooled */
	struct build_id id;
	bool kernel;
	uint8_t type, state;
	const char *base;               /* the fallback's "dso" in dso+0xOFF; NULL: "[unknown]" */
	struct symtab own;
	struct symtab *tab;             /* own, the running kernel's, or NULL */
	struct elfsyms_segs segs;
	uint64_t text;                  /* kernel: _text in tab, for a KASLR move */
	/* kept open for the unwinder (symbolizer_files): bin's .eh_frame,
	 * dbg's .debug_frame and DWARF */
	struct efile bin, dbg;
	Dwarf *dw;                      /* for inlined calls, opened on first use */
	bool dw_tried;
	struct cu_range *cus;           /* dw's compile units by address */
	size_t ncus;
};

struct cu_range {
	uint64_t lo, hi;                /* [lo, hi) */
	Dwarf_Off die;                  /* the unit's DIE */
};

/* The last DSO seen for a (name, id) pointer pair: the caller passes its
 * DSO list's pointers, so most frames skip pooling the name and the
 * search (a strcmp still checks the name did not change under us). */
struct memo {
	const char *name;
	const struct build_id *id;
	struct sdso *x;
};
#define MEMO_SIZE 256

struct jit {
	int32_t pid;
	struct symtab tab;
};

struct symbolizer {
	bool demangle;
	char *symfs;                    /* "" for none, no trailing '/' */
	struct store store;
	bool have_store;
	struct strpool pool;
	const char *unknown;
	struct sdso **v;                /* in the order first seen (the stats list them so) */
	size_t n, cap;
	struct sdso **sorted;           /* the same, by dso_cmp */
	size_t sorted_cap;
	struct memo memo[MEMO_SIZE];
	struct jit *jit;                /* sorted by pid */
	size_t njit, jit_cap;
	struct symtab running;          /* /proc/kallsyms, loaded once */
	int running_state;              /* 0 not read, 1 has symbols, -1 none */
	uint64_t running_text;
	struct build_id kid;            /* the running kernel's */
	int kid_state;                  /* 0 not read, 1 read, -1 none */
	uint64_t frames, unresolved;
	struct inl_block *inl;          /* the arrays symbolizer_inlines gave */
};

/* Arrays of inlined-call names, freed at close. */
struct inl_block {
	struct inl_block *next;
	const char *names[];
};

static const struct build_id no_id;

static const struct build_id *dso_id(const struct sym_dso *d)
{
	return d->id && d->id->size && d->id->size <= BUILD_ID_MAX ? d->id : &no_id;
}

/* ---- sorted arrays: the DSOs and the JIT maps ------------------------ */

/* Kept sorted (util/bsearch.h), grown (util/vec.h) before the insert. */
static void insert_at(void *v, size_t n, size_t i, const void *elem, size_t size)
{
	char *b = v;
	memmove(b + (i + 1) * size, b + i * size, (n - i) * size);
	memcpy(b + i * size, elem, size);
}

/* ---- the DSO table ------------------------------------------------------ */

/* The sorted table's order: names are pooled, so their pointers stand
 * for them. */
struct dso_key {
	const char *name;
	bool kernel;
	const struct build_id *id;
};

static int dso_cmp(const void *key, const void *elem)
{
	const struct dso_key *k = key;
	const struct sdso *x = *(struct sdso *const *)elem;
	if (k->name != x->name)
		return (uintptr_t)k->name < (uintptr_t)x->name ? -1 : 1;
	if (k->kernel != x->kernel)
		return k->kernel < x->kernel ? -1 : 1;
	if (k->id->size != x->id.size)
		return k->id->size < x->id.size ? -1 : 1;
	return memcmp(k->id->data, x->id.data, x->id.size);
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

/* perf's list of mappings with no file behind them, plus memfd, where a
 * JIT (V8's) keeps its code. */
static bool is_anon(const char *name)
{
	return !name[0] || strcmp(name, "//anon") == 0 || strcmp(name, "/dev/zero") == 0 ||
	       strcmp(name, "/anon_hugepage") == 0 || has_prefix(name, "/anon_hugepage ") ||
	       has_prefix(name, "[anon:") || has_prefix(name, "/memfd:") || strcmp(name, "[heap]") == 0;
}

static uint8_t classify(const char *name, bool kernel)
{
	if (kernel)
		return has_prefix(name, KERNEL_NAME) ? DSO_KERNEL : DSO_MODULE;
	if (strcmp(name, VDSO_NAME) == 0)
		return DSO_VDSO;
	if (is_anon(name))
		return DSO_ANON;
	return name[0] == '/' ? DSO_FILE : DSO_OTHER;
}

/* A new DSO for k, at index i of the sorted table. */
static struct sdso *dso_new(struct symbolizer *s, const struct dso_key *k, size_t i)
{
	if (VEC_RESERVE(s->v, s->cap, s->n, 1, 16) || VEC_RESERVE(s->sorted, s->sorted_cap, s->n, 1, 16))
		return NULL;
	struct sdso *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	x->name = k->name;
	x->id = *k->id;
	x->kernel = k->kernel;
	x->type = classify(k->name, k->kernel);
	x->bin.fd = x->dbg.fd = -1;
	symtab_init(&x->own);
	insert_at(s->sorted, s->n, i, &x, sizeof(x));
	s->v[s->n++] = x;
	return x;
}

static struct sdso *dso_get(struct symbolizer *s, const struct sym_dso *d)
{
	uintptr_t key = (uintptr_t)d->name ^ ((uintptr_t)d->id << 7);
	struct memo *m = &s->memo[(key * 0x9e3779b97f4a7c15ULL) >> 56];
	/* The caller passes the same pointers for the same DSO: a memo hit
	 * needs no string compare (14% of a fold when it did one). */
	if (m->x && m->name == d->name && m->id == d->id && m->x->kernel == d->kernel)
		return m->x;
	struct dso_key k = { strpool_intern(&s->pool, d->name, strlen(d->name)), d->kernel, dso_id(d) };
	if (!k.name)
		return NULL;
	bool found;
	size_t i = bsearch_first_ge(s->sorted, s->n, sizeof(*s->sorted), &k, dso_cmp, &found);
	struct sdso *x = found ? s->sorted[i] : dso_new(s, &k, i);
	if (x)
		*m = (struct memo){ d->name, d->id, x };
	return x;
}

static void efile_close(struct efile *f);

static void dso_free(struct sdso *x)
{
	if (x->dw)
		dwarf_end(x->dw);
	free(x->cus);
	efile_close(&x->bin);
	efile_close(&x->dbg);
	symtab_free(&x->own);
	elfsyms_segs_free(&x->segs);
	free(x);
}

/* ---- finding files ------------------------------------------------------ */

enum { FOUND, ABSENT, OTHER_BUILD };


static void efile_close(struct efile *f)
{
	if (f->elf)
		elf_end(f->elf);
	if (f->fd >= 0)
		close(f->fd);
	f->elf = NULL;
	f->fd = -1;
}

/* Whether fd's contents have the CRC a debuglink asks for. */
static bool crc_matches(int fd, uint32_t crc)
{
	uint32_t got;
	return debuglink_crc_fd(fd, &got) == 0 && got == crc;
}

/*
 * Open path as one of the DSO's files: a regular ELF file whose build-id
 * is want's when want is given, else whose CRC is *crc when crc is given,
 * else any. FOUND with *f set, ABSENT, or OTHER_BUILD.
 */
static int efile_open(struct efile *f, const char *path, const struct build_id *want, const uint32_t *crc)
{
	/* O_NONBLOCK: a FIFO planted at a library's path must not hang us */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return ABSENT;
	struct stat st;
	struct build_id id = { 0 };
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return ABSENT;
	}
	if (elfid_from_fd(fd, &id))
		id.size = 0;
	if ((want && !build_id_equal(&id, want)) || (!want && crc && !crc_matches(fd, *crc))) {
		close(fd);
		return OTHER_BUILD;
	}
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return ABSENT;
	}
	*f = (struct efile){ fd, elf, id };
	return FOUND;
}

/* One look for a file: the first found is kept, *other notes a file of
 * another build. */
static void efile_try(struct efile *f, const char *path, const struct build_id *want, const uint32_t *crc,
		      bool *other)
{
	if (f->elf)
		return;
	int r = efile_open(f, path, want, crc);
	if (r == OTHER_BUILD)
		*other = true;
}

/* The DSO's path as it is on disk: a mapped file deleted since (replaced
 * by a package upgrade) is named "PATH (deleted)". */
static void disk_name(const char *name, char *out, size_t len)
{
	size_t n = strlen(name), dl = strlen(DELETED);
	if (n > dl && strcmp(name + n - dl, DELETED) == 0)
		n -= dl;
	snprintf(out, len, "%.*s", (int)n, name);
}

/* The build-id cache's files of id (ROOT/<name>/<hex>/<file>). */
struct cache_entry {
	char *rel;                      /* NULL: none */
};

static void cache_find(const struct symbolizer *s, const struct build_id *id, struct cache_entry *c)
{
	c->rel = NULL;
	if (s->have_store && id && id->size && store_find(&s->store, id, &c->rel))
		c->rel = NULL;
}

static bool cache_path(const struct symbolizer *s, const struct cache_entry *c, const char *file, char *out,
		       size_t len)
{
	return c->rel && sysfile_path(out, len, "%s/%s/%s", s->store.root, c->rel, file) == 0;
}

/* The separate debug file of a binary that has no .symtab: the cache's
 * copy, the distribution's, the binary's debuglink. Checked against bid
 * (the recorded id, else the binary's own), else by the link's CRC. */
static void find_debug(const struct symbolizer *s, const char *path, const struct efile *bin,
		       const struct build_id *bid, const struct cache_entry *c, struct efile *dbg, bool *other)
{
	char p[PATH_MAX], q[PATH_MAX];
	if (cache_path(s, c, "debug", p, sizeof(p)))
		efile_try(dbg, p, bid, NULL, other);
	if (bid && build_id_debuginfo_path(bid, q, sizeof(q)) == 0 &&
	    sysfile_path(p, sizeof(p), "%s%s", s->symfs, q) == 0)
		efile_try(dbg, p, bid, NULL, other);
	char link[NAME_MAX + 1];
	uint32_t crc;
	if (!bin->elf || debuglink_read(bin->elf, link, sizeof(link), &crc))
		return;
	for (int i = 0; debuglink_path(s->symfs, path, link, i, p, sizeof(p)) != -ENOENT; i++)
		efile_try(dbg, p, bid, &crc, other);
}

/* Index the symbols of syms and the segments of segs into x. */
static int dso_index(struct sdso *x, struct strpool *pool, Elf *syms, Elf *segs, bool debug_only)
{
	size_t added = 0;
	int err = 0;
	if (syms && segs && elfsyms_segments(segs, debug_only, &x->segs) == 0) {
		err = elfsyms_read(syms, &x->own, pool, &added);
		size_t plt = 0;
		if (err != -ENOMEM && !debug_only && elfsyms_plt(segs, &x->own, pool, &plt) == -ENOMEM)
			err = -ENOMEM;
		if (err != -ENOMEM)
			err = symtab_finish(&x->own);
	}
	/* no symbols: the segments still serve the unwinder */
	if (err || !x->own.n) {
		if (err)
			elfsyms_segs_free(&x->segs);
		symtab_free(&x->own);
		return err;
	}
	x->tab = &x->own;
	return 0;
}

static int load_file(struct symbolizer *s, struct sdso *x, bool *other)
{
	const struct build_id *want = x->id.size ? &x->id : NULL;
	struct efile bin = { .fd = -1 }, dbg = { .fd = -1 };
	struct cache_entry c;
	char path[PATH_MAX], p[PATH_MAX];
	disk_name(x->name, path, sizeof(path));
	cache_find(s, want, &c);
	if (cache_path(s, &c, "elf", p, sizeof(p)))
		efile_try(&bin, p, want, NULL, other);
	if (sysfile_path(p, sizeof(p), "%s%s", s->symfs, path) == 0)
		efile_try(&bin, p, want, NULL, other);
	/* without a recorded id, the file's own id still finds its debug file */
	const struct build_id *bid = want ? want : bin.id.size ? &bin.id : NULL;
	if (!want)
		cache_find(s, bid, &c);
	if (!bin.elf || !elfsyms_has_symtab(bin.elf))
		find_debug(s, path, &bin, bid, &c, &dbg, other);
	free(c.rel);

	Elf *syms = bin.elf;
	if (dbg.elf && (!bin.elf || elfsyms_has_symtab(dbg.elf)))
		syms = dbg.elf;
	/* the debug file's segments have the binary's addresses but maybe
	 * not its offsets: the binary's decide when there is one */
	int err = dso_index(x, &s->pool, syms, bin.elf ? bin.elf : dbg.elf, !bin.elf);
	x->bin = bin;
	x->dbg = dbg;
	return err;
}

static int load_vdso(struct symbolizer *s, struct sdso *x, bool *other)
{
	const struct build_id *want = x->id.size ? &x->id : NULL;
	struct efile f = { .fd = -1 };
	struct cache_entry c;
	char p[PATH_MAX];
	cache_find(s, want, &c);
	if (cache_path(s, &c, "vdso", p, sizeof(p)))
		efile_try(&f, p, want, NULL, other);
	free(c.rel);
	if (!f.elf) {
		/* every process of this kernel maps the vdso psrec has */
		struct build_id id;
		const void *image;
		size_t len;
		if (elfid_vdso(&id, &image, &len) == 0) {
			if (!want || build_id_equal(&id, want))
				f.elf = elf_memory((char *)(uintptr_t)image, len);
			else
				*other = true;
		}
	}
	int err = dso_index(x, &s->pool, f.elf, f.elf, false);
	x->bin = f;
	return err;
}

/* The running kernel's id, read once; NULL when it has none. */
static const struct build_id *running_kernel_id(struct symbolizer *s)
{
	if (!s->kid_state)
		s->kid_state = elfid_kernel("/sys", &s->kid) == 0 ? 1 : -1;
	return s->kid_state > 0 ? &s->kid : NULL;
}

/* A kallsyms file into t; 0 (t may be empty), or -ENOMEM. */
static int read_kallsyms(struct symbolizer *s, const char *path, struct symtab *t, uint64_t *text)
{
	FILE *f = fopen(path, "re");
	size_t added = 0;
	int err = 0;
	if (!f)
		return 0;
	err = kallsyms_read(f, t, &s->pool, text, &added);
	fclose(f);
	if (err != -ENOMEM)
		err = symtab_finish(t);
	if (err || !added)
		symtab_free(t);
	return err == -ENOMEM ? err : 0;
}

/* /proc/kallsyms, read the first time a kernel or module frame wants it. */
static int running_table(struct symbolizer *s, struct symtab **t)
{
	*t = NULL;
	if (!s->running_state) {
		int err = read_kallsyms(s, "/proc/kallsyms", &s->running, &s->running_text);
		if (err)
			return err;
		s->running_state = s->running.n ? 1 : -1;
	}
	if (s->running_state > 0)
		*t = &s->running;
	return 0;
}

static int load_kernel(struct symbolizer *s, struct sdso *x, bool *other)
{
	const struct build_id *want = x->id.size ? &x->id : NULL;
	struct cache_entry c;
	char p[PATH_MAX];
	int err = 0;
	cache_find(s, want, &c);
	if (cache_path(s, &c, "kallsyms", p, sizeof(p)))
		err = read_kallsyms(s, p, &x->own, &x->text);
	free(c.rel);
	if (err || x->own.n) {
		x->tab = x->own.n ? &x->own : NULL;
		return err;
	}
	const struct build_id *running = running_kernel_id(s);
	if (want && !running)
		return 0;
	if (want && !build_id_equal(want, running)) {
		*other = true;
		return 0;
	}
	err = running_table(s, &x->tab);
	x->text = s->running_text;
	return err;
}

/* A module's name as /sys/module has it: "[ext4]" or
 * ".../ext4.ko.zst" -> "ext4" ('-' is '_' there). */
static void module_name(const char *name, char *out, size_t len)
{
	const char *b = strrchr(name, '/');
	b = b ? b + 1 : name;
	if (*b == '[')
		b++;
	size_t n = strcspn(b, "].");
	snprintf(out, len, "%.*s", (int)n, b);
	for (char *q = out; *q; q++)
		if (*q == '-')
			*q = '_';
}

static int load_module(struct symbolizer *s, struct sdso *x, bool *other)
{
	if (x->id.size) {
		/* the running kernel's text holds the module only as loaded now */
		char mod[NAME_MAX + 1];
		struct build_id id;
		module_name(x->name, mod, sizeof(mod));
		if (elfid_module("/sys", mod, &id))
			return 0;
		if (!build_id_equal(&id, &x->id)) {
			*other = true;
			return 0;
		}
	}
	return running_table(s, &x->tab);
}

static const char *base_name(struct symbolizer *s, const char *name)
{
	char path[PATH_MAX];
	disk_name(name, path, sizeof(path));
	const char *b = strrchr(path, '/');
	b = b && b[1] ? b + 1 : path;
	return strpool_intern(&s->pool, b, strlen(b));
}

/* What finds and indexes each type's files; *other: a file of another
 * build was seen. NULL: nothing to read. */
static int (*const loaders[])(struct symbolizer *s, struct sdso *x, bool *other) = {
	[DSO_FILE] = load_file,
	[DSO_VDSO] = load_vdso,
	[DSO_KERNEL] = load_kernel,
	[DSO_MODULE] = load_module,
};

/* Find and index x's files, once. 0 or -ENOMEM. */
static int dso_load(struct symbolizer *s, struct sdso *x)
{
	bool other = false;
	int err = 0;
	if (x->type >= sizeof(loaders) / sizeof(loaders[0]) || !loaders[x->type]) {
		x->state = DSO_OK;
		return 0;
	}
	err = loaders[x->type](s, x, &other);
	if (!err && (x->type == DSO_FILE || x->type == DSO_VDSO) && !(x->base = base_name(s, x->name)))
		err = -ENOMEM;
	x->state = x->tab ? DSO_OK : other ? DSO_MISMATCH : DSO_MISSING;
	return err;
}

/* d's DSO, its files found and indexed. 0 or -ENOMEM. */
static int dso_ready(struct symbolizer *s, const struct sym_dso *d, struct sdso **out)
{
	struct sdso *x = *out = dso_get(s, d);
	if (!x)
		return -ENOMEM;
	return x->state == DSO_NEW ? dso_load(s, x) : 0;
}

/* ---- JIT maps ----------------------------------------------------------- */

/* Another user's /tmp file could name our frames: only root's or our own,
 * as perf checks. Root reads any (perf wants -f): under sudo the file is
 * the invoking user's. */
static FILE *open_perfmap(const char *path, bool check_owner)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return NULL;
	struct stat st;
	uid_t me = geteuid();
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) ||
	    (check_owner && st.st_uid != 0 && st.st_uid != me && me != 0)) {
		close(fd);
		return NULL;
	}
	FILE *f = fdopen(fd, "r");
	if (!f)
		close(fd);
	return f;
}

static int load_perfmap(struct symbolizer *s, int32_t pid, struct symtab *t)
{
	char path[PATH_MAX];
	FILE *f = NULL;
	if (sysfile_path(path, sizeof(path), "/tmp/perf-%" PRId32 ".map", pid) == 0)
		f = open_perfmap(path, true);
	/* where psrec archive puts it, beside the cache's DSOs */
	if (!f && s->have_store &&
	    sysfile_path(path, sizeof(path), "%s/tmp/perf-%" PRId32 ".map", s->store.root, pid) == 0)
		f = open_perfmap(path, false);
	if (!f)
		return 0;
	size_t added;
	int err = perfmap_read(f, t, &s->pool, &added);
	fclose(f);
	if (err != -ENOMEM)
		err = symtab_finish(t);
	if (err)
		symtab_free(t);
	return err == -ENOMEM ? err : 0;
}

static int jit_cmp(const void *key, const void *elem)
{
	int32_t a = *(const int32_t *)key, b = ((const struct jit *)elem)->pid;
	return a < b ? -1 : a > b;
}

/* pid's JIT table (maybe empty), read the first time; NULL on -ENOMEM. */
static struct symtab *jit_table(struct symbolizer *s, int32_t pid)
{
	bool found;
	size_t i = bsearch_first_ge(s->jit, s->njit, sizeof(*s->jit), &pid, jit_cmp, &found);
	if (found)
		return &s->jit[i].tab;
	if (VEC_RESERVE(s->jit, s->jit_cap, s->njit, 1, 16))
		return NULL;
	struct jit j = { .pid = pid };
	symtab_init(&j.tab);
	if (load_perfmap(s, pid, &j.tab))
		return NULL;
	insert_at(s->jit, s->njit++, i, &j, sizeof(j));
	return &s->jit[i].tab;
}

/* ---- frames ------------------------------------------------------------- */

static bool is_mangled(const char *n)
{
	return n[0] == '_' && (n[1] == 'Z' || n[1] == 'R');
}

/* t's name i, demangled the first time it is asked for: a big C++
 * binary has far more symbols than a profile hits. */
static int sym_name(struct symbolizer *s, struct symtab *t, size_t i, const char **name, const char **raw)
{
	struct symtab_sym *y = &t->sym[i];
	if (!y->done) {
		/* kallsyms names are stored, not interned (kallsyms.h) */
		const char *in = strpool_intern(&s->pool, y->name, strlen(y->name));
		if (!in)
			return -ENOMEM;
		y->name = in;
	}
	if (s->demangle && !y->done) {
		if (is_mangled(y->name)) {
			/* perf report and perf script drop the parameter lists unless -v
			 * (DMGL_NO_OPTS): equal frames then fold as perf shows them. */
			char *dm = cplus_demangle(y->name, DMGL_NO_OPTS);
			/* the raw names beside, for pprof's system_name: only in the
			 * tables that have mangled names (not kallsyms, not C) */
			if (dm && !t->raw && !(t->raw = calloc(t->n, sizeof(*t->raw)))) {
				free(dm);
				return -ENOMEM;
			}
			if (dm) {
				const char *p = strpool_intern(&s->pool, dm, strlen(dm));
				free(dm);
				if (!p)
					return -ENOMEM;
				t->raw[i] = y->name;
				y->name = p;
			}
		}
	}
	y->done = true;
	*name = y->name;
	*raw = t->raw && t->raw[i] ? t->raw[i] : y->name;
	return 0;
}

static int frame_found(struct symbolizer *s, struct symtab *t, size_t i, int kind, struct sym_frame *f)
{
	f->kind = kind;
	return sym_name(s, t, i, &f->name, &f->raw);
}

/* What cannot be named: "dso+0xOFF" with a file behind it, else
 * "[unknown]". */
static int frame_unknown(struct symbolizer *s, const struct sdso *x, uint64_t off, int kind,
			 struct sym_frame *f)
{
	s->unresolved++;
	f->kind = kind;
	f->name = f->raw = s->unknown;
	if (!x || !x->base)
		return 0;
	/* by hand, not snprintf: a stripped binary without a debug file
	 * makes every one of its frames come here */
	char buf[NAME_MAX + 24];
	size_t len = strnlen(x->base, NAME_MAX), digits = 1;
	memcpy(buf, x->base, len);
	memcpy(buf + len, "+0x", 3);
	len += 3;
	while (digits < 16 && off >> (4 * digits))
		digits++;
	for (size_t k = 0; k < digits; k++)
		buf[len + k] = "0123456789abcdef"[(off >> (4 * (digits - 1 - k))) & 0xf];
	f->name = f->raw = strpool_intern(&s->pool, buf, len + digits);
	return f->name ? 0 : -ENOMEM;
}

static int frame_jit(struct symbolizer *s, int32_t pid, uint64_t ip, struct sym_frame *f)
{
	size_t i;
	if (pid <= 0)
		return frame_unknown(s, NULL, 0, SYM_KIND_UNKNOWN, f);
	struct symtab *t = jit_table(s, pid);
	if (!t)
		return -ENOMEM;
	if (symtab_find(t, ip, &i))
		return frame_found(s, t, i, SYM_KIND_JIT, f);
	return frame_unknown(s, NULL, 0, SYM_KIND_UNKNOWN, f);
}

int symbolizer_frame(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff,
		     uint64_t ip, int32_t pid, struct sym_frame *f)
{
	s->frames++;
	if (!d || !d->name)
		return frame_jit(s, pid, ip, f);
	struct sdso *x;
	int err = dso_ready(s, d, &x);
	if (err)
		return err;
	size_t i;
	uint64_t off = ip - start + pgoff, vaddr;
	switch (x->type) {
	case DSO_KERNEL:
	case DSO_MODULE: {
		uint64_t a = ip;
		/* the map's pgoff is _text as the recorded boot had it */
		if (x->type == DSO_KERNEL && pgoff && x->text)
			a = ip - pgoff + x->text;
		if (x->tab && symtab_find(x->tab, a, &i))
			return frame_found(s, x->tab, i, SYM_KIND_KERNEL, f);
		return frame_unknown(s, NULL, 0, SYM_KIND_KERNEL, f);
	}
	case DSO_ANON:
		return frame_jit(s, pid, ip, f);
	case DSO_FILE:
	case DSO_VDSO:
		if (x->tab && elfsyms_vaddr(&x->segs, off, &vaddr) && symtab_find(x->tab, vaddr, &i))
			return frame_found(s, x->tab, i, SYM_KIND_USER, f);
		return frame_unknown(s, x, off, SYM_KIND_UNKNOWN, f);
	default:
		return frame_unknown(s, NULL, 0, SYM_KIND_UNKNOWN, f);
	}
}

static int cu_cmp(const void *a, const void *b)
{
	const struct cu_range *x = a, *y = b;
	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Every compile unit's address ranges, sorted: gcc 12 writes no
 * .debug_aranges, which dwarf_addrdie needs. -ENOMEM or 0. */
static int cu_index(struct sdso *x)
{
	size_t cap = 0;
	Dwarf_Off off = 0, next;
	size_t hsize;
	while (dwarf_next_unit(x->dw, off, &next, &hsize, NULL, NULL, NULL, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;
		if (dwarf_offdie(x->dw, off + hsize, &cu)) {
			Dwarf_Addr base, lo, hi;
			ptrdiff_t it = 0;
			while ((it = dwarf_ranges(&cu, it, &base, &lo, &hi)) > 0) {
				if (hi <= lo)
					continue;
				if (VEC_RESERVE(x->cus, cap, x->ncus, 1, 64))
					return -ENOMEM;
				x->cus[x->ncus++] = (struct cu_range){ lo, hi, dwarf_dieoffset(&cu) };
			}
		}
		off = next;
	}
	if (x->ncus)
		qsort(x->cus, x->ncus, sizeof(*x->cus), cu_cmp);
	return 0;
}

/* The DWARF of x's debug file, else of its binary (built with -g). */
static int dso_dwarf(struct sdso *x, Dwarf **dw)
{
	if (!x->dw_tried) {
		x->dw_tried = true;
		Elf *e = x->dbg.elf ? x->dbg.elf : x->bin.elf;
		if (e && (x->dw = dwarf_begin_elf(e, DWARF_C_READ, NULL)) != NULL) {
			int err = cu_index(x);
			if (err)
				return err;
		}
	}
	*dw = x->ncus ? x->dw : NULL;
	return 0;
}

static int cu_at(const void *key, const void *elem)
{
	uint64_t a = *(const uint64_t *)key, lo = ((const struct cu_range *)elem)->lo;
	return a < lo ? -1 : a > lo;
}

/* The compile unit holding vaddr. */
static bool cu_find(const struct sdso *x, uint64_t vaddr, Dwarf_Die *cu)
{
	size_t last;
	if (!bsearch_last_le(x->cus, x->ncus, sizeof(*x->cus), &vaddr, cu_at, &last))
		return false;
	/* ranges of units may nest or overlap (rare): look back a little */
	for (size_t i = last + 1, k = 0; i-- > 0 && k < 8; k++)
		if (vaddr < x->cus[i].hi)
			return dwarf_offdie(x->dw, x->cus[i].die, cu) != NULL;
	return false;
}

/* "name (inlined)" for an inlined_subroutine DIE, demangled as the
 * symbols are; NULL when it has no name. */
static const char *inline_name(struct symbolizer *s, Dwarf_Die *die, bool *nomem)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	char *dm = NULL;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	if (link && s->demangle && is_mangled(link) && (dm = cplus_demangle(link, DMGL_NO_OPTS)) != NULL)
		n = dm;
	if (!n)
		n = dwarf_diename(die);
	if (!n) {
		free(dm);
		return NULL;
	}
	char buf[1024];
	int len = snprintf(buf, sizeof(buf), "%s (inlined)", n);
	free(dm);
	if (len < 0 || (size_t)len >= sizeof(buf))
		return NULL;
	const char *p = strpool_intern(&s->pool, buf, (size_t)len);
	*nomem = !p;
	return p;
}

/* The scopes at addr (in d mapped as for symbolizer_frame), innermost
 * first, from the innermost inlined call to the function holding it
 * (*inlined is that function's index; the scopes below it are the calls).
 * *nscopes <= 0 and *scopes NULL without DWARF there; the caller frees
 * *scopes. *cu and *vaddr as found. 0 or -ENOMEM. */
static int addr_scopes(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff, uint64_t addr,
		       Dwarf_Die *cu, uint64_t *vaddr, Dwarf_Die **scopes_out, int *nscopes_out, int *inlined_out)
{
	*scopes_out = NULL;
	*nscopes_out = 0;
	*inlined_out = 0;
	if (!d || !d->name || d->kernel)
		return 0;
	struct sdso *x;
	int err = dso_ready(s, d, &x);
	if (err)
		return err;
	Dwarf *dw = NULL;
	Dwarf_Die *scopes = NULL;
	if (x->type != DSO_FILE || !x->segs.n || !elfsyms_vaddr(&x->segs, addr - start + pgoff, vaddr))
		return 0;
	err = dso_dwarf(x, &dw);
	if (err || !dw || !cu_find(x, *vaddr, cu))
		return err;
	int nscopes = dwarf_getscopes(cu, *vaddr, &scopes);
	/* dwarf_getscopes goes from an inlined call to the scopes of its
	 * abstract definition; the concrete nesting (the callers the code
	 * was inlined into) is dwarf_getscopes_die's from the innermost call */
	int first = 0;
	while (first < nscopes && dwarf_tag(&scopes[first]) != DW_TAG_inlined_subroutine &&
	       dwarf_tag(&scopes[first]) != DW_TAG_subprogram)
		first++;
	if (first < nscopes && dwarf_tag(&scopes[first]) == DW_TAG_inlined_subroutine) {
		Dwarf_Die inner = scopes[first];
		free(scopes);
		scopes = NULL;
		nscopes = dwarf_getscopes_die(&inner, &scopes);
	}
	int inlined = 0;
	while (inlined < nscopes && dwarf_tag(&scopes[inlined]) != DW_TAG_subprogram)
		inlined++;
	*scopes_out = scopes;
	*nscopes_out = nscopes;
	*inlined_out = inlined;
	return 0;
}

int symbolizer_inlines(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff,
		       uint64_t addr, const char *const **names, size_t *n)
{
	*names = NULL;
	*n = 0;
	Dwarf_Die cu, *scopes;
	uint64_t vaddr;
	int nscopes, inlined;
	int err = addr_scopes(s, d, start, pgoff, addr, &cu, &vaddr, &scopes, &nscopes, &inlined);
	if (err)
		return err;
	struct inl_block *b = NULL;
	if (inlined > 0 && inlined < nscopes && (b = malloc(sizeof(*b) + (size_t)inlined * sizeof(char *)))) {
		size_t k = 0;
		bool nomem = false;
		/* the scopes are innermost first; the names outermost first */
		for (int i = inlined; i-- > 0 && !nomem;) {
			if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine)
				continue;
			const char *nm = inline_name(s, &scopes[i], &nomem);
			if (nm)
				b->names[k++] = nm;
		}
		if (nomem || k == 0) {
			free(b);
			err = nomem ? -ENOMEM : 0;
		} else {
			b->next = s->inl;
			s->inl = b;
			*names = b->names;
			*n = k;
		}
	} else if (inlined > 0 && inlined < nscopes) {
		err = -ENOMEM;
	}
	free(scopes);
	return err;
}

/* Whether inline_name names the DIE (the calls symbolizer_inlines lists;
 * but for a name too long for it, or one cplus_demangle refuses). */
static bool has_name(const struct symbolizer *s, Dwarf_Die *die)
{
	Dwarf_Attribute a;
	const char *link = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &a));
	return dwarf_diename(die) || (link && s->demangle && is_mangled(link));
}

/* The file declaring die, under its unit's compile directory when the
 * DWARF names it relative to that (gcc's DWARF 5 file table does). */
static const char *decl_file(struct symbolizer *s, Dwarf_Die *die, bool *nomem)
{
	const char *f = dwarf_decl_file(die);
	if (!f)
		return NULL;
	char buf[PATH_MAX];
	Dwarf_Die cu;
	Dwarf_Attribute a;
	const char *dir = f[0] != '/' && dwarf_diecu(die, &cu, NULL, NULL) ?
			  dwarf_formstring(dwarf_attr(&cu, DW_AT_comp_dir, &a)) : NULL;
	int len = dir && dir[0] == '/' ? snprintf(buf, sizeof(buf), "%s/%s", dir, f) : -1;
	if (len > 0 && (size_t)len < sizeof(buf))
		f = buf;
	const char *p = strpool_intern(&s->pool, f, strlen(f));
	*nomem = !p;
	return p;
}

int symbolizer_sources(struct symbolizer *s, const struct sym_dso *d, uint64_t start, uint64_t pgoff, uint64_t addr,
		       struct sym_source *out, size_t max, size_t *n)
{
	*n = 0;
	Dwarf_Die cu, *scopes;
	uint64_t vaddr;
	int nscopes, inlined;
	int err = addr_scopes(s, d, start, pgoff, addr, &cu, &vaddr, &scopes, &nscopes, &inlined);
	if (err || inlined >= nscopes || max == 0) {
		free(scopes);
		return err;
	}
	bool nomem = false;
	Dwarf_Word w;
	Dwarf_Attribute a;
	/* the function, then its calls outermost first; each level runs the
	 * line the next inner call was made from, the innermost the line
	 * table's line for vaddr */
	size_t k = 0;
	out[k++] = (struct sym_source){ decl_file(s, &scopes[inlined], &nomem), 0 };
	for (int i = inlined; i-- > 0 && k < max && !nomem;) {
		if (dwarf_tag(&scopes[i]) != DW_TAG_inlined_subroutine || !has_name(s, &scopes[i]))
			continue;
		if (dwarf_formudata(dwarf_attr(&scopes[i], DW_AT_call_line, &a), &w) == 0)
			out[k - 1].line = (int64_t)w;
		out[k++] = (struct sym_source){ decl_file(s, &scopes[i], &nomem), 0 };
	}
	Dwarf_Line *line = dwarf_getsrc_die(&cu, vaddr);
	int lineno;
	if (line && dwarf_lineno(line, &lineno) == 0 && lineno > 0)
		out[k - 1].line = lineno;
	free(scopes);
	*n = nomem ? 0 : k;
	return nomem ? -ENOMEM : 0;
}

int symbolizer_files(struct symbolizer *s, const struct sym_dso *d, struct sym_files *f)
{
	memset(f, 0, sizeof(*f));
	f->bin_fd = f->dbg_fd = -1;
	if (!d || !d->name)
		return 0;
	struct sdso *x;
	int err = dso_ready(s, d, &x);
	if (err)
		return err;
	if (x->type != DSO_FILE && x->type != DSO_VDSO)
		return 0;
	f->bin = x->bin.elf;
	f->bin_fd = x->bin.fd;
	f->dbg = x->dbg.elf;
	f->dbg_fd = x->dbg.fd;
	f->segs = x->segs.n ? &x->segs : NULL;
	f->handle = x;
	return 0;
}

/* ---- life and stats ----------------------------------------------------- */

int symbolizer_open(struct symbolizer **out, const struct sym_config *c, struct err *e)
{
	static const struct sym_config none;
	if (!c)
		c = &none;
	*out = NULL;
	struct symbolizer *s = calloc(1, sizeof(*s));
	if (!s)
		return err_set(e, -ENOMEM, "symbolizer: out of memory");
	s->demangle = c->demangle;
	strpool_init(&s->pool);
	symtab_init(&s->running);
	s->symfs = strdup(c->symfs ? c->symfs : "");
	s->unknown = strpool_intern(&s->pool, "[unknown]", 9);
	if (!s->symfs || !s->unknown) {
		symbolizer_close(s);
		return err_set(e, -ENOMEM, "symbolizer: out of memory");
	}
	/* "/" as symfs is no prefix; "DIR/" is DIR */
	for (size_t n = strlen(s->symfs); n && s->symfs[n - 1] == '/'; n--)
		s->symfs[n - 1] = '\0';
	elf_version(EV_CURRENT);
	/* no home directory: no cache, not a reason to print no names */
	struct err se;
	s->have_store = store_open(&s->store, c->buildid_dir, &se) == 0;
	*out = s;
	return 0;
}

void symbolizer_close(struct symbolizer *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		dso_free(s->v[i]);
	free(s->v);
	free(s->sorted);
	for (size_t i = 0; i < s->njit; i++)
		symtab_free(&s->jit[i].tab);
	free(s->jit);
	while (s->inl) {
		struct inl_block *b = s->inl;
		s->inl = b->next;
		free(b);
	}
	symtab_free(&s->running);
	if (s->have_store)
		store_close(&s->store);
	strpool_free(&s->pool);
	free(s->symfs);
	free(s);
}

/* Append "name" to names (", " between), whole or not at all; "..." once
 * the next one does not fit. */
static void names_add(char *names, size_t len, size_t *used, bool *cut, const char *name)
{
	if (*cut || !len)
		return;
	const char *sep = *used ? ", " : "";
	size_t need = strlen(sep) + strlen(name);
	if (*used + need < len) {
		*used += (size_t)snprintf(names + *used, len - *used, "%s%s", sep, name);
		return;
	}
	*cut = true;
	if (*used + strlen(sep) + 3 < len)
		*used += (size_t)snprintf(names + *used, len - *used, "%s...", sep);
}

void symbolizer_stats(const struct symbolizer *s, struct sym_stats *st, char *names, size_t len)
{
	memset(st, 0, sizeof(*st));
	st->frames = s->frames;
	st->unresolved = s->unresolved;
	size_t used = 0;
	bool cut = false;
	if (names && len)
		names[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		const struct sdso *x = s->v[i];
		if (x->state == DSO_MISSING)
			st->dsos_missing++;
		else if (x->state == DSO_MISMATCH)
			st->dsos_mismatch++;
		else
			continue;
		if (names)
			names_add(names, len, &used, &cut, x->name);
	}
}
