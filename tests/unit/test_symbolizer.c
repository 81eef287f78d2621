/*
 * test_symbolizer.c - addresses to names (src/symbol/): the test's own PIE
 * and libc as /proc/self/maps maps them, a stripped copy through its
 * debuglink (by build-id and by CRC), a replaced binary refused, the
 * build-id cache's elf and kallsyms copies, perf-PID.map files, the
 * running kernel and the vdso, demangling, interning, the tables' alias
 * and size rules, and the cost of a lookup.
 */
#include "test_helpers.h"

#include <inttypes.h>
#include <limits.h>
#include <sys/auxv.h>
#include <time.h>

#include "buildid/elfid.h"
#include "buildid/store.h"
#include "symbol/debuglink.h"
#include "symbol/kallsyms.h"
#include "symbol/perfmap.h"
#include "symbol/symbolizer.h"
#include "symbol/symtab.h"
#include "util/procfs_map.h"
#include "util/strpool.h"

/* A function of this executable to find by its address; not static, so
 * that neither inlining nor a clone's suffix renames it. */
int symtest_target(int n);
__attribute__((noinline)) int symtest_target(int n)
{
	volatile int acc = 0;
	for (int i = 0; i < n; i++)
		acc += i * 3;
	return acc;
}

/* Where the address lies in this process: the mapping's start, pgoff and
 * path (as a recording's MMAP2 would give them). */
struct where {
	uint64_t start, end, pgoff;
	char path[PATH_MAX];
};

static bool where_is(const void *p, struct where *w)
{
	uint64_t a = (uint64_t)(uintptr_t)p;
	FILE *f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	char line[PATH_MAX + 256];
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		struct procfs_map m;
		if (procfs_parse_map_line(line, &m) || a < m.start || a >= m.end)
			continue;
		w->start = m.start;
		w->end = m.end;
		w->pgoff = m.pgoff;
		snprintf(w->path, sizeof(w->path), "%.*s", (int)m.path_len, m.path);
		found = true;
	}
	fclose(f);
	return found;
}

/* A fresh, empty build-id cache, so the user's ~/.debug plays no part. */
static char cache[64];

static int cache_make(void **state)
{
	(void)state;
	th_mkdtemp(cache);
	return 0;
}

static int cache_remove(void **state)
{
	(void)state;
	th_rm_rf(cache);
	return 0;
}

static struct symbolizer *open_sym(bool demangle)
{
	struct sym_config c = { .buildid_dir = cache, .demangle = demangle };
	struct symbolizer *s;
	struct err e = { "" };
	assert_int_equal(symbolizer_open(&s, &c, &e), 0);
	return s;
}

static struct sym_frame frame(struct symbolizer *s, const struct sym_dso *d, const struct where *w,
			      uint64_t ip, int32_t pid)
{
	struct sym_frame f = { NULL, -1 };
	assert_int_equal(symbolizer_frame(s, d, w ? w->start : 0, w ? w->pgoff : 0, ip, pid, &f), 0);
	assert_non_null(f.name);
	return f;
}

static void own_id(const char *path, struct build_id *id)
{
	memset(id, 0, sizeof(*id));
	assert_int_equal(elfid_from_path(path, id), 0);
}

/* symtest_target's address and its mapping; id (when not NULL) the
 * executable's build-id. */
static uint64_t self_target(struct where *w, struct build_id *id)
{
	assert_true(where_is(&symtest_target, w));
	if (id)
		own_id(w->path, id);
	return (uint64_t)(uintptr_t)&symtest_target;
}

/* The stripped copies need binutils' objcopy: without it the test says so
 * and skips. */
static void need_objcopy(void)
{
	if (system("objcopy --version >/dev/null 2>&1") != 0) {
		print_message("skipped: no objcopy (binutils) to make stripped copies\n");
		skip();
	}
}

