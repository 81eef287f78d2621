/*
 * markers.c - psrec markers' options and their parsing (see markers.h).
 */
#include "markers.h"

#include <errno.h>
#include <getopt.h>

#include "cli/args.h"

enum { KEY_PID = CLI_KEY_LONG, KEY_TID, KEY_COMM, KEY_JSON };

#define G "options"

static const struct cli_opt rows[] = {
	{ 'i', "input", CLI_ARG_REQUIRED, "FILE", "perf.data",
	  "the recording: psrec's or perf's, a file or a stream, -z compressed or not; - reads standard input", G },
	{ KEY_PID, "pid", CLI_ARG_REQUIRED, "PID", NULL, "only this process's markers", G },
	{ KEY_TID, "tid", CLI_ARG_REQUIRED, "TID", NULL, "only this thread's markers", G },
	{ KEY_COMM, "comm", CLI_ARG_REQUIRED, "NAME", NULL, "only the markers of threads of this name", G },
	{ KEY_JSON, "json", CLI_ARG_NONE, NULL, NULL, "one JSON object: {\"markers\": [...], \"spans\": [...]}", G },
	{ 'h', "help", CLI_ARG_NONE, NULL, NULL, "this help", G },
};

const struct cli_table markers_cli_table = {
	"markers", "usage: psrec markers [-i FILE] [--pid PID] [--tid TID] [--comm NAME] [--json]\n",
	"List the markers a program sent with psrec_mark() and friends (the samples\n"
	"of psrec:marker) in time order: seconds from the recording's first sample,\n"
	"pid/tid, thread name, kind (mark, bytes(TYPE), begin, end) and text; then\n"
	"the spans, each end paired with the latest open begin of its name on its\n"
	"thread (nested spans indented): start, duration in ms, or open when the\n"
	"recording ended first.\n",
	"psrec flamegraph --between 'A,B' (and fold, pprof) keeps the samples from\n"
	"each marker A to the next marker B.\n",
	rows, sizeof(rows) / sizeof(rows[0]), false,
};

int markers_cli_parse(int argc, char **argv, struct markers_cli *c, struct err *e)
{
	struct cli_getopt g;
	cli_table_getopt(&markers_cli_table, &g);
	*c = (struct markers_cli){ "perf.data", MARKER_FILTER_ALL, false, false };
	int ch;
	while ((ch = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
		int err = 0;
		switch (ch) {
		case 'i':
			c->input = optarg;
			err = cli_check_path("-i", optarg, "file name", CLI_FIX_INPUT, e);
			break;
		case 'h': c->help = true; break;
		case KEY_PID: err = cli_parse_id("--pid", optarg, &c->filter.pid, e); break;
		case KEY_TID: err = cli_parse_id("--tid", optarg, &c->filter.tid, e); break;
		case KEY_COMM: c->filter.comm = optarg; break;
		case KEY_JSON: c->json = true; break;
		default:
			return cli_complaint("markers", ch, argv, e);
		}
		if (err)
			return err;
	}
	if (!c->help && optind < argc)
		return err_set(e, -EINVAL, "markers: unexpected argument '%s' (the input is -i FILE)", argv[optind]);
	return 0;
}
