/*
 * options.c - record options (see options.h). perf record's spellings; the
 * list of options, and --help, are in options_table.c.
 */
#include "cli/options.h"

#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <stdbool.h>

#include "cli/options_table.h"
#include "record/features.h"
#include "util/sysfile.h"

const char *options_usage(struct options_help *h)
{
	cli_table_help(&options_table, h->text, sizeof(h->text));
	return h->text;
}

void options_init(struct options *o)
{
	memset(o, 0, sizeof(*o));
	o->cfg.freq = OPTIONS_DEFAULT_FREQ;
	o->cfg.mmap_pages = OPTIONS_DEFAULT_PAGES;
	o->cfg.output = OPTIONS_DEFAULT_OUTPUT;
	o->cfg.clockid = CLOCK_MONOTONIC;
	o->cfg.clock_name = "monotonic";
}

void options_free(struct options *o)
{
	evspec_list_free(&o->cfg.events);
	free(o->cfg.pids);
	free(o->cfg.tids);
	free(o->cfg.cpus);
}

/* "1234,5678": positive pids, appended to *list. */
static int parse_pids(const char *opt, const char *arg, pid_t **list, size_t *n, struct err *e)
{
	const char *p = arg;
	if (*p == '\0')
		return err_set(e, -EINVAL, "%s: empty list; give process ids like %s 1234,5678", opt, opt);
	while (*p) {
		if (!isdigit((unsigned char)*p))
			return err_set(e, -EINVAL, "%s '%s': expected process ids (positive integers, comma-separated)", opt, arg);
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (errno || v > INT32_MAX)
			return err_set(e, -EINVAL, "%s '%s': process id out of range", opt, arg);
		if (v == 0)
			return err_set(e, -EINVAL, "%s '%s': process ids start at 1", opt, arg);
		pid_t *nl = realloc(*list, (*n + 1) * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		*list = nl;
		nl[(*n)++] = (pid_t)v;
		p = end;
		if (*p == ',') {
			p++;
			if (*p == '\0')
				return err_set(e, -EINVAL, "%s '%s': trailing comma", opt, arg);
		} else if (*p != '\0') {
			return err_set(e, -EINVAL, "%s '%s': expected process ids (positive integers, comma-separated)", opt, arg);
		}
	}
	return 0;
}

static int parse_cpus(struct options *o, const char *arg, struct err *e)
{
	free(o->cfg.cpus);
	o->cfg.cpus = NULL;
	if (cpulist_parse(arg, &o->cfg.cpus, &o->cfg.nr_cpus) || o->cfg.nr_cpus == 0)
		return err_set(e, -EINVAL, "-C '%s': expected a CPU list like 0-3,6", arg);
	char online_s[4096];
	int *online;
	int n;
	o->cfg.cpu_list = arg;
	if (sysfile_read_str("/sys/devices/system/cpu/online", online_s, sizeof(online_s)) ||
	    cpulist_parse(online_s, &online, &n))
		return 0; /* cannot check; perf_event_open will */
	for (int i = 0; i < o->cfg.nr_cpus; i++) {
		bool found = false;
		for (int j = 0; j < n && !found; j++)
			found = online[j] == o->cfg.cpus[i];
		if (!found) {
			free(online);
			return err_set(e, -EINVAL, "-C %s: CPU %d is not online (online CPUs: %s)", arg, o->cfg.cpus[i], online_s);
		}
	}
	free(online);
	return 0;
}

/* Plain decimal: digits, an optional fraction, an optional exponent
 * ("2", "2.5", "1e-3"). strtod alone also takes "0x10" (16 s), "inf" and
 * "nan", which nobody means as a duration. */
static bool is_plain_decimal(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	if (!isdigit(*p))
		return false;
	while (isdigit(*p))
		p++;
	if (*p == '.')
		for (p++; isdigit(*p); p++)
			;
	if (*p == 'e' || *p == 'E') {
		p++;
		if (*p == '+' || *p == '-')
			p++;
		if (!isdigit(*p))
			return false;
		while (isdigit(*p))
			p++;
	}
	return *p == '\0';
}

static int parse_duration(struct options *o, const char *arg, struct err *e)
{
	if (!is_plain_decimal(arg))
		return err_set(e, -EINVAL, "--duration '%s': expected a decimal number of seconds greater than 0 (e.g. 2.5)", arg);
	errno = 0;
	double d = strtod(arg, NULL);
	/* ERANGE with a small result is an underflow (a zero mantissa is an
	 * exact 0, no ERANGE): positive, and the minimum below covers it. */
	bool underflow = errno == ERANGE && d < 1.0;
	if ((errno == ERANGE && !underflow) || d > OPTIONS_MAX_DURATION)
		return err_set(e, -EINVAL, "--duration '%s': too long; at most %.0f seconds", arg, OPTIONS_MAX_DURATION);
	if (!(d > 0) && !underflow)
		return err_set(e, -EINVAL, "--duration '%s': expected a decimal number of seconds greater than 0 (e.g. 2.5)", arg);
	/* The loop keeps whole milliseconds and takes 0 as "no limit": a
	 * shorter duration must not turn into a recording without end. */
	o->cfg.duration = d < OPTIONS_MIN_DURATION ? OPTIONS_MIN_DURATION : d;
	return 0;
}

/* A whole decimal u64 > 0, no sign, no junk. */
static int parse_positive(const char *s, uint64_t *out)
{
	if (!isdigit((unsigned char)s[0]))
		return -EINVAL;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end != '\0' || v == 0)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_period(struct options *o, const char *arg, struct err *e)
{
	if (arg[0] == '\0' || arg[strspn(arg, "0123456789")] != '\0')
		return err_set(e, -EINVAL, "-c '%s': expected a sample period (a positive integer)", arg);
	errno = 0;
	unsigned long long v = strtoull(arg, NULL, 10);
	/* perf_event_open refuses a period with bit 63 set (EINVAL), which
	 * would otherwise surface as a rejected event after setup. */
	if (errno == ERANGE || v > OPTIONS_MAX_PERIOD)
		return err_set(e, -EINVAL, "-c %s: sample period too large; the kernel takes at most %" PRIu64,
			       arg, (uint64_t)OPTIONS_MAX_PERIOD);
	if (v == 0)
		return err_set(e, -EINVAL, "-c '%s': expected a sample period (a positive integer)", arg);
	o->cfg.period = v;
	return 0;
}

static int parse_max_stack(struct options *o, const char *arg, struct err *e)
{
	uint64_t n;
	if (parse_positive(arg, &n) || n > UINT16_MAX)
		return err_set(e, -EINVAL, "--max-stack '%s': expected a number of frames (1-65535)", arg);
	int64_t max = 0;
	if (sysfile_read_s64(CALLGRAPH_MAX_STACK_PATH, &max) == 0 && max > 0 && n > (uint64_t)max)
		return err_set(e, -EINVAL, "--max-stack %s is above the kernel's perf_event_max_stack %" PRId64
			       " (%s); use at most %" PRId64, arg, max, CALLGRAPH_MAX_STACK_PATH, max);
	o->cfg.callgraph.max_stack = (uint16_t)n;
	return 0;
}

static int parse_freq(struct options *o, const char *arg, struct err *e)
{
	int64_t max = 0;
	int rerr = sysfile_read_s64(OPTIONS_MAX_RATE_PATH, &max);

	if (strcmp(arg, "max") == 0) {
		if (rerr || max <= 0)
			return err_set(e, -EINVAL, "-F max: cannot read %s; give a number instead",
				       OPTIONS_MAX_RATE_PATH);
		o->cfg.freq = (uint64_t)max;
		return 0;
	}
	uint64_t hz;
	if (parse_positive(arg, &hz))
		return err_set(e, -EINVAL, "-F '%s': expected a frequency in Hz (a positive integer) or 'max'", arg);
	if (!rerr && max > 0 && hz > (uint64_t)max)
		return err_set(e, -EINVAL, "-F %" PRIu64 " is above the kernel's maximum sample rate %" PRId64
			       " (%s); use -F max or a lower value", hz, max, OPTIONS_MAX_RATE_PATH);
	o->cfg.freq = hz;
	return 0;
}

static int parse_pages(struct options *o, const char *arg, struct err *e)
{
	char *end;
	errno = 0;
	if (!isdigit((unsigned char)arg[0]))
		goto bad;
	unsigned long long v = strtoull(arg, &end, 10);
	if (errno || v == 0)
		goto bad;
	uint64_t pages = v;
	if (*end != '\0') {
		uint64_t mult;
		switch (toupper((unsigned char)*end)) {
		case 'B': mult = 1; break;
		case 'K': mult = 1ULL << 10; break;
		case 'M': mult = 1ULL << 20; break;
		case 'G': mult = 1ULL << 30; break;
		default: goto bad;
		}
		end++;
		if ((*end == 'B' || *end == 'b') && mult != 1)
			end++;
		if (*end != '\0' || v > (1ULL << 40) / mult)
			goto bad;
		uint64_t bytes = v * mult;
		uint64_t page = 4096;
		if (bytes % page)
			goto bad;
		pages = bytes / page;
	}
	if (pages & (pages - 1))
		return err_set(e, -EINVAL, "-m %s: the number of pages must be a power of two (e.g. 8, 128, 1024)", arg);
	if (pages > (1ULL << 20))
		return err_set(e, -EINVAL, "-m %s: too large (at most 1048576 pages = 4 GiB per CPU)", arg);
	o->cfg.mmap_pages = (size_t)pages;
	return 0;
bad:
	return err_set(e, -EINVAL, "-m '%s': expected a number of pages (power of two) or a size like 512K or 2M", arg);
}

/* -z's level is optional, so getopt takes it only attached (-z5,
 * --compression-level=5), and "-z 5 prog" would run a command named 5 (as
 * perf record runs it). A bare -z followed by a number is refused; "-z --
 * 5" runs 5. opt: the word holding the bare -z; next: the word after it. */
static int parse_level(struct options *o, const char *arg, const char *opt, const char *next, struct err *e)
{
	o->cfg.compress_level = 1;
	if (!arg) {
		if (next && next[0] && next[strspn(next, "0123456789")] == '\0')
			return err_set(e, -EINVAL, "%s %s: the level is written -z%s or --compression-level=%s "
				       "(a command named %s goes after --)", opt, next, next, next, next);
		return 0;
	}
	uint64_t lv;
	if (parse_positive(arg, &lv) || lv > 22)
		return err_set(e, -EINVAL, "--compression-level '%s': expected a zstd level from 1 to 22", arg);
	o->cfg.compress_level = (int)lv;
	return 0;
}

static const struct { const char *name; int id; } clocks[] = {
	{ "monotonic", CLOCK_MONOTONIC }, { "mono", CLOCK_MONOTONIC },
	{ "monotonic_raw", CLOCK_MONOTONIC_RAW }, { "raw", CLOCK_MONOTONIC_RAW },
	{ "realtime", CLOCK_REALTIME }, { "real", CLOCK_REALTIME },
	{ "boottime", CLOCK_BOOTTIME }, { "boot", CLOCK_BOOTTIME },
	{ "tai", CLOCK_TAI },
};

static int parse_clock(struct options *o, const char *arg, struct err *e)
{
	const char *s = arg;
	if (strncasecmp(s, "CLOCK_", 6) == 0)
		s += 6;
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		if (strcasecmp(s, clocks[i].name) == 0) {
			o->cfg.clockid = clocks[i].id;
			o->cfg.clock_name = clocks[i].name;
			return 0;
		}
	}
	uint64_t n;
	if (isdigit((unsigned char)s[0]) && (strcmp(s, "0") == 0 || !parse_positive(s, &n))) {
		n = strtoull(s, NULL, 10);
		for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
			if ((uint64_t)clocks[i].id == n) {
				o->cfg.clockid = clocks[i].id;
				o->cfg.clock_name = clocks[i].name;
				return 0;
			}
		}
	}
	return err_set(e, -EINVAL, "-k '%s': unknown clock; use monotonic, monotonic_raw, realtime, boottime or tai", arg);
}

