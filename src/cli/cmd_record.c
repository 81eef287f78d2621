/*
 * cmd_record.c - psrec [record]: the recording's command line to
 * record_run, its progress to the terminal, its end to a summary and an
 * exit code (see command.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/command.h"
#include "cli/options.h"
#include "cli/options_table.h"
#include "cli/say.h"
#include "record/launch.h"
#include "record/loop.h"
#include "record/record.h"
#include "util/err.h"

struct ui {
	int verbose;
	int quiet;
	bool status_shown;      /* a live status line is on the terminal */
};

/* Erase the live status line before printing anything else. */
static void clear_status(struct ui *ui)
{
	if (ui->status_shown) {
		fputs("\r\033[K", stderr);
		ui->status_shown = false;
	}
}

static void on_notice(void *ctx, int level, const char *msg)
{
	struct ui *ui = ctx;
	if (level == RECORD_NOTICE_VERBOSE && ui->verbose == 0)
		return;
	if (level == RECORD_NOTICE_WARN && ui->quiet)
		return;
	clear_status(ui);
	cli_say("%s", msg);
}

/* The live status line: on a terminal only, rewritten in place. */
static void on_status(void *ctx, const struct loop_stats *st, double elapsed, uint64_t bytes)
{
	struct ui *ui = ctx;
	char size[32];
	cli_size(size, sizeof(size), bytes);
	uint64_t lost = loop_lost(&st->tally);
	fprintf(stderr, "\rpsrec: %.1f s, %" PRIu64 " samples, %s, %" PRIu64 " lost\033[K",
		elapsed, st->tally.samples, size, lost);
	fflush(stderr);
	ui->status_shown = true;
}

static void print_summary(const struct options *o, const struct record_result *r)
{
	const struct loop_stats *st = &r->stats;
	char size[32];
	cli_size(size, sizeof(size), r->file_bytes);
	if (!o->quiet && st->chunks)
		cli_say("wrote %s in %" PRIu64 " chunk%s %s.<timestamp> (%" PRIu64 " samples, %" PRIu64 " lost)",
			size, st->chunks, st->chunks == 1 ? "" : "s", o->cfg.output, st->tally.samples, r->lost);
	else if (!o->quiet)
		cli_say("wrote %s to %s (%" PRIu64 " samples, %" PRIu64 " lost)",
			size, o->cfg.pipe ? "standard output" : o->cfg.output, st->tally.samples, r->lost);
	if (o->verbose && o->cfg.compress_level)
		cli_say("zstd level %d, compression ratio %u", o->cfg.compress_level, r->compress_ratio);
	if (r->lost && !o->quiet)
		cli_say("samples were lost: use a larger ring (-m %zu) or a lower frequency (-F)",
			o->cfg.mmap_pages * 4);
	const struct markers_stats *mk = &r->markers;
	if (!o->quiet && r->markers_on && (mk->written || mk->dropped || mk->abandoned || o->verbose)) {
		char abandoned[64] = "";
		if (mk->abandoned)
			snprintf(abandoned, sizeof(abandoned), ", %" PRIu64 " abandoned (their writer died)", mk->abandoned);
		cli_say("markers: %" PRIu64 " written, %" PRIu64 " dropped (channel full), %" PRIu64 " truncated%s",
			mk->written, mk->dropped, mk->truncated, abandoned);
	}
	if (o->verbose) {
		cli_say("%" PRIu64 " records in %" PRIu64 " passes over %zu rings of %zu KiB (%" PRIu64 " wakeups); "
			"%.1f bytes/sample; LOST %" PRIu64 ", LOST_SAMPLES %" PRIu64 "",
			st->tally.records, st->passes, r->nr_cpus, r->ring_bytes / 1024, st->wakeups,
			st->tally.samples ? (double)r->file_bytes / (double)st->tally.samples : 0.0,
			st->tally.lost, st->tally.lost_samples);
		if (st->bad_spans)
			cli_say("%" PRIu64 " ring spans had malformed record headers", st->bad_spans);
		if (st->chunks > 1)
			cli_say("%" PRIu64 " cuts took %.1f ms of CPU, %.1f ms of it re-reading /proc (%.1f ms at the first)",
				st->chunks - 1, r->cut_ms, r->resynth_ms, r->resynth_first_ms);
	}
	/* After a write error this is no news: that message said the file
	 * is valid. */
	if (r->features_failed && r->stats.end_reason != LOOP_END_WRITE_ERROR)
		cli_say("warning: header features (hostname, event names...) could not be written; %s is still readable",
			o->cfg.output);
}

