/*
 * record.c - a recording from start to finish (see record.h).
 *
 * Order matters:
 *  1. block the stop signals (so none is lost or kills us half-way) and
 *     create the output under a temporary name (an unwritable path fails
 *     before any event is opened);
 *  2. fork the command, stopped on a pipe; open every event on it;
 *  3. write header, attrs, ids and the synthesized records, checkpoint;
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

#include "format/feature.h"
#include "format/sample.h"
#include "format/writer.h"
#include "record/hostinfo.h"
#include "record/output.h"
#include "record/sampler.h"
#include "record/synth.h"
#include "record/target.h"
#include "util/buf.h"
#include "util/sysfile.h"

#ifndef PSREC_VERSION
#define PSREC_VERSION "0.0.0"
#endif

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

/* Everything the feature sections need besides the host facts. */
struct feature_inputs {
	const struct hostinfo *host;
	const struct record_opts *opts;
	const struct sampler *sampler;
	uint64_t first_time, last_time;
	uint64_t tod_ns, clk_ns;
};

#define MAX_FEATURES 16

/* Build every feature payload into bufs[] / out[]; returns how many. */
static int build_features(const struct feature_inputs *in, struct buf *bufs,
			  struct writer_feature *out, size_t *nr)
{
	const struct hostinfo *h = in->host;
	size_t n = 0;
	int err = 0;

#define ADD(feat, expr) do {                                   \
		if (!err) {                                     \
			struct buf *b = &bufs[n];               \
			err = (expr);                           \
			out[n].id = (feat);                     \
			out[n].data = b->data;                  \
			out[n].len = b->len;                    \
			n++;                                    \
		}                                               \
	} while (0)

	if (h->hostname[0])
		ADD(PD_FEAT_HOSTNAME, feature_string(b, h->hostname));
	if (h->osrelease[0])
		ADD(PD_FEAT_OSRELEASE, feature_string(b, h->osrelease));
	ADD(PD_FEAT_VERSION, feature_string(b, "psrec " PSREC_VERSION));
	if (h->arch[0])
		ADD(PD_FEAT_ARCH, feature_string(b, h->arch));
	if (h->nr_cpus_online)
		ADD(PD_FEAT_NRCPUS, feature_nrcpus(b, h->nr_cpus_avail, h->nr_cpus_online));
	if (h->cpudesc[0])
		ADD(PD_FEAT_CPUDESC, feature_string(b, h->cpudesc));
	if (h->cpuid[0])
		ADD(PD_FEAT_CPUID, feature_string(b, h->cpuid));
	if (h->mem_total_kb)
		ADD(PD_FEAT_TOTAL_MEM, feature_total_mem(b, h->mem_total_kb));

	char exe[4096];
	ssize_t el = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (el <= 0)
		snprintf(exe, sizeof(exe), "%s", in->opts->argv[0]);
	else
		exe[el] = '\0';
	ADD(PD_FEAT_CMDLINE, feature_cmdline(b, exe, in->opts->argc, in->opts->argv));

	struct feature_event fev[64];
	const struct sampler *s = in->sampler;
	uint32_t nev = s->nr_events < 64 ? (uint32_t)s->nr_events : 64;
	for (uint32_t i = 0; i < nev; i++) {
		fev[i].attr = &s->ev[i].attr;
		fev[i].name = s->ev[i].name;
		fev[i].ids = s->ev[i].ids;
		fev[i].nr_ids = (uint32_t)s->ev[i].nr_ids;
	}
	ADD(PD_FEAT_EVENT_DESC, feature_event_desc(b, fev, nev));

	if (h->topo_ok) {
		struct feature_topology t;
		hostinfo_topology(h, &t);
		ADD(PD_FEAT_CPU_TOPOLOGY, feature_cpu_topology(b, &t));
	}
	ADD(PD_FEAT_SAMPLE_TIME, feature_sample_time(b, in->first_time, in->last_time));

	struct timespec res;
	if (clock_getres(in->opts->clockid, &res) == 0) {
		uint64_t ns = (uint64_t)res.tv_sec * 1000000000ULL + (uint64_t)res.tv_nsec;
		ADD(PD_FEAT_CLOCKID, feature_clockid(b, ns ? ns : 1));
	}
	ADD(PD_FEAT_CLOCK_DATA, feature_clock_data(b, (uint32_t)in->opts->clockid, in->tod_ns, in->clk_ns));