/* Returned by the opt_* functions for an option that is not theirs. */
#define NOT_MINE 1

/* -p, -t, -a, -C, --duration. */
static int opt_target(struct options *o, int c, struct err *e)
{
	switch (c) {
	case 'p': return parse_pids("-p", optarg, &o->cfg.pids, &o->cfg.nr_pids, e);
	case 't': return parse_pids("-t", optarg, &o->cfg.tids, &o->cfg.nr_tids, e);
	case 'a': o->cfg.system_wide = true; return 0;
	case 'C': return parse_cpus(o, optarg, e);
	case OPTIONS_KEY_DURATION: return parse_duration(o, optarg, e);
	}
	return NOT_MINE;
}

/* Call graphs, build-ids, markers. */
static int opt_collect(struct options *o, int c, struct err *e)
{
	switch (c) {
	case 'g': o->cfg.callgraph.mode = CALLGRAPH_FP; return 0;
	case OPTIONS_KEY_CALL_GRAPH: return callgraph_parse(&o->cfg.callgraph, optarg, CALLGRAPH_LBR_CAPS_PATH, e);
	case OPTIONS_KEY_MAX_STACK: return parse_max_stack(o, optarg, e);
	case 'B': o->cfg.no_buildid = true; return 0;
	case 'N': o->cfg.no_buildid_cache = true; return 0;
	case OPTIONS_KEY_BUILDID_ALL: o->cfg.buildid_all = true; return 0;
	case OPTIONS_KEY_NO_MARKERS: o->cfg.markers = CONFIG_MARKERS_OFF; return 0;
	case OPTIONS_KEY_MARKERS: o->cfg.markers = CONFIG_MARKERS_ON; return 0;
	}
	return NOT_MINE;
}

