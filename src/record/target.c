/*
 * target.c - launching the recorded command (see target.h).
 */
#include "target.h"

#include "record/procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int is_executable_file(const char *p)
{
	struct stat st;
	if (stat(p, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EACCES;
	if (access(p, X_OK) < 0)
		return -errno;
	return 0;
}

int target_find_command(const char *name, char **path)
{
	*path = NULL;
	if (name[0] == '\0')
		return -ENOENT;
	if (strchr(name, '/')) {
		int err = is_executable_file(name);
		if (err)
			return err;
		*path = strdup(name);
		return *path ? 0 : -ENOMEM;
	}
	const char *env = getenv("PATH");
	if (!env || !*env)
		env = "/usr/local/bin:/usr/bin:/bin";
	int result = -ENOENT;
	const char *p = env;
	for (;;) {
		const char *colon = strchr(p, ':');
		size_t dlen = colon ? (size_t)(colon - p) : strlen(p);
		char *cand = malloc(dlen + strlen(name) + 3);
		if (!cand)
			return -ENOMEM;
		/* An empty PATH entry means the current directory. */
		if (dlen == 0)
			strcpy(cand, ".");
		else {
			memcpy(cand, p, dlen);
			cand[dlen] = '\0';
		}
		strcat(cand, "/");
		strcat(cand, name);
		int err = is_executable_file(cand);
		if (err == 0) {
			*path = cand;
			return 0;
		}
		free(cand);
		if (err == -EACCES)
			result = -EACCES;
		if (!colon)
			break;
		p = colon + 1;
	}
	return result;
}

int target_check_interpreter(const char *name, const char *path, struct err *e)
{
	/* The kernel reads this much of the file for the "#!" line
	 * (BINPRM_BUF_SIZE). */
	char buf[256 + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* execve will say what is wrong */
	ssize_t n;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[n] = '\0';
	char *interp = buf + 2;
	interp += strspn(interp, " \t");
	interp[strcspn(interp, " \t\n")] = '\0';
	if (*interp == '\0')
		return 0; /* no interpreter at all: execve's ENOEXEC says so */
	int err = is_executable_file(interp);
	if (err)
		return err_set(e, err, "%s: bad interpreter %s: %s", name, interp, strerror(-err));
	return 0;
}

static int sys_pidfd_open(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

/* ENOSYS means the kernel (or a syscall emulator such as valgrind) has no
 * pidfd_open; any other errno is a resource problem the hint would hide. */
static const char *pidfd_hint(int code)
{
	return code == ENOSYS ? " (the kernel, or valgrind if psrec runs under it, lacks pidfd_open; psrec needs Linux 5.3 or newer)" : "";
}

static void child_run(int go, int ex, const char *path, char *const argv[], const sigset_t *mask,
		      bool stdout_to_stderr)
{
	char byte;
	ssize_t n;

	if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(126);
	/* Ignored signals stay ignored across exec: give the command defaults. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	do
		n = read(go, &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(127); /* psrec gave up before starting the command */
	close(go);
	execv(path, argv);
	int code = errno;
	ssize_t w = write(ex, &code, sizeof(code));
	(void)w;
	_exit(code == ENOENT ? 127 : 126);
}

int target_fork(struct target_child *c, const char *path, char *const argv[],
		const sigset_t *child_mask, bool stdout_to_stderr, struct err *e)
{
	int go[2], ex[2];

	memset(c, 0, sizeof(*c));
	c->pid = -1;
	c->pidfd = c->go_fd = c->exec_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return err_set(e, -errno, "cannot create a pipe: %s", strerror(errno));
	if (pipe2(ex, O_CLOEXEC) < 0) {
		int code = -errno;
		close(go[0]);
		close(go[1]);
		return err_set(e, code, "cannot create a pipe: %s", strerror(-code));
	}
	pid_t pid = fork();
	if (pid < 0) {
		int code = -errno;
		close(go[0]); close(go[1]); close(ex[0]); close(ex[1]);
		return err_set(e, code, "cannot fork: %s", strerror(-code));
	}
	if (pid == 0) {
		close(go[1]);
		close(ex[0]);
		child_run(go[0], ex[1], path, argv, child_mask, stdout_to_stderr);
	}
	close(go[0]);
	close(ex[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->exec_fd = ex[0];
	c->pidfd = sys_pidfd_open(pid);
	if (c->pidfd < 0) {
		int code = -errno;
		target_abort(c);
		return err_set(e, code, "pidfd_open: %s%s", strerror(-code), pidfd_hint(-code));
	}
	return 0;
}

int target_exec(struct target_child *c)
{
	char go = 1;
	ssize_t n;
	do
		n = write(c->go_fd, &go, 1);
	while (n < 0 && errno == EINTR);
	close(c->go_fd);
	c->go_fd = -1;
	if (n != 1)
		return -EPIPE;

	int code = 0;
	do
		n = read(c->exec_fd, &code, sizeof(code));
	while (n < 0 && errno == EINTR);
	close(c->exec_fd);
	c->exec_fd = -1;
	if (n == 0)
		return 0;
	target_reap(c);
	return n == (ssize_t)sizeof(code) && code > 0 ? -code : -EIO;
}

void target_abort(struct target_child *c)
{
	if (c->pid > 0 && !c->reaped) {
		kill(c->pid, SIGKILL);
		target_reap(c);
	}
}

int target_terminate(struct target_child *c, int sigfd, int wait_ms)
{
	if (c->pid <= 0 || c->reaped)
		return 0;
	if (!c->term_sent) {
		kill(c->pid, SIGTERM);
		c->term_sent = true;
	}
	for (;;) {
		struct pollfd p[2] = { { c->pidfd, POLLIN, 0 }, { sigfd, POLLIN, 0 } };
		int r = poll(p, sigfd >= 0 ? 2 : 1, wait_ms);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ETIMEDOUT;
		if (p[0].revents)
			return target_reap(c);
		/* Asked again to stop: the command gets no more say. */
		struct signalfd_siginfo si;
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		kill(c->pid, SIGKILL);
		wait_ms = -1;
	}
}

int target_reap(struct target_child *c)
{
	if (c->reaped)
		return 0;
	int st;
	pid_t r;
	do
		r = waitpid(c->pid, &st, 0);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	c->reaped = true;
	c->status = st;
	return 0;
}

int target_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void target_close(struct target_child *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->exec_fd >= 0)
		close(c->exec_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->go_fd = c->exec_fd = c->pidfd = -1;
}

static int add_proc(struct target_attach *t, pid_t pid, bool whole, struct err *e)
{
	for (size_t i = 0; i < t->nr_procs; i++) {
		if (t->procs[i].pid == pid) {
			t->procs[i].whole |= whole;
			return (int)i;
		}
	}
	struct target_proc *n = realloc(t->procs, (t->nr_procs + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	t->procs = n;
	struct target_proc *p = &n[t->nr_procs];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->whole = whole;
	p->pidfd = sys_pidfd_open(pid);
	if (p->pidfd < 0) {
		int code = errno;
		if (code == ESRCH)
			return err_set(e, -ESRCH, "process %d exited while psrec was starting", (int)pid);
		return err_set(e, -code, "pidfd_open(%d): %s%s", (int)pid, strerror(code), pidfd_hint(code));
	}
	t->nr_procs++;
	return (int)(t->nr_procs - 1);
}

static bool has_tid(const struct target_proc *p, pid_t tid)
{
	for (size_t i = 0; i < p->nr_tids; i++)
		if (p->tids[i] == tid)
			return true;
	return false;
}

static int add_tid(struct target_proc *p, pid_t tid)
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

int target_attach_resolve(struct target_attach *t, const pid_t *pids, size_t nr_pids,
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
		int k = add_proc(t, pids[i], true, e);
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
		int k = add_proc(t, st.tgid, false, e);
		if (k < 0)
			return k;
		err = add_tid(&t->procs[k], tids[i]);
		if (err)
			return err;
	}
	return 0;
}

int target_attach_threads(const struct target_attach *t, pid_t **tids, size_t *n)
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

int target_attach_rescan(struct target_attach *t, pid_t **fresh, size_t *n)
{
	pid_t *out = NULL;
	size_t cnt = 0;
	*fresh = NULL;
	*n = 0;
	for (size_t i = 0; i < t->nr_procs; i++) {
		struct target_proc *p = &t->procs[i];
		if (!p->whole)
			continue;
		pid_t *list;
		size_t m;
		if (procfs_threads("/proc", p->pid, &list, &m))
			continue; /* exited: the loop will notice */
		for (size_t j = 0; j < m; j++) {
			if (has_tid(p, list[j]))
				continue;
			pid_t *no = realloc(out, (cnt + 1) * sizeof(*no));
			if (!no || add_tid(p, list[j])) {
				free(no ? no : out);
				free(list);
				return -ENOMEM;
			}
			out = no;
			out[cnt++] = list[j];
		}
		free(list);
	}
	*fresh = out;
	*n = cnt;
	return 0;
}

void target_attach_free(struct target_attach *t)
{
	for (size_t i = 0; i < t->nr_procs; i++) {
		if (t->procs[i].pidfd >= 0)
			close(t->procs[i].pidfd);
		free(t->procs[i].tids);
	}
	free(t->procs);
	memset(t, 0, sizeof(*t));
}
