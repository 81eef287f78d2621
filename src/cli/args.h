/*
 * args.h - the option arguments every offline command spells alike:
 * process and thread ids, file and directory names, --between's pair.
 * Each returns 0, or -EINVAL with a one-line *e naming the option and
 * the fix (a usage error).
 */
#ifndef PSREC_CLI_ARGS_H
#define PSREC_CLI_ARGS_H

#include <stdint.h>

#include "util/err.h"

/* A process or thread id, the argument of option opt. */
int cli_parse_id(const char *opt, const char *s, int32_t *out, struct err *e);

/* s, the argument of option opt, names a file or directory (what, e.g.
 * "file name"): "" names nothing, or as a prefix the path itself, so it is
 * "OPT: empty WHAT; FIX". */
int cli_check_path(const char *opt, const char *s, const char *what, const char *fix, struct err *e);

/* The fixes of the usual ones, for every command's -i and -o. */
#define CLI_FIX_INPUT  "give a recording, or - for standard input"
#define CLI_FIX_OUTPUT "give a file name, or - for standard output"

/* getopt_long's complaint ch (':' for a missing argument, '?' for an
 * unknown option) about argv, in one line naming the command cmd. */
int cli_complaint(const char *cmd, int ch, char **argv, struct err *e);

/* Split --between's 'A,B' at the first comma not escaped by a backslash;
 * "\," and "\\" in either side stand for ',' and '\'. *a and *b are
 * malloc'd (free both). -EINVAL with *e without an unescaped comma or
 * with an empty side; -ENOMEM. */
int cli_between_parse(const char *arg, char **a, char **b, struct err *e);

#endif