/* snprintf that fails the test rather than cut a path */
static void pathf(char *out, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void pathf(char *out, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(out, len, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < len);
}

static void run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void run(const char *fmt, ...)
{
	char cmd[4 * PATH_MAX];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

/* ---- user DSOs ------------------------------------------------------------ */

static void test_own_pie_function(void **state)
{
	(void)state;
	struct where w;
	struct build_id id;
	uint64_t ip = self_target(&w, &id);
	struct symbolizer *s = open_sym(false);
	struct sym_dso d = { w.path, &id, false };
	struct sym_frame f = frame(s, &d, &w, ip, getpid());
	assert_string_equal(f.name, "symtest_target");
	assert_int_equal(f.kind, SYM_KIND_USER);
	/* inside the function: the same interned pointer */
	struct sym_frame g = frame(s, &d, &w, ip + 4, getpid());
	assert_ptr_equal(g.name, f.name);
	/* the same DSO by another pointer to an equal name, and without an id */
	char copy[PATH_MAX];
	snprintf(copy, sizeof(copy), "%s", w.path);
	struct sym_dso d2 = { copy, &id, false }, d3 = { w.path, NULL, false };
	assert_ptr_equal(frame(s, &d2, &w, ip, getpid()).name, f.name);
	assert_ptr_equal(frame(s, &d3, &w, ip, getpid()).name, f.name);
	struct sym_stats st;
	char names[64];
	symbolizer_stats(s, &st, names, sizeof(names));
	assert_int_equal(st.frames, 4);
	assert_int_equal(st.unresolved, 0);
	assert_int_equal(st.dsos_missing + st.dsos_mismatch, 0);
	assert_string_equal(names, "");
	symbolizer_close(s);
}

static void test_libc_at_nonzero_pgoff(void **state)
{
	(void)state;
	struct where w;
	/* a PIE takes a library function's address through the GOT: libc's
	 * own, not a PLT stub */
	void *fn = (void *)(uintptr_t)&getpid;
	assert_true(where_is(fn, &w));
	if (!strstr(w.path, "libc")) {
		print_message("skipped: getpid is in %s, not libc\n", w.path);
		skip();
	}
	if (w.pgoff == 0)
		print_message("note: libc's code mapping has pgoff 0 here\n");
	struct build_id id;
	own_id(w.path, &id);
	struct symbolizer *s = open_sym(false);
	struct sym_dso d = { w.path, &id, false };
	struct sym_frame f = frame(s, &d, &w, (uint64_t)(uintptr_t)fn, getpid());
	assert_int_equal(f.kind, SYM_KIND_USER);
	assert_non_null(strstr(f.name, "getpid"));
	/* inside another one (not one a sanitizer intercepts) */
	f = frame(s, &d, &w, (uint64_t)(uintptr_t)&getppid + 1, getpid());
	assert_non_null(strstr(f.name, "getppid"));
	symbolizer_close(s);
}

/* /proc/self/exe copied into the cache dir as NAME, stripped with a
 * debuglink to NAME.debug (placed in dir). */
static void strip_copy(const char *exe, const char *dir, const char *name, const char *debug_dir)
{
	run("cp '%s' '%s/%s.full' && objcopy --only-keep-debug '%s/%s.full' '%s/%s.debug' && "
	    "objcopy --strip-all --add-gnu-debuglink='%s/%s.debug' '%s/%s.full' '%s/%s' && rm '%s/%s.full'",
	    exe, dir, name, dir, name, dir, name, dir, name, dir, name, dir, name, dir, name);
	if (strcmp(debug_dir, dir) != 0)
		run("mkdir -p '%s' && mv '%s/%s.debug' '%s/'", debug_dir, dir, name, debug_dir);
}

static void test_stripped_through_debuglink(void **state)
{
	(void)state;
	need_objcopy();
	struct where w;
	uint64_t ip = self_target(&w, NULL);
	char bin[PATH_MAX], dbgdir[PATH_MAX];
	snprintf(dbgdir, sizeof(dbgdir), "%s/bin/.debug", cache);
	run("mkdir -p '%s/bin'", cache);
	snprintf(bin, sizeof(bin), "%s/bin", cache);
	strip_copy(w.path, bin, "beside", bin);
	strip_copy(w.path, bin, "indotdebug", dbgdir);
	struct build_id id;
	own_id(w.path, &id);
	const char *names[] = { "beside", "indotdebug" };
	for (size_t i = 0; i < 2; i++) {
		char path[PATH_MAX];
		pathf(path, sizeof(path), "%s/%s", bin, names[i]);
		struct symbolizer *s = open_sym(false);
		struct sym_dso d = { path, &id, false };
		struct sym_frame f = frame(s, &d, &w, ip, 1);
		assert_string_equal(f.name, "symtest_target");
		/* no id recorded: the stripped file's own id finds the link */
		struct sym_dso d2 = { path, NULL, false };
		assert_ptr_equal(frame(s, &d2, &w, ip, 1).name, f.name);
		symbolizer_close(s);
	}
	/* the binary gone, its debug file alone at the distribution's place
	 * under symfs: its segments' offsets are rebuilt */
	char dist[PATH_MAX], rel[PATH_MAX];
	assert_int_equal(build_id_debuginfo_path(&id, rel, sizeof(rel)), 0);
	pathf(dist, sizeof(dist), "%s/symfs%s", cache, rel);
	run("mkdir -p \"$(dirname '%s')\" && cp '%s/beside.debug' '%s'", dist, bin, dist);
	char symfs[PATH_MAX];
	snprintf(symfs, sizeof(symfs), "%s/symfs/", cache);
	struct sym_config c = { .buildid_dir = cache, .symfs = symfs };
	struct symbolizer *s;
	assert_int_equal(symbolizer_open(&s, &c, NULL), 0);
	struct sym_dso d = { "/opt/gone/app", &id, false };
	assert_string_equal(frame(s, &d, &w, ip, 1).name, "symtest_target");
	symbolizer_close(s);
}

static void test_debuglink_by_crc(void **state)
{
	(void)state;
	need_objcopy();
	struct where w;
	uint64_t ip = self_target(&w, NULL);
	/* no build-id anywhere: only the link's CRC ties the two files */
	run("objcopy -R .note.gnu.build-id '%s' '%s/noid.full' && "
	    "objcopy --only-keep-debug '%s/noid.full' '%s/noid.debug' 2>/dev/null && "
	    "objcopy --strip-all --add-gnu-debuglink='%s/noid.debug' '%s/noid.full' '%s/noid' 2>/dev/null",
	    w.path, cache, cache, cache, cache, cache, cache);
	struct build_id id;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "%s/noid", cache);
	if (elfid_from_path(path, &id) != -ENOENT) {
		print_message("skipped: objcopy left a build-id in the copy\n");
		skip();
	}
	struct symbolizer *s = open_sym(false);
	struct sym_dso d = { path, NULL, false };
	assert_string_equal(frame(s, &d, &w, ip, 1).name, "symtest_target");
	symbolizer_close(s);
	/* a debug file that changed since: the CRC refuses it */
	run("printf x >> '%s/noid.debug'", cache);
	s = open_sym(false);
	struct sym_frame f = frame(s, &d, &w, ip, 1);
	assert_int_equal(f.kind, SYM_KIND_UNKNOWN);
	assert_true(strncmp(f.name, "noid+0x", 7) == 0);
	symbolizer_close(s);
}

static void test_replaced_binary_refused(void **state)
{
	(void)state;
	struct where w;
	struct build_id id;
	uint64_t ip = self_target(&w, &id);
	id.data[0] ^= 0xff; /* the recording ran another build of this path */
	struct symbolizer *s = open_sym(false);
	struct sym_dso d = { w.path, &id, false };
	struct sym_frame f = frame(s, &d, &w, ip, 1);
	const char *base = strrchr(w.path, '/') + 1;
	char want[PATH_MAX + 32];
	snprintf(want, sizeof(want), "%s+0x%" PRIx64, base, ip - w.start + w.pgoff);
	assert_string_equal(f.name, want);
	assert_int_equal(f.kind, SYM_KIND_UNKNOWN);
	/* the fallback is interned too */
	assert_ptr_equal(frame(s, &d, &w, ip, 1).name, f.name);
	struct sym_dso gone = { "/nonexistent/dir/libgone.so.1", NULL, false };
	struct where gw = { .start = 0x7f0000000000, .pgoff = 0x1000 };
	assert_string_equal(frame(s, &gone, &gw, 0x7f0000000123, 1).name, "libgone.so.1+0x1123");
	struct sym_dso stack = { "[stack]", NULL, false };
	assert_string_equal(frame(s, &stack, &gw, 0x7f0000000123, 1).name, "[unknown]");
	struct sym_stats st;
	char names[PATH_MAX + 64];
	symbolizer_stats(s, &st, names, sizeof(names));
	assert_int_equal(st.dsos_mismatch, 1);
	assert_int_equal(st.dsos_missing, 1);
	assert_int_equal(st.frames, 4);
	assert_int_equal(st.unresolved, 4);
	char expect[PATH_MAX + 64];
	snprintf(expect, sizeof(expect), "%s, /nonexistent/dir/libgone.so.1", w.path);
	assert_string_equal(names, expect);
	/* a short buffer: whole names only, then "..." */
	char shortn[24]; /* shorter than any build path */
	symbolizer_stats(s, &st, shortn, sizeof(shortn));
	assert_true(strlen(shortn) < sizeof(shortn));
	assert_non_null(strstr(shortn, "..."));
	symbolizer_close(s);
}

static void test_cache_elf_for_gone_path(void **state)
{
	(void)state;
	struct where w;
	struct build_id id;
	uint64_t ip = self_target(&w, &id);
	struct store st;
	struct err e;
	assert_int_equal(store_open(&st, cache, &e), 0);
	int fd = open(w.path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(store_add_fd(&st, "/opt/gone/app", &id, fd, "elf", &e), 0);
	close(fd);
	store_close(&st);
	struct symbolizer *s = open_sym(false);
	struct sym_dso d = { "/opt/gone/app", &id, false };
	assert_string_equal(frame(s, &d, &w, ip, 1).name, "symtest_target");
	symbolizer_close(s);
}

/* ---- JIT maps ------------------------------------------------------------- */

/* A pid no process has (above pid_max's ceiling of 2^22). */
#define FAKE_PID 2100000000

static void test_perfmap(void **state)
{
	(void)state;
	char path[PATH_MAX];
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", FAKE_PID);
	th_put_file(path, "0x1000 0x100 jit_alpha\n"
			  "2000 80 _ZN3foo3barEv\n"
			  "3000 10 LazyCompile:*run app.js:12\r\n"
			  "not a line\n"
			  "4000 10 old_code\n"
			  "4000 10 new_code\n");
	/* psrec archive's layout, for another pid */
	char rel[PATH_MAX];
	th_mkdirs("%s/tmp", cache);
	pathf(rel, sizeof(rel), "%s/tmp/perf-%d.map", cache, FAKE_PID + 1);
	th_put_file(rel, "5000 100 archived_fn\n");

	struct symbolizer *s = open_sym(true), *raw = open_sym(false);
	struct sym_frame f = frame(s, NULL, NULL, 0x1010, FAKE_PID);
	assert_string_equal(f.name, "jit_alpha");
	assert_int_equal(f.kind, SYM_KIND_JIT);
	struct sym_dso anon = { "//anon", NULL, false }, memfd = { "/memfd:jit (deleted)", NULL, false };
	assert_ptr_equal(frame(s, &anon, NULL, 0x10ff, FAKE_PID).name, f.name);
	assert_string_equal(frame(s, &memfd, NULL, 0x3000, FAKE_PID).name, "LazyCompile:*run app.js:12");
	assert_string_equal(frame(s, NULL, NULL, 0x4008, FAKE_PID).name, "new_code");
	f = frame(s, &anon, NULL, 0x1100, FAKE_PID);
	assert_string_equal(f.name, "[unknown]");
	assert_int_equal(f.kind, SYM_KIND_UNKNOWN);
	assert_string_equal(frame(s, NULL, NULL, 0x10, FAKE_PID).name, "[unknown]");
	/* demangled when asked, raw otherwise */
	assert_string_equal(frame(s, NULL, NULL, 0x2040, FAKE_PID).name, "foo::bar");
	assert_string_equal(frame(raw, NULL, NULL, 0x2040, FAKE_PID).name, "_ZN3foo3barEv");
	/* the raw name stays beside the demangled one (pprof's system_name),
	 * asked for again too */
	for (int i = 0; i < 2; i++) {
		f = frame(s, NULL, NULL, 0x2040 + (uint64_t)i, FAKE_PID);
		assert_string_equal(f.raw, "_ZN3foo3barEv");
		assert_string_equal(f.name, "foo::bar");
	}
	f = frame(raw, NULL, NULL, 0x2040, FAKE_PID);
	assert_ptr_equal(f.raw, f.name);
	assert_string_equal(frame(s, NULL, NULL, 0x1010, FAKE_PID).raw, "jit_alpha");
	assert_string_equal(frame(s, NULL, NULL, 0x10, FAKE_PID).raw, "[unknown]");
	assert_string_equal(frame(s, NULL, NULL, 0x5050, FAKE_PID + 1).name, "archived_fn");
	assert_string_equal(frame(s, NULL, NULL, 0x5050, FAKE_PID + 2).name, "[unknown]");
	/* read once: a change on disk is not seen */
	th_put_file(path, "1000 100 changed\n");
	assert_string_equal(frame(s, NULL, NULL, 0x1010, FAKE_PID).name, "jit_alpha");
	struct sym_stats st;
	symbolizer_stats(s, &st, NULL, 0);
	assert_int_equal(st.dsos_missing + st.dsos_mismatch, 0);
	symbolizer_close(s);
	symbolizer_close(raw);
	unlink(path);
}

/* ---- the kernel and the vdso ------------------------------------------- */

static const char fake_kallsyms[] = "0000000000000000 A fixed_percpu_data\n"
				    "ffffffff81000000 T _text\n"
				    "ffffffff81000000 T _stext\n"
				    "ffffffff81001000 T fake_start_kernel\n"
				    "ffffffff81001000 W weak_alias\n"
				    "ffffffff81002000 t fake_local\n"
				    "ffffffff81003000 D fake_data\n"
				    "ffffffffc0000000 t fake_mod_fn\t[fakemod]\n";

static void test_kallsyms_from_cache(void **state)
{
	(void)state;
	struct build_id id = { .size = 20 };
	for (int i = 0; i < 20; i++)
		id.data[i] = (uint8_t)(0x40 + i);
	struct store st;
	struct err e;
	assert_int_equal(store_open(&st, cache, &e), 0);
	assert_int_equal(store_add_mem(&st, "[kernel.kallsyms]", &id, fake_kallsyms, strlen(fake_kallsyms),
				       "kallsyms", &e), 0);
	store_close(&st);
	struct symbolizer *s = open_sym(false);
	struct sym_dso k = { "[kernel.kallsyms]", &id, true };
	struct where m = { .start = 0xffffffff81000000, .pgoff = 0xffffffff81000000 };
	/* of two names at one address, the later line, as perf report
	 * picks it (memset / __pi_memset on this kernel) */
	struct sym_frame f = frame(s, &k, &m, 0xffffffff81001234, -1);
	assert_string_equal(f.name, "weak_alias");
	assert_int_equal(f.kind, SYM_KIND_KERNEL);
	assert_string_equal(frame(s, &k, &m, 0xffffffff81002fff, -1).name, "fake_local");
	/* D is not text: the address is still fake_local's */
	assert_string_equal(frame(s, &k, &m, 0xffffffff81003010, -1).name, "fake_local");
	assert_string_equal(frame(s, &k, &m, 0xffffffffc0000010, -1).name, "fake_mod_fn");
	/* another boot, _text 16 MiB higher (KASLR): moved by the map's pgoff */
	struct where moved = { .start = 0xffffffff82000000, .pgoff = 0xffffffff82000000 };
	assert_string_equal(frame(s, &k, &moved, 0xffffffff82001234, -1).name, "weak_alias");
	f = frame(s, &k, &m, 0xffffffff80000000, -1);
	assert_string_equal(f.name, "[unknown]");
	assert_int_equal(f.kind, SYM_KIND_KERNEL);
	symbolizer_close(s);
}

/* A text symbol of /proc/kallsyms alone at its address, with room after
 * it; false when addresses are hidden. */
static bool kallsyms_pick(char *name, size_t len, uint64_t *addr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	if (!f)
		return false;
	char line[512];
	uint64_t a = 0;
	bool found = false;
	while (fgets(line, sizeof(line), f)) {
		char type, sym[256];
		unsigned long long v;
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) != 3 || v == 0)
			continue;
		if (!found && strcmp(sym, "schedule") == 0 && type == 'T') {
			a = v;
			found = true;
			snprintf(name, len, "%s", sym);
		}
	}
	fclose(f);
	if (!found)
		return false;
	/* any other text symbol at a, a+1: not unique */
	f = fopen("/proc/kallsyms", "re");
	int same = 0;
	while (fgets(line, sizeof(line), f)) {
		char type, sym[256];
		unsigned long long v;
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 && (v == a || v == a + 1) &&
		    strchr("tTwW", type))
			same++;
	}
	fclose(f);
	*addr = a;
	return same == 1;
}

