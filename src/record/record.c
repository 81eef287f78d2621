/*
 * record.c - a recording from start to finish (see record.h).
 *
 * Order matters:
 *  1. check the targets, block the stop signals (so none is lost or kills
 *     us half-way), create the output under a temporary name (an
 *     unwritable path fails before any event is opened);
 *  2. fork the command, stopped on a pipe, or find the threads to attach
 *     to; open every event (attach: then look for threads that appeared
 *     meanwhile, until none do);
 *  3. write header, attrs and ids; attach: enable the events, then scan
 *     /proc, so nothing falls in between; write the synthesized records
 *     before any ring data, checkpoint;
 *  4. release the command (enable_on_exec starts sampling at its exec),
 *     move the file into place, loop;
 *  5. disable, drain once more, write the features, finish the header.
 */
#include "record.h"

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "format/compress.h"
#include "format/sample.h"
#include "format/writer.h"
#include "record/features.h"
#include "record/hostinfo.h"
#include "record/output.h"
#include "record/perm.h"
#include "record/procfs.h"
#include "record/sampler.h"
#include "record/synth.h"
#include "record/attach.h"
#include "record/launch.h"
#include "util/buf.h"
#include "util/sysfile.h"

/* Rescans for threads born while events were being opened. */
#define MAX_RESCANS 8
/* fds psrec needs besides the events (output, pidfds, stdio...). */
#define FD_SLACK 64

