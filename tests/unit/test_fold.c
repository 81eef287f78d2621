/*
 * test_fold.c - psrec fold's pieces that need no recording: the command
 * line (src/fold/cli.c) and the table of distinct stacks
 * (src/fold/stacks.c). The whole fold is checked against perf by
 * tests/integration/fold.sh.
 */
#include "test_helpers.h"

#include "fold/cli.h"
#include "fold/stacks.h"

static int parse(bool flame, struct fold_cli *cli, struct err *e, ...)
{
	char *argv[32];
	int argc = 0;
	va_list ap;
	va_start(ap, e);
	argv[argc++] = (char *)(flame ? "flamegraph" : "fold");
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return fold_cli_parse(argc, argv, flame, cli, e);
}

static void test_cli_defaults_and_filters(void **state)
{
	(void)state;
	struct fold_cli cli;
	struct err e = { "" };
	assert_int_equal(parse(false, &cli, &e, NULL), 0);
	assert_string_equal(cli.fold.input, "perf.data");
	assert_null(cli.output);
	assert_int_equal(cli.fold.pid, -1);
	assert_true(cli.fold.sym.demangle);
	assert_true(cli.fold.time_end == UINT64_MAX);
	assert_int_equal(parse(false, &cli, &e, "-i", "x.data", "-o", "out", "--pid", "12", "--tid", "13", "--comm",
			       "spin", "--no-kernel", "--period", "--event", "page-faults", "--no-demangle",
			       "--buildid-dir", "/b", "--symfs", "/s", "--time", "1.5,2.000000001", NULL), 0);
	assert_string_equal(cli.fold.input, "x.data");
	assert_string_equal(cli.output, "out");
	assert_int_equal(cli.fold.pid, 12);
	assert_int_equal(cli.fold.tid, 13);
	assert_string_equal(cli.fold.comm, "spin");
	assert_true(cli.fold.no_kernel && cli.fold.period && !cli.fold.sym.demangle);
	assert_string_equal(cli.fold.event, "page-faults");
	assert_string_equal(cli.fold.sym.buildid_dir, "/b");
	assert_string_equal(cli.fold.sym.symfs, "/s");
	assert_true(cli.fold.time_start == 1500000000ULL);
	assert_true(cli.fold.time_end == 2000000001ULL);
	assert_int_equal(parse(false, &cli, &e, "--time", ",3", NULL), 0);
	assert_true(cli.fold.time_start == 0 && cli.fold.time_end == 3000000000ULL);
	assert_int_equal(parse(false, &cli, &e, "--time", "3,", NULL), 0);
	assert_true(cli.fold.time_start == 3000000000ULL && cli.fold.time_end == UINT64_MAX);
}

static void test_cli_errors_are_one_line(void **state)
{
	(void)state;
	struct fold_cli cli;
	struct err e = { "" };
	assert_int_equal(parse(false, &cli, &e, "--pid", "x", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "--pid 'x'"));
	assert_int_equal(parse(false, &cli, &e, "--time", "5", NULL), -EINVAL);
	assert_int_equal(parse(false, &cli, &e, "--time", "5,4", NULL), -EINVAL);
	assert_int_equal(parse(false, &cli, &e, "--time", "a,b", NULL), -EINVAL);
	assert_int_equal(parse(false, &cli, &e, "--bogus", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "--bogus"));
	assert_int_equal(parse(false, &cli, &e, "-i", NULL), -EINVAL);
	assert_int_equal(parse(false, &cli, &e, "extra", NULL), -EINVAL);
	/* flamegraph-only options are not fold's */
	assert_int_equal(parse(false, &cli, &e, "--title", "t", NULL), -EINVAL);
	assert_int_equal(parse(true, &cli, &e, "--width", "50", NULL), -EINVAL);
	assert_int_equal(parse(true, &cli, &e, "--diff", "a", NULL), -EINVAL);
	assert_null(strchr(e.msg, '\n'));
}

/* An empty path names nothing (or, prefixed to a path, the path itself):
 * a usage error naming the option and the fix, for fold, flamegraph and
 * pprof alike, never a late "cannot write :" or silence. */
