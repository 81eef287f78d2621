/*
 * test_unwind.c - DWARF unwinding of stack copies (src/symbol/unwind.c),
 * on a snapshot of this very process: registers and stack taken inside
 * unw_c <- unw_b <- unw_a, unwound with the CFI of this binary, checked
 * by name, against libdwfl's own unwinder, cut short, and corrupted.
 */
#include "test_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "format/sample.h"
#include "session/sideband.h"
#include "symbol/symbolizer.h"
#include "symbol/unwind.h"
#include "util/procfs_map.h"

#define SNAP_STACK 1024
#define X86_MASK 0xff0fffULL /* AX..SS, R8..R15: 20 registers, as perf records */

struct snap {
	uint64_t regs[20];          /* in mask bit order */
	uint8_t stack[SNAP_STACK];
};

static struct snap snap;
static volatile int sink;

#ifdef __x86_64__
/* perf register bit -> index in regs[]: bits 0..11, then 16..23 */
#define AT(bit) ((bit) < 12 ? (bit) : (bit) - 4)

/* Copied byte by byte, not by memcpy: ASan would see the redzones of the
 * callers' frames in it. */
__attribute__((noinline, noipa, no_sanitize_address)) static void copy_stack(const volatile uint8_t *sp)
{
	for (size_t i = 0; i < SNAP_STACK; i++)
		snap.stack[i] = sp[i];
}

__attribute__((noinline, noipa)) static void unw_c(void)
{
	uint64_t *r = snap.regs;
	__asm__ volatile("mov %%rbx, %c[bx](%[r])\n\t"
			 "mov %%rbp, %c[bp](%[r])\n\t"
			 "mov %%rsp, %c[sp](%[r])\n\t"
			 "lea 0(%%rip), %%rax\n\t"
			 "mov %%rax, %c[ip](%[r])\n\t"
			 "mov %%r12, %c[r12](%[r])\n\t"
			 "mov %%r13, %c[r13](%[r])\n\t"
			 "mov %%r14, %c[r14](%[r])\n\t"
			 "mov %%r15, %c[r15](%[r])\n\t"
			 :
			 : [r] "r"(r), [bx] "i"(8 * AT(1)), [bp] "i"(8 * AT(6)), [sp] "i"(8 * AT(7)),
			   [ip] "i"(8 * AT(8)), [r12] "i"(8 * AT(20)), [r13] "i"(8 * AT(21)),
			   [r14] "i"(8 * AT(22)), [r15] "i"(8 * AT(23))
			 : "rax", "memory");
	/* the stack above the snapshot's SP is not written after it */
	copy_stack((const volatile uint8_t *)(uintptr_t)r[AT(7)]);
	sink++;
}
#endif

__attribute__((noinline, noipa)) static void unw_b(void)
{
#ifdef __x86_64__
	unw_c();
#endif
	sink++;
}

__attribute__((noinline, noipa)) static void unw_a(void)
{
	unw_b();
	sink++;
}

struct fixture {
	struct sideband sb;
	struct symbolizer *sym;
	struct unwind *u;
	pid_t pid;
};

/* This process's file mappings, as the side band of a recording of it. */
static void sideband_self(struct sideband *sb, pid_t pid)
{
	sideband_init(sb);
	FILE *f = fopen("/proc/self/maps", "re");
	assert_non_null(f);
	char line[4096 + 256];
	while (fgets(line, sizeof(line), f)) {
		struct procfs_map m;
		if (procfs_parse_map_line(line, &m) || m.path_len == 0 || (m.path[0] != '/' && strncmp(m.path, "[vdso]", 6)))
			continue;
		struct dso_key k = { m.path, m.path_len, NULL, m.maj, m.min, m.ino, false };
		uint32_t idx;
		assert_int_equal(dsos_intern(&sb->dsos, &k, &idx), 0);
		assert_int_equal(maps_add(&sb->maps, pid, 0, m.start, m.end - m.start, m.pgoff, idx), 0);
	}
	fclose(f);
	maps_finish(&sb->maps);
}

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));
	assert_non_null(x);
	x->pid = getpid();
	sideband_self(&x->sb, x->pid);
	struct sym_config c = { .buildid_dir = "/nonexistent-psrec-cache", .demangle = true };
	struct err e = { "" };
	assert_int_equal(symbolizer_open(&x->sym, &c, &e), 0);
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;
	unwind_close(x->u);
	symbolizer_close(x->sym);
	sideband_free(&x->sb);
	free(x);
	return 0;
}

