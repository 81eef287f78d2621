/*
 * target.c - the launch and attach targets (see target.h).
 */
#include "target.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "format/sample.h"
#include "marker/abi.h"
#include "record/perm.h"
#include "record/procfs.h"
#include "record/sidecache.h"
#include "record/synth.h"

/* Rescans for threads born while events were being opened. */
#define MAX_RESCANS 8
/* fds psrec needs besides the events (output, pidfds, stdio...). */
#define FD_SLACK 64

static double ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) / 1e6;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static int no_check(struct target *t, const struct target_env *env, struct err *e)
{
	(void)t, (void)env, (void)e;
	return 0;
}

static void no_stop(struct target *t, struct sampler *s)
{
	(void)t, (void)s;
}

static void no_reaped(struct target *t, const struct target_env *env)
{
	(void)t, (void)env;
}

/* The end of a markers() that did not turn them on: why, said once. */
static bool markers_off(const struct target_env *env, struct markers *m, int err)
{
	if (err)
		notify_say(&env->say, NOTIFY_WARN, "no markers: cannot set up their channel: %s", strerror(-err));
	if (m->warning[0])
		notify_say(&env->say, NOTIFY_WARN, "%s", m->warning);
	markers_free(m);
	return false;
}

int target_synth_process(const struct target_env *env, const struct sampler *s, pid_t pid, struct buf *b)
{
	struct synth_counts cnt = { 0 };
	/* DWARF unwinding needs the read-only file mappings too. */
	bool data_maps = env->cfg->callgraph.mode == CALLGRAPH_DWARF;
	return synth_process(b, "/proc", pid, NULL, 0, data_maps, env->ids, sample_id_trailer_size(s->sample_type), &cnt);
}

/* One process's records, appended to b, and handed to the chunks'
 * side-band cache (sidecache.h) as they are. */
static int synth_one(struct buf *b, const struct target_env *env, const struct sampler *s, pid_t pid,
		     const pid_t *tids, size_t nr_tids, struct synth_counts *cnt)
{
	/* DWARF unwinding needs the read-only file mappings too. */
	bool data_maps = env->cfg->callgraph.mode == CALLGRAPH_DWARF;
	size_t before = b->len;
	int err = synth_process(b, "/proc", pid, tids, nr_tids, data_maps, env->ids,
				sample_id_trailer_size(s->sample_type), cnt);
	if (!err && env->seed && b->len > before)
		err = sidecache_seed(env->seed, pid, b->data + before, b->len - before);
	return err;
}

/* COMM and MMAP2 of every thread of processes pids[0..n). */
static int synth_pids(struct buf *b, const struct target_env *env, const struct sampler *s,
		      const pid_t *pids, size_t n, struct synth_counts *cnt)
{
	int err = 0;
	for (size_t i = 0; !err && i < n; i++)
		err = synth_one(b, env, s, pids[i], NULL, 0, cnt);
	return err;
}

/* ---- a launched command ------------------------------------------------ */

/* A channel made for the command (its fd handed on at the fork), when
 * it links the library or --markers asks. */
static bool launch_markers(struct target *t, const struct target_env *env, struct markers *m)
{
	const struct record_config *c = env->cfg;
	markers_init(m, 0, c->clockid);
	if (c->markers != CONFIG_MARKERS_ON && !markers_program_uses(t->cmd_path))
		return markers_off(env, m, 0);
	int err = markers_create(m, PSREC_MARKER_DATA_SIZE, &t->marker_fd);
	if (err)
		return markers_off(env, m, err);
	t->markers = m;
	return true;
}

/* The child is forked stopped on a pipe; events open on it with
 * enable_on_exec, so sampling starts at its exec. In pipe mode stdout
 * carries the recording: the command's own output goes to stderr, as
 * perf record does. */
static int launch_open(struct target *t, const struct target_env *env, struct sampler *s,
		       struct sampler_config *sc, struct err *e)
{
	const struct record_config *c = env->cfg;
	int err = launch_fork(&t->child, t->cmd_path, c->cmd, env->child_mask, c->pipe, t->marker_fd, e);
	if (err)
		return err;
	pid_t pids[1] = { t->child.pid };
	sc->pids = pids;
	sc->nr_pids = 1;
	sc->enable_on_exec = true;
	sc->inherit = true;
	struct perm_failure pf;
	err = sampler_open(s, sc, &pf);
	sc->pids = NULL;
	if (err)
		return perm_explain(&pf, e);
	/* A channel the command's library makes itself is found in /proc
	 * (its -ENOMEM costs only that search). */
	if (t->markers)
		markers_watch(t->markers, &t->child.pid, 1);
	return 0;
}