/* The program to run, found as a shell would: 0 (with *path malloc'd,
 * or NULL when there is none to run) or the exit code. */
static int find_program(const struct options *o, char **path)
{
	struct err e = { "" };
	*path = NULL;
	if (!o->cfg.cmd)
		return 0;
	int err = launch_find_command(o->cfg.cmd[0], path);
	if (err == -ENOENT) {
		cli_say("%s: command not found", o->cfg.cmd[0]);
		return CLI_EXIT_NOT_FOUND;
	}
	if (err) {
		cli_say("%s: %s", o->cfg.cmd[0], strerror(-err));
		return CLI_EXIT_CANNOT_EXEC;
	}
	/* Checked before anything is created: the script exists, so a shell
	 * calls this "cannot execute" (126), not "not found". */
	err = launch_check_interpreter(o->cfg.cmd[0], *path, &e);
	if (err) {
		cli_say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		free(*path);
		*path = NULL;
		return CLI_EXIT_CANNOT_EXEC;
	}
	return 0;
}

/* A recording that ended: its messages and its exit code. */
static int record_ended(const struct options *o, const struct record_result *res)
{
	const struct loop_stats *st = &res->stats;
	if (st->end_reason == LOOP_END_WRITE_ERROR) {
		char size[32];
		cli_size(size, sizeof(size), res->file_bytes);
		if (st->write_error == -ENOSPC || st->write_error == -EDQUOT)
			cli_say("disk full after %s; recording stopped, file is valid", size);
		else if (st->write_error == -EPIPE)
			cli_say("the reader of standard output went away after %s; recording stopped", size);
		else
			cli_say("writing %s failed after %s: %s; recording stopped, file is valid",
				o->cfg.output, size, strerror(-st->write_error));
	}
	print_summary(o, res);
	if (st->end_reason == LOOP_END_WRITE_ERROR)
		return CLI_EXIT_RUNTIME;
	if (res->target.exited)
		return launch_exit_code(res->target.status);
	if (st->end_reason == LOOP_END_SIGNAL)
		return 128 + st->end_signal;
	return 0;
}

/* The recording itself, once the command line is good. */
static int record(const struct options *o, const char *path)
{
	struct err e = { "" };
	/* A closed pipe (-o - | perf report that quit) must be an EPIPE
	 * error, not a silent death; the command gets SIGPIPE back. */
	signal(SIGPIPE, SIG_IGN);
	/* Likewise a file-size limit (ulimit -f): EFBIG takes the write-error
	 * path, which keeps the file valid and ends the command. */
	signal(SIGXFSZ, SIG_IGN);
	struct ui ui = { o->verbose, o->quiet, false };
	bool live = !o->quiet && isatty(STDERR_FILENO);
	struct record_hooks hooks = { on_notice, live ? on_status : NULL, &ui };
	struct record_result res;
	int err = record_run(&o->cfg, path, &hooks, &res, &e);
	clear_status(&ui);
	if (!err)
		return record_ended(o, &res);
	cli_say("%s", err_is_set(&e) ? e.msg : strerror(-err));
	if (res.target.exec_failed)
		return res.target.exec_errno == ENOENT ? CLI_EXIT_NOT_FOUND : CLI_EXIT_CANNOT_EXEC;
	if (res.stop_signal)
		return 128 + res.stop_signal;
	return CLI_EXIT_RUNTIME;
}

static int run(int argc, char **argv)
{
	struct options o;
	struct err e = { "" };
	options_init(&o);
	int code = 0, err = options_parse(&o, argc, argv, &e);
	char *path = NULL;
	if (err) {
		cli_say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		code = CLI_EXIT_USAGE;
	} else if (o.help) {
		struct options_help h;
		fputs(options_usage(&h), stdout);
	} else if (o.version) {
		printf("psrec %s\n", PSREC_VERSION);
	} else if ((code = find_program(&o, &path)) == 0) {
		code = record(&o, path);
	}
	free(path);
	options_free(&o);
	return code;
}

const struct cli_command cli_cmd_record = {
	"record", "sample a command, -p processes or -a all CPUs (the default)", &options_table, run,
};
