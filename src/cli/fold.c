/*
 * fold.c - the command lines of psrec fold, flamegraph and pprof: their
 * option tables and parsing (see fold.h).
 */
#include "fold.h"

#include "cli/args.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
	KEY_EVENT = CLI_KEY_LONG, KEY_PID, KEY_TID, KEY_COMM, KEY_NO_KERNEL, KEY_PERIOD, KEY_TIME,
	KEY_BUILDID_DIR, KEY_SYMFS, KEY_NO_DEMANGLE, KEY_CALL_GRAPH, KEY_UNWINDER, KEY_TITLE, KEY_WIDTH,
	KEY_REVERSE, KEY_ICICLE, KEY_DIFF, KEY_BETWEEN,
};

#define G_IO "input and output"
#define G_FILTERS "which samples"
#define G_SYMBOLS "symbols and stacks"
#define G_DRAWING "the drawing"

#define ROW_INPUT { 'i', "input", CLI_ARG_REQUIRED, "FILE", "perf.data", \
	"the recording: psrec's or perf's, a file or a stream, -z compressed or not; - reads standard input", G_IO }
#define ROWS_FILTERS \
	{ KEY_EVENT, "event", CLI_ARG_REQUIRED, "NAME", "the first sampling event", "only the samples of this event", G_FILTERS }, \
	{ KEY_PID, "pid", CLI_ARG_REQUIRED, "PID", NULL, "only this process's samples", G_FILTERS }, \
	{ KEY_TID, "tid", CLI_ARG_REQUIRED, "TID", NULL, "only this thread's samples", G_FILTERS }, \
	{ KEY_COMM, "comm", CLI_ARG_REQUIRED, "NAME", NULL, "only the samples of threads of this name", G_FILTERS }, \
	{ KEY_TIME, "time", CLI_ARG_REQUIRED, "START,END", NULL, \
	  "only samples in [START, END], seconds as perf script prints them (either may be empty)", G_FILTERS }, \
	{ KEY_BETWEEN, "between", CLI_ARG_REQUIRED, "A,B", NULL, \
	  "only samples from a marker A to the next marker B (psrec_mark texts; every such window, " \
	  "every thread; \\, is a comma in A or B)", G_FILTERS }, \
	{ KEY_NO_KERNEL, "no-kernel", CLI_ARG_NONE, NULL, NULL, "drop kernel frames", G_FILTERS }
#define ROWS_SYMBOLS \
	{ KEY_BUILDID_DIR, "buildid-dir", CLI_ARG_REQUIRED, "DIR", "~/.debug", \
	  "the build-id cache (an unpacked psrec archive)", G_SYMBOLS }, \
	{ KEY_SYMFS, "symfs", CLI_ARG_REQUIRED, "DIR", NULL, "look for binaries under DIR", G_SYMBOLS }, \
	{ KEY_NO_DEMANGLE, "no-demangle", CLI_ARG_NONE, NULL, NULL, "keep C++ and Rust names mangled", G_SYMBOLS }, \
	{ KEY_CALL_GRAPH, "call-graph", CLI_ARG_REQUIRED, "fp|dwarf", "the copy when a sample has one", \
	  "user frames from the recorded chains only, or from the stack copies only", G_SYMBOLS }, \
	{ KEY_UNWINDER, "unwinder", CLI_ARG_REQUIRED, "cached|dwfl", "cached", \
	  "dwfl unwinds every stack copy with libdwfl, not psrec's cached CFI rules (slower; to compare)", G_SYMBOLS }
#define ROW_HELP(g) { 'h', "help", CLI_ARG_NONE, NULL, NULL, "this help", g }

static const struct cli_opt fold_rows[] = {
	ROW_INPUT,
	{ 'o', "output", CLI_ARG_REQUIRED, "OUT", "standard output", "where the folded lines go", G_IO },
	ROWS_FILTERS,
	{ KEY_PERIOD, "period", CLI_ARG_NONE, NULL, NULL, "weight by period (e.g. ns of cpu-clock), not by sample", G_FILTERS },
	ROWS_SYMBOLS,
	ROW_HELP(G_SYMBOLS),
};

