/*
 * cli.h - the command lines of psrec fold and psrec flamegraph, parsed
 * into what they ask for. Nothing is opened or printed here.
 */
#ifndef PSREC_FOLD_CLI_H
#define PSREC_FOLD_CLI_H

#include <stdbool.h>

#include "fold/fold.h"
#include "util/err.h"

/* Which subcommand's line: fold's options are every one's. */
#define FOLD_CLI_FOLD       0
#define FOLD_CLI_FLAMEGRAPH 1   /* and the drawing options */
#define FOLD_CLI_PPROF      2

struct fold_cli {
	struct fold_config fold;
	const char *output;         /* NULL: stdout (fold), flame.svg (flamegraph), profile.pb.gz (pprof) */
	bool help;
	/* flamegraph only */
	const char *title;
	unsigned width;
	bool icicle;
	const char *diff_base;      /* --diff BASE NEW */
	const char *diff_new;
};

/*
 * Parse argv (argv[0] is the subcommand's name) for mode, a FOLD_CLI_*
 * (true and false are flamegraph and fold). -EINVAL with *e (one line)
 * for a usage error.
 */
int fold_cli_parse(int argc, char **argv, int mode, struct fold_cli *cli, struct err *e);

#endif