static const char *name_of(struct fixture *x, uint64_t ip)
{
	const struct maps_entry *m = sideband_map(&x->sb, x->pid, ip, 1, 2 /* user */);
	if (!m)
		return "(no map)";
	const struct dso *o = &x->sb.dsos.v[m->dso];
	struct sym_dso d = { o->name, NULL, false };
	struct sym_frame f;
	assert_int_equal(symbolizer_frame(x->sym, &d, m->start, m->pgoff, ip, x->pid, &f), 0);
	return f.name;
}

static struct sample_user user_of(size_t len, size_t size)
{
	return (struct sample_user){ PD_REGS_ABI_64, X86_MASK, (const uint8_t *)snap.regs, snap.stack, len, size };
}

static void need_x86_64(void)
{
#ifndef __x86_64__
	print_message("skipped: the snapshot is taken with x86_64 assembly\n");
	skip();
#endif
}

static void test_unwinds_own_stack_by_name(void **state)
{
	struct fixture *x = *state;
	need_x86_64();
	unw_a();
	assert_int_equal(unwind_open(&x->u, x->sym, &x->sb, false), 0);
	struct sample_user su = user_of(SNAP_STACK, SNAP_STACK);
	uint64_t ips[64];
	size_t n;
	int st = unwind_sample(x->u, x->pid, 1, &su, ips, 64, &n);
	assert_true(st == UNWIND_DONE || st == UNWIND_TRUNCATED);
	assert_true(n >= 4);
	assert_string_equal(name_of(x, ips[0]), "unw_c");
	assert_string_equal(name_of(x, ips[1] - 1), "unw_b");
	assert_string_equal(name_of(x, ips[2] - 1), "unw_a");
	assert_string_equal(name_of(x, ips[3] - 1), "test_unwinds_own_stack_by_name");
	/* a second time: every row from the cache, the same chain */
	struct unwind_stats a, b;
	unwind_stats(x->u, &a);
	uint64_t again[64];
	size_t n2;
	assert_int_equal(unwind_sample(x->u, x->pid, 1, &su, again, 64, &n2), st);
	unwind_stats(x->u, &b);
	assert_int_equal(n2, n);
	assert_memory_equal(again, ips, n * sizeof(*ips));
	assert_int_equal(b.rules, a.rules);
	assert_int_equal(b.samples, 2);
	/* libdwfl's own unwinder agrees */
	struct unwind *w;
	assert_int_equal(unwind_open(&w, x->sym, &x->sb, true), 0);
	uint64_t slow[64];
	size_t n3;
	assert_int_equal(unwind_sample(w, x->pid, 1, &su, slow, 64, &n3), st);
	unwind_stats(w, &b);
	unwind_close(w);
	assert_int_equal(b.dwfl, 1);
	assert_int_equal(n3, n);
	assert_memory_equal(slow, ips, n * sizeof(*ips));
	/* at most max frames */
	assert_int_equal(unwind_sample(x->u, x->pid, 1, &su, again, 2, &n2) >= 0, 1);
	assert_int_equal(n2, 2);
}

