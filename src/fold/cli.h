/*
 * cli.h - the command lines of psrec fold and psrec flamegraph, parsed
 * into what they ask for. Nothing is opened or printed here.
 */
#ifndef PSREC_FOLD_CLI_H
#define PSREC_FOLD_CLI_H

#include <stdbool.h>

#include "fold/fold.h"
#include "util/err.h"

struct fold_cli {
	struct fold_config fold;
	const char *output;         /* NULL: stdout (fold), flame.svg (flamegraph) */
	bool help;
	/* flamegraph only */
	const char *title;
	unsigned width;
	bool icicle;
	const char *diff_base;      /* --diff BASE NEW */
	const char *diff_new;
};

/*
 * Parse argv (argv[0] is the subcommand's name). flamegraph: accept its
 * drawing options too. -EINVAL with *e (one line) for a usage error.
 */
int fold_cli_parse(int argc, char **argv, bool flamegraph, struct fold_cli *cli, struct err *e);

#endif
