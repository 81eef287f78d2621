/*
 * cli.c - psrec fold / flamegraph options (see cli.h).
 */
#include "cli.h"

#include "marker/list.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
	KEY_EVENT = 256, KEY_PID, KEY_TID, KEY_COMM, KEY_NO_KERNEL, KEY_PERIOD, KEY_TIME,
	KEY_BUILDID_DIR, KEY_SYMFS, KEY_NO_DEMANGLE, KEY_CALL_GRAPH, KEY_UNWINDER, KEY_TITLE, KEY_WIDTH, KEY_ICICLE, KEY_DIFF,
	KEY_BETWEEN,
};

int fold_cli_id(const char *opt, const char *s, int32_t *out, struct err *e)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT32_MAX)
		return err_set(e, -EINVAL, "%s '%s': expected a process or thread id", opt, s);
	*out = (int32_t)v;
	return 0;
}

int fold_cli_path(const char *opt, const char *s, const char *what, const char *fix, struct err *e)
{
	return *s ? 0 : err_set(e, -EINVAL, "%s: empty %s; %s", opt, what, fix);
}

/* Seconds with up to 9 decimals ("123.456") to ns; "" is "no bound". */
static int parse_seconds(const char *s, size_t n, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0, scale = 1000000000ULL;
	size_t i = 0;
	if (n == 0)
		return 1;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (sec > UINT64_MAX / 10 / 1000000000ULL)
			return -EINVAL;
		sec = sec * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n && s[i] == '.') {
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			if (scale > 1) {
				scale /= 10;
				frac += (uint64_t)(s[i] - '0') * scale;
			}
	}
	if (i != n || (i == 1 && s[0] == '.'))
		return -EINVAL;
	*ns = sec * 1000000000ULL + frac;
	return 0;
}

static int parse_time(const char *s, struct fold_config *c, struct err *e)
{
	const char *comma = strchr(s, ',');
	if (!comma)
		return err_set(e, -EINVAL, "--time '%s': expected START,END in seconds (either may be empty), "
			       "as perf script prints times", s);
	int a = parse_seconds(s, (size_t)(comma - s), &c->time_start);
	int b = parse_seconds(comma + 1, strlen(comma + 1), &c->time_end);
	if (a < 0 || b < 0 || (a == 0 && b == 0 && c->time_end < c->time_start))
		return err_set(e, -EINVAL, "--time '%s': expected START,END in seconds with START <= END", s);
	return 0;
}

static int parse_call_graph(const char *s, struct fold_config *c, struct err *e)
{
	if (strcmp(s, "fp") == 0)
		c->call_graph = FOLD_CHAIN_FP;
	else if (strcmp(s, "dwarf") == 0)
		c->call_graph = FOLD_CHAIN_DWARF;
	else
		return err_set(e, -EINVAL, "--call-graph '%s': expected fp (the recorded chains) or dwarf "
			       "(unwind the stack copies)", s);
	return 0;
}

