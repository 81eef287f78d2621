/*
 * main.c - psrec's entry point: argv to a subcommand (record, the default;
 * recover, archive), errors to messages and exit codes. The only file that prints usage or picks exit codes:
 *   0 success (or the recorded command's own exit status),
 *   1 runtime failure, 2 usage error,
 *   126/127 the command could not be run / was not found (like a shell),
 *   128+N the command, or psrec itself, was stopped by signal N.
 */
#include <errno.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <stdbool.h>
#include <signal.h>
#include <unistd.h>

#include "options.h"
#include "flame/flamegraph.h"
#include "fold/cli.h"
#include "fold/fold.h"
#include "pprof/pprof.h"
#include "archive/archive.h"
#include "buildid/store.h"
#include "format/recover.h"
#include "marker/list.h"
#include "record/attach.h"
#include "record/launch.h"
#include "record/loop.h"
#include "record/record.h"
#include "util/err.h"
#include "util/outfile.h"
#include "util/textesc.h"

#define EXIT_RUNTIME 1
#define EXIT_USAGE 2
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

/* One message on standard error: "psrec: " and the line. What it names
 * may be a file's or a profiled program's (a thread name, a DSO path, an
 * event name, a file name from a directory listing), so its control
 * characters and broken UTF-8 are written \xNN (util/textesc.h): no
 * message drives the terminal it is printed on. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char *msg;
	va_list ap;
	va_start(ap, fmt);
	int n = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fputs("psrec: ", stderr);
	textesc_put(stderr, msg, (size_t)n, 0);
	putc('\n', stderr);
	free(msg);
}

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
	say("%s", msg);
}

static void print_size(char *out, size_t len, uint64_t bytes)
{
	if (bytes >= 1000 * 1000)
		snprintf(out, len, "%.1f MB", (double)bytes / 1e6);
	else
		snprintf(out, len, "%.1f KB", (double)bytes / 1e3);
}

/* The live status line: on a terminal only, rewritten in place. */
static void on_status(void *ctx, const struct loop_stats *st, double elapsed, uint64_t bytes)
{
	struct ui *ui = ctx;
	char size[32];
	print_size(size, sizeof(size), bytes);
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
	print_size(size, sizeof(size), r->file_bytes);
	if (!o->quiet && st->chunks)
		say("wrote %s in %" PRIu64 " chunk%s %s.<timestamp> (%" PRIu64 " samples, %" PRIu64 " lost)",
			size, st->chunks, st->chunks == 1 ? "" : "s", o->cfg.output, st->tally.samples, r->lost);
	else if (!o->quiet)
		say("wrote %s to %s (%" PRIu64 " samples, %" PRIu64 " lost)",
			size, o->cfg.pipe ? "standard output" : o->cfg.output, st->tally.samples, r->lost);
	if (o->verbose && o->cfg.compress_level)
		say("zstd level %d, compression ratio %u", o->cfg.compress_level, r->compress_ratio);
	if (r->lost && !o->quiet)
		say("samples were lost: use a larger ring (-m %zu) or a lower frequency (-F)",
			o->cfg.mmap_pages * 4);
	const struct markers_stats *mk = &r->markers;
	if (!o->quiet && r->markers_on && (mk->written || mk->dropped || mk->abandoned || o->verbose)) {
		char abandoned[64] = "";
		if (mk->abandoned)
			snprintf(abandoned, sizeof(abandoned), ", %" PRIu64 " abandoned (their writer died)", mk->abandoned);
		say("markers: %" PRIu64 " written, %" PRIu64 " dropped (channel full), %" PRIu64 " truncated%s",
			mk->written, mk->dropped, mk->truncated, abandoned);
	}
	if (o->verbose) {
		say("%" PRIu64 " records in %" PRIu64 " passes over %zu rings of %zu KiB (%" PRIu64 " wakeups); "
			"%.1f bytes/sample; LOST %" PRIu64 ", LOST_SAMPLES %" PRIu64 "",
			st->tally.records, st->passes, r->nr_cpus, r->ring_bytes / 1024, st->wakeups,
			st->tally.samples ? (double)r->file_bytes / (double)st->tally.samples : 0.0,
			st->tally.lost, st->tally.lost_samples);
		if (st->bad_spans)
			say("%" PRIu64 " ring spans had malformed record headers", st->bad_spans);
		if (st->chunks > 1)
			say("%" PRIu64 " cuts took %.1f ms of CPU, %.1f ms of it re-reading /proc (%.1f ms at the first)",
				st->chunks - 1, r->cut_ms, r->resynth_ms, r->resynth_first_ms);
	}
	/* After a write error this is no news: that message said the file
	 * is valid. */
	if (r->features_failed && r->stats.end_reason != LOOP_END_WRITE_ERROR)
		say("warning: header features (hostname, event names...) could not be written; %s is still readable",
			o->cfg.output);
}

