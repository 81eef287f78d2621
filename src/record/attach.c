/*
 * attach.c - the running processes and threads psrec attaches to (see
 * attach.h).
 */
#include "attach.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/pidfd.h"
#include "record/procfs.h"
#include "util/vec.h"

/* st: the status of pid itself, or of a thread of it (-t). */
static int add_proc(struct attach *t, pid_t pid, bool whole, const struct procfs_status *st, struct err *e)
{
	for (size_t i = 0; i < t->nr_procs; i++) {
		if (t->procs[i].pid == pid) {
			t->procs[i].whole |= whole;
			return (int)i;
		}
	}
	struct attach_proc *n = realloc(t->procs, (t->nr_procs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->procs = n;
	struct attach_proc *p = &n[t->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->whole = whole;
	p->kthread = st->kthread;
	memcpy(p->name, st->name, sizeof(p->name));
	p->pidfd = pidfd_open_pid(pid);
	if (p->pidfd < 0) {
		int code = errno;
		if (code == ESRCH)
			return err_set(e, -ESRCH, "process %d exited while psrec was starting", (int)pid);
		return err_set(e, -code, "pidfd_open(%d): %s%s", (int)pid, strerror(code), pidfd_hint(code));
	}
	t->nr_procs++;
	return (int)(t->nr_procs - 1);
}

static bool has_tid(const struct attach_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->nr_tids; i++)
		if (p->tids[i] == tid)
			return true;
	return false;
}

static int add_tid(struct attach_proc *p, pid_t tid)
{
	if (has_tid(p, tid))
		return 0;
	pid_t *n = realloc(p->tids, (p->nr_tids + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	p->tids = n;
	n[p->nr_tids++] = tid;
	return 0;
}

/* A process whose leader called pthread_exit shows the leader as a
 * zombie while its other threads run on. */
static bool has_live_thread(pid_t pid)
{
	pid_t *list;
	size_t n;
	if (procfs_threads("/proc", pid, &list, &n))
		return false;
	bool live = false;
	for (size_t i = 0; i < n && !live; i++) {
		struct procfs_status ts;
		live = list[i] != pid && procfs_status("/proc", pid, list[i], &ts) == 0 &&
		       ts.state != 'Z' && ts.state != 'X';
	}
	free(list);
	return live;
}

/* Check one -p pid or -t tid; *st gets its status. */
static int check_task(pid_t id, bool is_tid, bool kernel_allowed, struct procfs_status *st, struct err *e)
{
	const char *what = is_tid ? "thread" : "process";
	int err = procfs_status("/proc", id, id, st);
	if (err == -ESRCH)
		return err_set(e, -ESRCH, "%s %d does not exist", what, (int)id);
	if (err)
		return err_set(e, err, "cannot read /proc/%d/status: %s", (int)id, strerror(-err));
	if (!is_tid && st->tgid != id)
		return err_set(e, -EINVAL, "%d is a thread of process %d: use -p %d for the process, or -t %d for just that thread",
			       (int)id, (int)st->tgid, (int)st->tgid, (int)id);
	if ((st->state == 'Z' || st->state == 'X') && (is_tid || !has_live_thread(id)))
		return err_set(e, -ESRCH, "%s %d (%s) is a zombie: it has exited and waits to be reaped; there is nothing to record",
			       what, (int)id, st->name);
	if (st->kthread && !kernel_allowed)
		return err_set(e, -EPERM, "%s %d (%s) is a kernel thread, and kernel samples are not allowed (perf_event_paranoid); "
			       "run as root or grant CAP_PERFMON", what, (int)id, st->name);
	return 0;
}

int attach_resolve(struct attach *t, const pid_t *pids, size_t nr_pids,
			  const pid_t *tids, size_t nr_tids, bool system_wide,
			  bool kernel_allowed, struct err *e)
{
	memset(t, 0, sizeof(*t));
	t->system_wide = system_wide;
	if (system_wide)
		return 0;
	for (size_t i = 0; i < nr_pids; i++) {
		struct procfs_status st;
		int err = check_task(pids[i], false, kernel_allowed, &st, e);
		if (err)
			return err;
		int k = add_proc(t, pids[i], true, &st, e);
		if (k < 0)
			return k;
		pid_t *list;
		size_t n;
		err = procfs_threads("/proc", pids[i], &list, &n);
		if (err == -ESRCH)
			return err_set(e, -ESRCH, "process %d exited while psrec was starting", (int)pids[i]);
		if (err)
			return err_set(e, err, "cannot list the threads of process %d: %s", (int)pids[i], strerror(-err));
		for (size_t j = 0; j < n && !err; j++)
			err = add_tid(&t->procs[k], list[j]);
		free(list);
		if (err)
			return err;
	}
	for (size_t i = 0; i < nr_tids; i++) {
		struct procfs_status st;
		int err = check_task(tids[i], true, kernel_allowed, &st, e);
		if (err)
			return err;
		int k = add_proc(t, st.tgid, false, &st, e);
		if (k < 0)
			return k;
		err = add_tid(&t->procs[k], tids[i]);
		if (err)
			return err;
	}
	return 0;
}

int attach_threads(const struct attach *t, pid_t **tids, size_t *n)
{
	size_t total = t->system_wide ? 1 : 0;
	for (size_t i = 0; i < t->nr_procs; i++)
		total += t->procs[i].nr_tids;
	pid_t *all = calloc(total ? total : 1, sizeof(*all));
	if (!all)
		return -ENOMEM;
	size_t k = 0;
	if (t->system_wide)
		all[k++] = -1;
	for (size_t i = 0; i < t->nr_procs; i++)
		for (size_t j = 0; j < t->procs[i].nr_tids; j++)
			all[k++] = t->procs[i].tids[j];
	*tids = all;
	*n = k;
	return 0;
}

int attach_rescan(struct attach *t, pid_t **fresh, size_t *n)
{
	pid_t *out = NULL;
	size_t cnt = 0, cap = 0;
	*fresh = NULL;
	*n = 0;
	for (size_t i = 0; i < t->nr_procs; i++) {
		struct attach_proc *p = &t->procs[i];
		if (!p->whole)
			continue;
		pid_t *list;
		size_t m;
		if (procfs_threads("/proc", p->pid, &list, &m))
			continue; /* exited: the loop will notice */
		for (size_t j = 0; j < m; j++) {
			if (has_tid(p, list[j]))
				continue;
			if (VEC_RESERVE(out, cap, cnt, 1, 16) || add_tid(p, list[j])) {
				free(out);
				free(list);
				return -ENOMEM;
			}
			out[cnt++] = list[j];
		}
		free(list);
	}
	*fresh = out;
	*n = cnt;
	return 0;
}

void attach_free(struct attach *t)
{
	for (size_t i = 0; i < t->nr_procs; i++) {
		if (t->procs[i].pidfd >= 0)
			close(t->procs[i].pidfd);
		free(t->procs[i].tids);
	}
	free(t->procs);
	memset(t, 0, sizeof(*t));
}