static int parse(int argc, char **argv, int mode, struct fold_cli *cli, struct err *e)
{
	static const struct option common[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, KEY_EVENT },
		{ "pid", required_argument, NULL, KEY_PID },
		{ "tid", required_argument, NULL, KEY_TID },
		{ "comm", required_argument, NULL, KEY_COMM },
		{ "no-kernel", no_argument, NULL, KEY_NO_KERNEL },
		{ "period", no_argument, NULL, KEY_PERIOD },
		{ "time", required_argument, NULL, KEY_TIME },
		{ "between", required_argument, NULL, KEY_BETWEEN },
		{ "buildid-dir", required_argument, NULL, KEY_BUILDID_DIR },
		{ "symfs", required_argument, NULL, KEY_SYMFS },
		{ "no-demangle", no_argument, NULL, KEY_NO_DEMANGLE },
		{ "call-graph", required_argument, NULL, KEY_CALL_GRAPH },
		{ "unwinder", required_argument, NULL, KEY_UNWINDER },
		{ "help", no_argument, NULL, 'h' },
		{ "title", required_argument, NULL, KEY_TITLE },
		{ "width", required_argument, NULL, KEY_WIDTH },
		{ "reverse", no_argument, NULL, KEY_ICICLE },
		{ "icicle", no_argument, NULL, KEY_ICICLE },
		{ "diff", no_argument, NULL, KEY_DIFF },
		{ NULL, 0, NULL, 0 },
	};
	memset(cli, 0, sizeof(*cli));
	struct fold_config *c = &cli->fold;
	c->input = "perf.data";
	c->pid = c->tid = -1;
	c->time_end = UINT64_MAX;
	c->sym.demangle = true;
	bool diff = false;
	bool flamegraph = mode == FOLD_CLI_FLAMEGRAPH;
	const char *sub = flamegraph ? "flamegraph" : mode == FOLD_CLI_PPROF ? "pprof" : "fold";
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":i:o:h", common, NULL)) != -1) {
		int err = 0;
		switch (ch) {
		case 'i':
			c->input = optarg;
			err = fold_cli_path("-i", optarg, "file name", FOLD_CLI_FIX_INPUT, e);
			break;
		case 'o':
			cli->output = optarg;
			err = fold_cli_path("-o", optarg, "file name", FOLD_CLI_FIX_OUTPUT, e);
			break;
		case 'h': cli->help = true; break;
		case KEY_EVENT: c->event = optarg; break;
		case KEY_PID: err = fold_cli_id("--pid", optarg, &c->pid, e); break;
		case KEY_TID: err = fold_cli_id("--tid", optarg, &c->tid, e); break;
		case KEY_COMM: c->comm = optarg; break;
		case KEY_NO_KERNEL: c->no_kernel = true; break;
		case KEY_PERIOD: c->period = true; break;
		case KEY_TIME: err = parse_time(optarg, c, e); break;
		case KEY_BETWEEN:
			free(cli->between_a);
			free(cli->between_b);
			err = marker_between_parse(optarg, &cli->between_a, &cli->between_b, e);
			c->between_a = cli->between_a;
			c->between_b = cli->between_b;
			break;
		case KEY_BUILDID_DIR:
			c->sym.buildid_dir = optarg;
			err = fold_cli_path("--buildid-dir", optarg, "directory name",
					    "give a directory, or leave the option out for ~/.debug", e);
			break;
		case KEY_SYMFS:
			c->sym.symfs = optarg;
			err = fold_cli_path("--symfs", optarg, "directory name",
					    "give a directory, or leave the option out for /", e);
			break;
		case KEY_NO_DEMANGLE: c->sym.demangle = false; break;
		case KEY_CALL_GRAPH: err = parse_call_graph(optarg, c, e); break;
		case KEY_UNWINDER:
			if (strcmp(optarg, "dwfl") && strcmp(optarg, "cached"))
				return err_set(e, -EINVAL, "--unwinder '%s': expected cached (the default) or dwfl", optarg);
			c->unwind_dwfl = strcmp(optarg, "dwfl") == 0;
			break;
		case KEY_TITLE: case KEY_WIDTH: case KEY_ICICLE: case KEY_DIFF:
			if (!flamegraph) {
				/* by name: argv[optind - 1] may be the option's argument */
				const struct option *o = common;
				while (o->name && o->val != ch)
					o++;
				return err_set(e, -EINVAL, "%s: unknown option '--%s'; see psrec %s --help", sub, o->name, sub);
			}
			if (ch == KEY_TITLE)
				cli->title = optarg;
			else if (ch == KEY_ICICLE)
				cli->icicle = true;
			else if (ch == KEY_DIFF)
				diff = true;
			else {
				char *end;
				unsigned long w = strtoul(optarg, &end, 10);
				if (*optarg < '0' || *optarg > '9' || *end || w < 200 || w > 100000)
					return err_set(e, -EINVAL, "--width '%s': expected pixels from 200 to 100000", optarg);
				cli->width = (unsigned)w;
			}
			break;
		case ':':
			return err_set(e, -EINVAL, "%s: option '%s' needs an argument", sub, argv[optind - 1]);
		default:
			return err_set(e, -EINVAL, "%s: unknown option '%s'; see psrec %s --help", sub, argv[optind - 1], sub);
		}
		if (err)
			return err;
	}
	if (cli->help)
		return 0;
	int rest = argc - optind;
	if (diff) {
		if (rest != 2)
			return err_set(e, -EINVAL, "flamegraph --diff takes two recordings: psrec flamegraph --diff BASE.data NEW.data");
		cli->diff_base = argv[optind];
		cli->diff_new = argv[optind + 1];
		if (!*cli->diff_base || !*cli->diff_new)
			return fold_cli_path("flamegraph --diff", "", "file name", "give two recordings: BASE.data NEW.data", e);
		return 0;
	}
	if (rest > 0)
		return err_set(e, -EINVAL, "%s: unexpected argument '%s' (the input is -i FILE)", sub, argv[optind]);
	return 0;
}

void fold_cli_free(struct fold_cli *cli)
{
	free(cli->between_a);
	free(cli->between_b);
	cli->between_a = cli->between_b = NULL;
	cli->fold.between_a = cli->fold.between_b = NULL;
}

int fold_cli_parse(int argc, char **argv, int mode, struct fold_cli *cli, struct err *e)
{
	int err = parse(argc, argv, mode, cli, e);
	if (err)
		fold_cli_free(cli);
	return err;
}
