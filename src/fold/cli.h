/*
 * cli.h - the command lines of psrec fold and psrec flamegraph, parsed
 * into what they ask for. Nothing is opened or printed here.
 */
#ifndef PSREC_FOLD_CLI_H
#define PSREC_FOLD_CLI_H

#include <stdbool.h>
#include <stdint.h>

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

/* A process or thread id, the argument of option opt: -EINVAL with *e. */
int fold_cli_id(const char *opt, const char *s, int32_t *out, struct err *e);

/* s, the argument of option opt, names a file or directory (what, e.g.
 * "file name"): "" names nothing, or as a prefix the path itself, so it is
 * -EINVAL with *e saying "OPT: empty WHAT; FIX". 0 otherwise. */
int fold_cli_path(const char *opt, const char *s, const char *what, const char *fix, struct err *e);

/* The fixes of the usual ones, for every command's -i and -o. */
#define FOLD_CLI_FIX_INPUT  "give a recording, or - for standard input"
#define FOLD_CLI_FIX_OUTPUT "give a file name, or - for standard output"

#endif
