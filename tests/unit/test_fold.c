/*
 * test_fold.c - psrec fold's pieces that need no recording: the command
 * line (src/fold/cli.c), the table of distinct stacks (src/fold/stacks.c)
 * and the event names of a crafted stream (src/fold/events.c). The whole
 * fold is checked against perf by tests/integration/fold.sh.
 */
#include "test_helpers.h"

#include "cli/fold.h"
#include "fold/events.h"
#include "fold/fold.h"
#include "fold/stacks.h"
#include "format/reader.h"
#include "format/writer.h"
#include "util/buf.h"

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

/* An EVENT_UPDATE of type t for id, its payload p (len bytes) padded to 8. */
static void put_update(struct buf *b, uint64_t t, uint64_t id, const void *p, size_t len)
{
	size_t size = 24 + ((len + 7) & ~(size_t)7);
	struct pd_event_header h = { PD_RECORD_EVENT_UPDATE, 0, (uint16_t)size };
	assert_int_equal(buf_append(b, &h, sizeof(h)), 0);
	assert_int_equal(buf_append_u64(b, t), 0);
	assert_int_equal(buf_append_u64(b, id), 0);
	assert_int_equal(buf_append(b, p, len), 0);
	assert_int_equal(buf_append_zeros(b, size - 24 - len), 0);
}

/* A stream without EVENT_DESC (an older perf's, or one whose feature
 * records were lost) names its events only by EVENT_UPDATE records of
 * type NAME (2); perf sends UNIT (0) and SCALE (1, a double) ones beside
 * them, which must not become names. Names no attr gives ("cpu-clock:u",
 * a tracepoint's), so only the NAME records can have said them. */
static void test_events_named_by_event_update_name_records(void **state)
{
	(void)state;
	for (size_t nr = 2; nr >= 1; nr--) {
		char path[64];
		int fd = th_tmpfile(path);
		struct pd_attr a[2];
		memset(a, 0, sizeof(a));
		a[0].type = PD_TYPE_SOFTWARE;
		a[0].config = PD_SW_CPU_CLOCK;
		a[0].sample_period = 4000;
		a[0].sample_type = TH_SAMPLE_TYPE;
		a[0].flags = PD_ATTR_FREQ | PD_ATTR_EXCLUDE_KERNEL;
		a[1] = a[0];
		a[1].type = PD_TYPE_TRACEPOINT;
		a[1].config = 314;
		uint64_t ids[2][2] = { { 11, 12 }, { 21, 22 } };
		struct writer_event ev[2] = { { &a[0], ids[0], 2, "cpu-clock:u" },
					      { &a[1], ids[1], 2, "sched:sched_switch" } };
		struct writer w;
		assert_int_equal(writer_begin_pipe(&w, fd, ev, nr, NULL, 0), 0);
		/* what perf writes beside the names: unit and scale, for
		 * every event; the names came first (the writer's), so a
		 * SCALE taken for a name would replace them */
		struct buf b = BUF_INIT;
		double scale = 1e-6;
		for (size_t i = 0; i < nr; i++) {
			put_update(&b, PD_EVENT_UPDATE_UNIT, ids[i][1], "msec", 5);
			put_update(&b, PD_EVENT_UPDATE_SCALE, ids[i][0], &scale, sizeof(scale));
		}
		uint8_t s[TH_SAMPLE_SIZE];
		th_make_sample(s, 12, 0x1234, 3, 4, 99, 1, 250000);
		assert_int_equal(buf_append(&b, s, sizeof(s)), 0);
		struct iovec iov = { b.data, b.len };
		assert_int_equal(writer_append(&w, &iov, 1), 0);
		int ferr;
		assert_int_equal(writer_finish(&w, NULL, 0, &ferr), 0);
		close(fd);

		struct reader r;
		struct err e = { "" };
		assert_int_equal(reader_open_file(&r, path, &e), 0);
		assert_false(reader_has_feature(&r, PD_FEAT_EVENT_DESC));
		struct events names;
		assert_int_equal(events_read(&names, &r), 0);
		assert_int_equal(names.nr, nr);
		assert_string_equal(names.name[0], "cpu-clock:u");
		assert_int_equal(events_find(&names, "cpu-clock"), 0);
		if (nr == 2) {
			assert_string_equal(names.name[1], "sched:sched_switch");
			assert_int_equal(events_find(&names, "sched:sched_switch"), 1);
		}
		/* the names were read in a pass of their own: the records
		 * start again from the first */
		struct reader_record rec;
		assert_int_equal(reader_next(&r, &rec, &e), 1);
		assert_int_equal(rec.type, PD_RECORD_HEADER_ATTR);
		events_free(&names);
		reader_close(&r);
		buf_free(&b);
		unlink(path);
	}
}

/* What a profiled program names (its comm, through prctl) and what a
 * binary or file names (symbols, DSOs) reach a terminal through fold's
 * lines: control characters and broken UTF-8 are escaped, ';' becomes ':'
 * (it separates frames), and stacks that print alike are one line. */
static void test_fold_write_escapes_names(void **state)
{
	(void)state;
	static const char evil[] = "\x1b[2J\x1b]0;pwned\a", tabbed[] = "a\tb\nc\r", c1[] = "x\xc2\x9by",
			  cut[] = "ab\xe6\x97", semi[] = "p;q", colon[] = "p:q", text[] = "caf\xc3\xa9 \\o/", m[] = "main";
	struct fold_result r;
	memset(&r, 0, sizeof(r));
	stacks_init(&r.stacks);
	struct flame_frame s1[] = { { evil, 0 }, { m, 0 }, { tabbed, 0 } };
	struct flame_frame s2[] = { { c1, 0 }, { cut, 0 } };
	struct flame_frame s3[] = { { semi, 0 }, { m, 0 } };
	struct flame_frame s4[] = { { colon, 0 }, { m, 0 } };
	struct flame_frame s5[] = { { text, 0 }, { m, 0 } };
	assert_int_equal(stacks_add(&r.stacks, s1, 3, 5), 0);
	assert_int_equal(stacks_add(&r.stacks, s2, 2, 1), 0);
	assert_int_equal(stacks_add(&r.stacks, s3, 2, 2), 0);
	assert_int_equal(stacks_add(&r.stacks, s4, 2, 3), 0);
	assert_int_equal(stacks_add(&r.stacks, s5, 2, 4), 0);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	assert_non_null(f);
	struct err e = { "" };
	assert_int_equal(fold_write(f, &r, &e), 0);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(out,
			    "\\x1b[2J\\x1b]0:pwned\\x07;main;a\\x09b\\x0ac\\x0d 5\n"
			    "caf\xc3\xa9 \\o/;main 4\n"
			    "p:q;main 5\n"
			    "x\\xc2\\x9by;ab\\xe6\\x97 1\n");
	for (size_t i = 0; i < len; i++)
		assert_true((unsigned char)out[i] >= 0x20 || out[i] == '\n');
	/* the same stacks, the same bytes */
	char *again = NULL;
	size_t alen = 0;
	f = open_memstream(&again, &alen);
	assert_int_equal(fold_write(f, &r, &e), 0);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(alen, len);
	assert_memory_equal(again, out, len);
	free(again);
	free(out);
	stacks_free(&r.stacks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cli_defaults_and_filters),
		cmocka_unit_test(test_cli_errors_are_one_line),
		cmocka_unit_test(test_cli_empty_paths_are_usage_errors),
		cmocka_unit_test(test_cli_flamegraph),
		cmocka_unit_test(test_stacks_merge),
		cmocka_unit_test(test_events_named_by_event_update_name_records),
		cmocka_unit_test(test_fold_write_escapes_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