static void test_running_kernel(void **state)
{
	(void)state;
	struct build_id id;
	char name[256];
	uint64_t addr = 0, text = 0;
	if (elfid_kernel("/sys", &id)) {
		print_message("skipped: no build-id in /sys/kernel/notes\n");
		skip();
	}
	if (!kallsyms_pick(name, sizeof(name), &addr)) {
		print_message("skipped: /proc/kallsyms hides addresses (not root, or kptr_restrict)\n");
		skip();
	}
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];
	while (!text && fgets(line, sizeof(line), f)) {
		unsigned long long v;
		char type, sym[256];
		if (sscanf(line, "%llx %c %255s", &v, &type, sym) == 3 && strcmp(sym, "_text") == 0)
			text = v;
	}
	fclose(f);
	struct symbolizer *s = open_sym(false);
	struct sym_dso k = { "[kernel.kallsyms]", &id, true };
	struct where m = { .start = text, .pgoff = text };
	struct sym_frame fr = frame(s, &k, &m, addr + 1, -1);
	assert_string_equal(fr.name, name);
	assert_int_equal(fr.kind, SYM_KIND_KERNEL);
	/* another kernel's recording: /proc/kallsyms is not used */
	struct build_id other = id;
	other.data[0] ^= 0xff;
	struct sym_dso k2 = { "[kernel.kallsyms]", &other, true };
	fr = frame(s, &k2, &m, addr + 1, -1);
	assert_string_equal(fr.name, "[unknown]");
	assert_int_equal(fr.kind, SYM_KIND_KERNEL);
	struct sym_stats st;
	char names[128];
	symbolizer_stats(s, &st, names, sizeof(names));
	assert_int_equal(st.dsos_mismatch, 1);
	assert_string_equal(names, "[kernel.kallsyms]");
	symbolizer_close(s);
}