#undef ADD
	*nr = n;
	return err;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* Header, attrs, ids, then the synthesized records; checkpointed. */
static int write_start(struct writer *w, int fd, const struct sampler *s, const struct record_opts *o,
		       pid_t child, const struct record_hooks *h, struct err *e)
{
	struct writer_event wev[64];
	if (s->nr_events > 64)
		return err_set(e, -E2BIG, "too many events (%zu); at most 64", s->nr_events);
	for (size_t i = 0; i < s->nr_events; i++) {
		wev[i].attr = &s->ev[i].attr;
		wev[i].ids = s->ev[i].ids;
		wev[i].nr_ids = s->ev[i].nr_ids;
	}
	int err = writer_begin(w, fd, wev, s->nr_events);
	if (err)
		return err_set(e, err, "cannot write %s: %s", o->output, strerror(-err));

	struct buf b = BUF_INIT;
	size_t trailer = sample_id_trailer_size(SAMPLER_SAMPLE_TYPE);
	if (s->kernel_samples) {
		struct kernel_map km;
		int kerr = synth_find_kernel_map("/proc/kallsyms", &km);
		if (kerr == 0)
			err = synth_kernel_mmap(&b, &km, trailer);
		else
			notice(h, RECORD_NOTICE_WARN, "kernel symbols unavailable (/proc/kallsyms: %s); kernel samples will not be resolved",
			       kerr == -EPERM ? "addresses hidden by kptr_restrict" : strerror(-kerr));
	}
	if (!err)
		err = synth_comm(&b, child, child, base_name(o->cmd[0]), trailer);
	if (!err) {
		struct iovec iov = { b.data, b.len };
		err = writer_append(w, &iov, 1);
	}
	if (!err)
		err = writer_checkpoint(w);
	buf_free(&b);
	if (err)
		return err_set(e, err, "cannot write %s: %s", o->output, strerror(-err));
	return 0;
}

static int finish_file(struct writer *w, const struct hostinfo *host, const struct record_opts *o,
		       const struct sampler *s, const struct loop_stats *st, uint64_t tod, uint64_t clk,
		       struct record_result *res)
{
	struct buf bufs[MAX_FEATURES];
	memset(bufs, 0, sizeof(bufs));
	struct writer_feature feats[MAX_FEATURES];
	size_t nf = 0;
	struct feature_inputs in = {
		.host = host, .opts = o, .sampler = s,
		.first_time = st->tally.first_time, .last_time = st->tally.last_time,
		.tod_ns = tod, .clk_ns = clk,
	};
	int err = build_features(&in, bufs, feats, &nf);
	if (err)
		nf = 0;
	int ferr = 0;
	int herr = writer_finish(w, feats, nf, &ferr);
	for (size_t i = 0; i < MAX_FEATURES; i++)
		buf_free(&bufs[i]);
	if (ferr || err)
		res->features_failed = true;
	return herr;
}

