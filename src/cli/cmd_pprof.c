/*
 * cmd_pprof.c - psrec pprof: a recording folded and written as one
 * gzipped pprof profile (see command.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/fold.h"
#include "cli/fold_notes.h"
#include "cli/out.h"
#include "cli/say.h"
#include "pprof/pprof.h"
#include "util/err.h"

static int convert(const struct fold_cli *cli)
{
	struct err e = { "" };
	const char *out = cli->output ? cli->output : "profile.pb.gz";
	if (strcmp(out, "-") == 0 && isatty(STDOUT_FILENO)) {
		cli_say("pprof: not writing a gzipped profile to a terminal; give a file with -o");
		return CLI_EXIT_USAGE;
	}
	struct pprof_result r;
	int err = pprof_run(&cli->fold, &r, &e);
	if (err) {
		cli_say("%s", e.msg[0] ? e.msg : strerror(-err));
		pprof_free(&r);
		return CLI_EXIT_RUNTIME;
	}
	fold_notes_say(cli->fold.input, &r.fold);
	struct outfile of;
	FILE *f;
	if (cli_out_open(out, "pprof-", &of, &f)) {
		outfile_close(&of);
		pprof_free(&r);
		return CLI_EXIT_RUNTIME;
	}
	size_t bytes = 0;
	err = pprof_write(f, &r, &bytes, &e);
	int cerr = cli_out_finish(f, &of, !err);
	if (!err && cerr)
		snprintf(e.msg, sizeof(e.msg), "cannot write %s: %s", out, strerror(-cerr));
	if (err || cerr) {
		cli_say("%s", e.msg[0] ? e.msg : strerror(-(err ? err : cerr)));
		pprof_free(&r);
		return CLI_EXIT_RUNTIME;
	}
	if (strcmp(out, "-") != 0)
		cli_say("wrote %s (%" PRIu64 " samples as %zu, %zu locations, %zu functions, %zu mappings)",
			out, r.fold.kept, r.counts.samples, r.counts.locations, r.counts.functions, r.counts.mappings);
	pprof_free(&r);
	return 0;
}

static int run(int argc, char **argv)
{
	struct fold_cli cli;
	struct err e = { "" };
	if (fold_cli_parse(argc, argv, FOLD_CLI_PPROF, &cli, &e)) {
		cli_say("%s", e.msg);
		return CLI_EXIT_USAGE;
	}
	int code = 0;
	if (cli.help)
		code = cli_table_print(&fold_cli_tables[FOLD_CLI_PPROF], stdout) ? CLI_EXIT_RUNTIME : 0;
	else
		code = convert(&cli);
	fold_cli_free(&cli);
	return code;
}


const struct cli_command cli_cmd_pprof = {
	"pprof", "a perf.data as a gzipped pprof profile, for go tool pprof",
	&fold_cli_tables[FOLD_CLI_PPROF], run,
};