static void test_short_copy_is_truncated(void **state)
{
	struct fixture *x = *state;
	need_x86_64();
	unw_a();
	assert_int_equal(unwind_open(&x->u, x->sym, &x->sb, false), 0);
	uint64_t ips[64];
	size_t n, full;
	struct sample_user su = user_of(SNAP_STACK, SNAP_STACK);
	unwind_sample(x->u, x->pid, 1, &su, ips, 64, &full);
	/* as long as asked for, ending before the outermost frame */
	su = user_of(16, 16);
	assert_int_equal(unwind_sample(x->u, x->pid, 1, &su, ips, 64, &n), UNWIND_TRUNCATED);
	assert_true(n >= 1 && n < full);
	assert_string_equal(name_of(x, ips[0]), "unw_c");
	/* shorter than asked: the stack itself ended, nothing was cut */
	su = user_of(16, 8192);
	assert_int_not_equal(unwind_sample(x->u, x->pid, 1, &su, ips, 64, &n), UNWIND_TRUNCATED);
	struct unwind_stats s;
	unwind_stats(x->u, &s);
	/* the first too: 1 KiB does not reach main */
	assert_int_equal(s.truncated, 2);
}

static void test_no_file_or_no_registers_fails(void **state)
{
	struct fixture *x = *state;
	need_x86_64();
	unw_a();
	assert_int_equal(unwind_open(&x->u, x->sym, &x->sb, false), 0);
	uint64_t ips[8];
	size_t n;
	/* a pc in no mapping keeps the leaf */
	struct snap keep = snap;
	struct sample_user su = user_of(SNAP_STACK, SNAP_STACK);
	/* learn the register set first, from a good sample */
	unwind_sample(x->u, x->pid, 1, &su, ips, 8, &n);
	snap.regs[AT(8)] = 0x10;
	assert_int_equal(unwind_sample(x->u, x->pid, 1, &su, ips, 8, &n), UNWIND_FAILED);
	assert_int_equal(n, 1);
	assert_int_equal(ips[0], 0x10);
	snap = keep;
	/* a kernel thread: no user registers */
	su.abi = PD_REGS_ABI_NONE;
	su.regs = NULL;
	assert_int_equal(unwind_sample(x->u, x->pid, 1, &su, ips, 8, &n), UNWIND_FAILED);
	assert_int_equal(n, 0);
	/* another process: no maps at all */
	su = user_of(SNAP_STACK, SNAP_STACK);
	assert_int_equal(unwind_sample(x->u, x->pid + 1000000, 1, &su, ips, 8, &n), UNWIND_FAILED);
	assert_int_equal(n, 1);
	struct unwind_stats s;
	unwind_stats(x->u, &s);
	/* the kernel thread had nothing to unwind: not a failure */
	assert_int_equal(s.failed, 2);
}

/* Random registers and stack bytes: the chain ends early, never reads
 * outside the copy (ASan), never loops. */
static void test_corrupt_snapshots(void **state)
{
	struct fixture *x = *state;
	need_x86_64();
	unw_a();
	const struct snap good = snap;
	srand(1234);
	for (int dwfl = 0; dwfl < 2; dwfl++) {
		struct unwind *u;
		assert_int_equal(unwind_open(&u, x->sym, &x->sb, dwfl), 0);
		for (int round = 0; round < (dwfl ? 300 : 20000); round++) {
			snap = good;
			int flips = 1 + rand() % 16;
			for (int k = 0; k < flips; k++) {
				if (rand() % 4 == 0)
					snap.regs[rand() % 20] ^= (uint64_t)1 << (rand() % 64);
				else
					snap.stack[rand() % SNAP_STACK] ^= (uint8_t)(1 << (rand() % 8));
			}
			size_t len = rand() % 8 == 0 ? (size_t)(rand() % SNAP_STACK) : SNAP_STACK;
			struct sample_user su = user_of(len, SNAP_STACK);
			uint64_t ips[128];
			size_t n;
			int st = unwind_sample(u, x->pid, 1, &su, ips, 128, &n);
			assert_true(st == UNWIND_DONE || st == UNWIND_TRUNCATED || st == UNWIND_FAILED);
			assert_true(n <= 128);
		}
		unwind_close(u);
	}
	snap = good;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_unwinds_own_stack_by_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_short_copy_is_truncated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_file_or_no_registers_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_snapshots, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
