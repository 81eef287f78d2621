/*
 * fold.h - the command lines of psrec fold, flamegraph and pprof (one
 * option table each), parsed into what they ask for. Nothing is opened
 * or printed here.
 */
#ifndef PSREC_CLI_FOLD_H
#define PSREC_CLI_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include "cli/table.h"
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
	char *between_a, *between_b; /* --between A,B unescaped (fold.between_a, _b point here) */
};

/*
 * Parse argv (argv[0] is the subcommand's name) for mode, a FOLD_CLI_*
 * (true and false are flamegraph and fold). -EINVAL with *e (one line)
 * for a usage error.
 */
int fold_cli_parse(int argc, char **argv, int mode, struct fold_cli *cli, struct err *e);

/* What fold_cli_parse allocated (--between's texts). */
void fold_cli_free(struct fold_cli *cli);

/* The option tables, indexed by FOLD_CLI_*. */
extern const struct cli_table fold_cli_tables[3];

#endif