/* -o, -z and the --switch-output family. */
static int opt_output(struct options *o, int c, int argc, char **argv, struct err *e)
{
	switch (c) {
	case 'o':
		o->cfg.output = optarg;
		o->cfg.pipe = strcmp(optarg, "-") == 0;
		if (optarg[0] == '\0')
			return err_set(e, -EINVAL, "-o: empty file name; give a file name, or - for standard output");
		return 0;
	case 'z':
		return parse_level(o, optarg, argv[optind - 1], optind < argc ? argv[optind] : NULL, e);
	case OPTIONS_KEY_SWITCH_OUTPUT:
		return rotate_parse(&o->cfg.switch_output, optarg, e);
	case OPTIONS_KEY_SWITCH_MAX_FILES:
		return rotate_parse_max_files(&o->cfg.switch_output, optarg, e);
	case OPTIONS_KEY_SWITCH_COMMAND:
		o->cfg.switch_output.command = optarg;
		return optarg[0] ? 0 : err_set(e, -EINVAL, "--switch-output-command: empty command");
	}
	return NOT_MINE;
}

/* -e, -F, -c, -m, -k, -q, -v; *freq_given for the -F/-c check. */
static int opt_sampling(struct options *o, int c, bool *freq_given, struct err *e)
{
	int err;
	switch (c) {
	case 'e':
		err = evspec_parse(&o->cfg.events, optarg, e);
		/* The header's event tables have room for this many. */
		if (!err && o->cfg.events.nr > FEATURES_MAX_EVENTS)
			err = err_set(e, -EINVAL, "-e: too many events (%zu); psrec records at most %d",
				      o->cfg.events.nr, FEATURES_MAX_EVENTS);
		return err;
	case 'F': *freq_given = true; return parse_freq(o, optarg, e);
	case 'c': return parse_period(o, optarg, e);
	case 'm': o->cfg.mmap_pages_given = true; return parse_pages(o, optarg, e);
	case 'k': return parse_clock(o, optarg, e);
	case 'q': o->quiet = true; return 0;
	case 'v': o->verbose++; return 0;
	}
	return NOT_MINE;
}

