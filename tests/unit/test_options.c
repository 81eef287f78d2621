/* test_options.c - the record command line (src/options.c). */
#include "test_helpers.h"

#include <ctype.h>
#include <stdbool.h>
#include <time.h>

#include "cli/options.h"
#include "cli/options_table.h"
#include "record/features.h"
#include "util/sysfile.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])) - 1) /* arrays end with NULL */
#define S(x) ((char *)(x))

struct po {
	struct options o;
	struct err e;
	int rc;
};

static void parse(struct po *p, int argc, char **argv)
{
	memset(p, 0, sizeof(*p));
	options_init(&p->o);
	p->rc = options_parse(&p->o, argc, argv, &p->e);
}

static void expect_usage_error(int argc, char **argv, const char *want)
{
	struct po p;
	parse(&p, argc, argv);
	if (p.rc != -EINVAL)
		fail_msg("options_parse(%s ...) = %d, expected -EINVAL", argc > 1 ? argv[1] : "", p.rc);
	if (!err_is_set(&p.e))
		fail_msg("options_parse(%s ...): no message", argc > 1 ? argv[1] : "");
	if (want && !strstr(p.e.msg, want))
		fail_msg("message '%s' does not mention '%s'", p.e.msg, want);
	options_free(&p.o);
}

/* The kernel's perf_event_max_sample_rate, or -1 when unreadable. */
static int64_t max_rate(void)
{
	int64_t v;
	if (sysfile_read_s64(OPTIONS_MAX_RATE_PATH, &v) != 0 || v <= 0)
		return -1;
	return v;
}

static void test_options_defaults(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("./spin"), S("1"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, 4000);
	assert_int_equal(p.o.cfg.period, 0);
	assert_int_equal(p.o.cfg.mmap_pages, 128);
	assert_string_equal(p.o.cfg.output, "perf.data");
	assert_int_equal(p.o.cfg.clockid, CLOCK_MONOTONIC);
	assert_string_equal(p.o.cfg.clock_name, "monotonic");
	assert_int_equal(p.o.verbose, 0);
	assert_false(p.o.quiet);
	assert_false(p.o.help);
	assert_false(p.o.version);
	/* the default event is added when no -e is given */
	assert_int_equal(p.o.cfg.events.nr, 1);
	assert_true(p.o.cfg.events.ev[0].is_default);
	assert_string_equal(p.o.cfg.events.ev[0].name, "cycles");
	/* the command and the whole line (for CMDLINE) */
	assert_int_equal(p.o.cfg.cmd_argc, 2);
	assert_ptr_equal(p.o.cfg.cmd, argv + 1);
	assert_null(p.o.cfg.cmd[2]);
	assert_int_equal(p.o.cfg.argc, 3);
	assert_ptr_equal(p.o.cfg.argv, argv);
	options_free(&p.o);
}

static void test_options_init_sets_documented_defaults(void **state)
{
	(void)state;
	struct options o;
	memset(&o, 0x55, sizeof(o));
	options_init(&o);
	assert_int_equal(o.cfg.freq, OPTIONS_DEFAULT_FREQ);
	assert_int_equal(OPTIONS_DEFAULT_FREQ, 4000);
	assert_int_equal(o.cfg.mmap_pages, OPTIONS_DEFAULT_PAGES);
	assert_int_equal(OPTIONS_DEFAULT_PAGES, 128);
	assert_string_equal(o.cfg.output, "perf.data");
	assert_int_equal(o.cfg.events.nr, 0);
	assert_null(o.cfg.events.ev);
	assert_null(o.cfg.cmd);
}