static void test_vdso(void **state)
{
	(void)state;
	struct build_id id;
	const void *image;
	size_t len;
	if (elfid_vdso(&id, &image, &len)) {
		print_message("skipped: no vdso\n");
		skip();
	}
	struct where w;
	assert_true(where_is(image, &w));
	assert_string_equal(w.path, "[vdso]");
	struct symbolizer *s = open_sym(false);
	struct sym_dso d = { "[vdso]", &id, false };
	bool gettime = false;
	for (uint64_t a = w.start; a < w.end; a += 4) {
		struct sym_frame f = frame(s, &d, &w, a, 1);
		if (strstr(f.name, "gettime")) {
			gettime = true;
			assert_int_equal(f.kind, SYM_KIND_USER);
		}
	}
	assert_true(gettime);
	struct sym_stats st;
	symbolizer_stats(s, &st, NULL, 0);
	assert_int_equal(st.dsos_missing + st.dsos_mismatch, 0);
	symbolizer_close(s);
}

/* ---- the building blocks ---------------------------------------------- */

static void test_symtab_rules(void **state)
{
	(void)state;
	struct strpool p;
	struct symtab t;
	strpool_init(&p);
	symtab_init(&t);
	const char *a = strpool_intern(&p, "getpid", 6), *b = strpool_intern(&p, "__getpid", 8);
	assert_ptr_equal(strpool_intern(&p, "getpid", 6), a);
	/* weak getpid, global __getpid at one address: the global one */
	assert_int_equal(symtab_add(&t, 0x100, 0x20, UINT64_MAX, a, 0), 0);
	assert_int_equal(symtab_add(&t, 0x100, 0x20, UINT64_MAX, b, 2), 0);
	/* no size: up to the next symbol, or its section's end */
	assert_int_equal(symtab_add(&t, 0x200, 0, UINT64_MAX, strpool_intern(&p, "open", 4), 2), 0);
	assert_int_equal(symtab_add(&t, 0x300, 0x10, UINT64_MAX, strpool_intern(&p, "next", 4), 2), 0);
	assert_int_equal(symtab_add(&t, 0x400, 0, 0x480, strpool_intern(&p, "last", 4), 2), 0);
	/* equal rank: fewer underscores, then the longer name */
	assert_int_equal(symtab_add(&t, 0x500, 8, UINT64_MAX, strpool_intern(&p, "_x", 2), 1), 0);
	assert_int_equal(symtab_add(&t, 0x500, 8, UINT64_MAX, strpool_intern(&p, "xy", 2), 1), 0);
	assert_int_equal(symtab_add(&t, 0x500, 8, UINT64_MAX, strpool_intern(&p, "xyz", 3), 1), 0);
	assert_int_equal(symtab_finish(&t), 0);
	size_t i;
	assert_true(symtab_find(&t, 0x11f, &i));
	assert_ptr_equal(t.sym[i].name, b);
	assert_false(symtab_find(&t, 0x120, &i));
	assert_false(symtab_find(&t, 0xff, &i));
	assert_true(symtab_find(&t, 0x2ff, &i));
	assert_string_equal(t.sym[i].name, "open");
	assert_true(symtab_find(&t, 0x47f, &i));
	assert_string_equal(t.sym[i].name, "last");
	assert_false(symtab_find(&t, 0x480, &i));
	assert_true(symtab_find(&t, 0x500, &i));
	assert_string_equal(t.sym[i].name, "xyz");
	symtab_free(&t);
	strpool_free(&p);
}