static const struct cli_opt flamegraph_rows[] = {
	ROW_INPUT,
	{ 'o', "output", CLI_ARG_REQUIRED, "SVG", "flame.svg", "the drawing; - writes standard output", G_IO },
	{ KEY_DIFF, "diff", CLI_ARG_NONE, NULL, NULL,
	  "draw the change from BASE.data to NEW.data, the two words after the options (widths from NEW; "
	  "red grew, blue shrank, by share of all samples)", G_IO },
	{ KEY_TITLE, "title", CLI_ARG_REQUIRED, "TEXT", NULL, "the drawing's title", G_DRAWING },
	{ KEY_WIDTH, "width", CLI_ARG_REQUIRED, "PX", "1200", "its width, 200 to 100000", G_DRAWING },
	{ KEY_REVERSE, "reverse", CLI_ARG_NONE, NULL, NULL, "roots at the top (= --icicle)", G_DRAWING },
	{ KEY_ICICLE, "icicle", CLI_ARG_NONE, NULL, NULL, "roots at the top", G_DRAWING },
	ROWS_FILTERS,
	{ KEY_PERIOD, "period", CLI_ARG_NONE, NULL, NULL, "widths by period (e.g. ns of cpu-clock), not by sample", G_FILTERS },
	ROWS_SYMBOLS,
	ROW_HELP(G_SYMBOLS),
};

static const struct cli_opt pprof_rows[] = {
	ROW_INPUT,
	{ 'o', "output", CLI_ARG_REQUIRED, "FILE", "profile.pb.gz", "the profile; - writes standard output", G_IO },
	ROWS_FILTERS,
	{ KEY_PERIOD, "period", CLI_ARG_NONE, NULL, NULL, "make the period value the one readers show first", G_FILTERS },
	ROWS_SYMBOLS,
	ROW_HELP(G_SYMBOLS),
};

#define N(rows) (sizeof(rows) / sizeof((rows)[0]))
_Static_assert(N(fold_rows) <= CLI_TABLE_MAX && N(flamegraph_rows) <= CLI_TABLE_MAX && N(pprof_rows) <= CLI_TABLE_MAX,
	       "a fold-family table has outgrown struct cli_getopt: raise CLI_TABLE_MAX");

const struct cli_table fold_cli_tables[3] = {
	[FOLD_CLI_FOLD] = { "fold", "usage: psrec fold [-i FILE] [-o OUT] [options]\n",
		"Fold the samples of a perf.data into FlameGraph's folded stacks, one\n"
		"line per distinct stack, sorted: comm;outermost;...;innermost COUNT\n",
		NULL, fold_rows, N(fold_rows), false },
	[FOLD_CLI_FLAMEGRAPH] = { "flamegraph",
		"usage: psrec flamegraph [-i FILE] [-o flame.svg] [options]\n"
		"       psrec flamegraph --diff BASE.data NEW.data [-o diff.svg] [options]\n",
		"Draw the samples of a perf.data as one self-contained interactive SVG\n"
		"(hover, click to zoom, search), or with --diff the change from BASE to NEW.\n",
		NULL, flamegraph_rows, N(flamegraph_rows), false },
	[FOLD_CLI_PPROF] = { "pprof", "usage: psrec pprof [-i FILE] [-o profile.pb.gz] [options]\n",
		"Convert the samples of a perf.data into one pprof profile (gzipped\n"
		"profile.proto) for go tool pprof and continuous-profiling backends: values\n"
		"samples/count and cpu/nanoseconds (another event's period in its own unit),\n"
		"addresses in mappings with build-ids, inlined calls as lines, and the labels\n"
		"pid, tid, comm and event on every sample.\n",
		NULL, pprof_rows, N(pprof_rows), false },
};

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

/* The options every fold-family command has: 0, -EINVAL with *e, or 1
 * for a key that is not one of them. */
