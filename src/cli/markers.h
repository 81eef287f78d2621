/*
 * markers.h - psrec markers' command line: its option table, parsed into
 * what it asks for. Nothing is opened or printed here.
 */
#ifndef PSREC_CLI_MARKERS_H
#define PSREC_CLI_MARKERS_H

#include <stdbool.h>

#include "cli/table.h"
#include "marker/list.h"
#include "util/err.h"

struct markers_cli {
	const char *input;          /* default perf.data; "-": standard input */
	struct marker_filter filter;
	bool json;
	bool help;
};

extern const struct cli_table markers_cli_table;

/* argv[0] is "markers". -EINVAL with *e (one line) for a usage error. */
int markers_cli_parse(int argc, char **argv, struct markers_cli *c, struct err *e);

#endif