static void test_options_freq_999(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-F"), S("999"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, 999);
	assert_int_equal(p.o.cfg.period, 0);
	options_free(&p.o);

	char *argv2[] = { S("psrec"), S("--freq=1000"), S("ls"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, 1000);
	options_free(&p.o);
}

static void test_options_freq_max_reads_kernel_max_sample_rate(void **state)
{
	(void)state;
	int64_t max = max_rate();
	if (max < 0)
		skip();
	char *argv[] = { S("psrec"), S("-F"), S("max"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, (uint64_t)max);
	options_free(&p.o);

	/* exactly the maximum is allowed */
	char num[32];
	snprintf(num, sizeof(num), "%lld", (long long)max);
	char *argv2[] = { S("psrec"), S("-F"), num, S("ls"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, (uint64_t)max);
	options_free(&p.o);
}

static void test_options_freq_above_max_is_einval_naming_the_max(void **state)
{
	(void)state;
	int64_t max = max_rate();
	if (max < 0)
		skip();
	char num[32], smax[32];
	snprintf(num, sizeof(num), "%lld", (long long)max + 1);
	snprintf(smax, sizeof(smax), "%lld", (long long)max);
	char *argv[] = { S("psrec"), S("-F"), num, S("ls"), NULL };
	expect_usage_error(ARGC(argv), argv, smax);
}

static void test_options_freq_zero_or_not_a_number_is_einval(void **state)
{
	(void)state;
	static const char *const bad[] = { "0", "abc", "-5", "+5", "10k", "", "1.5", " 5",
					   "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("-F"), S(bad[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "-F");
	}
}

static void test_options_count_sets_period(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-c"), S("100000"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.period, 100000);
	options_free(&p.o);

	char *bad[] = { S("psrec"), S("-c"), S("0"), S("ls"), NULL };
	expect_usage_error(ARGC(bad), bad, "-c");
	char *bad2[] = { S("psrec"), S("--count=x"), S("ls"), NULL };
	expect_usage_error(ARGC(bad2), bad2, "-c");
}

static void test_options_count_and_freq_together_is_einval(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-c"), S("1000"), S("-F"), S("99"), S("ls"), NULL };
	expect_usage_error(ARGC(argv), argv, "-F");
	char *argv2[] = { S("psrec"), S("-F"), S("99"), S("-c"), S("1000"), S("ls"), NULL };
	expect_usage_error(ARGC(argv2), argv2, "-c");
}

static void expect_pages(const char *arg, size_t pages)
{
	char *argv[] = { S("psrec"), S("-m"), S(arg), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	if (p.rc != 0)
		fail_msg("-m %s: %d (%s)", arg, p.rc, p.e.msg);
	assert_int_equal(p.o.cfg.mmap_pages, pages);
	options_free(&p.o);
}

static void test_options_mmap_pages_as_count_or_size(void **state)
{
	(void)state;
	expect_pages("8", 8);
	expect_pages("1", 1);
	expect_pages("1024", 1024);
	expect_pages("512K", 128);
	expect_pages("512k", 128);
	expect_pages("512KB", 128);
	expect_pages("2M", 512);
	expect_pages("1G", 262144);
	expect_pages("4096B", 1);
}

static void test_options_mmap_pages_not_power_of_two_is_einval(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-m"), S("3"), S("ls"), NULL };
	expect_usage_error(ARGC(argv), argv, "power of two");
	char *argv2[] = { S("psrec"), S("-m"), S("12K"), S("ls"), NULL }; /* 3 pages */
	expect_usage_error(ARGC(argv2), argv2, "power of two");
}

static void test_options_mmap_pages_malformed_is_einval(void **state)
{
	(void)state;
	static const char *const bad[] = { "0", "abc", "-8", "1K" /* not a page multiple */,
					   "8X", "8KK", "", "2097152" /* > 1M pages */ };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("-m"), S(bad[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "-m");
	}
}

static void test_options_output(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-o"), S("run.data"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_string_equal(p.o.cfg.output, "run.data");
	options_free(&p.o);

	char *empty[] = { S("psrec"), S("-o"), S(""), S("ls"), NULL };
	expect_usage_error(ARGC(empty), empty, "-o");
	/* -o - streams to stdout, unless stdout is a terminal. */
	char *dash[] = { S("psrec"), S("-o"), S("-"), S("ls"), NULL };
	if (isatty(STDOUT_FILENO)) {
		expect_usage_error(ARGC(dash), dash, "standard output is a terminal");
	} else {
		parse(&p, ARGC(dash), dash);
		assert_int_equal(p.rc, 0);
		assert_true(p.o.cfg.pipe);
		options_free(&p.o);
	}
}

static void test_options_switch_output_spellings(void **state)
{
	(void)state;
	struct po p;
	/* No argument: signal, as perf record's default. */
	char *bare[] = { S("psrec"), S("--switch-output"), S("ls"), NULL };
	parse(&p, ARGC(bare), bare);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.switch_output.mode, ROTATE_SIGNAL);
	assert_string_equal(p.o.cfg.cmd[0], "ls");  /* not taken as the argument */
	options_free(&p.o);

	char *all[] = { S("psrec"), S("--switch-output=10s"), S("--switch-max-files=3"),
			S("--switch-output-command"), S("./ship.sh"), S("-a"), NULL };
	parse(&p, ARGC(all), all);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.switch_output.mode, ROTATE_TIME);
	assert_int_equal(p.o.cfg.switch_output.ms, 10000);
	assert_int_equal(p.o.cfg.switch_output.max_files, 3);
	assert_string_equal(p.o.cfg.switch_output.command, "./ship.sh");
	options_free(&p.o);

	char *size[] = { S("psrec"), S("--switch-output=100M"), S("ls"), NULL };
	parse(&p, ARGC(size), size);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.switch_output.mode, ROTATE_SIZE);
	assert_int_equal(p.o.cfg.switch_output.bytes, 100ULL << 20);
	options_free(&p.o);

	/* Without --switch-output the other two mean nothing. */
	char *max[] = { S("psrec"), S("--switch-max-files=2"), S("ls"), NULL };
	expect_usage_error(ARGC(max), max, "add --switch-output");
	char *cmd[] = { S("psrec"), S("--switch-output-command=true"), S("ls"), NULL };
	expect_usage_error(ARGC(cmd), cmd, "add --switch-output");
	char *bad[] = { S("psrec"), S("--switch-output=10"), S("ls"), NULL };
	expect_usage_error(ARGC(bad), bad, "--switch-output '10'");
	char *none[] = { S("psrec"), S("--switch-output=1s"), S("--switch-output-command="), S("ls"), NULL };
	expect_usage_error(ARGC(none), none, "empty command");
	/* A stream cannot be cut into files. */
	if (!isatty(STDOUT_FILENO)) {
		char *dash[] = { S("psrec"), S("--switch-output=1s"), S("-o"), S("-"), S("ls"), NULL };
		expect_usage_error(ARGC(dash), dash, "give -o FILE");
	}
}

static void test_options_compression_levels(void **state)
{
	(void)state;
	struct po p;
	char *z[] = { S("psrec"), S("-z"), S("ls"), NULL };
	parse(&p, ARGC(z), z);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.compress_level, 1);
	options_free(&p.o);
	char *lv[] = { S("psrec"), S("--compression-level=7"), S("ls"), NULL };
	parse(&p, ARGC(lv), lv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.compress_level, 7);
	options_free(&p.o);
	char *none[] = { S("psrec"), S("ls"), NULL };
	parse(&p, ARGC(none), none);
	assert_int_equal(p.o.cfg.compress_level, 0);
	options_free(&p.o);
	char *bad0[] = { S("psrec"), S("--compression-level=0"), S("ls"), NULL };
	expect_usage_error(ARGC(bad0), bad0, "1 to 22");
	char *bad23[] = { S("psrec"), S("--compression-level=23"), S("ls"), NULL };
	expect_usage_error(ARGC(bad23), bad23, "1 to 22");
	char *badx[] = { S("psrec"), S("--compression-level=fast"), S("ls"), NULL };
	expect_usage_error(ARGC(badx), badx, "--compression-level 'fast'");
	/* Attached, as perf takes it. */
	char *att[] = { S("psrec"), S("-z5"), S("ls"), NULL };
	parse(&p, ARGC(att), att);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.compress_level, 5);
	options_free(&p.o);
}