static int launch_synthesize(struct target *t, const struct target_env *env, const struct sampler *s,
			     struct buf *b)
{
	return synth_comm(b, t->child.pid, t->child.pid, base_name(env->cfg->cmd[0]),
			  sample_id_trailer_size(s->sample_type));
}

/* The command and what it started. */
static int launch_live(struct target *t, const struct target_env *env, pid_t **pids, size_t *n)
{
	(void)env;
	return procfs_descendants("/proc", &t->child.pid, 1, pids, n);
}

static int launch_start(struct target *t, const struct target_env *env, struct err *e)
{
	int err = launch_exec(&t->child);
	if (err) {
		t->facts.exec_failed = true;
		t->facts.exec_errno = -err;
		return err_set(e, err, "%s: %s", env->cfg->cmd[0], strerror(-err));
	}
	t->facts.setup_ms = ms_since(env->t0);
	return 0;
}

static void launch_describe(struct target *t, const struct target_env *env, const struct sampler *s,
			    char *buf, size_t len)
{
	snprintf(buf, len, "recording %s (pid %d) on %zu CPUs, %zu event(s), %zu KiB ring per CPU; started in %.1f ms",
		 env->cfg->cmd[0], (int)t->child.pid, s->nr_cpus, s->nr_events,
		 (size_t)(s->rings[0].size / 1024), t->facts.setup_ms);
}

static size_t launch_watch(struct target *t, const int **fds)
{
	*fds = &t->child.pidfd;
	return 1;
}

/* Its events stop before the last drain. */
static void launch_stop(struct target *t, struct sampler *s)
{
	(void)t;
	sampler_disable(s);
}

static void launch_reaped(struct target *t, const struct target_env *env)
{
	(void)env;
	if (launch_reap(&t->child) == 0) {
		t->facts.exited = true;
		t->facts.status = t->child.status;
	}
}

/* The file is finished first: waiting for the command cannot cost the
 * recording anything. */
static void launch_end(struct target *t, const struct target_env *env, bool started)
{
	if (!started && t->child.pid > 0) {
		launch_abort(&t->child);
	} else if (started && !t->child.reaped &&
		   launch_terminate(&t->child, env->sigfd, 1000) == -ETIMEDOUT) {
		notify_say(&env->say, NOTIFY_WARN,
			   "%s (pid %d) is still running 1 s after SIGTERM; waiting for it (signal psrec again to kill it)",
			   env->cfg->cmd[0], (int)t->child.pid);
		launch_terminate(&t->child, env->sigfd, -1);
	}
	launch_close(&t->child);
}

static const struct target_ops launch_ops = {
	.tty_sigint_to_target = true,
	.markers = launch_markers,
	.check = no_check,
	.open = launch_open,
	.synthesize = launch_synthesize,
	.live = launch_live,
	.start = launch_start,
	.describe = launch_describe,
	.watch = launch_watch,
	.stop = launch_stop,
	.reaped = launch_reaped,
	.end = launch_end,
};

/* ---- attached processes -------------------------------------------------- */

/* A kernel thread has no user space: it is recorded only in kernel mode,
 * and only while it runs (perf record -p 2 records just that). Said once
 * per thread, since an idle one leaves an empty file; refused when every
 * event excludes the kernel. */
static int attach_kthreads(const struct target *t, const struct target_env *env, struct err *e)
{
	const struct evspec_list *ev = &env->cfg->events;
	bool kernel = false;
	for (size_t i = 0; i < ev->nr; i++)
		kernel |= !ev->ev[i].exclude_kernel;
	for (size_t i = 0; i < t->att.nr_procs; i++) {
		const struct attach_proc *p = &t->att.procs[i];
		const char *what = p->whole ? "process" : "thread";
		if (!p->kthread)
			continue;
		if (!kernel)
			return err_set(e, -EINVAL, "%s %d (%s) is a kernel thread, and every event excludes the kernel (:u): "
				       "nothing would be recorded; drop the u modifier", what, (int)p->pid, p->name);
		notify_say(&env->say, NOTIFY_WARN, "%s %d (%s) is a kernel thread: its samples are all kernel "
			   "samples, taken only while it runs (an idle one records none)", what, (int)p->pid, p->name);
	}
	return 0;
}

