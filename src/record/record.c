/*
 * record.c - a recording from start to finish (see record.h), in phases
 * over one struct recording, each undoing only what it did:
 *  prepare  check the targets, block the stop signals, create the output
 *           (an unwritable path fails before any event is opened; a FIFO
 *           waits for its reader, the signals heard);
 *  open     open every event on the target, set up compression;
 *  start    header, attrs, kernel map; name the file; synthesize what
 *           existed; checkpoint; let the target run;
 *  loop     drain until the targets exit, a signal, the deadline or a
 *           write error;
 *  finish   stop the target's events, drain once more, write features;
 *  cleanup  close everything; a failed start leaves nothing behind.
 * With --switch-output the loop cuts chunks: each cut finishes the file
 * as finish does (build-ids, features, header) and names it
 * OUTPUT.<timestamp>, then begins the next as start does (header, attrs,
 * kernel map, the side band re-read from /proc), on the same writer.
 */
#include "record.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buildid/elfid.h"
#include "buildid/idcache.h"
#include "buildid/store.h"
#include "format/compress.h"
#include "format/sample.h"
#include "marker/tp.h"
#include "record/buildids.h"
#include "record/features.h"
#include "record/hostinfo.h"
#include "record/markers.h"
#include "record/output.h"
#include "record/perm.h"
#include "record/rotate.h"
#include "record/sidecache.h"
#include "record/spawn.h"
#include "record/synth.h"
#include "record/target.h"
#include "util/sysfile.h"

struct recording {
	struct target_env env;
	struct target tgt;
	struct hostinfo host;
	int *cpus;
	int ncpus;
	sigset_t old_mask;
	bool mask_set;
	int sigfd;
	struct output out;
	int out_fd;
	bool pipe;              /* pipe format: -o -, or a FIFO behind -o */
	struct sampler smp;
	bool smp_open;
	struct compressor comp;
	bool comp_ok;
	struct writer w;
	struct feature_inputs fin;
	struct buf synth;
	bool started;           /* the loop has begun: the file is kept */
	/* Build-ids (none with -B). */
	struct idcache ids;
	struct build_id kernel_id;  /* the running kernel's, size 0 if unknown */
	struct buildids bids;
	struct buf bid_feature;
	/* Chunks (--switch-output). */
	bool rotating;
	bool chunk_open;        /* the writer has a file to finish */
	struct loop_switch sw;
	struct buf kernel_rec;  /* the kernel map record, made once */
	struct buf next_synth;  /* the next chunk's side band */
	struct sidecache cache; /* each live process's, between chunks */
	struct features_machine machine; /* sysfs facts, read once for all chunks */
	bool machine_ok;
	struct rotate_kept kept;
	struct spawn_set cmds;
	uint64_t bytes_done;    /* of the chunks finished */
	/* Markers (off with --no-markers, -a, -t). */
	bool mk_on;
	struct markers mk;
	struct sampler_event mk_ev;
	uint64_t mk_id;
};

void record_notice(const struct record_hooks *h, int level, const char *fmt, ...)
{
	if (!h || !h->notice)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	h->notice(h->ctx, level, msg);
}

/* One line for a failed write of the output. */
static int write_failed(const struct record_config *o, int err, struct err *e)
{
	const char *name = o->pipe ? "standard output" : o->output;
	if (err == -EPIPE)
		return err_set(e, err, "the reader of %s went away before recording started", name);
	return err_set(e, err, "cannot write %s: %s", name, strerror(-err));
}

static int choose_cpus(struct recording *r, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	if (c->cpus) {
		r->cpus = malloc((size_t)c->nr_cpus * sizeof(*r->cpus));
		if (!r->cpus)
			return -ENOMEM;
		memcpy(r->cpus, c->cpus, (size_t)c->nr_cpus * sizeof(*r->cpus));
		r->ncpus = c->nr_cpus;
		return 0;
	}
	int err = hostinfo_online_cpus(&r->cpus, &r->ncpus);
	if (err)
		return err_set(e, err, "cannot read the online CPUs from /sys/devices/system/cpu/online: %s", strerror(-err));
	return 0;
}