static void notice(const struct record_hooks *h, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void notice(const struct record_hooks *h, int level, const char *fmt, ...)
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

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static uint64_t clock_ns(int clockid)
{
	struct timespec ts;
	if (clock_gettime(clockid, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int online_cpus(int **cpus, int *n)
{
	char s[4096];
	int err = sysfile_read_str("/sys/devices/system/cpu/online", s, sizeof(s));
	if (err)
		return err;
	return cpulist_parse(s, cpus, n);
}

/* One line for a failed write of the output. */
static int write_failed(const struct record_config *o, int err, struct err *e)
{
	const char *name = o->pipe ? "standard output" : o->output;
	if (err == -EPIPE)
		return err_set(e, err, "the reader of %s went away before recording started", name);
	return err_set(e, err, "cannot write %s: %s", name, strerror(-err));
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/*
 * Header, attrs and ids. A pipe gets its features now (it cannot be
 * rewritten later; the sample times are then 0, as perf writes them).
 */
static int write_header(struct writer *w, int fd, const struct feature_inputs *in, struct err *e)
{
	const struct sampler *s = in->sampler;
	struct writer_event wev[FEATURES_MAX_EVENTS];
	if (s->nr_events > FEATURES_MAX_EVENTS)
		return err_set(e, -E2BIG, "too many events (%zu); at most %d", s->nr_events, FEATURES_MAX_EVENTS);
	for (size_t i = 0; i < s->nr_events; i++) {
		wev[i].attr = &s->ev[i].attr;
		wev[i].ids = s->ev[i].ids;
		wev[i].nr_ids = s->ev[i].nr_ids;
		wev[i].name = s->ev[i].name;
	}
	int err;
	if (in->pipe) {
		struct features f;
		err = features_build(in, &f);
		if (!err)
			err = writer_begin_pipe(w, fd, wev, s->nr_events, f.f, f.nr);
		features_free(&f);
	} else if (in->compress) {
		/* The decompression parameters as a record at the start of the
		 * data, so that a killed recording is readable too. */
		struct buf b = BUF_INIT;
		err = feature_compressed(&b, (uint32_t)in->compress->level, 0, in->mmap_len);
		struct writer_feature comp = { PD_FEAT_COMPRESSED, b.data, b.len };
		if (!err)
			err = writer_begin(w, fd, wev, s->nr_events);
		if (!err)
			err = writer_append_feature(w, &comp);
		if (!err)
			err = writer_checkpoint(w);
		buf_free(&b);
	} else {
		err = writer_begin(w, fd, wev, s->nr_events);
	}
	if (err)
		return write_failed(in->opts, err, e);
	return 0;
}

/*
 * The kernel map record, when kernel samples are on. Done before the
 * events are enabled: the kernel takes tens of milliseconds to format
 * /proc/kallsyms up to _etext, long enough to overflow a ring that is
 * already filling.
 */
static int synthesize_kernel(struct buf *b, const struct sampler *s, const struct record_hooks *h)
{
	if (!s->kernel_samples)
		return 0;
	struct kernel_map km;
	int kerr = synth_find_kernel_map("/proc/kallsyms", "/proc/iomem", &km);
	if (kerr == 0)
		return synth_kernel_mmap(b, &km, sample_id_trailer_size(s->sample_type));
	notice(h, RECORD_NOTICE_WARN, "kernel symbols unavailable (/proc/kallsyms: %s); kernel samples will not be resolved",
	       kerr == -EPERM ? "addresses hidden by kptr_restrict" : strerror(-kerr));
	return 0;
}

/* What existed before recording started: the launched command's name or
 * the attached processes from /proc. */
static int synthesize(struct buf *b, const struct record_config *o, const struct sampler *s,
		      pid_t child, const struct attach *ta, struct record_result *res)
{
	size_t trailer = sample_id_trailer_size(s->sample_type);
	int err = 0;
	if (child > 0)
		return synth_comm(b, child, child, base_name(o->cmd[0]), trailer);

	struct synth_counts cnt = { 0 };
	/* DWARF unwinding needs the read-only file mappings too. */
	bool data_maps = o->callgraph.mode == CALLGRAPH_DWARF;
	if (ta->system_wide) {
		pid_t *pids;
		size_t n;
		err = procfs_processes("/proc", &pids, &n);
		for (size_t i = 0; !err && i < n; i++)
			err = synth_process(b, "/proc", pids[i], NULL, 0, data_maps, trailer, &cnt);
		if (!err)
			free(pids);
	} else {
		for (size_t i = 0; !err && i < ta->nr_procs; i++) {
			const struct attach_proc *p = &ta->procs[i];
			/* The thread lists are fresh from the rescan; threads born
			 * since are covered by the kernel's own FORK/COMM. */
			err = synth_process(b, "/proc", p->pid, p->tids, p->nr_tids, data_maps, trailer, &cnt);
		}
	}
	res->nr_processes = cnt.processes;
	res->nr_maps = cnt.maps;
	return err;
}

static int finish_file(struct writer *w, struct feature_inputs *in, const struct loop_stats *st,
		       struct record_result *res)
{
	struct features f;
	in->first_time = st->tally.first_time;
	in->last_time = st->tally.last_time;
	int err = features_build(in, &f);
	int ferr = 0;
	int herr = writer_finish(w, f.f, err ? 0 : f.nr, &ferr);
	features_free(&f);
	if (ferr || err)
		res->features_failed = true;
	return herr;
}

/* Open the events on the attach targets and keep up with threads that
 * appear meanwhile. */
static int open_attached(struct sampler *smp, struct sampler_config *sc, struct attach *ta,
			 size_t *nr_threads, struct perm_failure *pf, struct err *e)
{
	pid_t *tids;
	size_t n;
	int err = attach_threads(ta, &tids, &n);
	if (err)
		return err;
	size_t raised;
	err = perm_ensure_fds(sc->nr_cpus * sc->nr_events * n + FD_SLACK, &raised, e);
	if (err) {
		free(tids);
		return err;
	}
	sc->pids = tids;
	sc->nr_pids = n;
	err = sampler_open(smp, sc, pf);
	sc->pids = NULL;
	free(tids);
	if (err)
		return perm_explain(pf, e);
	*nr_threads = n - smp->nr_skipped;

	for (int round = 0; round < MAX_RESCANS && !ta->system_wide; round++) {
		pid_t *fresh;
		size_t nf, added;
		err = attach_rescan(ta, &fresh, &nf);
		if (err || nf == 0)
			break;
		*nr_threads += nf;
		err = perm_ensure_fds(sc->nr_cpus * sc->nr_events * *nr_threads + FD_SLACK, &raised, e);
		if (!err) {
			err = sampler_add(smp, sc, fresh, nf, &added, pf);
			if (err)
				err = perm_explain(pf, e);
		}
		free(fresh);
		if (err)
			return err;
	}
	return err;
}

int record_run(struct record_config *o, const char *cmd_path, const struct record_hooks *h,
	       struct record_result *res, struct err *e)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(res, 0, sizeof(*res));

	struct hostinfo host;
	int *cpus = NULL;
	int ncpus = 0;
	struct output out = { .fd = -1 };
	struct launch child = { .pid = -1, .pidfd = -1, .go_fd = -1, .exec_fd = -1 };
	struct attach ta = { 0 };
	struct sampler smp;
	struct writer w;
	struct buf synth = BUF_INIT;
	int sigfd = -1;
	sigset_t stop_set, old_mask;
	bool mask_set = false, sampler_open_ok = false;
	bool started = false;       /* the loop has begun: the file is kept */
	struct compressor comp;
	bool comp_ok = false;
	bool launch = cmd_path != NULL;
	int *target_fds = NULL;
	size_t nr_target_fds = 0;
	int err;

	memset(&smp, 0, sizeof(smp));
	err = hostinfo_read(&host);
	if (err)
		return err;
	if (o->cpus) {
		cpus = malloc((size_t)o->nr_cpus * sizeof(*cpus));
		if (!cpus) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(cpus, o->cpus, (size_t)o->nr_cpus * sizeof(*cpus));
		ncpus = o->nr_cpus;
	} else {
		err = online_cpus(&cpus, &ncpus);
		if (err) {
			err = err_set(e, err, "cannot read the online CPUs from /sys/devices/system/cpu/online: %s", strerror(-err));
			goto out;
		}
	}

	if (!launch) {
		if (o->system_wide && !perm_can_sample_cpus()) {
			err = err_set(e, -EACCES, "not allowed to sample all CPUs (-a needs perf_event_paranoid <= 0, it is %d): "
				      "run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid", perm_paranoid());
			goto out;
		}
		err = attach_resolve(&ta, o->pids, o->nr_pids, o->tids, o->nr_tids, o->system_wide,
					    perm_can_sample_kernel(), e);
		if (err)
			goto out;
	}

	sigemptyset(&stop_set);
	sigaddset(&stop_set, SIGINT);
	sigaddset(&stop_set, SIGTERM);
	sigaddset(&stop_set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &stop_set, &old_mask) < 0) {
		err = -errno;
		goto out;
	}
	mask_set = true;
	sigfd = signalfd(-1, &stop_set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sigfd < 0) {
		err = err_set(e, -errno, "signalfd: %s", strerror(errno));
		goto out;
	}

	int out_fd = STDOUT_FILENO;
	bool pipe = o->pipe;
	if (!o->pipe) {
		err = output_create(&out, o->output, e);
		if (err)
			goto out;
		out_fd = out.fd;
		/* A FIFO or a pipe behind -o: the stream needs no seeking. */
		pipe = !out.seekable;
	}

	struct sampler_config sc = {
		.events = o->events.ev, .nr_events = o->events.nr,
		.cpus = cpus, .nr_cpus = (size_t)ncpus,
		.freq = o->freq, .period = o->period,
		.clockid = o->clockid, .mmap_pages = o->mmap_pages,
		.callgraph = o->callgraph,
		.sample_cpu = o->system_wide || o->cpus != NULL,
	};
	struct perm_failure pf;
	if (launch) {
		/* In pipe mode stdout carries the recording: the command's
		 * own output goes to stderr, as perf record does. */
		err = launch_fork(&child, cmd_path, o->cmd, &old_mask, o->pipe, e);
		if (err)
			goto out;
		pid_t pids[1] = { child.pid };
		sc.pids = pids;
		sc.nr_pids = 1;
		sc.enable_on_exec = true;
		sc.inherit = true;
		err = sampler_open(&smp, &sc, &pf);
		sc.pids = NULL;
		if (err) {
			err = perm_explain(&pf, e);
			goto out;
		}
	} else {
		/* -p follows new threads and children; -t is just those
		 * threads; -a covers everything without inheriting. */
		sc.inherit = o->nr_pids > 0;
		sc.skip_vanished = true;
		sc.open_enabled = true;
		err = open_attached(&smp, &sc, &ta, &res->nr_threads, &pf, e);
		if (err)
			goto out;
	}
	sampler_open_ok = true;
	if (smp.default_fell_back)
		notice(h, RECORD_NOTICE_VERBOSE, "no hardware PMU: default event cycles replaced by cpu-clock");
	if (smp.kernel_excluded)
		notice(h, RECORD_NOTICE_WARN, "kernel samples not permitted (perf_event_paranoid is %d); recording user space only",
		       perm_paranoid());
	if (smp.ring_shrunk)
		notice(h, o->mmap_pages_given ? RECORD_NOTICE_WARN : RECORD_NOTICE_VERBOSE, "a %zu KiB ring per CPU exceeds the locked-memory limit (perf_event_mlock_kb, ulimit -l); using %zu KiB",
		       o->mmap_pages * (size_t)sysconf(_SC_PAGESIZE) / 1024, (size_t)smp.rings[0].size / 1024);
	res->nr_cpus = smp.nr_cpus;
	res->ring_bytes = smp.rings[0].size;

	if (o->compress_level) {
		err = compress_init(&comp, o->compress_level, smp.rings[0].size);
		if (err) {
			err = err_set(e, err, "cannot set up zstd compression: %s", strerror(-err));
			goto out;
		}
		comp_ok = true;
	}
	struct feature_inputs fin = {
		.host = &host, .opts = o, .pipe = pipe, .sampler = &smp, .sysfs = "/sys",
		.tod_ns = clock_ns(CLOCK_REALTIME), .clk_ns = clock_ns(o->clockid),
		.compress = comp_ok ? &comp : NULL,
		.mmap_len = (uint32_t)smp.rings[0].size,
	};
	err = write_header(&w, out_fd, &fin, e);
	if (!err)
		err = synthesize_kernel(&synth, &smp, h);
	if (err)
		goto out;
	/* Move the file into place now, before sampling starts: replacing a
	 * big old file takes the kernel tens of milliseconds, long enough to
	 * overflow a ring that is already filling. A failure from here until
	 * the loop undoes it (output_abort). */
	if (!o->pipe) {
		err = output_commit(&out, e);
		if (err)
			goto out;
	}
	if (!launch) {
		/* The events were opened enabled (sampling starts as each one
		 * opens, no ENABLE pass over thousands of fds), and /proc is
		 * scanned only now: a mapping made meanwhile is then seen by
		 * the kernel (MMAP2 in the ring) or by the scan. */
		res->setup_ms = ms_since(&t0);
	}
	err = synthesize(&synth, o, &smp, child.pid, &ta, res);
	if (!err) {
		struct iovec iov = { synth.data, synth.len };
		err = writer_append(&w, &iov, 1);
	}
	if (!err)
		err = writer_checkpoint(&w);
	if (err) {
		err = write_failed(o, err, e);
		goto out;
	}

	if (launch) {
		err = launch_exec(&child);
		if (err) {
			res->exec_failed = true;
			res->exec_errno = -err;
			err = err_set(e, err, "%s: %s", o->cmd[0], strerror(-err));
			goto out;
		}
		res->setup_ms = ms_since(&t0);
		target_fds = &child.pidfd;
		nr_target_fds = 1;
	} else if (ta.nr_procs) {
		target_fds = calloc(ta.nr_procs, sizeof(*target_fds));
		if (!target_fds) {
			err = -ENOMEM;
			goto out;
		}
		for (size_t i = 0; i < ta.nr_procs; i++)
			target_fds[i] = ta.procs[i].pidfd;
		nr_target_fds = ta.nr_procs;
	}
	started = true;
	if (!o->pipe)
		output_started(&out);
	if (launch)
		notice(h, RECORD_NOTICE_VERBOSE, "recording %s (pid %d) on %zu CPUs, %zu event(s), %zu KiB ring per CPU; started in %.1f ms",
		       o->cmd[0], (int)child.pid, smp.nr_cpus, smp.nr_events, (size_t)(smp.rings[0].size / 1024), res->setup_ms);
	else if (o->system_wide)
		notice(h, RECORD_NOTICE_VERBOSE, "recording all processes on %zu CPUs (%zu processes, %zu mappings synthesized); sampling enabled %.1f ms after start",
		       smp.nr_cpus, res->nr_processes, res->nr_maps, res->setup_ms);
	else
		notice(h, RECORD_NOTICE_VERBOSE, "attached to %zu threads of %zu processes on %zu CPUs (%zu fds, %zu mappings synthesized); attach time %.1f ms",
		       res->nr_threads, ta.nr_procs, smp.nr_cpus, smp.nr_fds, res->nr_maps, res->setup_ms);

	struct loop_config lc = {
		.signal_fd = sigfd,
		.target_fds = target_fds,
		.nr_target_fds = nr_target_fds,
		.ignore_tty_sigint = launch,
		.duration_ms = (uint64_t)(o->duration * 1000.0 + 0.5),
		.time_offset = sample_time_offset(smp.sample_type),
		.status = h ? h->status : NULL,
		.status_ctx = h ? h->ctx : NULL,
		.compress = comp_ok ? &comp : NULL,
	};
	err = loop_run(&smp, &w, &lc, &res->stats);
	if (err) {
		/* Polling failed: still finish what was written. */
		notice(h, RECORD_NOTICE_WARN, "poll failed: %s; stopping", strerror(-err));
		err = 0;
	}
	/* A launched command's events stop before the last drain; attached
	 * ones just stop being read (closing them ends them, without a
	 * DISABLE per fd). */
	if (launch)
		sampler_disable(&smp);
	if (res->stats.end_reason != LOOP_END_WRITE_ERROR) {
		int derr = loop_drain(&smp, &w, &lc, &res->stats);
		if (derr) {
			res->stats.end_reason = LOOP_END_WRITE_ERROR;
			res->stats.write_error = derr;
		}
	}
	if (launch && res->stats.end_reason == LOOP_END_TARGET_EXIT && launch_reap(&child) == 0) {
		res->target_exited = true;
		res->target_status = child.status;
	}
	err = finish_file(&w, &fin, &res->stats, res);
	if (err) {
		err = err_set(e, err, "cannot finish %s: %s", o->output, strerror(-err));
		goto out;
	}
	struct stat st;
	if (pipe)
		res->file_bytes = w.end;
	else if (fstat(out.fd, &st) == 0)
		res->file_bytes = (uint64_t)st.st_size;
	if (comp_ok)
		res->compress_ratio = compress_ratio(&comp);
	res->lost = res->stats.tally.lost > res->stats.tally.lost_samples ?
		    res->stats.tally.lost : res->stats.tally.lost_samples;

out:
	if (sampler_open_ok)
		sampler_close(&smp);
	if (!started) {
		output_abort(&out);
		if (child.pid > 0)
			launch_abort(&child);
	} else if (launch && !child.reaped) {
		/* The file is finished first: waiting for the command cannot
		 * cost the recording anything. */
		if (launch_terminate(&child, sigfd, 1000) == -ETIMEDOUT) {
			notice(h, RECORD_NOTICE_WARN, "%s (pid %d) is still running 1 s after SIGTERM; waiting for it (signal psrec again to kill it)",
			       o->cmd[0], (int)child.pid);
			launch_terminate(&child, sigfd, -1);
		}
	}
	launch_close(&child);
	if (!launch)
		free(target_fds);
	attach_free(&ta);
	output_close(&out);
	if (comp_ok)
		compress_free(&comp);
	buf_free(&synth);
	if (sigfd >= 0) {
		/* Consume a stop signal still pending, so that restoring the
		 * mask does not deliver it now, after the file is finished. */
		struct signalfd_siginfo si;
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		close(sigfd);
	}
	if (mask_set)
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
	free(cpus);
	hostinfo_free(&host);
	return err;
}