/* getopt's answer c: 0, -EINVAL with *e, or NOT_MINE for -h / -V. */
static int opt_apply(struct options *o, int c, int argc, char **argv, bool *freq_given, struct err *e)
{
	int err = opt_sampling(o, c, freq_given, e);
	if (err == NOT_MINE)
		err = opt_target(o, c, e);
	if (err == NOT_MINE)
		err = opt_collect(o, c, e);
	if (err == NOT_MINE)
		err = opt_output(o, c, argc, argv, e);
	if (err != NOT_MINE)
		return err;
	switch (c) {
	case 'h': o->help = true; return NOT_MINE;
	case 'V': o->version = true; return NOT_MINE;
	case ':':
		return err_set(e, -EINVAL, "option '%s' needs an argument; see psrec --help", argv[optind - 1]);
	default:
		if (optopt)
			return err_set(e, -EINVAL, "unknown option '-%c'; see psrec --help", optopt);
		return err_set(e, -EINVAL, "unknown option '%s'; see psrec --help", argv[optind - 1]);
	}
}

/* What no single option decides: the options that need or exclude
 * another, and the target. */
static int check_combination(struct options *o, int argc, char **argv, bool freq_given, struct err *e)
{
	if (o->cfg.pipe && isatty(STDOUT_FILENO))
		return err_set(e, -EINVAL, "-o -: standard output is a terminal; pipe it (psrec -o - ... | perf report -i -) or give a file name");
	const struct rotate_spec *rs = &o->cfg.switch_output;
	if (rs->mode == ROTATE_NONE && (rs->max_files || rs->command))
		return err_set(e, -EINVAL, "%s applies to chunks: add --switch-output",
			       rs->command ? "--switch-output-command" : "--switch-max-files");
	if (rs->mode != ROTATE_NONE && o->cfg.pipe)
		return err_set(e, -EINVAL, "--switch-output cannot cut a stream (-o -) into files; give -o FILE "
			       "(the chunks are FILE.<timestamp>)");
	if (o->cfg.callgraph.mode == CALLGRAPH_DWARF && !o->cfg.mmap_pages_given)
		o->cfg.mmap_pages = OPTIONS_DWARF_PAGES;
	if (o->cfg.callgraph.max_stack && o->cfg.callgraph.mode == CALLGRAPH_NONE)
		return err_set(e, -EINVAL, "--max-stack limits call chains: add -g or --call-graph");
	if (freq_given && o->cfg.period)
		return err_set(e, -EINVAL, "-F and -c both given; choose a frequency (-F) or a period (-c)");
	if (o->quiet && o->verbose)
		o->quiet = false;
	bool attach = o->cfg.nr_pids || o->cfg.nr_tids;
	if (attach && o->cfg.system_wide)
		return err_set(e, -EINVAL, "-a records every process already; drop -%c", o->cfg.nr_pids ? 'p' : 't');
	if (optind < argc && (attach || o->cfg.system_wide))
		return err_set(e, -EINVAL, "%s and a command cannot be combined: record a command, or attach to running processes",
			       o->cfg.system_wide ? "-a" : o->cfg.nr_pids ? "-p" : "-t");
	if (optind >= argc && !attach && !o->cfg.system_wide)
		return err_set(e, -EINVAL, "no command given; usage: psrec [options] [--] COMMAND [ARGS...], or -p PID, or -a");
	if (optind < argc) {
		o->cfg.cmd = argv + optind;
		o->cfg.cmd_argc = argc - optind;
	}
	return 0;
}

int options_parse(struct options *o, int argc, char **argv, struct err *e)
{
	struct cli_getopt g;
	bool freq_given = false;

	o->cfg.argc = argc;
	o->cfg.argv = argv;
	cli_table_getopt(&options_table, &g);
	for (;;) {
		int c = getopt_long(argc, argv, g.shortopts, g.longopts, NULL);
		if (c == -1)
			break;
		int err = opt_apply(o, c, argc, argv, &freq_given, e);
		if (err == NOT_MINE)
			return 0; /* -h, -V: nothing else matters */
		if (err)
			return err;
	}
	int err = check_combination(o, argc, argv, freq_given, e);
	if (!err && o->cfg.events.nr == 0)
		err = evspec_add_default(&o->cfg.events);
	return err;
}