static int apply_common(struct fold_cli *cli, int ch, struct err *e)
{
	struct fold_config *c = &cli->fold;
	switch (ch) {
	case 'i':
		c->input = optarg;
		return cli_check_path("-i", optarg, "file name", CLI_FIX_INPUT, e);
	case 'o':
		cli->output = optarg;
		return cli_check_path("-o", optarg, "file name", CLI_FIX_OUTPUT, e);
	case 'h': cli->help = true; return 0;
	case KEY_EVENT: c->event = optarg; return 0;
	case KEY_PID: return cli_parse_id("--pid", optarg, &c->pid, e);
	case KEY_TID: return cli_parse_id("--tid", optarg, &c->tid, e);
	case KEY_COMM: c->comm = optarg; return 0;
	case KEY_NO_KERNEL: c->no_kernel = true; return 0;
	case KEY_PERIOD: c->period = true; return 0;
	case KEY_TIME: return parse_time(optarg, c, e);
	case KEY_BETWEEN: {
		free(cli->between_a);
		free(cli->between_b);
		int err = cli_between_parse(optarg, &cli->between_a, &cli->between_b, e);
		c->between_a = cli->between_a;
		c->between_b = cli->between_b;
		return err;
	}
	}
	return 1;
}

/* Symbols and the drawing; 1 for a key that is neither. */
static int apply_symbols_drawing(struct fold_cli *cli, int ch, bool *diff, struct err *e)
{
	struct fold_config *c = &cli->fold;
	switch (ch) {
	case KEY_BUILDID_DIR:
		c->sym.buildid_dir = optarg;
		return cli_check_path("--buildid-dir", optarg, "directory name",
				      "give a directory, or leave the option out for ~/.debug", e);
	case KEY_SYMFS:
		c->sym.symfs = optarg;
		return cli_check_path("--symfs", optarg, "directory name",
				      "give a directory, or leave the option out for /", e);
	case KEY_NO_DEMANGLE: c->sym.demangle = false; return 0;
	case KEY_CALL_GRAPH: return parse_call_graph(optarg, c, e);
	case KEY_UNWINDER:
		if (strcmp(optarg, "dwfl") && strcmp(optarg, "cached"))
			return err_set(e, -EINVAL, "--unwinder '%s': expected cached (the default) or dwfl", optarg);
		c->unwind_dwfl = strcmp(optarg, "dwfl") == 0;
		return 0;
	case KEY_TITLE: cli->title = optarg; return 0;
	case KEY_REVERSE: case KEY_ICICLE: cli->icicle = true; return 0;
	case KEY_DIFF: *diff = true; return 0;
	case KEY_WIDTH: {
		char *end;
		unsigned long w = strtoul(optarg, &end, 10);
		if (*optarg < '0' || *optarg > '9' || *end || w < 200 || w > 100000)
			return err_set(e, -EINVAL, "--width '%s': expected pixels from 200 to 100000", optarg);
		cli->width = (unsigned)w;
		return 0;
	}
	}
	return 1;
}

/* The words after the options: none, or with --diff the two recordings. */
static int parse_words(int argc, char **argv, bool diff, struct fold_cli *cli, const char *sub, struct err *e)
{
	int rest = argc - optind;
	if (diff) {
		if (rest != 2)
			return err_set(e, -EINVAL, "flamegraph --diff takes two recordings: psrec flamegraph --diff BASE.data NEW.data");
		cli->diff_base = argv[optind];
		cli->diff_new = argv[optind + 1];
		if (!*cli->diff_base || !*cli->diff_new)
			return cli_check_path("flamegraph --diff", "", "file name", "give two recordings: BASE.data NEW.data", e);
		return 0;
	}
	if (rest > 0)
		return err_set(e, -EINVAL, "%s: unexpected argument '%s' (the input is -i FILE)", sub, argv[optind]);
	return 0;
}

static int parse(int argc, char **argv, int mode, struct fold_cli *cli, struct err *e)
{
	const struct cli_table *t = &fold_cli_tables[mode];
	struct cli_getopt g;
	cli_table_getopt(t, &g);
	memset(cli, 0, sizeof(*cli));
	struct fold_config *c = &cli->fold;
	c->input = "perf.data";
	c->pid = c->tid = -1;
	c->time_end = UINT64_MAX;
	c->sym.demangle = true;
	bool diff = false;
	int ch;
	while ((ch = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
		if (ch == ':' || ch == '?')
			return cli_complaint(t->command, ch, argv, e);
		int err = apply_common(cli, ch, e);
		if (err == 1)
			err = apply_symbols_drawing(cli, ch, &diff, e);
		if (err)
			return err;
	}
	if (cli->help)
		return 0;
	return parse_words(argc, argv, diff, cli, t->command, e);
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
