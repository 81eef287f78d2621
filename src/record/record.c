/*
 * record.c - a recording from start to finish (see record.h), in phases
 * over one struct recording, each undoing only what it did:
 *  prepare  check the targets, set up markers, block the stop signals,
 *           create the output (recfile.h: an unwritable path fails
 *           before any event is opened);
 *  open     open every event on the target, set up compression;
 *  start    header, attrs, kernel map; name the file; synthesize what
 *           existed; checkpoint; let the target run;
 *  loop     drain until the targets exit, a signal, the deadline or a
 *           write error; with --switch-output, cut chunks (chunks.h);
 *  finish   stop the target's events, drain once more, finish the file;
 *  cleanup  close everything; a failed start leaves nothing behind.
 */
#include "record.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/compress.h"
#include "format/sample.h"
#include "record/buildids.h"
#include "record/chunks.h"
#include "record/hostinfo.h"
#include "record/recfile.h"
#include "record/synth.h"
#include "record/target.h"

struct recording {
	struct target_env env;
	struct target tgt;
	const struct record_hooks *hooks;
	struct record_result *res;
	struct hostinfo host;
	int *cpus;
	int ncpus;
	sigset_t old_mask;
	bool mask_set;
	int sigfd;
	struct recfile file;
	struct sampler smp;
	bool smp_open;
	struct compressor comp;
	bool comp_ok;
	struct buf synth;
	bool started;           /* the loop has begun: the file is kept */
	struct buildids_pass ids;
	struct chunks ch;
	bool mk_on;             /* markers (off with --no-markers, -a, -t) */
	struct markers mk;
};

static int prepare(struct recording *r, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	int err = hostinfo_choose_cpus(c->cpus, c->nr_cpus, &r->cpus, &r->ncpus, e);
	if (!err)
		err = r->tgt.ops->check(&r->tgt, &r->env, e);
	if (err)
		return err;
	r->mk_on = c->markers != CONFIG_MARKERS_OFF && r->tgt.ops->markers(&r->tgt, &r->env, &r->mk);
	r->sigfd = r->env.sigfd = loop_signals_block(&r->old_mask, &r->mask_set, r->ch.on);
	if (r->sigfd < 0)
		return err_set(e, r->sigfd, "signalfd: %s", strerror(-r->sigfd));
	return recfile_create(&r->file, c, r->ch.on, r->sigfd, &r->res->stop_signal, &r->env.say, e);
}

static int open_events(struct recording *r, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	struct sampler_config sc = {
		.events = c->events.ev, .nr_events = c->events.nr,
		.cpus = r->cpus, .nr_cpus = (size_t)r->ncpus,
		.freq = c->freq, .period = c->period,
		.clockid = c->clockid, .mmap_pages = c->mmap_pages,
		.callgraph = c->callgraph,
		.sample_cpu = c->system_wide || c->cpus != NULL,
		.build_id = !c->no_buildid,
		.identifier = r->mk_on,
	};
	r->env.ids = buildids_pass_start(&r->ids);
	int err = r->tgt.ops->open(&r->tgt, &r->env, &r->smp, &sc, e);
	if (err)
		return err;
	r->smp_open = true;
	sampler_announce(&r->smp, c->mmap_pages, c->mmap_pages_given, &r->env.say);
	r->res->nr_cpus = r->smp.nr_cpus;
	r->res->ring_bytes = r->smp.rings[0].size;
	if (c->compress_level) {
		err = compress_init(&r->comp, c->compress_level, r->smp.rings[0].size);
		if (err)
			return err_set(e, err, "cannot set up zstd compression: %s", strerror(-err));
		r->comp_ok = true;
	}
	recfile_set_inputs(&r->file, &r->host, &r->smp, r->comp_ok ? &r->comp : NULL, r->mk_on ? &r->mk : NULL, &r->ids);
	return 0;
}

/* The kernel map record, when kernel samples are on (see synth.h). */
static int synthesize_kernel(struct recording *r)
{
	int why = 0;
	const struct build_id *id = r->env.cfg->no_buildid ? NULL : &r->ids.kernel_id;
	int err = r->smp.kernel_samples ? synth_kernel(&r->synth, id, sample_id_trailer_size(r->smp.sample_type), &why) : 0;
	if (why)
		notify_say(&r->env.say, NOTIFY_WARN, "kernel symbols unavailable (/proc/kallsyms: %s); kernel samples will not be resolved",
			   why == -EPERM ? "addresses hidden by kptr_restrict" : strerror(-why));
	return err;
}

/* The file is moved into place before the target's past is scanned:
 * replacing a big old file takes the kernel tens of milliseconds, long
 * enough to overflow a ring that is already filling. A failure from there
 * until the loop undoes it (recfile_abort, in cleanup). */
static int start(struct recording *r, struct err *e)
{
	int err = recfile_header(&r->file, e);
	if (!err)
		err = synthesize_kernel(r);
	if (!err)
		err = chunks_keep_kernel(&r->ch, r->synth.data, r->synth.len);
	if (!err)
		err = recfile_commit(&r->file, e);
	if (err)
		return err;
	err = r->tgt.ops->synthesize(&r->tgt, &r->env, &r->smp, &r->synth);
	if (err)
		return output_failed(r->env.cfg->output, r->env.cfg->pipe, err, e);
	chunks_seeded(&r->ch);
	err = recfile_append(&r->file, &(struct iovec){ r->synth.data, r->synth.len }, 1, e);
	if (!err)
		err = r->tgt.ops->start(&r->tgt, &r->env, e);
	if (err)
		return err;
	r->started = true;
	recfile_started(&r->file);
	char line[512];
	r->tgt.ops->describe(&r->tgt, &r->env, &r->smp, line, sizeof(line));
	notify_say(&r->env.say, NOTIFY_VERBOSE, "%s", line);
	return 0;
}