/*
 * Markers come from a launched command (the channel psrec hands it) and
 * from the processes of -p (the channels their library made). A channel
 * psrec cannot make costs the markers, never the recording.
 */
static void prepare_markers(struct recording *r)
{
	const struct record_config *c = r->env.cfg;
	const struct record_hooks *h = r->env.hooks;
	r->env.marker_fd = -1;
	r->mk_on = false;
	if (c->markers == CONFIG_MARKERS_OFF || (!r->env.cmd_path && !c->nr_pids)) {
		if (c->markers == CONFIG_MARKERS_ON)
			record_notice(h, RECORD_NOTICE_WARN, "--markers: markers come from a command or -p processes, not -a or -t");
		return;
	}
	bool force = c->markers == CONFIG_MARKERS_ON;
	markers_init(&r->mk, 0, c->clockid);
	int err = 0;
	if (r->env.cmd_path) {
		if (!force && !markers_program_uses(r->env.cmd_path))
			goto off;
		err = markers_create(&r->mk, PSREC_MARKER_DATA_SIZE, &r->env.marker_fd);
	} else {
		err = markers_watch(&r->mk, c->pids, (size_t)c->nr_pids);
		if (!err)
			markers_scan(&r->mk, 0);
		if (!err && !force && !markers_found(&r->mk))
			goto off;
	}
	if (err) {
		record_notice(h, RECORD_NOTICE_WARN, "no markers: cannot set up their channel: %s", strerror(-err));
		goto off;
	}
	r->mk_on = true;
	return;
off:
	if (r->mk.warning[0])
		record_notice(h, RECORD_NOTICE_WARN, "%s", r->mk.warning);
	markers_free(&r->mk);
}

/* The psrec:marker event, made like the sampler's first; final: the
 * tracepoint form, which a stream has from its start and a file only
 * once its TRACING_DATA is written (marker/tp.h). */
static void marker_event(struct recording *r, bool final)
{
	r->mk_id = MARKER_TP_ID;
	marker_tp_attr(&r->mk_ev.attr, &r->smp.ev[0].attr, final);
	r->mk_ev.name = MARKER_TP_NAME;
	r->mk_ev.ids = &r->mk_id;
	r->mk_ev.nr_ids = 1;
	r->mk.sample_type = r->mk_ev.attr.sample_type;
}

/* The feature inputs of a new file, its events psrec:marker included. */
static void inputs_init(struct recording *r)
{
	features_inputs_init(&r->fin, &r->host, r->env.cfg, r->pipe, &r->smp, r->comp_ok ? &r->comp : NULL);
	r->fin.marker = r->mk_on ? &r->mk_ev : NULL;
}

static int prepare(struct recording *r, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	int err = choose_cpus(r, e);
	if (!err)
		err = r->tgt.ops->check(&r->tgt, &r->env, e);
	if (err)
		return err;
	prepare_markers(r);
	r->sigfd = r->env.sigfd = loop_signals_block(&r->old_mask, &r->mask_set, r->rotating);
	if (r->sigfd < 0)
		return err_set(e, r->sigfd, "signalfd: %s", strerror(-r->sigfd));
	r->out_fd = STDOUT_FILENO;
	r->pipe = c->pipe;
	if (c->pipe)
		return 0;
	err = output_create(&r->out, c->output, r->rotating, e);
	if (err == -ENXIO) {
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "waiting for a reader of the FIFO %s (perf report -i - <%s)",
			      c->output, c->output);
		err = output_wait_reader(&r->out, c->output, r->sigfd, &r->env.res->stop_signal, e);
	}
	r->out_fd = r->out.file.fd;
	/* A FIFO or a pipe behind -o: the stream needs no seeking. */
	r->pipe = !r->out.seekable;
	return err;
}

