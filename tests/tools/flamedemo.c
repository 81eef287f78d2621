/*
 * flamedemo - write the flamegraph of a fixed profile, for the browser test
 * (tests/integration/flamegraph_browser.sh) until psrec flamegraph exists,
 * and for a look at the SVG by hand.
 *
 * usage: flamedemo OUT.svg [--icicle]
 *
 * The profile: 10,000 samples under main, hot_a 6,000 (with kernel
 * frames), hot_b 3,000 (hot_b_helper nested in it, and JIT frames),
 * hot_c 1,000 (an unknown frame, and a name that needs XML escaping), so a
 * search for "hot_" matches 100.00% and for "hot_b" 30.00%.
 */
#include <stdio.h>
#include <string.h>

#include "flame/flamegraph.h"
#include "symbol/kind.h"

#define U SYM_KIND_USER
#define K SYM_KIND_KERNEL
#define J SYM_KIND_JIT
#define X SYM_KIND_UNKNOWN
#define TOP { "flamedemo", U }, { "_start", U }, { "__libc_start_main", U }, { "main", U }

static const struct flame_frame a1[] = { TOP, { "hot_a", U }, { "compute_a", U }, { "inner_loop", U } };
static const struct flame_frame a2[] = { TOP, { "hot_a", U }, { "compute_a", U }, { "write", U },
					 { "entry_SYSCALL_64", K }, { "do_syscall_64", K }, { "ksys_write", K } };
static const struct flame_frame a3[] = { TOP, { "hot_a", U } };
static const struct flame_frame b1[] = { TOP, { "hot_b", U }, { "hot_b_helper", U }, { "memcpy", U } };
static const struct flame_frame b2[] = { TOP, { "hot_b", U }, { "jit_trace_7", J }, { "jit_trace_9", J } };
static const struct flame_frame c1[] = { TOP, { "hot_c", U }, { "[unknown]", X } };
static const struct flame_frame c2[] = { TOP, { "hot_c", U } };
static const struct flame_frame c3[] = { TOP, { "hot_c", U }, { "std::operator<< <char>(std::ostream&, \"x\")", U } };

#define N(a) (sizeof(a) / sizeof(*(a)))
static const struct flame_stack stacks[] = {
	{ a1, N(a1), 4000 }, { a2, N(a2), 1500 }, { a3, N(a3), 500 },
	{ b1, N(b1), 2000 }, { b2, N(b2), 1000 },
	{ c1, N(c1), 600 }, { c2, N(c2), 300 }, { c3, N(c3), 100 },
};

int main(int argc, char **argv)
{
	if (argc < 2 || argc > 3 || (argc == 3 && strcmp(argv[2], "--icicle"))) {
		fprintf(stderr, "usage: flamedemo OUT.svg [--icicle]\n");
		return 2;
	}
	struct flame_config c = { .title = "flamedemo", .subtitle = "cpu-clock, 10,000 samples",
				  .icicle = argc == 3 };
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	struct err e = { 0 };
	int r = flamegraph_write(f, stacks, N(stacks), &c, &e);
	if (fclose(f) != 0 && r == 0) {
		perror(argv[1]);
		return 1;
	}
	if (r < 0) {
		fprintf(stderr, "flamedemo: %s\n", e.msg);
		return 1;
	}
	return 0;
}