int record_run(struct record_opts *o, const char *cmd_path, const struct record_hooks *h,
	       struct record_result *res, struct err *e)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(res, 0, sizeof(*res));

	struct hostinfo host;
	int *cpus = NULL;
	int ncpus = 0;
	struct output out = { .fd = -1 };
	struct target_child child = { .pid = -1, .pidfd = -1, .go_fd = -1, .exec_fd = -1 };
	struct sampler smp;
	struct writer w;
	int sigfd = -1;
	sigset_t stop_set, old_mask;
	bool mask_set = false, sampler_open_ok = false;
	int err;

	memset(&smp, 0, sizeof(smp));
	err = hostinfo_read(&host);
	if (err)
		return err;
	err = online_cpus(&cpus, &ncpus);
	if (err) {
		err = err_set(e, err, "cannot read the online CPUs from /sys/devices/system/cpu/online: %s", strerror(-err));
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

	err = output_create(&out, o->output, e);
	if (err)
		goto out;

	err = target_fork(&child, cmd_path, o->cmd, &old_mask, e);
	if (err)
		goto out;

	pid_t pids[1] = { child.pid };
	struct sampler_config sc = {
		.events = o->events.ev, .nr_events = o->events.nr,
		.pids = pids, .nr_pids = 1,
		.cpus = cpus, .nr_cpus = (size_t)ncpus,
		.freq = o->freq, .period = o->period,
		.clockid = o->clockid, .mmap_pages = o->mmap_pages,
		.enable_on_exec = true,
	};
	err = sampler_open(&smp, &sc, e);
	if (err)
		goto out;
	sampler_open_ok = true;
	if (smp.default_fell_back)
		notice(h, RECORD_NOTICE_VERBOSE, "no hardware PMU: default event cycles replaced by cpu-clock");
	if (smp.kernel_excluded) {
		int64_t par = -1;
		sysfile_read_s64("/proc/sys/kernel/perf_event_paranoid", &par);
		notice(h, RECORD_NOTICE_WARN, "kernel samples not permitted (perf_event_paranoid is %" PRId64 "); recording user space only", par);
	}
	res->nr_cpus = smp.nr_cpus;
	res->ring_bytes = smp.rings[0].size;

	err = write_start(&w, out.fd, &smp, o, child.pid, h, e);
	if (err)
		goto out;
	uint64_t tod = clock_ns(CLOCK_REALTIME);
	uint64_t clk = clock_ns(o->clockid);

	err = target_exec(&child);
	if (err) {
		res->exec_failed = true;
		res->exec_errno = -err;
		err = err_set(e, err, "%s: %s", o->cmd[0], strerror(-err));
		goto out;
	}
	err = output_commit(&out, e);
	if (err)
		goto out;
	res->setup_ms = ms_since(&t0);
	notice(h, RECORD_NOTICE_VERBOSE, "recording %s (pid %d) on %zu CPUs, %zu event(s), %zu KiB ring per CPU; started in %.1f ms",
	       o->cmd[0], (int)child.pid, smp.nr_cpus, smp.nr_events, (size_t)(smp.rings[0].size / 1024), res->setup_ms);

	struct loop_config lc = {
		.signal_fd = sigfd,
		.target_fd = child.pidfd,
		.ignore_tty_sigint = true,
		.time_offset = sample_time_offset(SAMPLER_SAMPLE_TYPE),
	};
	err = loop_run(&smp, &w, &lc, &res->stats);
	if (err) {
		/* Polling failed: still finish what was written. */
		notice(h, RECORD_NOTICE_WARN, "poll failed: %s; stopping", strerror(-err));
		err = 0;
	}
	sampler_disable(&smp);
	if (res->stats.end_reason != LOOP_END_WRITE_ERROR) {
		int derr = loop_drain(&smp, &w, &lc, &res->stats);
		if (derr) {
			res->stats.end_reason = LOOP_END_WRITE_ERROR;
			res->stats.write_error = derr;
		}
	}
	if (res->stats.end_reason == LOOP_END_TARGET_EXIT && target_reap(&child) == 0) {
		res->target_exited = true;
		res->target_status = child.status;
	}
	err = finish_file(&w, &host, o, &smp, &res->stats, tod, clk, res);
	if (err) {
		err = err_set(e, err, "cannot finish %s: %s", o->output, strerror(-err));
		goto out;
	}
	struct stat st;
	if (fstat(out.fd, &st) == 0)
		res->file_bytes = (uint64_t)st.st_size;
	res->lost = res->stats.tally.lost > res->stats.tally.lost_samples ?
		    res->stats.tally.lost : res->stats.tally.lost_samples;

out:
	if (sampler_open_ok)
		sampler_close(&smp);
	if (child.pid > 0 && !out.committed)
		target_abort(&child);
	target_close(&child);
	output_close(&out);
	if (sigfd >= 0)
		close(sigfd);
	if (mask_set)
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
	free(cpus);
	hostinfo_free(&host);
	return err;
}