static void announce_fallbacks(const struct recording *r)
{
	const struct record_hooks *h = r->env.hooks;
	const struct sampler *s = &r->smp;
	if (s->default_fell_back)
		record_notice(h, RECORD_NOTICE_VERBOSE, "no hardware PMU: default event cycles replaced by cpu-clock");
	if (s->kernel_excluded)
		record_notice(h, RECORD_NOTICE_WARN, "kernel samples not permitted (perf_event_paranoid is %d); recording user space only",
			      perm_paranoid());
	if (s->ring_shrunk)
		record_notice(h, r->env.cfg->mmap_pages_given ? RECORD_NOTICE_WARN : RECORD_NOTICE_VERBOSE,
			      "a %zu KiB ring per CPU exceeds the locked-memory limit (perf_event_mlock_kb, ulimit -l); using %zu KiB",
			      r->env.cfg->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024, (size_t)s->rings[0].size / 1024);
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
	if (!c->no_buildid) {
		r->env.ids = &r->ids;
		elfid_kernel("/sys", &r->kernel_id); /* unreadable: the kernel goes unnamed */
	}
	int err = r->tgt.ops->open(&r->tgt, &r->env, &r->smp, &sc, e);
	if (err)
		return err;
	r->smp_open = true;
	if (r->smp.build_id_refused)
		record_notice(r->env.hooks, RECORD_NOTICE_VERBOSE,
			      "the kernel predates attr.build_id (Linux 5.12): build-ids are read from the mapped files after recording");
	announce_fallbacks(r);
	if (r->mk_on) {
		marker_event(r, r->pipe);
		if (r->env.cmd_path)
			markers_watch(&r->mk, &r->tgt.child.pid, 1);
	}
	r->env.res->nr_cpus = r->smp.nr_cpus;
	r->env.res->ring_bytes = r->smp.rings[0].size;
	if (c->compress_level) {
		err = compress_init(&r->comp, c->compress_level, r->smp.rings[0].size);
		if (err)
			return err_set(e, err, "cannot set up zstd compression: %s", strerror(-err));
		r->comp_ok = true;
	}
	inputs_init(r);
	return 0;
}

/* The kernel map record, when kernel samples are on (see synth.h). */
static int synthesize_kernel(struct recording *r)
{
	int why = 0;
	const struct build_id *id = r->env.cfg->no_buildid ? NULL : &r->kernel_id;
	int err = r->smp.kernel_samples ? synth_kernel(&r->synth, id, sample_id_trailer_size(r->smp.sample_type), &why) : 0;
	if (why)
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "kernel symbols unavailable (/proc/kallsyms: %s); kernel samples will not be resolved",
			      why == -EPERM ? "addresses hidden by kptr_restrict" : strerror(-why));
	return err;
}

/* The file is moved into place before the target's past is scanned:
 * replacing a big old file takes the kernel tens of milliseconds, long
 * enough to overflow a ring that is already filling. A failure from there
 * until the loop undoes it (output_abort, in cleanup). */
static int start(struct recording *r, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	int err = features_write_header(&r->w, r->out_fd, &r->fin);
	if (err)
		return err == -E2BIG ? err_set(e, err, "too many events (%zu); at most %d", r->smp.nr_events, FEATURES_MAX_EVENTS)
				     : write_failed(c, err, e);
	err = synthesize_kernel(r);
	if (!err && r->rotating)
		err = buf_append(&r->kernel_rec, r->synth.data, r->synth.len);
	if (!err && !c->pipe)
		err = output_commit(&r->out, e);
	if (err)
		return err;
	err = r->tgt.ops->synthesize(&r->tgt, &r->env, &r->smp, &r->synth);
	/* What the target handed the chunks' cache describes every process
	 * it follows (attach); none (a command not yet run): the first cut
	 * reads them all. */
	if (!err && r->cache.n)
		sidecache_seeded(&r->cache);
	if (!err) {
		struct iovec iov = { r->synth.data, r->synth.len };
		err = writer_append(&r->w, &iov, 1);
	}
	if (!err)
		err = writer_checkpoint(&r->w);
	if (err)
		return write_failed(c, err, e);
	err = r->tgt.ops->start(&r->tgt, &r->env, e);
	if (err)
		return err;
	r->started = true;
	r->chunk_open = true;
	if (!c->pipe)
		output_started(&r->out);
	char line[512];
	r->tgt.ops->describe(&r->tgt, &r->env, &r->smp, line, sizeof(line));
	record_notice(r->env.hooks, RECORD_NOTICE_VERBOSE, "%s", line);
	return 0;
}

