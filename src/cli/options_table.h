/*
 * options_table.h - the record command line's options, listed once (a
 * cli_table: cli/table.h generates getopt's arguments and --help from
 * it). options.c parses each option's argument.
 */
#ifndef PSREC_CLI_OPTIONS_TABLE_H
#define PSREC_CLI_OPTIONS_TABLE_H

#include "cli/table.h"

/* What getopt_long returns for a long-only option. */
enum {
	OPTIONS_KEY_DURATION = CLI_KEY_LONG,
	OPTIONS_KEY_CALL_GRAPH,
	OPTIONS_KEY_MAX_STACK,
	OPTIONS_KEY_BUILDID_ALL,
	OPTIONS_KEY_SWITCH_OUTPUT,
	OPTIONS_KEY_SWITCH_MAX_FILES,
	OPTIONS_KEY_SWITCH_COMMAND,
	OPTIONS_KEY_NO_MARKERS,
	OPTIONS_KEY_MARKERS,
};

/* The rows, in --help order, and record's --help texts. */
extern const struct cli_table options_table;

#endif