static void run_loop(struct recording *r, struct loop_config *lc)
{
	const struct record_config *c = r->env.cfg;
	*lc = (struct loop_config){
		.signal_fd = r->sigfd,
		.ignore_tty_sigint = r->tgt.ops->tty_sigint_to_target,
		.duration_ms = (uint64_t)(c->duration * 1000.0 + 0.5),
		.time_offset = sample_time_offset(r->smp.sample_type),
		.status = r->hooks ? r->hooks->status : NULL,
		.status_ctx = r->hooks ? r->hooks->ctx : NULL,
		.compress = r->comp_ok ? &r->comp : NULL,
		.markers = r->mk_on ? &r->mk : NULL,
		.sw = chunks_switch(&r->ch, &r->res->stats),
	};
	lc->nr_target_fds = r->tgt.ops->watch(&r->tgt, &lc->target_fds);
	int err = loop_run(&r->smp, &r->file.w, lc, &r->res->stats);
	if (err)
		/* epoll_wait failed: still finish what was written. */
		notify_say(&r->env.say, NOTIFY_WARN, "epoll_wait failed: %s; stopping", strerror(-err));
}

static int finish(struct recording *r, const struct loop_config *lc, struct err *e)
{
	struct record_result *res = r->res;
	struct loop_stats *st = &res->stats;
	r->tgt.ops->stop(&r->tgt, &r->smp);
	/* The programs stop writing; the last pass takes what they wrote. */
	if (r->mk_on)
		markers_stop(&r->mk);
	/* A failed cut left no file to finish (it said why). */
	if (st->end_reason != LOOP_END_WRITE_ERROR && r->file.open) {
		int derr = loop_drain(&r->smp, &r->file.w, lc, st);
		if (derr) {
			st->end_reason = LOOP_END_WRITE_ERROR;
			st->write_error = derr;
		}
	}
	if (st->end_reason == LOOP_END_TARGET_EXIT)
		r->tgt.ops->reaped(&r->tgt, &r->env);
	int err = r->file.open ? recfile_finish(&r->file, &st->chunk, e) : 0;
	if (!err)
		err = chunks_end(&r->ch, st, e);
	if (err)
		return err;
	if (r->mk_on) {
		res->markers_on = true;
		res->markers = r->mk.st;
		if (r->mk.warning[0])
			notify_say(&r->env.say, NOTIFY_WARN, "%s", r->mk.warning);
	}
	res->file_bytes = r->file.bytes;
	if (r->comp_ok)
		res->compress_ratio = compress_ratio(&r->comp);
	res->lost = loop_lost(&st->tally);
	return 0;
}

static void cleanup(struct recording *r)
{
	if (r->smp_open)
		sampler_close(&r->smp);
	chunks_free(&r->ch);
	if (r->mk_on)
		markers_free(&r->mk);
	if (!r->started)
		recfile_abort(&r->file);
	r->tgt.ops->end(&r->tgt, &r->env, r->started);
	recfile_close(&r->file);
	if (r->comp_ok)
		compress_free(&r->comp);
	buf_free(&r->synth);
	buildids_pass_free(&r->ids);
	loop_signals_restore(r->sigfd, r->mask_set ? &r->old_mask : NULL);
	free(r->cpus);
	hostinfo_free(&r->host);
}

/* What the parts learnt, into the result, however the recording ended. */
static void result_facts(const struct recording *r, struct record_result *res)
{
	res->target = r->tgt.facts;
	res->features_failed = r->file.features_failed;
	res->nr_buildids = r->ids.listed;
	res->cache_added = r->ids.cache_added;
	res->cache_missing = r->ids.cache_missing;
	res->cut_ms = r->ch.cut_ms;
	res->resynth_ms = r->ch.resynth_ms;
	res->resynth_first_ms = r->ch.resynth_first_ms;
}

int record_run(const struct record_config *c, const char *cmd_path, const struct record_hooks *h,
	       struct record_result *res, struct err *e)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(res, 0, sizeof(*res));
	struct recording r = { .sigfd = -1, .hooks = h, .res = res, .file = RECFILE_INIT };
	r.env = (struct target_env){ .cfg = c, .child_mask = &r.old_mask, .sigfd = -1, .t0 = &t0,
				     .say = { h ? h->notice : NULL, h ? h->ctx : NULL } };
	target_init(&r.tgt, cmd_path);
	buildids_pass_init(&r.ids, c, &r.env.say);
	int err = hostinfo_read(&r.host);
	if (err)
		err = err_set(e, err, "cannot read this machine's CPUs and topology: %s", strerror(-err));
	else
		err = chunks_init(&r.ch, &r.tgt, &r.env, &r.smp, &r.file, e);
	r.env.seed = r.ch.on ? &r.ch.cache : NULL;
	struct loop_config lc;
	if (!err)
		err = prepare(&r, e);
	if (!err)
		err = open_events(&r, e);
	if (!err)
		err = start(&r, e);
	if (!err) {
		run_loop(&r, &lc);
		err = finish(&r, &lc, e);
	}
	cleanup(&r);
	result_facts(&r, res);
	return err;
}