/*
 * The BUILD_ID feature, from the data just written (file mode: a stream
 * cannot be read back; its MMAP2 records carry the ids). A failure costs
 * the feature, never the recording.
 */
static void collect_build_ids(struct recording *r)
{
	const struct record_config *c = r->env.cfg;
	if (c->no_buildid || r->pipe || r->w.end <= r->w.data_offset)
		return;
	/* The output is open write-only: map it through a reading fd. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r->out_fd);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	void *p = fd < 0 ? MAP_FAILED : mmap(NULL, r->w.end, PROT_READ, MAP_SHARED, fd, 0);
	int map_errno = errno;
	if (fd >= 0)
		close(fd);
	if (p == MAP_FAILED) {
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "no build-ids: cannot read back %s: %s", c->output,
			      strerror(map_errno));
		return;
	}
	struct pd_file_header hdr = r->w.hdr;
	hdr.data.offset = r->w.data_offset;
	hdr.data.size = writer_data_size(&r->w);
	memset(hdr.features, 0, sizeof(hdr.features));
	struct err e = { { 0 } };
	size_t listed = 0;
	int err = buildids_scan(&r->bids, p, r->w.end, &hdr, true, &e);
	if (!err)
		err = buildids_resolve(&r->bids, c->buildid_all, &r->kernel_id, &r->ids);
	if (!err)
		err = buildids_feature(&r->bids, c->buildid_all, &r->bid_feature, &listed);
	munmap(p, r->w.end);
	if (err) {
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "no build-ids: %s",
			      e.msg[0] ? e.msg : strerror(-err));
		return;
	}
	r->fin.build_ids = &r->bid_feature;
	r->env.res->nr_buildids = listed;
	record_notice(r->env.hooks, RECORD_NOTICE_VERBOSE,
		      "build-ids: %zu DSOs listed (of %zu mapped), %" PRIu64 " addresses in no known map, %" PRIu64 " files read",
		      listed, r->bids.sb.dsos.n, r->bids.unresolved, r->ids.files_read);
}

/* Copy the listed DSOs into ~/.debug, once the file is complete: a slow
 * or failing copy never costs the recording. */
static void cache_build_ids(struct recording *r)
{
	const struct record_hooks *h = r->env.hooks;
	struct store s;
	struct err e = { { 0 } };
	if (store_open(&s, NULL, &e)) {
		record_notice(h, RECORD_NOTICE_WARN, "build-id cache skipped: %s", e.msg);
		return;
	}
	struct buildids_cached res;
	int err = buildids_cache(&r->bids, r->env.cfg->buildid_all, &r->kernel_id, &s, &res, &e);
	if (err)
		record_notice(h, RECORD_NOTICE_WARN, "build-id cache %s: %s (record with -N to skip it)", s.root, e.msg);
	else
		record_notice(h, RECORD_NOTICE_VERBOSE, "build-id cache %s: %zu added (%.1f MB), %zu present, %zu not found",
			      s.root, res.added, (double)res.bytes / 1e6, res.present, res.missing);
	r->env.res->cache_added = res.added;
	r->env.res->cache_missing = res.missing;
	store_close(&s);
}

/* The end of one file, the whole recording's or a chunk's: BUILD_ID from
 * its data, the features, the final header; then the ~/.debug copies. */
static int finish_file(struct recording *r, const struct ring_tally *t, struct err *e)
{
	struct record_result *res = r->env.res;
	r->chunk_open = false;
	if (r->rotating && !r->machine_ok)
		r->machine_ok = features_machine_read(&r->fin, &r->machine) == 0;
	r->fin.machine = r->machine_ok ? &r->machine : NULL;
	r->fin.first_time = t->first_time;
	r->fin.last_time = t->last_time;
	collect_build_ids(r);
	bool failed = false;
	if (r->mk_on && !r->pipe)
		marker_event(r, true);
	int err = features_finish(&r->w, &r->fin, &failed);
	res->features_failed |= failed;
	if (err)
		return err_set(e, err, "cannot finish %s: %s", r->env.cfg->output, strerror(-err));
	/* Only now that TRACING_DATA is in: a tracepoint without it makes
	 * perf refuse the whole file. Failing, the event stays bpf-output. */
	if (r->mk_on && !r->pipe && !failed)
		writer_rewrite_attr(&r->w, r->smp.nr_events, &r->mk_ev.attr);
	if (r->fin.build_ids && !r->env.cfg->no_buildid_cache)
		cache_build_ids(r);
	struct stat sb;
	if (r->pipe)
		r->bytes_done += r->w.end;
	else if (fstat(r->out.file.fd, &sb) == 0)
		r->bytes_done += (uint64_t)sb.st_size;
	return 0;
}

/*
 * A finished chunk gets its name OUTPUT.<timestamp> (the time it ended,
 * as perf names it; never over another chunk: two cuts within a
 * hundredth of a second take the next hundredth), the oldest beyond
 * --switch-max-files goes, and the command starts.
 */
static int name_chunk(struct recording *r, const struct ring_tally *t, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	const struct rotate_spec *rs = &c->switch_output;
	char name[4096];
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int err = -EEXIST;
	for (int tries = 0; tries < 100 && err == -EEXIST; tries++) {
		err = rotate_chunk_name(name, sizeof(name), c->output, &now);
		if (err)
			return err_set(e, err, "cannot name a chunk of %s: the name is too long", c->output);
		err = renameat2(AT_FDCWD, c->output, AT_FDCWD, name, RENAME_NOREPLACE) < 0 ? -errno : 0;
		now.tv_nsec += 10000000;
		if (now.tv_nsec >= 1000000000) {
			now.tv_sec++;
			now.tv_nsec -= 1000000000;
		}
	}
	if (err)
		return err_set(e, err, "cannot rename %s to %s: %s", c->output, name, strerror(-err));
	char *evicted;
	err = rotate_kept_add(&r->kept, name, &evicted);
	if (err)
		return err;
	if (evicted && unlink(evicted) < 0 && errno != ENOENT)
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "cannot remove the old chunk %s: %s", evicted, strerror(errno));
	free(evicted);
	record_notice(r->env.hooks, RECORD_NOTICE_WARN, "chunk %s (%" PRIu64 " samples, %" PRIu64 " lost)", name,
		      t->samples, loop_lost(t));
	int serr = rs->command ? spawn_command(&r->cmds, rs->command, name, &r->old_mask) : 0;
	if (serr)
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "cannot run --switch-output-command for %s: %s", name,
			      strerror(-serr));
	return 0;
}

