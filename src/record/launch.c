/*
 * launch.c - launching the recorded command (see launch.h).
 */
#include "launch.h"

#include "marker/abi.h"
#include "record/pidfd.h"
#include "util/io.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
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

int launch_find_command(const char *name, char **path)
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

int launch_check_interpreter(const char *name, const char *path, struct err *e)
{
	/* The kernel reads this much of the file for the "#!" line
	 * (BINPRM_BUF_SIZE). */
	char buf[256 + 1];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0; /* execve will say what is wrong */
	size_t n = 0;
	int rerr = io_read_all(fd, buf, sizeof(buf) - 1, &n);
	close(fd);
	if (rerr || n < 2 || buf[0] != '#' || buf[1] != '!')
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

static void child_run(int go, int ex, const char *path, char *const argv[], const sigset_t *mask,
		      bool stdout_to_stderr, int marker_fd)
{
	char byte;
	size_t n = 0;

	/* The marker channel, for the command and what it starts. */
	if (marker_fd >= 0) {
		char num[16];
		snprintf(num, sizeof(num), "%d", marker_fd);
		if (fcntl(marker_fd, F_SETFD, 0) < 0 || setenv(PSREC_MARKER_ENV, num, 1) < 0)
			unsetenv(PSREC_MARKER_ENV);
	}

	if (stdout_to_stderr && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
		_exit(126);
	/* Ignored signals stay ignored across exec: give the command defaults. */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGXFSZ, SIG_DFL);
	sigprocmask(SIG_SETMASK, mask, NULL);
	if (io_read_all(go, &byte, 1, &n) || n != 1)
		_exit(127); /* psrec gave up before starting the command */
	close(go);
	execv(path, argv);
	int code = errno;
	ssize_t w = write(ex, &code, sizeof(code));
	(void)w;
	_exit(code == ENOENT ? 127 : 126);
}

int launch_fork(struct launch *c, const char *path, char *const argv[],
		const sigset_t *child_mask, bool stdout_to_stderr, int marker_fd, struct err *e)
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
		child_run(go[0], ex[1], path, argv, child_mask, stdout_to_stderr, marker_fd);
	}
	close(go[0]);
	close(ex[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->exec_fd = ex[0];
	c->pidfd = pidfd_open_pid(pid);
	if (c->pidfd < 0) {
		int code = -errno;
		launch_abort(c);
		return err_set(e, code, "pidfd_open: %s%s", strerror(-code), pidfd_hint(-code));
	}
	return 0;
}

int launch_exec(struct launch *c)
{
	char go = 1;
	struct iovec iov = { &go, 1 };
	size_t n = 0;
	int werr = io_writev_all(c->go_fd, &iov, 1, -1, &n);
	close(c->go_fd);
	c->go_fd = -1;
	if (werr || n != 1)
		return -EPIPE;

	int code = 0;
	int rerr = io_read_all(c->exec_fd, &code, sizeof(code), &n);
	close(c->exec_fd);
	c->exec_fd = -1;
	if (!rerr && n == 0)
		return 0;
	launch_reap(c);
	return n == sizeof(code) && code > 0 ? -code : -EIO;
}

void launch_abort(struct launch *c)
{
	if (c->pid > 0 && !c->reaped) {
		kill(c->pid, SIGKILL);
		launch_reap(c);
	}
}

int launch_terminate(struct launch *c, int sigfd, int wait_ms)
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
			return launch_reap(c);
		/* Asked again to stop: the command gets no more say. */
		struct signalfd_siginfo si;
		while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			;
		kill(c->pid, SIGKILL);
		wait_ms = -1;
	}
}

int launch_reap(struct launch *c)
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

int launch_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void launch_close(struct launch *c)
{
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->exec_fd >= 0)
		close(c->exec_fd);
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->go_fd = c->exec_fd = c->pidfd = -1;
}
