/*
 * cmd_archive.c - psrec archive: the binaries a recording needs, packed
 * for another machine (see command.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "archive/archive.h"
#include "buildid/store.h"
#include "cli/archive.h"
#include "cli/command.h"
#include "cli/say.h"
#include "util/err.h"

static int run(int argc, char **argv)
{
	struct archive_cli cli;
	struct err pe = { "" };
	if (archive_cli_parse(argc, argv, &cli, &pe)) {
		cli_say("%s", pe.msg);
		return CLI_EXIT_USAGE;
	}
	if (cli.help)
		return cli_table_print(&archive_cli_table, stdout) ? CLI_EXIT_RUNTIME : 0;
	const char *in = cli.input, *out = cli.output;
	char *def = NULL;
	if (!out) {
		if (asprintf(&def, "%s.tar.zst", in) < 0)
			return CLI_EXIT_RUNTIME;
		out = def;
	}
	if (strcmp(out, "-") == 0 && isatty(STDOUT_FILENO)) {
		free(def);
		cli_say("archive: not writing an archive to a terminal; give a file with -o");
		return CLI_EXIT_USAGE;
	}
	/* A closed pipe (-o - | ssh that quit) or a file-size limit must be
	 * an error message, and the temporary removed. */
	signal(SIGPIPE, SIG_IGN);
	signal(SIGXFSZ, SIG_IGN);
	struct store s;
	struct archive_result r;
	struct err e = { "" };
	int err = store_open(&s, NULL, &e);
	if (!err) {
		err = archive_write(in, out, &s, &r, &e);
		store_close(&s);
	}
	if (err) {
		cli_say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		free(def);
		return CLI_EXIT_RUNTIME;
	}
	char size[32], osize[32], miss[sizeof(r.first_missing) + 128] = "";
	cli_size(size, sizeof(size), r.bytes);
	cli_size(osize, sizeof(osize), r.out_bytes);
	if (r.missing == 1)
		snprintf(miss, sizeof(miss), "; 1 DSO not found (%s)", r.first_missing);
	else if (r.missing)
		snprintf(miss, sizeof(miss), "; %zu DSOs not found (%s and %zu more)", r.missing, r.first_missing,
			 r.missing - 1);
	bool to_stdout = strcmp(out, "-") == 0;
	cli_say("archived %zu DSO%s (%s) and %zu map file%s into %s (%s)%s", r.dsos,
		r.dsos == 1 ? "" : "s", size, r.maps, r.maps == 1 ? "" : "s", to_stdout ? "standard output" : out,
		osize, miss);
	cli_say("on the analysis machine: mkdir -p ~/.debug && tar --zstd -xf %s -C ~/.debug",
		to_stdout ? "ARCHIVE" : out);
	free(def);
	return 0;
}

const struct cli_command cli_cmd_archive = {
	"archive", "the binaries a perf.data needs, packed for another machine",
	&archive_cli_table, run,
};
