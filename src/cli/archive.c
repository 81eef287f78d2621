/*
 * archive.c - psrec archive's and recover's options and their parsing
 * (see archive.h).
 */
#include "archive.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli/args.h"

#define G "options"

static const struct cli_opt archive_rows[] = {
	{ 'i', "input", CLI_ARG_REQUIRED, "FILE", "perf.data", "the recording; - reads standard input (then -o is needed)", G },
	{ 'o', "output", CLI_ARG_REQUIRED, "ARCHIVE", "FILE.tar.zst", "the archive; - writes standard output", G },
	{ 'h', "help", CLI_ARG_NONE, NULL, NULL, "this help", G },
};

const struct cli_table archive_cli_table = {
	"archive", "usage: psrec archive [-i FILE] [-o ARCHIVE]\n",
	"Put what another machine needs to symbolize the recording FILE into\n"
	"ARCHIVE: the DSOs of its build-id list, from ~/.debug or from their paths\n"
	"when the file there still has the recorded build-id, and the\n"
	"/tmp/perf-PID.map files of its processes. DSOs found nowhere are counted\n"
	"and named, not guessed.\n",
	"On the analysis machine: mkdir -p ~/.debug && tar --zstd -xf ARCHIVE -C ~/.debug\n",
	archive_rows, sizeof(archive_rows) / sizeof(archive_rows[0]), false,
};

static const struct cli_opt recover_rows[] = {
	{ 'h', "help", CLI_ARG_NONE, NULL, NULL, "this help", G },
};

const struct cli_table recover_cli_table = {
	"recover", "usage: psrec recover FILE\n",
	"Repair, in place, a perf.data left by a perf record or psrec that was killed,\n"
	"or cut short: data.size is set to the end of the last complete record that\n"
	"decodes, the intact features are kept and the broken ones dropped\n"
	"(compressed data gets the COMPRESSED feature it needs). A file psrec reads\n"
	"whole is left alone. The file is never grown or truncated.\n",
	NULL, recover_rows, sizeof(recover_rows) / sizeof(recover_rows[0]), false,
};

int archive_cli_parse(int argc, char **argv, struct archive_cli *c, struct err *e)
{
	struct cli_getopt g;
	cli_table_getopt(&archive_cli_table, &g);
	*c = (struct archive_cli){ "perf.data", NULL, false };
	int ch;
	while ((ch = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
		int err;
		if (ch == 'h') {
			c->help = true;
			continue;
		} else if (ch == 'i') {
			c->input = optarg;
			err = cli_check_path("-i", optarg, "file name", CLI_FIX_INPUT, e);
		} else if (ch == 'o') {
			c->output = optarg;
			err = cli_check_path("-o", optarg, "file name", CLI_FIX_OUTPUT, e);
		} else {
			return cli_complaint("archive", ch, argv, e);
		}
		if (err)
			return err;
	}
	if (c->help)
		return 0;
	if (optind < argc)
		return err_set(e, -EINVAL, "archive: unexpected argument '%s' (the input is -i FILE)", argv[optind]);
	if (!c->output && strcmp(c->input, "-") == 0)
		return err_set(e, -EINVAL, "archive: reading standard input needs -o: psrec archive [-i FILE] [-o ARCHIVE]");
	return 0;
}

int recover_cli_parse(int argc, char **argv, const char **file, bool *help, struct err *e)
{
	struct cli_getopt g;
	cli_table_getopt(&recover_cli_table, &g);
	*file = NULL;
	*help = false;
	int ch;
	while ((ch = getopt_long(argc, argv, g.shortopts, g.longopts, NULL)) != -1) {
		if (ch != 'h')
			return err_set(e, -EINVAL, "recover takes one perf.data file: psrec recover FILE "
				       "(to repair a file named %s, write ./%s)", argv[optind - 1], argv[optind - 1]);
		*help = true;
	}
	if (*help)
		return 0;
	if (argc - optind != 1 || argv[optind][0] == '\0' || argv[optind][0] == '-')
		return err_set(e, -EINVAL, "recover takes one perf.data file: psrec recover FILE");
	*file = argv[optind];
	return 0;
}