static int cmd_record(int argc, char **argv)
{
	struct options o;
	struct err e = { "" };
	options_init(&o);
	int err = options_parse(&o, argc, argv, &e);
	if (err) {
		say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		options_free(&o);
		return EXIT_USAGE;
	}
	if (o.help) {
		struct options_help h;
		fputs(options_usage(&h), stdout);
		options_free(&o);
		return 0;
	}
	if (o.version) {
		printf("psrec %s\n", PSREC_VERSION);
		options_free(&o);
		return 0;
	}

	char *path = NULL;
	err = o.cfg.cmd ? launch_find_command(o.cfg.cmd[0], &path) : 0;
	if (err) {
		if (err == -ENOENT)
			say("%s: command not found", o.cfg.cmd[0]);
		else
			say("%s: %s", o.cfg.cmd[0], strerror(-err));
		options_free(&o);
		return err == -ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
	}
	/* Checked before anything is created: the script exists, so a shell
	 * calls this "cannot execute" (126), not "not found". */
	err = path ? launch_check_interpreter(o.cfg.cmd[0], path, &e) : 0;
	if (err) {
		say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		free(path);
		options_free(&o);
		return EXIT_CANNOT_EXEC;
	}

	/* A closed pipe (-o - | perf report that quit) must be an EPIPE
	 * error, not a silent death; the command gets SIGPIPE back. */
	signal(SIGPIPE, SIG_IGN);
	/* Likewise a file-size limit (ulimit -f): EFBIG takes the write-error
	 * path, which keeps the file valid and ends the command. */
	signal(SIGXFSZ, SIG_IGN);
	struct ui ui = { o.verbose, o.quiet, false };
	bool live = !o.quiet && isatty(STDERR_FILENO);
	struct record_hooks hooks = { on_notice, live ? on_status : NULL, &ui };
	struct record_result res;
	err = record_run(&o.cfg, path, &hooks, &res, &e);
	free(path);
	clear_status(&ui);
	int code;
	if (err) {
		say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		if (res.target.exec_failed)
			code = res.target.exec_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
		else if (res.stop_signal)
			code = 128 + res.stop_signal;
		else
			code = EXIT_RUNTIME;
		options_free(&o);
		return code;
	}
	const struct loop_stats *st = &res.stats;
	if (st->end_reason == LOOP_END_WRITE_ERROR) {
		char size[32];
		print_size(size, sizeof(size), res.file_bytes);
		if (st->write_error == -ENOSPC || st->write_error == -EDQUOT)
			say("disk full after %s; recording stopped, file is valid", size);
		else if (st->write_error == -EPIPE)
			say("the reader of standard output went away after %s; recording stopped", size);
		else
			say("writing %s failed after %s: %s; recording stopped, file is valid",
				o.cfg.output, size, strerror(-st->write_error));
	}
	print_summary(&o, &res);
	if (st->end_reason == LOOP_END_WRITE_ERROR)
		code = EXIT_RUNTIME;
	else if (res.target.exited)
		code = launch_exit_code(res.target.status);
	else if (st->end_reason == LOOP_END_SIGNAL)
		code = 128 + st->end_signal;

	else
		code = 0;
	options_free(&o);
	return code;
}