/* "-z 23 -- true" ran a command named 23 (issue 22): a bare -z, then a
 * word of digits, is refused; "-z -- 23" and "-z cmd" are commands. */
static void test_options_bare_z_then_a_number_is_refused(void **state)
{
	(void)state;
	struct po p;
	char *sp[] = { S("psrec"), S("-z"), S("23"), S("--"), S("true"), NULL };
	expect_usage_error(ARGC(sp), sp, "-z 23: the level is written -z23 or --compression-level=23 "
			   "(a command named 23 goes after --)");
	char *prog[] = { S("psrec"), S("-z"), S("5"), S("./prog"), NULL };
	expect_usage_error(ARGC(prog), prog, "-z 5: the level is written -z5");
	char *grp[] = { S("psrec"), S("-gz"), S("5"), S("ls"), NULL };
	expect_usage_error(ARGC(grp), grp, "-gz 5: the level is written -z5");
	char *lng[] = { S("psrec"), S("--compression-level"), S("3"), S("ls"), NULL };
	expect_usage_error(ARGC(lng), lng, "--compression-level 3: the level is written -z3 or --compression-level=3");
	char *dd[] = { S("psrec"), S("-z"), S("--"), S("23"), NULL };
	parse(&p, ARGC(dd), dd);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.compress_level, 1);
	assert_string_equal(p.o.cfg.cmd[0], "23");
	options_free(&p.o);
	char *cmd[] = { S("psrec"), S("-z"), S("ls"), S("5"), NULL };
	parse(&p, ARGC(cmd), cmd);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.compress_level, 1);
	assert_string_equal(p.o.cfg.cmd[0], "ls");
	assert_int_equal(p.o.cfg.cmd_argc, 2);
	options_free(&p.o);
	char *mix[] = { S("psrec"), S("-z2x"), S("ls"), NULL };
	expect_usage_error(ARGC(mix), mix, "--compression-level '2x'");
}