static int attach_check(struct target *t, const struct target_env *env, struct err *e)
{
	const struct record_config *c = env->cfg;
	if (c->system_wide && !perm_can_sample_cpus())
		return err_set(e, -EACCES, "not allowed to sample all CPUs (-a needs perf_event_paranoid <= 0, it is %d): "
			       "run as root, grant CAP_PERFMON, or lower /proc/sys/kernel/perf_event_paranoid", perm_paranoid());
	int err = attach_resolve(&t->att, c->pids, c->nr_pids, c->tids, c->nr_tids, c->system_wide,
				 perm_can_sample_kernel(), e);
	return err ? err : attach_kthreads(t, env, e);
}

/* The channels the library made in the processes of -p, looked for now
 * (AUTO: none found, no markers) and, while none is, at every scan. */
static bool attach_markers(struct target *t, const struct target_env *env, struct markers *m)
{
	(void)t;
	const struct record_config *c = env->cfg;
	bool force = c->markers == CONFIG_MARKERS_ON;
	if (!c->nr_pids) {
		if (force)
			notify_say(&env->say, NOTIFY_WARN, "--markers: markers come from a command or -p processes, not -a or -t");
		return false;
	}
	markers_init(m, 0, c->clockid);
	int err = markers_watch(m, c->pids, (size_t)c->nr_pids);
	if (err)
		return markers_off(env, m, err);
	markers_scan(m, 0);
	return force || markers_found(m) ? true : markers_off(env, m, 0);
}

/* Keep up with threads that appear while the events are being opened. */
static int attach_catch_up(struct target *t, struct sampler *s, struct sampler_config *sc,
			   size_t *nr_threads, struct perm_failure *pf, struct err *e)
{
	int err = 0;
	for (int round = 0; round < MAX_RESCANS && !t->att.system_wide && !err; round++) {
		pid_t *fresh;
		size_t nf, added, raised;
		err = attach_rescan(&t->att, &fresh, &nf);
		if (err || nf == 0)
			return err;
		*nr_threads += nf;
		err = perm_ensure_fds(sc->nr_cpus * sc->nr_events * *nr_threads + FD_SLACK, &raised, e);
		if (!err && sampler_add(s, sc, fresh, nf, &added, pf))
			err = perm_explain(pf, e);
		free(fresh);
	}
	return err;
}

/* -p follows new threads and children; -t is just those threads; -a
 * covers everything without inheriting. The events open enabled:
 * sampling starts as each one opens, with no ENABLE pass over thousands
 * of fds. */
static int attach_open(struct target *t, const struct target_env *env, struct sampler *s,
		       struct sampler_config *sc, struct err *e)
{
	pid_t *tids;
	size_t n, raised;
	int err = attach_threads(&t->att, &tids, &n);
	if (err)
		return err;
	err = perm_ensure_fds(sc->nr_cpus * sc->nr_events * n + FD_SLACK, &raised, e);
	if (err) {
		free(tids);
		return err;
	}
	sc->inherit = env->cfg->nr_pids > 0;
	sc->skip_vanished = true;
	sc->open_enabled = true;
	sc->pids = tids;
	sc->nr_pids = n;
	struct perm_failure pf;
	err = sampler_open(s, sc, &pf);
	sc->pids = NULL;
	free(tids);
	if (err)
		return perm_explain(&pf, e);
	t->facts.nr_threads = n - s->nr_skipped;
	return attach_catch_up(t, s, sc, &t->facts.nr_threads, &pf, e);
}

/* /proc is scanned only now, after the events were enabled: a mapping
 * made meanwhile is then seen by the kernel (MMAP2 in the ring) or by the
 * scan. The thread lists are fresh from the rescan; threads born since
 * are covered by the kernel's own FORK/COMM. */