static const char recover_usage[] =
"usage: psrec recover FILE\n"
"\n"
"Repair, in place, a perf.data left by a perf record or psrec that was killed,\n"
"or cut short: data.size is set to the end of the last complete record that\n"
"decodes, the intact features are kept and the broken ones dropped\n"
"(compressed data gets the COMPRESSED feature it needs). A file psrec reads\n"
"whole is left alone. The file is never grown or truncated.\n";

static int cmd_recover(int argc, char **argv)
{
	if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
		fputs(recover_usage, stdout);
		return 0;
	}
	if (argc != 2 || argv[1][0] == '-' || argv[1][0] == '\0') {
		say("recover takes one perf.data file: psrec recover FILE");
		return EXIT_USAGE;
	}
	struct recover_result r;
	struct err e = { "" };
	int err = recover_file(argv[1], &r, &e);
	if (err) {
		say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		return EXIT_RUNTIME;
	}
	if (!r.changed) {
		say("%s needs no repair: its header already covers its %" PRIu64 " records",
			argv[1], r.records);
		return 0;
	}
	char comp[64] = "", drop[sizeof(r.dropped_why) + 64] = "";
	if (r.mmap_len)
		snprintf(comp, sizeof(comp), ", a COMPRESSED feature added (mmap_len %u)", r.mmap_len);
	if (r.dropped_at)
		snprintf(drop, sizeof(drop), "; dropped the data from offset %" PRIu64 " on: %s", r.dropped_at,
			 r.dropped_why);
	say("recovered %s: kept %" PRIu64 " records (%" PRIu64 " samples), data size %" PRIu64
		" -> %" PRIu64 " bytes, %zu feature%s kept%s%s", argv[1], r.records, r.samples,
		r.old_data_size, r.data_size, r.features, r.features == 1 ? "" : "s", comp, drop);
	return 0;
}

static const char archive_usage[] =
"usage: psrec archive [-i FILE] [-o ARCHIVE]\n"
"\n"
"Put what another machine needs to symbolize the recording FILE (default\n"
"perf.data) into ARCHIVE (default FILE.tar.zst; - for standard output): the\n"
"DSOs of its build-id list, from ~/.debug or from their paths when the file\n"
"there still has the recorded build-id, and the /tmp/perf-PID.map files of its\n"
"processes. DSOs found nowhere are counted and named, not guessed. On the\n"
"analysis machine: mkdir -p ~/.debug && tar --zstd -xf ARCHIVE -C ~/.debug\n";

static int archive_usage_error(const char *what, const char *arg)
{
	say("archive: %s%s: psrec archive [-i FILE] [-o ARCHIVE]", what, arg);
	return EXIT_USAGE;
}

static int cmd_archive(int argc, char **argv)
{
	const char *in = "perf.data", *out = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			fputs(archive_usage, stdout);
			return 0;
		}
		const char **dst = strcmp(argv[i], "-i") == 0 ? &in : strcmp(argv[i], "-o") == 0 ? &out : NULL;
		if (!dst)
			return archive_usage_error(argv[i][0] == '-' ? "unknown option " : "unexpected argument ", argv[i]);
		if (i + 1 == argc)
			return archive_usage_error(argv[i], " needs a file name");
		*dst = argv[++i];
		struct err e = { "" };
		if (fold_cli_path(argv[i - 1], *dst, "file name", dst == &in ? FOLD_CLI_FIX_INPUT : FOLD_CLI_FIX_OUTPUT, &e)) {
			say("%s", e.msg);
			return EXIT_USAGE;
		}
	}
	char *def = NULL;
	if (!out) {
		if (strcmp(in, "-") == 0)
			return archive_usage_error("reading standard input needs -o", "");
		if (asprintf(&def, "%s.tar.zst", in) < 0)
			return EXIT_RUNTIME;
		out = def;
	}
	if (strcmp(out, "-") == 0 && isatty(STDOUT_FILENO)) {
		free(def);
		return archive_usage_error("not writing an archive to a terminal; give a file with -o", "");
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
		say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		free(def);
		return EXIT_RUNTIME;
	}
	char size[32], osize[32], miss[sizeof(r.first_missing) + 128] = "";
	print_size(size, sizeof(size), r.bytes);
	print_size(osize, sizeof(osize), r.out_bytes);
	if (r.missing == 1)
		snprintf(miss, sizeof(miss), "; 1 DSO not found (%s)", r.first_missing);
	else if (r.missing)
		snprintf(miss, sizeof(miss), "; %zu DSOs not found (%s and %zu more)", r.missing, r.first_missing,
			 r.missing - 1);
	bool to_stdout = strcmp(out, "-") == 0;
	say("archived %zu DSO%s (%s) and %zu map file%s into %s (%s)%s", r.dsos,
		r.dsos == 1 ? "" : "s", size, r.maps, r.maps == 1 ? "" : "s", to_stdout ? "standard output" : out,
		osize, miss);
	say("on the analysis machine: mkdir -p ~/.debug && tar --zstd -xf %s -C ~/.debug",
		to_stdout ? "ARCHIVE" : out);
	free(def);
	return 0;
}