/* The next chunk, begun as start() begins the first, with the side band
 * of now (prepared before the last pass of the previous one). */
static int begin_chunk(struct recording *r, struct err *e)
{
	const struct record_config *c = r->env.cfg;
	output_close(&r->out);
	int err = output_create(&r->out, c->output, true, e);
	r->out_fd = r->out.file.fd;
	if (err)
		return err;
	inputs_init(r);
	r->fin.machine = r->machine_ok ? &r->machine : NULL;
	if (r->mk_on)
		marker_event(r, false);
	buildids_free(&r->bids);
	buildids_init(&r->bids);
	buf_reset(&r->bid_feature);
	/* zstd's window must not reach into the previous file. */
	if (r->comp_ok)
		compress_reset(&r->comp);
	err = features_write_header(&r->w, r->out_fd, &r->fin);
	if (err)
		return write_failed(c, err, e);
	err = output_commit(&r->out, e);
	if (err)
		return err;
	struct iovec iov[2] = { { r->kernel_rec.data, r->kernel_rec.len }, { r->next_synth.data, r->next_synth.len } };
	err = writer_append(&r->w, iov, 2);
	if (!err)
		err = writer_checkpoint(&r->w);
	if (err)
		return write_failed(c, err, e);
	r->chunk_open = true;
	return 0;
}