static void test_strpool_many_and_long(void **state)
{
	(void)state;
	struct strpool p;
	strpool_init(&p);
	const char *first[5000];
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(buf, sizeof(buf), "name%d", i);
		first[i] = strpool_intern(&p, buf, (size_t)n);
		assert_non_null(first[i]);
	}
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(buf, sizeof(buf), "name%d", i);
		assert_ptr_equal(strpool_intern(&p, buf, (size_t)n), first[i]);
		assert_string_equal(first[i], buf);
	}
	/* longer than a chunk, and not NUL-terminated where it is cut */
	size_t big = 200000;
	char *s = malloc(big + 1);
	memset(s, 'q', big);
	s[big] = 'X';
	const char *q = strpool_intern(&p, s, big);
	assert_int_equal(strlen(q), big);
	assert_ptr_equal(strpool_intern(&p, s, big), q);
	free(s);
	assert_ptr_equal(strpool_intern(&p, "name7", 5), first[7]);
	strpool_free(&p);
}

static void test_parsers(void **state)
{
	(void)state;
	struct strpool p;
	struct symtab t;
	strpool_init(&p);
	symtab_init(&t);
	size_t added;
	uint64_t text;
	FILE *f = fmemopen((void *)fake_kallsyms, strlen(fake_kallsyms), "r");
	assert_int_equal(kallsyms_read(f, &t, &p, &text, &added), 0);
	fclose(f);
	assert_int_equal(added, 6); /* A at 0 and D are not text */
	assert_int_equal(text, 0xffffffff81000000);
	symtab_free(&t);
	/* every address hidden (kptr_restrict): nothing */
	static const char hidden[] = "0000000000000000 T _text\n0000000000000000 t foo\n";
	f = fmemopen((void *)hidden, strlen(hidden), "r");
	assert_int_equal(kallsyms_read(f, &t, &p, &text, &added), 0);
	fclose(f);
	assert_int_equal(added, 0);
	symtab_free(&t);
	static const char map[] = "-10 10 neg\n 10 10 blank\n10 -1 negsize\n10 0 empty\n10\n10 10\n"
				  "10 10 \n0x20 0x10 ok name\n";
	f = fmemopen((void *)map, strlen(map), "r");
	assert_int_equal(perfmap_read(f, &t, &p, &added), 0);
	fclose(f);
	assert_int_equal(added, 1);
	assert_int_equal(symtab_finish(&t), 0);
	size_t i;
	assert_true(symtab_find(&t, 0x2f, &i));
	assert_string_equal(t.sym[i].name, "ok name");
	symtab_free(&t);
	strpool_free(&p);
}