static const char fold_usage[] =
"usage: psrec fold [-i FILE] [-o OUT] [options]\n"
"\n"
"Fold the samples of a perf.data (psrec's or perf's; file or stream, - for\n"
"standard input; -z compressed or not) into FlameGraph's folded stacks, one\n"
"line per distinct stack, sorted: comm;outermost;...;innermost COUNT\n"
"\n"
"  -i, --input=FILE      the recording (default perf.data)\n"
"  -o, --output=OUT      where the lines go (default standard output)\n"
"      --event=NAME      the event to fold (default: the first sampling one)\n"
"      --pid=PID, --tid=TID, --comm=NAME   only these samples\n"
"      --time=START,END  only samples in [START, END], seconds as perf script prints them\n"
"      --between=A,B     only samples from a marker A to the next marker B (psrec_mark\n"
"                        texts; every such window, every thread; \\, is a comma in A or B)\n"
"      --no-kernel       drop kernel frames\n"
"      --period          weight by period (e.g. ns of cpu-clock), not by sample\n"
"      --buildid-dir=DIR the build-id cache (default ~/.debug; an unpacked psrec archive)\n"
"      --symfs=DIR       look for binaries under DIR\n"
"      --no-demangle     keep C++ and Rust names mangled\n"
"      --call-graph=fp|dwarf  user frames from the recorded chains only, or from\n"
"                        the stack copies only (default: the copy when a sample has one)\n"
"      --unwinder=dwfl   unwind every stack copy with libdwfl, not psrec's cached\n"
"                        CFI rules (slower; to compare)\n";

static const char flamegraph_usage[] =
"usage: psrec flamegraph [-i FILE] [-o flame.svg] [options]\n"
"       psrec flamegraph --diff BASE.data NEW.data [-o diff.svg] [options]\n"
"\n"
"Draw the samples of a perf.data as one self-contained interactive SVG\n"
"(hover, click to zoom, search), or with --diff the change from BASE to NEW\n"
"(widths from NEW; red grew, blue shrank, by share of all samples).\n"
"\n"
"  -i, --input=FILE      the recording (default perf.data)\n"
"  -o, --output=SVG      the drawing (default flame.svg)\n"
"      --title=TEXT      its title\n"
"      --width=PX        its width (default 1200)\n"
"      --reverse, --icicle  roots at the top\n"
"  and every option of psrec fold (--event, --pid, --tid, --comm, --time, --between,\n"
"  --no-kernel, --period, --buildid-dir, --symfs, --no-demangle, --call-graph, --unwinder).\n";

