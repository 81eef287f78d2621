/*
 * archive.h - psrec archive's and psrec recover's command lines: their
 * option tables, parsed. Nothing is opened or printed here.
 */
#ifndef PSREC_CLI_ARCHIVE_H
#define PSREC_CLI_ARCHIVE_H

#include <stdbool.h>

#include "cli/table.h"
#include "util/err.h"

struct archive_cli {
	const char *input;      /* default perf.data; "-": standard input */
	const char *output;     /* NULL: INPUT.tar.zst; "-": standard output */
	bool help;
};

extern const struct cli_table archive_cli_table;
extern const struct cli_table recover_cli_table;

/* argv[0] is "archive". -EINVAL with *e (one line) for a usage error. */
int archive_cli_parse(int argc, char **argv, struct archive_cli *c, struct err *e);

/* psrec recover FILE: *file, or NULL with *help for -h. -EINVAL with *e. */
int recover_cli_parse(int argc, char **argv, const char **file, bool *help, struct err *e);

#endif
