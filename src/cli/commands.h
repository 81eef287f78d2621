/*
 * commands.h - psrec's list of commands, looked up, guessed at and
 * printed. main.c owns the list; nothing here runs a command.
 */
#ifndef PSREC_CLI_COMMANDS_H
#define PSREC_CLI_COMMANDS_H

#include <stddef.h>
#include <stdio.h>

#include "cli/command.h"

struct commands {
	const struct cli_command *const *list;
	size_t n;
	const struct cli_command *record;   /* what runs when no command is named */
};

/* The command named word, or NULL. */
const struct cli_command *commands_find(const struct commands *c, const char *word);

/* The command whose name word most likely misspells (at most two edits,
 * a swap of neighbours counting one), or NULL. */
const struct cli_command *commands_suggest(const struct commands *c, const char *word);

/* psrec --help: record's usage and the other commands' usages, every
 * command with its summary, then record's options. 0 or -errno. */
int commands_print_help(const struct commands *c, FILE *f);

#endif