static const char pprof_usage[] =
"usage: psrec pprof [-i FILE] [-o profile.pb.gz] [options]\n"
"\n"
"Convert the samples of a perf.data into one pprof profile (gzipped\n"
"profile.proto) for go tool pprof and continuous-profiling backends: values\n"
"samples/count and cpu/nanoseconds (another event's period in its own unit),\n"
"addresses in mappings with build-ids, inlined calls as lines, and the labels\n"
"pid, tid, comm and event on every sample.\n"
"\n"
"  -i, --input=FILE      the recording (default perf.data)\n"
"  -o, --output=FILE     the profile (default profile.pb.gz; - for standard output)\n"
"      --period          make the period value the one readers show first\n"
"  and every option of psrec fold (--event, --pid, --tid, --comm, --time, --between,\n"
"  --no-kernel, --buildid-dir, --symfs, --no-demangle, --call-graph, --unwinder).\n";

/* out as a stream, through a temporary beside it renamed at the end ("-"
 * is stdout; a device or FIFO is written in place; a link planted into
 * /proc or onto a device is refused: util/outfile.h). The
 * temporary is 0600; a profile's text or drawing is for sharing, as a
 * shell's > would leave it. 0 or -errno (*of still to be closed). */
static int out_open_shared(const char *out, const char *tag, struct outfile *of, FILE **f)
{
	*f = NULL;
	int err = outfile_open(of, out, tag, OUTFILE_STDOUT);
	if (err)
		return err;
	*f = of->is_stdout ? stdout : fdopen(of->fd, "w");
	if (!*f)
		return -errno;
	if (!of->direct)
		fchmod(of->fd, 0644);
	return 0;
}

/* out_open_shared's failure, in one line. */
static void out_open_failed(const char *out, const struct outfile *of, int err)
{
	if (of->refused[0])
		say("%s", of->refused);
	else
		say("cannot write %s: %s", out, strerror(-err));
}

/* One warning for what could not be named, one notice for the event. */
static void fold_report(const char *input, const struct fold_result *r)
{
	if (r->warning[0])
		say("%s: %s", input, r->warning);
	if (r->event_chosen)
		say("%s: folding event %s (the first sampling event; --event picks another)",
			input, r->event);
	if (r->sym.unresolved && r->sym_dsos[0])
		say("%s: %" PRIu64 " of %" PRIu64 " frames not symbolized: %s", input,
			r->sym.unresolved, r->sym.frames, r->sym_dsos);
	if (r->unwind.failed)
		say("%s: %" PRIu64 " of %" PRIu64 " samples could not be unwound (their leaf frame "
			"alone is kept): their code has no CFI psrec found; see --buildid-dir, --symfs",
			input, r->unwind.failed, r->unwind.samples);
	if (r->windows)
		say("%s: samples of %zu --between window%s", input, r->windows,
			r->windows == 1 ? "" : "s");
	if (r->kept == 0)
		say("%s: no samples of %s%s", input, r->event,
			r->samples ? " passed the filters" : "");
}

/* Flush what f holds and, when ok, put the output in place; otherwise a
 * temporary is removed, so a failed run never leaves a partial file. */
static int out_finish(FILE *f, struct outfile *of, bool ok)
{
	int err;
	if (of->is_stdout) {
		err = fflush(f) == 0 ? 0 : -EIO;
	} else {
		err = fclose(f) == 0 ? 0 : -errno;
		of->fd = -1; /* fclose closed it */
	}
	if (ok && !err)
		err = outfile_commit(of);
	outfile_close(of);
	return err;
}

/* What cmd_fold_or_flame runs once cli is parsed (cli is a copy: it
 * owns nothing). */
