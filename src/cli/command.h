/*
 * command.h - what main.c dispatches to: one psrec command, its option
 * table and its runner. A runner parses its arguments, does the work,
 * prints what the user reads (cli/say.h) and returns the exit code:
 *   0 success (record: or the recorded command's own exit status),
 *   1 runtime failure, 2 usage error,
 *   126/127 the command could not be run / was not found (like a shell),
 *   128+N the command, or psrec itself, was stopped by signal N.
 */
#ifndef PSREC_CLI_COMMAND_H
#define PSREC_CLI_COMMAND_H

#include "cli/table.h"

#define CLI_EXIT_RUNTIME 1
#define CLI_EXIT_USAGE 2
#define CLI_EXIT_CANNOT_EXEC 126
#define CLI_EXIT_NOT_FOUND 127

struct cli_command {
	const char *name;       /* the word after psrec */
	const char *summary;    /* one line for psrec --help */
	const struct cli_table *table;
	/* argv[0] is the command's word (record: "psrec" when none was given). */
	int (*run)(int argc, char **argv);
};

extern const struct cli_command cli_cmd_record, cli_cmd_fold, cli_cmd_flamegraph, cli_cmd_pprof,
	cli_cmd_markers, cli_cmd_archive, cli_cmd_recover;

#endif