static void test_crc32(void **state)
{
	(void)state;
	char path[64];
	th_write_file(path, "123456789", 9);
	int fd = open(path, O_RDONLY);
	uint32_t crc;
	assert_int_equal(debuglink_crc_fd(fd, &crc), 0);
	assert_int_equal(crc, 0xCBF43926u); /* the standard check value */
	close(fd);
	unlink(path);
}

/* ---- cost --------------------------------------------------------------- */

static double lookup_ns(struct symbolizer *s, const struct sym_dso *d, const struct where *w,
			const uint64_t *ips, size_t n)
{
	struct timespec t0, t1;
	struct sym_frame f;
	uintptr_t sink = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i++) {
		symbolizer_frame(s, d, w->start, w->pgoff, ips[i], 1, &f);
		sink += (uintptr_t)f.name;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(sink != 1); /* keeps the loop */
	return n ? ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / (double)n : 0;
}

static void test_lookup_cost(void **state)
{
	(void)state;
	struct where w;
	void *fn = (void *)(uintptr_t)&getpid;
	assert_true(where_is(fn, &w));
	struct build_id id;
	own_id(w.path, &id);
	struct symbolizer *s = open_sym(true);
	struct sym_dso d = { w.path, &id, false };
	struct sym_frame f;
	assert_int_equal(symbolizer_frame(s, &d, w.start, w.pgoff, (uint64_t)(uintptr_t)fn, 1, &f), 0);
	enum { N = 1000000 };
	uint64_t *ips = malloc(N * sizeof(*ips)), rng = 42;
	for (size_t i = 0; i < N; i++)
		ips[i] = w.start + th_rand(&rng) % (w.end - w.start);
	/* every address once first: the names demangled, the fallbacks pooled;
	 * then the named and the unnamed apart */
	size_t named = 0;
	for (size_t i = 0; i < N; i++) {
		assert_int_equal(symbolizer_frame(s, &d, w.start, w.pgoff, ips[i], 1, &f), 0);
		if (f.kind == SYM_KIND_USER) {
			uint64_t t = ips[named];
			ips[named++] = ips[i];
			ips[i] = t;
		}
	}
	double all = lookup_ns(s, &d, &w, ips, N), hit = lookup_ns(s, &d, &w, ips, named),
	       miss = lookup_ns(s, &d, &w, ips + named, N - named);
	print_message("ns a frame over %d random addresses in %s: %.1f (%.1f named, %zu; %.1f fallback, %zu)\n", N,
		      w.path, all, hit, named, miss, N - named);
	free(ips);
	symbolizer_close(s);
}

#define WITH_CACHE(t) cmocka_unit_test_setup_teardown(t, cache_make, cache_remove)

int main(void)
{
	const struct CMUnitTest tests[] = {
		WITH_CACHE(test_own_pie_function),
		WITH_CACHE(test_libc_at_nonzero_pgoff),
		WITH_CACHE(test_stripped_through_debuglink),
		WITH_CACHE(test_debuglink_by_crc),
		WITH_CACHE(test_replaced_binary_refused),
		WITH_CACHE(test_cache_elf_for_gone_path),
		WITH_CACHE(test_perfmap),
		WITH_CACHE(test_kallsyms_from_cache),
		WITH_CACHE(test_running_kernel),
		WITH_CACHE(test_vdso),
		cmocka_unit_test(test_symtab_rules),
		cmocka_unit_test(test_strpool_many_and_long),
		cmocka_unit_test(test_parsers),
		cmocka_unit_test(test_crc32),
		WITH_CACHE(test_lookup_cost),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