static int attach_synthesize_now(struct target *t, const struct target_env *env, const struct sampler *s,
				 struct buf *b, struct synth_counts *cnt)
{
	int err = 0;
	if (t->att.system_wide) {
		pid_t *pids;
		size_t n;
		err = procfs_processes("/proc", &pids, &n);
		if (!err) {
			err = synth_pids(b, env, s, pids, n, cnt);
			free(pids);
		}
	} else {
		for (size_t i = 0; !err && i < t->att.nr_procs; i++) {
			const struct attach_proc *p = &t->att.procs[i];
			err = synth_one(b, env, s, p->pid, p->tids, p->nr_tids, cnt);
		}
	}
	return err;
}

static int attach_synthesize(struct target *t, const struct target_env *env, const struct sampler *s,
			     struct buf *b)
{
	struct synth_counts cnt = { 0 };
	t->facts.setup_ms = ms_since(env->t0);
	int err = attach_synthesize_now(t, env, s, b, &cnt);
	t->facts.nr_processes = cnt.processes;
	t->facts.nr_maps = cnt.maps;
	return err;
}

/* -a: every process; -p follows children (inherit); -t: its processes
 * (the other threads' COMMs do no harm). */
static int attach_live(struct target *t, const struct target_env *env, pid_t **pids, size_t *n)
{
	if (t->att.system_wide)
		return procfs_processes("/proc", pids, n);
	pid_t *roots = calloc(t->att.nr_procs ? t->att.nr_procs : 1, sizeof(*roots));
	if (!roots)
		return -ENOMEM;
	for (size_t i = 0; i < t->att.nr_procs; i++)
		roots[i] = t->att.procs[i].pid;
	if (env->cfg->nr_pids == 0) {
		*pids = roots;
		*n = t->att.nr_procs;
		return 0;
	}
	int err = procfs_descendants("/proc", roots, t->att.nr_procs, pids, n);
	free(roots);
	return err;
}

static int attach_start(struct target *t, const struct target_env *env, struct err *e)
{
	(void)env, (void)e;
	if (t->att.nr_procs == 0)
		return 0;
	t->pidfds = calloc(t->att.nr_procs, sizeof(*t->pidfds));
	if (!t->pidfds)
		return -ENOMEM;
	for (size_t i = 0; i < t->att.nr_procs; i++)
		t->pidfds[i] = t->att.procs[i].pidfd;
	return 0;
}

static void attach_describe(struct target *t, const struct target_env *env, const struct sampler *s,
			    char *buf, size_t len)
{
	(void)env;
	const struct target_facts *r = &t->facts;
	if (t->att.system_wide)
		snprintf(buf, len, "recording all processes on %zu CPUs (%zu processes, %zu mappings synthesized); sampling enabled %.1f ms after start",
			 s->nr_cpus, r->nr_processes, r->nr_maps, r->setup_ms);
	else
		snprintf(buf, len, "attached to %zu threads of %zu processes on %zu CPUs (%zu fds, %zu mappings synthesized); attach time %.1f ms",
			 r->nr_threads, t->att.nr_procs, s->nr_cpus, s->nr_fds, r->nr_maps, r->setup_ms);
}

static size_t attach_watch(struct target *t, const int **fds)
{
	*fds = t->pidfds;
	return t->pidfds ? t->att.nr_procs : 0;
}

/* Attached events just stop being read: closing them ends them, with no
 * DISABLE per fd. Nothing is signalled. */
static void attach_end(struct target *t, const struct target_env *env, bool started)
{
	(void)env, (void)started;
	free(t->pidfds);
	t->pidfds = NULL;
	attach_free(&t->att);
}

static const struct target_ops attach_ops = {
	.tty_sigint_to_target = false,
	.markers = attach_markers,
	.check = attach_check,
	.open = attach_open,
	.synthesize = attach_synthesize,
	.live = attach_live,
	.start = attach_start,
	.describe = attach_describe,
	.watch = attach_watch,
	.stop = no_stop,
	.reaped = no_reaped,
	.end = attach_end,
};

void target_init(struct target *t, const char *cmd_path)
{
	memset(t, 0, sizeof(*t));
	t->child = (struct launch){ .pid = -1, .pidfd = -1, .go_fd = -1, .exec_fd = -1 };
	t->cmd_path = cmd_path;
	t->marker_fd = -1;
	t->ops = cmd_path ? &launch_ops : &attach_ops;
}