/* The bound of pids, for the side-band cache's marks. */
static size_t pid_max(void)
{
	int64_t v = 0;
	return sysfile_read_s64("/proc/sys/kernel/pid_max", &v) == 0 && v > 0 && v <= (1 << 22) ? (size_t)v : 1u << 22;
}

static int chunk_live(void *ctx, pid_t **pids, size_t *n)
{
	struct recording *r = ctx;
	return r->tgt.ops->live(&r->tgt, &r->env, pids, n);
}

static int chunk_synth(void *ctx, pid_t pid, struct buf *b)
{
	struct recording *r = ctx;
	return target_synth_process(&r->env, &r->smp, pid, b);
}

/* This thread's CPU time (psrec has one), for -v's account of the cuts. */
static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* loop_switch.prepare: the live threads and maps, for the next chunk
 * (only the processes that changed are read again). */
static int chunk_prepare(void *ctx)
{
	struct recording *r = ctx;
	struct record_result *res = r->env.res;
	double t0 = cpu_ms();
	buf_reset(&r->next_synth);
	int err = sidecache_refresh(&r->cache, chunk_live, chunk_synth, r, &r->next_synth);
	double ms = cpu_ms() - t0;
	if (res->stats.chunks == 0)
		res->resynth_first_ms = ms;
	res->resynth_ms += ms;
	res->cut_ms += ms;
	return err;
}

/* loop_switch.cut: the chunk's last pass is in (and its side band in
 * next_synth): finish it, name it, begin the next. */
static int chunk_cut(void *ctx)
{
	struct recording *r = ctx;
	struct err e = { { 0 } };
	const struct ring_tally *t = &r->env.res->stats.chunk;
	double t0 = cpu_ms();
	int err = finish_file(r, t, &e);
	if (!err)
		err = name_chunk(r, t, &e);
	if (!err)
		err = begin_chunk(r, &e);
	r->env.res->cut_ms += cpu_ms() - t0;
	if (err && err_is_set(&e))
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "%s", e.msg);
	return err;
}

/* loop_switch.tick */
static void chunk_tick(void *ctx)
{
	struct recording *r = ctx;
	spawn_reap(&r->cmds);
}

static void run_loop(struct recording *r, struct loop_config *lc)
{
	const struct record_config *c = r->env.cfg;
	const struct record_hooks *h = r->env.hooks;
	*lc = (struct loop_config){
		.signal_fd = r->sigfd,
		.ignore_tty_sigint = r->tgt.ops->tty_sigint_to_target,
		.duration_ms = (uint64_t)(c->duration * 1000.0 + 0.5),
		.time_offset = sample_time_offset(r->smp.sample_type),
		.status = h ? h->status : NULL,
		.status_ctx = h ? h->ctx : NULL,
		.compress = r->comp_ok ? &r->comp : NULL,
		.markers = r->mk_on ? &r->mk : NULL,
	};
	lc->nr_target_fds = r->tgt.ops->watch(&r->tgt, &lc->target_fds);
	const struct rotate_spec *rs = &c->switch_output;
	if (r->rotating) {
		r->sw = (struct loop_switch){
			.on_signal = rs->mode == ROTATE_SIGNAL,
			.ms = rs->mode == ROTATE_TIME ? rs->ms : 0,
			.bytes = rs->mode == ROTATE_SIZE ? rs->bytes : 0,
			.carry = &r->next_synth,
			.marks = &r->cache,
			.prepare = chunk_prepare, .cut = chunk_cut, .tick = chunk_tick, .ctx = r,
		};
		lc->sw = &r->sw;
	}
	int err = loop_run(&r->smp, &r->w, lc, &r->env.res->stats);
	if (err)
		/* epoll_wait failed: still finish what was written. */
		record_notice(h, RECORD_NOTICE_WARN, "epoll_wait failed: %s; stopping", strerror(-err));
}