static void expect_clock(const char *arg, int id)
{
	char *argv[] = { S("psrec"), S("-k"), S(arg), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	if (p.rc != 0)
		fail_msg("-k %s: %d (%s)", arg, p.rc, p.e.msg);
	assert_int_equal(p.o.cfg.clockid, id);
	options_free(&p.o);
}

static void test_options_clockid_names_and_numbers(void **state)
{
	(void)state;
	expect_clock("realtime", CLOCK_REALTIME);
	expect_clock("CLOCK_REALTIME", CLOCK_REALTIME);
	expect_clock("monotonic", CLOCK_MONOTONIC);
	expect_clock("mono", CLOCK_MONOTONIC);
	expect_clock("monotonic_raw", CLOCK_MONOTONIC_RAW);
	expect_clock("boottime", CLOCK_BOOTTIME);
	expect_clock("tai", CLOCK_TAI);
	expect_clock("0", CLOCK_REALTIME);
	expect_clock("7", CLOCK_BOOTTIME);

	char *argv[] = { S("psrec"), S("-k"), S("realtime"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_string_equal(p.o.cfg.clock_name, "realtime");
	options_free(&p.o);
}

static void test_options_unknown_clock_is_einval(void **state)
{
	(void)state;
	static const char *const bad[] = { "bogus", "3" /* CLOCK_THREAD_CPUTIME_ID */, "-1", "" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("-k"), S(bad[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "-k");
	}
}

static void test_options_unknown_option_is_einval(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-x"), S("ls"), NULL };
	expect_usage_error(ARGC(argv), argv, "-x");
	char *argv2[] = { S("psrec"), S("--bogus"), S("ls"), NULL };
	expect_usage_error(ARGC(argv2), argv2, "--bogus");
	/* A long-only option has no short spelling. */
	char *argv3[] = { S("psrec"), S("-D"), S("1"), S("true"), NULL };
	expect_usage_error(ARGC(argv3), argv3, "unknown option '-D'");
}

static void test_options_missing_option_argument_is_einval(void **state)
{
	(void)state;
	/* "-F" as the last word: no argument */
	char *argv2[] = { S("psrec"), S("-F"), NULL };
	expect_usage_error(ARGC(argv2), argv2, "-F");
	char *argv3[] = { S("psrec"), S("--event"), NULL };
	expect_usage_error(ARGC(argv3), argv3, "--event");
}

static void test_options_missing_command_is_einval(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), NULL };
	expect_usage_error(ARGC(argv), argv, "command");
	char *argv2[] = { S("psrec"), S("-F"), S("99"), NULL };
	expect_usage_error(ARGC(argv2), argv2, "command");
	char *argv3[] = { S("psrec"), S("-F"), S("99"), S("--"), NULL };
	expect_usage_error(ARGC(argv3), argv3, "command");
}

static void test_options_command_after_double_dash(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-F"), S("999"), S("--"), S("ls"), S("-l"), S("-F"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, 999);
	assert_int_equal(p.o.cfg.cmd_argc, 3);
	assert_ptr_equal(p.o.cfg.cmd, argv + 4);
	assert_string_equal(p.o.cfg.cmd[0], "ls");
	assert_string_equal(p.o.cfg.cmd[1], "-l");
	assert_string_equal(p.o.cfg.cmd[2], "-F");
	assert_null(p.o.cfg.cmd[3]);
	options_free(&p.o);

	/* a command that looks like an option, after -- */
	char *argv2[] = { S("psrec"), S("--"), S("-weird"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_string_equal(p.o.cfg.cmd[0], "-weird");
	options_free(&p.o);
}

static void test_options_parsing_stops_at_first_non_option(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-F"), S("999"), S("ls"), S("-F"), S("1"), S("-x"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.freq, 999); /* the command's -F 1 is not ours */
	assert_int_equal(p.o.cfg.cmd_argc, 4);
	assert_ptr_equal(p.o.cfg.cmd, argv + 3);
	assert_string_equal(p.o.cfg.cmd[0], "ls");
	assert_string_equal(p.o.cfg.cmd[3], "-x");
	/* argv is not permuted */
	assert_string_equal(argv[1], "-F");
	assert_string_equal(argv[3], "ls");
	options_free(&p.o);
}

static void test_options_repeated_events_accumulate(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-e"), S("cpu-clock"), S("-e"), S("task-clock:u,cs"),
			 S("--event=faults"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.events.nr, 4);
	assert_string_equal(p.o.cfg.events.ev[0].name, "cpu-clock");
	assert_string_equal(p.o.cfg.events.ev[1].name, "task-clock:u");
	assert_string_equal(p.o.cfg.events.ev[2].name, "context-switches");
	assert_string_equal(p.o.cfg.events.ev[3].name, "page-faults");
	for (size_t i = 0; i < 4; i++)
		assert_false(p.o.cfg.events.ev[i].is_default);
	options_free(&p.o);
}

static void test_options_bad_event_is_einval_naming_it(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-e"), S("bogus"), S("ls"), NULL };
	expect_usage_error(ARGC(argv), argv, "bogus");
}

static void test_options_help_and_version_need_no_command(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-h"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.help);
	options_free(&p.o);

	char *argv2[] = { S("psrec"), S("--version"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.version);
	options_free(&p.o);

	struct options_help h;
	assert_non_null(strstr(options_usage(&h), "usage: psrec"));
}

static void test_options_quiet_and_verbose(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-q"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.quiet);
	options_free(&p.o);

	char *argv2[] = { S("psrec"), S("-vv"), S("--verbose"), S("ls"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.verbose, 3);
	options_free(&p.o);

	/* verbose wins over quiet */
	char *argv3[] = { S("psrec"), S("-q"), S("-v"), S("ls"), NULL };
	parse(&p, ARGC(argv3), argv3);
	assert_int_equal(p.rc, 0);
	assert_false(p.o.quiet);
	assert_int_equal(p.o.verbose, 1);
	options_free(&p.o);
}

static void test_options_grouped_and_attached_short_options(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-qF999"), S("-m8"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.quiet);
	assert_int_equal(p.o.cfg.freq, 999);
	assert_int_equal(p.o.cfg.mmap_pages, 8);
	options_free(&p.o);
}

static void test_options_parse_can_be_called_again_after_a_full_parse(void **state)
{
	(void)state;
	struct po p;
	for (int i = 0; i < 3; i++) {
		char *argv[] = { S("psrec"), S("-F"), S("123"), S("ls"), NULL };
		parse(&p, ARGC(argv), argv);
		assert_int_equal(p.rc, 0);
		assert_int_equal(p.o.cfg.freq, 123);
		assert_string_equal(p.o.cfg.cmd[0], "ls");
		options_free(&p.o);
	}
}

/* The parse result of the test below, freed by its teardown even when an
 * assertion fails. */
static struct po cur;

static int free_cur(void **state)
{
	(void)state;
	options_free(&cur.o);
	return 0;
}

/*
 * Regression: glibc getopt keeps its position inside a group of short
 * options ("-hq": -h returns at once) unless optind is reset to 0, not 1.
 * A later options_parse must start fresh instead of resuming in the
 * previous (possibly freed) argv.
 */
static void test_options_parse_after_early_return_in_option_group_starts_fresh(void **state)
{
	(void)state;
	static char a0[] = "psrec", a1[] = "-hq";
	char *first[] = { a0, a1, NULL };
	parse(&cur, ARGC(first), first);
	assert_int_equal(cur.rc, 0);
	assert_true(cur.o.help);
	options_free(&cur.o);

	char *second[] = { S("psrec"), S("-F"), S("999"), S("ls"), NULL };
	parse(&cur, ARGC(second), second);
	assert_int_equal(cur.rc, 0);
	assert_false(cur.o.quiet);          /* the "q" of the previous argv is not ours */
	assert_int_equal(cur.o.cfg.freq, 999);
	assert_non_null(cur.o.cfg.cmd);
	assert_string_equal(cur.o.cfg.cmd[0], "ls");
}

/* ---- targets: -p, -t, -a, -C, --duration -------------------------------- */

static void test_options_pid_single_list_and_repeated_accumulate(void **state)
{
	(void)state;
	char *one[] = { S("psrec"), S("-p"), S("1234"), NULL };
	struct po p;
	parse(&p, ARGC(one), one);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.nr_pids, 1);
	assert_int_equal(p.o.cfg.pids[0], 1234);
	assert_int_equal(p.o.cfg.nr_tids, 0);
	assert_false(p.o.cfg.system_wide);
	options_free(&p.o);

	char *list[] = { S("psrec"), S("-p"), S("1,2,3"), NULL };
	parse(&p, ARGC(list), list);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.nr_pids, 3);
	assert_int_equal(p.o.cfg.pids[0], 1);
	assert_int_equal(p.o.cfg.pids[1], 2);
	assert_int_equal(p.o.cfg.pids[2], 3);
	options_free(&p.o);

	char *rep[] = { S("psrec"), S("-p"), S("10"), S("-p"), S("20,30"), S("--pid=40"), S("--pid"), S("50"),
			S("-p60"), NULL };
	parse(&p, ARGC(rep), rep);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.nr_pids, 6);
	static const pid_t want[] = { 10, 20, 30, 40, 50, 60 };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(p.o.cfg.pids[i], want[i]);
	options_free(&p.o);
}

static void test_options_pid_alone_needs_no_command(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-F"), S("999"), S("-p"), S("4321"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_null(p.o.cfg.cmd);
	assert_int_equal(p.o.cfg.cmd_argc, 0);
	assert_int_equal(p.o.cfg.freq, 999);
	/* the default event is still added */
	assert_int_equal(p.o.cfg.events.nr, 1);
	assert_true(p.o.cfg.events.ev[0].is_default);
	options_free(&p.o);

	/* a "--" with nothing after it is not a command either */
	char *argv2[] = { S("psrec"), S("-p"), S("4321"), S("--"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_null(p.o.cfg.cmd);
	options_free(&p.o);
}

static void test_options_tid_list_and_combined_with_pid(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-t"), S("7,8"), S("--tid=9"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.nr_tids, 3);
	assert_int_equal(p.o.cfg.tids[0], 7);
	assert_int_equal(p.o.cfg.tids[1], 8);
	assert_int_equal(p.o.cfg.tids[2], 9);
	assert_int_equal(p.o.cfg.nr_pids, 0);
	assert_null(p.o.cfg.cmd);
	options_free(&p.o);

	/* -p and -t may be combined */
	char *both[] = { S("psrec"), S("-p"), S("100"), S("-t"), S("201"), NULL };
	parse(&p, ARGC(both), both);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.nr_pids, 1);
	assert_int_equal(p.o.cfg.pids[0], 100);
	assert_int_equal(p.o.cfg.nr_tids, 1);
	assert_int_equal(p.o.cfg.tids[0], 201);
	options_free(&p.o);
}

static void test_options_all_cpus_is_system_wide_without_command(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("-a"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.system_wide);
	assert_null(p.o.cfg.cmd);
	assert_int_equal(p.o.cfg.nr_pids, 0);
	assert_int_equal(p.o.cfg.nr_tids, 0);
	options_free(&p.o);

	char *argv2[] = { S("psrec"), S("--all-cpus"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.system_wide);
	options_free(&p.o);
}

static void test_options_bad_pid_lists_are_einval_naming_the_option(void **state)
{
	(void)state;
	static const char *const bad[] = { "0", "abc", "-5", "", "1,", "1,,2", ",1", "1x", "1 2", "+3",
					   "0x10", "99999999999", "2147483648", "1,0" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("-p"), S(bad[i]), NULL };
		expect_usage_error(ARGC(argv), argv, "-p");
		char *argv2[] = { S("psrec"), S("-t"), S(bad[i]), NULL };
		expect_usage_error(ARGC(argv2), argv2, "-t");
	}
	/* the message names the problem */
	char *zero[] = { S("psrec"), S("-p"), S("0"), NULL };
	expect_usage_error(ARGC(zero), zero, "start at 1");
	char *empty[] = { S("psrec"), S("-p"), S(""), NULL };
	expect_usage_error(ARGC(empty), empty, "empty");
	char *comma[] = { S("psrec"), S("-p"), S("1,"), NULL };
	expect_usage_error(ARGC(comma), comma, "trailing comma");
	char *word[] = { S("psrec"), S("-p"), S("abc"), NULL };
	expect_usage_error(ARGC(word), word, "'abc'");
	/* -p as the last word has no argument */
	char *none[] = { S("psrec"), S("-p"), NULL };
	expect_usage_error(ARGC(none), none, "-p");
}

static void test_options_pid_or_tid_or_all_with_a_command_is_einval(void **state)
{
	(void)state;
	char *p_cmd[] = { S("psrec"), S("-p"), S("1234"), S("ls"), NULL };
	expect_usage_error(ARGC(p_cmd), p_cmd, "cannot be combined");
	char *p_dd[] = { S("psrec"), S("-p"), S("1234"), S("--"), S("ls"), NULL };
	expect_usage_error(ARGC(p_dd), p_dd, "cannot be combined");
	char *t_cmd[] = { S("psrec"), S("-t"), S("1234"), S("ls"), NULL };
	expect_usage_error(ARGC(t_cmd), t_cmd, "cannot be combined");
	char *a_cmd[] = { S("psrec"), S("-a"), S("ls"), NULL };
	expect_usage_error(ARGC(a_cmd), a_cmd, "cannot be combined");
	/* the message names the option */
	expect_usage_error(ARGC(p_cmd), p_cmd, "-p");
	expect_usage_error(ARGC(t_cmd), t_cmd, "-t");
	expect_usage_error(ARGC(a_cmd), a_cmd, "-a");
}

static void test_options_all_cpus_with_pid_or_tid_is_einval(void **state)
{
	(void)state;
	char *ap[] = { S("psrec"), S("-a"), S("-p"), S("1234"), NULL };
	expect_usage_error(ARGC(ap), ap, "-p");
	char *pa[] = { S("psrec"), S("-p"), S("1234"), S("-a"), NULL };
	expect_usage_error(ARGC(pa), pa, "-a");
	char *at[] = { S("psrec"), S("-a"), S("-t"), S("1234"), NULL };
	expect_usage_error(ARGC(at), at, "-t");
}

static void test_options_no_command_and_no_target_is_einval(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("--duration"), S("5"), NULL };
	expect_usage_error(ARGC(argv), argv, "no command");
	char *argv2[] = { S("psrec"), NULL };
	expect_usage_error(ARGC(argv2), argv2, "-p PID");
}

/* The first CPU of /sys/devices/system/cpu/online, or -1. */
static int first_online_cpu(void)
{
	char s[4096];
	int *cpus, n;
	if (sysfile_read_str("/sys/devices/system/cpu/online", s, sizeof(s)) || cpulist_parse(s, &cpus, &n))
		return -1;
	int c = n > 0 ? cpus[0] : -1;
	free(cpus);
	return c;
}

static void test_options_cpu_list_of_an_online_cpu(void **state)
{
	(void)state;
	int cpu = first_online_cpu();
	if (cpu < 0)
		skip();
	char arg[16];
	snprintf(arg, sizeof(arg), "%d", cpu);
	char *argv[] = { S("psrec"), S("-a"), S("-C"), arg, NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	if (p.rc != 0)
		fail_msg("-C %s: %d (%s)", arg, p.rc, p.e.msg);
	assert_int_equal(p.o.cfg.nr_cpus, 1);
	assert_int_equal(p.o.cfg.cpus[0], cpu);
	assert_non_null(p.o.cfg.cpu_list);
	assert_string_equal(p.o.cfg.cpu_list, arg);
	options_free(&p.o);

	/* with a command too, and the long spelling; a repeated -C replaces */
	char *argv2[] = { S("psrec"), S("-C"), arg, S("--cpu"), arg, S("ls"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.nr_cpus, 1);
	assert_int_equal(p.o.cfg.cpus[0], cpu);
	options_free(&p.o);
}

static void test_options_cpu_not_online_is_einval_saying_so(void **state)
{
	(void)state;
	if (first_online_cpu() < 0)
		skip(); /* nothing to check against */
	char *argv[] = { S("psrec"), S("-a"), S("-C"), S("99999"), NULL };
	expect_usage_error(ARGC(argv), argv, "not online");
	expect_usage_error(ARGC(argv), argv, "99999");
}

static void test_options_malformed_cpu_list_is_einval(void **state)
{
	(void)state;
	static const char *const bad[] = { "x", "", "1-", "-1", "3-1", "0,", "0,,1", "0 1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("-a"), S("-C"), S(bad[i]), NULL };
		expect_usage_error(ARGC(argv), argv, "-C");
	}
}

static void test_options_duration_takes_fractional_seconds(void **state)
{
	(void)state;
	char *argv[] = { S("psrec"), S("--duration"), S("1.5"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.duration == 1.5);
	options_free(&p.o);

	char *argv2[] = { S("psrec"), S("--duration=10"), S("-p"), S("1"), NULL };
	parse(&p, ARGC(argv2), argv2);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.duration == 10.0);
	options_free(&p.o);

	/* default: until the end */
	char *argv3[] = { S("psrec"), S("ls"), NULL };
	parse(&p, ARGC(argv3), argv3);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.duration == 0.0);
	options_free(&p.o);
}

static void test_options_duration_zero_negative_or_not_finite_is_einval(void **state)
{
	(void)state;
	static const char *const bad[] = { "0", "0.0", "-1", "abc", "inf", "nan", "", "1.5s", " 2", "1e999" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("--duration"), S(bad[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "--duration");
	}
}

/* The loop counts whole milliseconds and takes 0 as "no limit": what
 * record.c computes from the duration must never round to 0. */
static uint64_t loop_ms(double seconds)
{
	return (uint64_t)(seconds * 1000.0 + 0.5);
}

static void test_options_duration_below_a_millisecond_still_limits(void **state)
{
	(void)state;
	static const char *const tiny[] = { "0.0001", "0.0004999", "0.0005", "0.000999", "1e-9", "1e-400" };
	for (size_t i = 0; i < sizeof(tiny) / sizeof(tiny[0]); i++) {
		char *argv[] = { S("psrec"), S("--duration"), S(tiny[i]), S("ls"), NULL };
		struct po p;
		parse(&p, ARGC(argv), argv);
		if (p.rc != 0)
			fail_msg("--duration %s: %d (%s)", tiny[i], p.rc, p.e.msg);
		if (loop_ms(p.o.cfg.duration) == 0)
			fail_msg("--duration %s: %g s becomes 0 ms, no limit at all", tiny[i], p.o.cfg.duration);
		assert_true(p.o.cfg.duration == OPTIONS_MIN_DURATION);
		options_free(&p.o);
	}
	/* a millisecond and more are kept as given */
	char *argv[] = { S("psrec"), S("--duration"), S("0.0015"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.duration == 0.0015);
	options_free(&p.o);
}

static void expect_duration(const char *arg, double want)
{
	char *argv[] = { S("psrec"), S("--duration"), S(arg), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(argv), argv);
	if (p.rc != 0)
		fail_msg("--duration %s: %d (%s)", arg, p.rc, p.e.msg);
	if (p.o.cfg.duration != want)
		fail_msg("--duration %s: %g, expected %g", arg, p.o.cfg.duration, want);
	options_free(&p.o);
}

static void test_options_duration_takes_only_plain_decimal_numbers(void **state)
{
	(void)state;
	expect_duration("2", 2.0);
	expect_duration("5.", 5.0);
	expect_duration("1e3", 1000.0);
	expect_duration("2.5E-1", 0.25);
	expect_duration("1e+1", 10.0);
	/* strtod takes all of these: hex (0x10 = 16 s), infinity, nan */
	static const char *const bad[] = { "0x10", "0X10", "0x1p3", "infinity", "INF", "nan(1)", "1e", "1e+",
					   "1.2.3", ".5", "1,5", "0e-400" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { S("psrec"), S("--duration"), S(bad[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "decimal number of seconds");
	}
	char *big[] = { S("psrec"), S("--duration"), S("2e9"), S("ls"), NULL };
	expect_usage_error(ARGC(big), big, "too long");
}

static void test_options_count_too_large_for_the_kernel_is_einval(void **state)
{
	(void)state;
	/* bit 63 set, or not a u64 at all */
	static const char *const big[] = { "18446744073709551615", "18446744073709551616",
					   "9223372036854775808", "99999999999999999999999" };
	for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		char *argv[] = { S("psrec"), S("-c"), S(big[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "too large");
		expect_usage_error(ARGC(argv), argv, "9223372036854775807");
	}
	char *max[] = { S("psrec"), S("-c"), S("9223372036854775807"), S("ls"), NULL };
	struct po p;
	parse(&p, ARGC(max), max);
	assert_int_equal(p.rc, 0);
	assert_true(p.o.cfg.period == (uint64_t)INT64_MAX);
	options_free(&p.o);
	static const char *const junk[] = { "-1", "+5", "", "1k", " 5" };
	for (size_t i = 0; i < sizeof(junk) / sizeof(junk[0]); i++) {
		char *argv[] = { S("psrec"), S("-c"), S(junk[i]), S("ls"), NULL };
		expect_usage_error(ARGC(argv), argv, "expected a sample period");
	}
}

static void test_options_more_events_than_the_header_holds_is_einval(void **state)
{
	(void)state;
	enum { N = FEATURES_MAX_EVENTS + 1 };
	char *argv[2 * N + 3];
	int argc = 0;
	argv[argc++] = S("psrec");
	for (int i = 0; i < FEATURES_MAX_EVENTS; i++) {
		argv[argc++] = S("-e");
		argv[argc++] = S("cpu-clock");
	}
	argv[argc++] = S("ls");
	argv[argc] = NULL;
	struct po p;
	parse(&p, argc, argv);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.events.nr, FEATURES_MAX_EVENTS);
	options_free(&p.o);

	/* one more, as a separate -e */
	argv[argc - 1] = S("-e");
	argv[argc++] = S("cs");
	argv[argc++] = S("ls");
	argv[argc] = NULL;
	expect_usage_error(argc, argv, "too many events (65)");

	/* or inside one list */
	char list[16 * N];
	list[0] = '\0';
	for (int i = 0; i < N; i++)
		strcat(list, i ? ",cs" : "cs");
	char *one[] = { S("psrec"), S("-e"), list, S("ls"), NULL };
	expect_usage_error(ARGC(one), one, "at most 64");
}

static void test_options_g_and_call_graph_modes(void **state)
{
	(void)state;
	char *a1[] = { S("psrec"), S("-g"), S("true"), NULL };
	struct po p;
	parse(&p, ARGC(a1), a1);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.callgraph.mode, CALLGRAPH_FP);
	options_free(&p.o);

	char *a2[] = { S("psrec"), S("--call-graph"), S("dwarf,16384"), S("--max-stack"), S("20"), S("true"), NULL };
	parse(&p, ARGC(a2), a2);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.callgraph.mode, CALLGRAPH_DWARF);
	assert_int_equal(p.o.cfg.callgraph.stack_size, 16384);
	assert_int_equal(p.o.cfg.callgraph.max_stack, 20);
	options_free(&p.o);

	char *a3[] = { S("psrec"), S("--call-graph=fp"), S("-p"), S("1"), NULL };
	parse(&p, ARGC(a3), a3);
	assert_int_equal(p.rc, 0);
	assert_int_equal(p.o.cfg.callgraph.mode, CALLGRAPH_FP);
	options_free(&p.o);
}

static void test_options_bad_call_graph_and_max_stack_are_usage_errors(void **state)
{
	(void)state;
	char *a1[] = { S("psrec"), S("--max-stack"), S("5"), S("true"), NULL };
	expect_usage_error(ARGC(a1), a1, "add -g");
	char *a2[] = { S("psrec"), S("-g"), S("--max-stack"), S("0"), S("true"), NULL };
	expect_usage_error(ARGC(a2), a2, "--max-stack '0'");
	char *a3[] = { S("psrec"), S("-g"), S("--max-stack"), S("abc"), S("true"), NULL };
	expect_usage_error(ARGC(a3), a3, "--max-stack 'abc'");
	char *a4[] = { S("psrec"), S("-g"), S("--max-stack"), S("65535"), S("true"), NULL };
	int64_t max;
	if (sysfile_read_s64(CALLGRAPH_MAX_STACK_PATH, &max) == 0 && max < 65535)
		expect_usage_error(ARGC(a4), a4, "perf_event_max_stack");
	char *a5[] = { S("psrec"), S("--call-graph"), S("dwarf,7"), S("true"), NULL };
	expect_usage_error(ARGC(a5), a5, "too small");
	char *a6[] = { S("psrec"), S("--call-graph"), S("nonsense"), S("true"), NULL };
	expect_usage_error(ARGC(a6), a6, "expected fp, dwarf[,SIZE] or lbr");
}

/* ---- the option table and the texts that list the options ---- */

static void test_options_help_states_the_defaults_options_init_sets(void **state)
{
	(void)state;
	struct options_help h;
	const char *text = options_usage(&h);
	/* The whole text fits: it ends as the table's text does. */
	assert_true(cli_table_help(&options_table, h.text, sizeof(h.text)) < sizeof(h.text));
	size_t len = strlen(text);
	assert_true(len > 0 && text[len - 1] == '\n');
	assert_non_null(strstr(text, "read the recording\n"));

	char flat[sizeof(h.text)];
	memcpy(flat, text, len + 1);
	th_squeeze(flat);
	/* Every row is listed with its default: test_cli.c. */
	/* The defaults stated are the ones options_init sets. */
	char def[64];
	snprintf(def, sizeof(def), "(default: %d)", OPTIONS_DEFAULT_FREQ);
	assert_non_null(strstr(flat, def));
	snprintf(def, sizeof(def), "(default: %s)", OPTIONS_DEFAULT_OUTPUT);
	assert_non_null(strstr(flat, def));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_options_defaults),
		cmocka_unit_test(test_options_init_sets_documented_defaults),
		cmocka_unit_test(test_options_freq_999),
		cmocka_unit_test(test_options_freq_max_reads_kernel_max_sample_rate),
		cmocka_unit_test(test_options_freq_above_max_is_einval_naming_the_max),
		cmocka_unit_test(test_options_freq_zero_or_not_a_number_is_einval),
		cmocka_unit_test(test_options_count_sets_period),
		cmocka_unit_test(test_options_count_and_freq_together_is_einval),
		cmocka_unit_test(test_options_mmap_pages_as_count_or_size),
		cmocka_unit_test(test_options_mmap_pages_not_power_of_two_is_einval),
		cmocka_unit_test(test_options_mmap_pages_malformed_is_einval),
		cmocka_unit_test(test_options_output),
		cmocka_unit_test(test_options_switch_output_spellings),
		cmocka_unit_test(test_options_compression_levels),
		cmocka_unit_test(test_options_bare_z_then_a_number_is_refused),
		cmocka_unit_test(test_options_clockid_names_and_numbers),
		cmocka_unit_test(test_options_unknown_clock_is_einval),
		cmocka_unit_test(test_options_unknown_option_is_einval),
		cmocka_unit_test(test_options_missing_option_argument_is_einval),
		cmocka_unit_test(test_options_missing_command_is_einval),
		cmocka_unit_test(test_options_command_after_double_dash),
		cmocka_unit_test(test_options_parsing_stops_at_first_non_option),
		cmocka_unit_test(test_options_repeated_events_accumulate),
		cmocka_unit_test(test_options_bad_event_is_einval_naming_it),
		cmocka_unit_test(test_options_help_and_version_need_no_command),
		cmocka_unit_test(test_options_quiet_and_verbose),
		cmocka_unit_test(test_options_grouped_and_attached_short_options),
		cmocka_unit_test(test_options_parse_can_be_called_again_after_a_full_parse),
		cmocka_unit_test_teardown(test_options_parse_after_early_return_in_option_group_starts_fresh, free_cur),
		cmocka_unit_test(test_options_pid_single_list_and_repeated_accumulate),
		cmocka_unit_test(test_options_pid_alone_needs_no_command),
		cmocka_unit_test(test_options_tid_list_and_combined_with_pid),
		cmocka_unit_test(test_options_all_cpus_is_system_wide_without_command),
		cmocka_unit_test(test_options_bad_pid_lists_are_einval_naming_the_option),
		cmocka_unit_test(test_options_pid_or_tid_or_all_with_a_command_is_einval),
		cmocka_unit_test(test_options_all_cpus_with_pid_or_tid_is_einval),
		cmocka_unit_test(test_options_no_command_and_no_target_is_einval),
		cmocka_unit_test(test_options_cpu_list_of_an_online_cpu),
		cmocka_unit_test(test_options_cpu_not_online_is_einval_saying_so),
		cmocka_unit_test(test_options_malformed_cpu_list_is_einval),
		cmocka_unit_test(test_options_duration_takes_fractional_seconds),
		cmocka_unit_test(test_options_duration_zero_negative_or_not_finite_is_einval),
		cmocka_unit_test(test_options_duration_below_a_millisecond_still_limits),
		cmocka_unit_test(test_options_duration_takes_only_plain_decimal_numbers),
		cmocka_unit_test(test_options_count_too_large_for_the_kernel_is_einval),
		cmocka_unit_test(test_options_more_events_than_the_header_holds_is_einval),
		cmocka_unit_test(test_options_g_and_call_graph_modes),
		cmocka_unit_test(test_options_bad_call_graph_and_max_stack_are_usage_errors),
		cmocka_unit_test(test_options_help_states_the_defaults_options_init_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
