/*
 * main.c - psrec's entry point: the first word picks a command (record
 * when it names none), and the command's runner does the rest (cli/).
 * Exit codes: cli/command.h.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/commands.h"
#include "cli/say.h"
#include "record/launch.h"

static int run_help(int argc, char **argv);

static const struct cli_command cmd_help = {
	"help", "a command's options: psrec help fold (= psrec fold --help)", NULL, run_help,
};

static const struct cli_command *const list[] = {
	&cli_cmd_record, &cli_cmd_fold, &cli_cmd_flamegraph, &cli_cmd_pprof, &cli_cmd_markers,
	&cli_cmd_archive, &cli_cmd_recover, &cmd_help,
};

static const struct commands commands = { list, sizeof(list) / sizeof(list[0]), &cli_cmd_record };

/* psrec help [COMMAND]. */
static int run_help(int argc, char **argv)
{
	if (argc == 1)
		return commands_print_help(&commands, stdout) ? CLI_EXIT_RUNTIME : 0;
	const struct cli_command *c = argc == 2 ? commands_find(&commands, argv[1]) : NULL;
	if (c && c->table)
		return cli_table_print(c->table, stdout) ? CLI_EXIT_RUNTIME : 0;
	if (c)
		return commands_print_help(&commands, stdout) ? CLI_EXIT_RUNTIME : 0;
	const struct cli_command *guess = argc == 2 ? commands_suggest(&commands, argv[1]) : NULL;
	if (guess)
		cli_say("help: no command '%s'; did you mean `psrec help %s`?", argv[1], guess->name);
	else
		cli_say("help: psrec help COMMAND, where COMMAND is one of those psrec --help lists");
	return CLI_EXIT_USAGE;
}

/* A first word that is no command, no option and no program, but close to
 * a command's name, is a typo: say so rather than "command not found"
 * alone (psrec -- WORD still records a program of that name). */
static int typo(const char *word)
{
	const struct cli_command *guess = commands_suggest(&commands, word);
	char *path = NULL;
	if (!guess || strchr(word, '/') || launch_find_command(word, &path) != -ENOENT) {
		free(path);
		return 0;
	}
	cli_say("%s: command not found; did you mean `psrec %s`?", word, guess->name);
	return CLI_EXIT_NOT_FOUND;
}

int main(int argc, char **argv)
{
	if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) && argc == 2)
		return commands_print_help(&commands, stdout) ? CLI_EXIT_RUNTIME : 0;
	const struct cli_command *c = argc > 1 ? commands_find(&commands, argv[1]) : NULL;
	if (c)
		return c->run(argc - 1, argv + 1);
	if (argc > 1 && argv[1][0] != '-') {
		int code = typo(argv[1]);
		if (code)
			return code;
	}
	return cli_cmd_record.run(argc, argv);
}