static int fold_or_flame(struct fold_cli cli, bool flame)
{
	struct err e = { "" };
	const char *out = cli.output ? cli.output : flame ? "flame.svg" : "-";
	struct fold_result base = { 0 }, cur = { 0 };
	bool have_base = false;
	int err = 0;
	if (cli.diff_base) {
		struct fold_config bc = cli.fold;
		bc.input = cli.diff_base;
		err = fold_run(&bc, &base, &e);
		have_base = true;
		if (!err)
			fold_report(bc.input, &base);
		cli.fold.input = cli.diff_new;
	}
	if (!err) {
		err = fold_run(&cli.fold, &cur, &e);
		if (!err)
			fold_report(cli.fold.input, &cur);
	}
	if (err) {
		say("%s", e.msg[0] ? e.msg : strerror(-err));
		fold_free(&cur);
		if (have_base)
			fold_free(&base);
		return EXIT_RUNTIME;
	}
	struct outfile of;
	FILE *f;
	int oerr = out_open_shared(out, flame ? "flamegraph-" : "fold-", &of, &f);
	if (oerr) {
		out_open_failed(out, &of, oerr);
		outfile_close(&of);
		fold_free(&cur);
		if (have_base)
			fold_free(&base);
		return EXIT_RUNTIME;
	}
	if (!flame) {
		err = fold_write(f, &cur, &e);
	} else {
		struct flame_stack *cs = NULL, *bs = NULL;
		char sub[256];
		snprintf(sub, sizeof(sub), "%s, %" PRIu64 " samples%s", cur.event, cur.kept,
			 cli.fold.period ? " (weighted by period)" : "");
		struct flame_config fc = { cli.title, sub, cli.width, cli.icicle, cli.fold.period ? "period" : "samples" };
		err = stacks_export(&cur.stacks, &cs);
		if (!err && have_base)
			err = stacks_export(&base.stacks, &bs);
		if (!err && have_base)
			err = flamegraph_write_diff(f, bs, base.stacks.n, cs, cur.stacks.n, &fc, &e);
		else if (!err)
			err = flamegraph_write(f, cs, cur.stacks.n, &fc, &e);
		free(cs);
		free(bs);
	}
	int cerr = out_finish(f, &of, !err);
	if (!err && cerr)
		snprintf(e.msg, sizeof(e.msg), "cannot write %s: %s", out, strerror(-cerr));
	fold_free(&cur);
	if (have_base)
		fold_free(&base);
	if (err || cerr) {
		say("%s", e.msg[0] ? e.msg : strerror(-(err ? err : cerr)));
		return EXIT_RUNTIME;
	}
	if (flame && strcmp(out, "-") != 0)
		say("wrote %s", out);
	return 0;
}

static int cmd_fold_or_flame(int argc, char **argv, bool flame)
{
	struct fold_cli cli;
	struct err e = { "" };
	if (fold_cli_parse(argc, argv, flame, &cli, &e)) {
		say("%s", e.msg);
		return EXIT_USAGE;
	}
	int code = 0;
	if (cli.help)
		fputs(flame ? flamegraph_usage : fold_usage, stdout);
	else
		code = fold_or_flame(cli, flame);
	fold_cli_free(&cli);
	return code;
}

/* What cmd_pprof runs once cli is parsed (a copy, as fold_or_flame's). */
static int pprof_convert(struct fold_cli cli)
{
	struct err e = { "" };
	const char *out = cli.output ? cli.output : "profile.pb.gz";
	if (strcmp(out, "-") == 0 && isatty(STDOUT_FILENO)) {
		say("pprof: not writing a gzipped profile to a terminal; give a file with -o");
		return EXIT_USAGE;
	}
	struct pprof_result r;
	int err = pprof_run(&cli.fold, &r, &e);
	if (err) {
		say("%s", e.msg[0] ? e.msg : strerror(-err));
		pprof_free(&r);
		return EXIT_RUNTIME;
	}
	fold_report(cli.fold.input, &r.fold);
	struct outfile of;
	FILE *f;
	int oerr = out_open_shared(out, "pprof-", &of, &f);
	if (oerr) {
		out_open_failed(out, &of, oerr);
		outfile_close(&of);
		pprof_free(&r);
		return EXIT_RUNTIME;
	}
	size_t bytes = 0;
	err = pprof_write(f, &r, &bytes, &e);
	int cerr = out_finish(f, &of, !err);
	if (!err && cerr)
		snprintf(e.msg, sizeof(e.msg), "cannot write %s: %s", out, strerror(-cerr));
	if (err || cerr) {
		say("%s", e.msg[0] ? e.msg : strerror(-(err ? err : cerr)));
		pprof_free(&r);
		return EXIT_RUNTIME;
	}
	if (strcmp(out, "-") != 0)
		say("wrote %s (%" PRIu64 " samples as %zu, %zu locations, %zu functions, %zu mappings)",
			out, r.fold.kept, r.counts.samples, r.counts.locations, r.counts.functions, r.counts.mappings);
	pprof_free(&r);
	return 0;
}

