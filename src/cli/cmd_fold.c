/*
 * cmd_fold.c - psrec fold and psrec flamegraph: a recording (or, with
 * --diff, two) folded, then written as folded lines or drawn as an SVG
 * (see command.h).
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/command.h"
#include "cli/fold.h"
#include "cli/fold_notes.h"
#include "cli/out.h"
#include "cli/say.h"
#include "flame/flamegraph.h"
#include "fold/fold.h"
#include "fold/stacks.h"
#include "util/err.h"

/* The recordings folded: cur, and base with --diff. */
struct folds {
	struct fold_result base, cur;
	bool have_base;
};

static void folds_free(struct folds *fs)
{
	fold_free(&fs->cur);
	if (fs->have_base)
		fold_free(&fs->base);
}

static int folds_run(const struct fold_cli *cli, struct folds *fs, struct err *e)
{
	struct fold_config c = cli->fold;
	int err = 0;
	if (cli->diff_base) {
		c.input = cli->diff_base;
		fs->have_base = true;
		err = fold_run(&c, &fs->base, e);
		if (!err)
			fold_notes_say(c.input, &fs->base);
		c.input = cli->diff_new;
	}
	if (!err)
		err = fold_run(&c, &fs->cur, e);
	if (!err)
		fold_notes_say(c.input, &fs->cur);
	return err;
}

static int draw(FILE *f, const struct fold_cli *cli, const struct folds *fs, struct err *e)
{
	struct flame_stack *cs = NULL, *bs = NULL;
	char sub[256];
	snprintf(sub, sizeof(sub), "%s, %" PRIu64 " samples%s", fs->cur.event, fs->cur.kept,
		 cli->fold.period ? " (weighted by period)" : "");
	struct flame_config fc = { cli->title, sub, cli->width, cli->icicle, cli->fold.period ? "period" : "samples" };
	int err = stacks_export(&fs->cur.stacks, &cs);
	if (!err && fs->have_base)
		err = stacks_export(&fs->base.stacks, &bs);
	if (!err && fs->have_base)
		err = flamegraph_write_diff(f, bs, fs->base.stacks.n, cs, fs->cur.stacks.n, &fc, e);
	else if (!err)
		err = flamegraph_write(f, cs, fs->cur.stacks.n, &fc, e);
	free(cs);
	free(bs);
	return err;
}

static int fold_or_flame(const struct fold_cli *cli, bool flame)
{
	struct err e = { "" };
	const char *out = cli->output ? cli->output : flame ? "flame.svg" : "-";
	struct folds fs = { 0 };
	int err = folds_run(cli, &fs, &e);
	if (err) {
		cli_say("%s", e.msg[0] ? e.msg : strerror(-err));
		folds_free(&fs);
		return CLI_EXIT_RUNTIME;
	}
	struct outfile of;
	FILE *f;
	if (cli_out_open(out, flame ? "flamegraph-" : "fold-", &of, &f)) {
		outfile_close(&of);
		folds_free(&fs);
		return CLI_EXIT_RUNTIME;
	}
	err = flame ? draw(f, cli, &fs, &e) : fold_write(f, &fs.cur, &e);
	int cerr = cli_out_finish(f, &of, !err);
	if (!err && cerr)
		snprintf(e.msg, sizeof(e.msg), "cannot write %s: %s", out, strerror(-cerr));
	folds_free(&fs);
	if (err || cerr) {
		cli_say("%s", e.msg[0] ? e.msg : strerror(-(err ? err : cerr)));
		return CLI_EXIT_RUNTIME;
	}
	if (flame && strcmp(out, "-") != 0)
		cli_say("wrote %s", out);
	return 0;
}

static int run_mode(int argc, char **argv, int mode)
{
	struct fold_cli cli;
	struct err e = { "" };
	if (fold_cli_parse(argc, argv, mode, &cli, &e)) {
		cli_say("%s", e.msg);
		return CLI_EXIT_USAGE;
	}
	int code = 0;
	if (cli.help)
		code = cli_table_print(&fold_cli_tables[mode], stdout) ? CLI_EXIT_RUNTIME : 0;
	else
		code = fold_or_flame(&cli, mode == FOLD_CLI_FLAMEGRAPH);
	fold_cli_free(&cli);
	return code;
}

static int run_fold(int argc, char **argv)
{
	return run_mode(argc, argv, FOLD_CLI_FOLD);
}

static int run_flamegraph(int argc, char **argv)
{
	return run_mode(argc, argv, FOLD_CLI_FLAMEGRAPH);
}

const struct cli_command cli_cmd_fold = {
	"fold", "a perf.data's samples as FlameGraph's folded stacks",
	&fold_cli_tables[FOLD_CLI_FOLD], run_fold,
};

const struct cli_command cli_cmd_flamegraph = {
	"flamegraph", "a perf.data as an interactive SVG flame graph, or two's diff",
	&fold_cli_tables[FOLD_CLI_FLAMEGRAPH], run_flamegraph,
};
