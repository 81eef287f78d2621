/*
 * table.h - a command's options, listed once.
 *
 * Every psrec command (record, fold, flamegraph, pprof, markers, archive,
 * recover) has one table: a row per option (long name, short letter,
 * argument, default, help line, --help heading) and the texts around
 * them. getopt_long's struct option array, its short-option string and
 * the command's --help are generated from the table, into storage the
 * caller owns; README.md and the man page are checked against every
 * table by tests/unit/test_cli.c. Each command's own file parses the
 * arguments.
 */
#ifndef PSREC_CLI_TABLE_H
#define PSREC_CLI_TABLE_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The first key of a long-only option: above every letter, so a short
 * letter can never mean one of them. */
#define CLI_KEY_LONG 256

enum cli_arg {
	CLI_ARG_NONE,
	CLI_ARG_REQUIRED,
	/* Long form only (--compression-level[=N]); the short letter takes
	 * none unless attached, as perf record's -z, so that it can be
	 * grouped (-zq). */
	CLI_ARG_OPTIONAL,
};

struct cli_opt {
	int key;               /* the short letter, or CLI_KEY_LONG + n (long only) */
	const char *name;      /* the long name without "--"; NULL: short only */
	enum cli_arg arg;
	const char *arg_name;  /* "PID[,PID...]"; NULL when arg is NONE */
	const char *def;       /* the default as --help states it; NULL: none to state */
	const char *help;      /* one line of --help, wrapped when printed */
	const char *group;     /* the --help heading it is listed under */
};

struct cli_table {
	const char *command;   /* "fold"; "record" for psrec's own options */
	const char *usage;     /* the usage lines, each ending in \n */
	const char *about;     /* what the command does, a paragraph; may be NULL */
	const char *tail;      /* printed after the options (examples); may be NULL */
	const struct cli_opt *opts;
	size_t n;
	/* Stop at the first word that is not an option (record: the rest is
	 * the command to run); otherwise options and words may mix. */
	bool stop_at_word;
};

/* Room for the generated getopt arguments; each table's file asserts at
 * compile time that its rows fit. */
#define CLI_TABLE_MAX 32

struct cli_getopt {
	struct option longopts[CLI_TABLE_MAX + 1];  /* ends with a zero row */
	char shortopts[2 + 3 * CLI_TABLE_MAX + 1];  /* "+:" or ":", then "x", "x:" or "x::" */
};

/* The short letter of a row, or 0 for a long-only option. */
int cli_table_letter(const struct cli_opt *o);

/* Fill g for getopt_long, and reset getopt for a new parse (optind,
 * opterr 0): a missing argument is reported as ':', and parsing stops at
 * the first word when t->stop_at_word. */
void cli_table_getopt(const struct cli_table *t, struct cli_getopt *g);

/* The row of key, or NULL: error messages name the option by its row
 * (argv[optind - 1] may be the option's argument, not the option). */
const struct cli_opt *cli_table_find(const struct cli_table *t, int key);

/* Write the --help text into out (always NUL-terminated). Returns the
 * length of the whole text, which is >= size when it did not fit. */
size_t cli_table_help(const struct cli_table *t, char *out, size_t size);

/* The --help text to f: 0 or -errno. */
int cli_table_print(const struct cli_table *t, FILE *f);

#endif
