/*
 * options_table.h - the record command line's options, listed once.
 *
 * Each option is one row: long name, short letter, argument, default and
 * help line. getopt_long's struct option array, the short-option string
 * and the --help text are generated from the rows at run time, into
 * storage the caller owns; README.md's option table and the man page are
 * checked against them by tests/unit/test_options.c. options.c parses
 * each option's argument.
 */
#ifndef PSREC_OPTIONS_TABLE_H
#define PSREC_OPTIONS_TABLE_H

#include <getopt.h>
#include <stddef.h>

/* What getopt_long returns for a long-only option: above every letter,
 * so a short letter can never mean one of them. */
enum {
	OPTIONS_KEY_DURATION = 256,
	OPTIONS_KEY_CALL_GRAPH,
	OPTIONS_KEY_MAX_STACK,
	OPTIONS_KEY_BUILDID_ALL,
	OPTIONS_KEY_SWITCH_OUTPUT,
	OPTIONS_KEY_SWITCH_MAX_FILES,
	OPTIONS_KEY_SWITCH_COMMAND,
	OPTIONS_KEY_NO_MARKERS,
	OPTIONS_KEY_MARKERS,
};

enum options_arg {
	OPTIONS_ARG_NONE,
	OPTIONS_ARG_REQUIRED,
	/* Long form only (--compression-level[=N]); the short letter takes
	 * none, as perf record's -z, so that it can be grouped (-zq). */
	OPTIONS_ARG_OPTIONAL,
};

struct options_spec {
	int key;               /* the short letter, or an OPTIONS_KEY_* (long only) */
	const char *name;      /* the long name without "--"; NULL: short only */
	enum options_arg arg;
	const char *arg_name;  /* "PID[,PID...]"; NULL when arg is NONE */
	const char *def;       /* the default as --help states it; NULL: none to state */
	const char *help;      /* one line of --help, wrapped when printed */
	const char *group;     /* the --help heading it is listed under */
};

/* The rows, in --help order. */
extern const struct options_spec options_table[];
extern const size_t options_table_len;

/* Room for the generated getopt arguments; options_table.c asserts at
 * compile time that the table fits. */
#define OPTIONS_TABLE_MAX 32

struct options_getopt {
	struct option longopts[OPTIONS_TABLE_MAX + 1]; /* ends with a zero row */
	char shortopts[2 + 3 * OPTIONS_TABLE_MAX + 1]; /* "+:", then "x", "x:" or "x::" */
};

/* The short letter of a row, or 0 for a long-only option. */
int options_table_letter(const struct options_spec *s);
/* Fill g for getopt_long: "+:" (stop at the first non-option, report a
 * missing argument as ':') and every short letter. */
void options_table_getopt(struct options_getopt *g);
/* Write the --help text into out (always NUL-terminated). Returns the
 * length of the whole text, which is >= size when it did not fit. */
size_t options_table_help(char *out, size_t size);

#endif