static void test_cli_empty_paths_are_usage_errors(void **state)
{
	(void)state;
	static const struct {
		const char *opt, *words;
	} cases[] = {
		{ "-o", "-o: empty file name; give a file name, or - for standard output" },
		{ "--output", "-o: empty file name" },
		{ "-i", "-i: empty file name; give a recording, or - for standard input" },
		{ "--input", "-i: empty file name" },
		{ "--buildid-dir", "--buildid-dir: empty directory name; give a directory" },
		{ "--symfs", "--symfs: empty directory name; give a directory" },
	};
	const char *subs[] = { "fold", "flamegraph", "pprof" };
	const int modes[] = { FOLD_CLI_FOLD, FOLD_CLI_FLAMEGRAPH, FOLD_CLI_PPROF };
	for (size_t m = 0; m < 3; m++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct fold_cli cli;
			struct err e = { "" };
			char *argv[] = { (char *)subs[m], (char *)cases[i].opt, (char *)"", NULL };
			if (fold_cli_parse(3, argv, modes[m], &cli, &e) != -EINVAL || !strstr(e.msg, cases[i].words) ||
			    strchr(e.msg, '\n'))
				fail_msg("%s %s '': '%s'", subs[m], cases[i].opt, e.msg);
		}
	struct fold_cli cli;
	struct err e = { "" };
	assert_int_equal(parse(true, &cli, &e, "--diff", "", "b.data", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "flamegraph --diff: empty file name"));
	assert_int_equal(parse(true, &cli, &e, "--diff", "a.data", "", NULL), -EINVAL);
	assert_non_null(strstr(e.msg, "flamegraph --diff: empty file name"));
	/* "-" and "/" are names */
	assert_int_equal(parse(false, &cli, &e, "-i", "-", "-o", "-", "--symfs", "/", NULL), 0);
}

static void test_cli_flamegraph(void **state)
{
	(void)state;
	struct fold_cli cli;
	struct err e = { "" };
	assert_int_equal(parse(true, &cli, &e, "--title", "T", "--width", "800", "--icicle", NULL), 0);
	assert_string_equal(cli.title, "T");
	assert_int_equal(cli.width, 800);
	assert_true(cli.icicle);
	/* options may follow the two recordings */
	assert_int_equal(parse(true, &cli, &e, "--diff", "a.data", "b.data", "-o", "d.svg", NULL), 0);
	assert_string_equal(cli.diff_base, "a.data");
	assert_string_equal(cli.diff_new, "b.data");
	assert_string_equal(cli.output, "d.svg");
	assert_int_equal(parse(true, &cli, &e, "--reverse", NULL), 0);
	assert_true(cli.icicle);
}

/* Equal frame sequences merge; a different kind or order is another
 * stack; the total is the sum of weights. */
static void test_stacks_merge(void **state)
{
	(void)state;
	static const char comm[] = "spin", a[] = "main", b[] = "hot_a", k[] = "do_syscall";
	struct flame_frame s1[] = { { comm, 0 }, { a, 0 }, { b, 0 } };
	struct flame_frame s2[] = { { comm, 0 }, { b, 0 }, { a, 0 } };
	struct flame_frame s3[] = { { comm, 0 }, { a, 0 }, { b, 1 } };
	struct flame_frame s4[] = { { comm, 0 }, { a, 0 }, { b, 0 }, { k, 1 } };
	struct stacks s;
	stacks_init(&s);
	for (int i = 0; i < 1000; i++)
		assert_int_equal(stacks_add(&s, s1, 3, 2), 0);
	assert_int_equal(stacks_add(&s, s2, 3, 1), 0);
	assert_int_equal(stacks_add(&s, s3, 3, 1), 0);
	assert_int_equal(stacks_add(&s, s4, 4, 5), 0);
	assert_int_equal(s.n, 4);
	assert_true(s.total == 2007);
	struct flame_stack *out;
	assert_int_equal(stacks_export(&s, &out), 0);
	assert_true(out[0].count == 2000);
	assert_int_equal(out[0].nr, 3);
	assert_ptr_equal(out[0].frames[2].name, b);
	assert_int_equal(out[3].nr, 4);
	free(out);
	/* many distinct stacks: the table grows, nothing is lost */
	static char names[3000][8];
	for (int i = 0; i < 3000; i++) {
		snprintf(names[i], sizeof(names[i]), "f%d", i);
		struct flame_frame f[] = { { comm, 0 }, { names[i], 0 } };
		assert_int_equal(stacks_add(&s, f, 2, 1), 0);
	}
	assert_int_equal(s.n, 3004);
	assert_true(s.total == 5007);
	stacks_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_defaults_and_filters),
		cmocka_unit_test(test_cli_errors_are_one_line),
		cmocka_unit_test(test_cli_empty_paths_are_usage_errors),
		cmocka_unit_test(test_cli_flamegraph),
		cmocka_unit_test(test_stacks_merge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