static int finish(struct recording *r, const struct loop_config *lc, struct err *e)
{
	struct record_result *res = r->env.res;
	struct loop_stats *st = &res->stats;
	r->tgt.ops->stop(&r->tgt, &r->smp);
	/* The programs stop writing; the last pass takes what they wrote. */
	if (r->mk_on)
		markers_stop(&r->mk);
	/* A failed cut left no file to finish (it said why). */
	if (st->end_reason != LOOP_END_WRITE_ERROR && r->chunk_open) {
		int derr = loop_drain(&r->smp, &r->w, lc, st);
		if (derr) {
			st->end_reason = LOOP_END_WRITE_ERROR;
			st->write_error = derr;
		}
	}
	if (st->end_reason == LOOP_END_TARGET_EXIT)
		r->tgt.ops->reaped(&r->tgt, &r->env);
	int err = r->chunk_open ? finish_file(r, &st->chunk, e) : 0;
	if (!err && r->rotating && !r->pipe && r->out.committed && !r->out.file.direct) {
		err = name_chunk(r, &st->chunk, e);
		st->chunks++;
	}
	if (err)
		return err;
	if (r->mk_on) {
		res->markers_on = true;
		res->markers = r->mk.st;
		if (r->mk.warning[0])
			record_notice(r->env.hooks, RECORD_NOTICE_WARN, "%s", r->mk.warning);
	}
	res->file_bytes = r->bytes_done;
	if (r->comp_ok)
		res->compress_ratio = compress_ratio(&r->comp);
	res->lost = loop_lost(&st->tally);
	return 0;
}

static void cleanup(struct recording *r)
{
	if (r->smp_open)
		sampler_close(&r->smp);
	/* The chunks' commands run on after the recording; psrec's exit
	 * waits for them (their chunks are complete). */
	spawn_wait_all(&r->cmds);
	if (r->cmds.failed)
		record_notice(r->env.hooks, RECORD_NOTICE_WARN, "--switch-output-command failed for %zu of %zu chunks",
			      r->cmds.failed, r->cmds.started);
	spawn_free(&r->cmds);
	if (r->mk_on)
		markers_free(&r->mk);
	rotate_kept_free(&r->kept);
	buf_free(&r->kernel_rec);
	buf_free(&r->next_synth);
	sidecache_free(&r->cache);
	if (r->machine_ok)
		features_machine_free(&r->machine);
	if (!r->started)
		output_abort(&r->out);
	r->tgt.ops->end(&r->tgt, &r->env, r->started);
	output_close(&r->out);
	if (r->comp_ok)
		compress_free(&r->comp);
	buf_free(&r->synth);
	buf_free(&r->bid_feature);
	buildids_free(&r->bids);
	idcache_free(&r->ids);
	loop_signals_restore(r->sigfd, r->mask_set ? &r->old_mask : NULL);
	free(r->cpus);
	hostinfo_free(&r->host);
}

int record_run(const struct record_config *c, const char *cmd_path, const struct record_hooks *h,
	       struct record_result *res, struct err *e)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(res, 0, sizeof(*res));
	struct recording r = { .sigfd = -1, .out = { .file = OUTFILE_INIT, .aside_fd = -1 } };
	r.env = (struct target_env){ .cfg = c, .cmd_path = cmd_path, .child_mask = &r.old_mask, .marker_fd = -1,
				     .sigfd = -1, .t0 = &t0, .hooks = h, .res = res };
	target_init(&r.tgt, cmd_path);
	r.rotating = c->switch_output.mode != ROTATE_NONE;
	rotate_kept_init(&r.kept, c->switch_output.max_files);
	spawn_init(&r.cmds);
	idcache_init(&r.ids);
	buildids_init(&r.bids);
	int err = hostinfo_read(&r.host);
	if (err)
		err = err_set(e, err, "cannot read this machine's CPUs and topology: %s", strerror(-err));
	else if (r.rotating && (err = sidecache_init(&r.cache, pid_max())) != 0)
		err = err_set(e, err, "cannot set up the chunks' process cache: %s", strerror(-err));
	r.env.seed = r.rotating ? &r.cache : NULL;
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
	return err;
}