static int cmd_pprof(int argc, char **argv)
{
	struct fold_cli cli;
	struct err e = { "" };
	if (fold_cli_parse(argc, argv, FOLD_CLI_PPROF, &cli, &e)) {
		say("%s", e.msg);
		return EXIT_USAGE;
	}
	int code = 0;
	if (cli.help)
		fputs(pprof_usage, stdout);
	else
		code = pprof_convert(cli);
	fold_cli_free(&cli);
	return code;
}

static const char markers_usage[] =
"usage: psrec markers [-i FILE] [--pid PID] [--tid TID] [--comm NAME] [--json]\n"
"\n"
"List the markers a program sent with psrec_mark() and friends (the samples\n"
"of psrec:marker) in time order: seconds from the recording's first sample,\n"
"pid/tid, thread name, kind (mark, bytes(TYPE), begin, end) and text; then\n"
"the spans, each end paired with the latest open begin of its name on its\n"
"thread (nested spans indented): start, duration in ms, or open when the\n"
"recording ended first. FILE: psrec's or perf's, file or stream (- for\n"
"standard input), -z compressed or not.\n"
"\n"
"  -i, --input=FILE      the recording (default perf.data)\n"
"      --pid=PID, --tid=TID, --comm=NAME   only these threads' markers\n"
"      --json            one JSON object: {\"markers\": [...], \"spans\": [...]}\n"
"\n"
"psrec flamegraph --between 'A,B' (and fold, pprof) keeps the samples from\n"
"each marker A to the next marker B.\n";

static int cmd_markers(int argc, char **argv)
{
	struct markers_cli cli;
	struct err e = { "" };
	if (markers_cli_parse(argc, argv, &cli, &e)) {
		say("%s", e.msg);
		return EXIT_USAGE;
	}
	if (cli.help) {
		fputs(markers_usage, stdout);
		return 0;
	}
	const char *name = strcmp(cli.input, "-") ? cli.input : "standard input";
	struct marker_list l;
	marker_list_init(&l);
	int err = marker_list_read(&l, cli.input, &cli.filter, &e);
	if (!err)
		err = marker_list_pair(&l);
	if (!err && l.warning[0])
		say("%s: %s", name, l.warning);
	if (!err && l.n == 0 && l.filtered)
		say("none of the %" PRIu64 " markers in %s passed --pid, --tid, --comm", l.filtered,
			name);
	else if (!err && l.n == 0)
		say("no markers in %s (recorded without a program using psrec_mark?)", name);
	if (!err && cli.json)
		err = marker_list_write_json(stdout, &l, cli.input, &e);
	else if (!err && l.n)
		err = marker_list_write(stdout, &l, cli.input, &e);
	if (!err && l.bad)
		say("%s: %" PRIu64 " psrec:marker samples did not decode and were skipped", name,
			l.bad);
	marker_list_free(&l);
	if (err) {
		say("%s", err_is_set(&e) ? e.msg : strerror(-err));
		return EXIT_RUNTIME;
	}
	return 0;
}

int main(int argc, char **argv)
{
	/* "psrec recover FILE", "psrec archive ..."; anything else records
	 * (psrec -- recover ... records a program called recover). */
	if (argc > 1 && strcmp(argv[1], "recover") == 0)
		return cmd_recover(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "archive") == 0)
		return cmd_archive(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "fold") == 0)
		return cmd_fold_or_flame(argc - 1, argv + 1, false);
	if (argc > 1 && strcmp(argv[1], "flamegraph") == 0)
		return cmd_fold_or_flame(argc - 1, argv + 1, true);
	if (argc > 1 && strcmp(argv[1], "pprof") == 0)
		return cmd_pprof(argc - 1, argv + 1);
	if (argc > 1 && strcmp(argv[1], "markers") == 0)
		return cmd_markers(argc - 1, argv + 1);
	return cmd_record(argc, argv);
}
