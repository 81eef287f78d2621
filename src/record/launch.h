/*
 * launch.h - the command psrec launches and records.
 *
 * launch_fork() forks a child that blocks on a pipe until the parent has
 * opened every event on it; launch_exec() releases it, and the child execs
 * the command. Events carry enable_on_exec, so sampling starts at the
 * command's first instruction and psrec itself is never sampled.
 * The child keeps psrec's process group, so a Ctrl-C at the terminal
 * reaches the command directly. Exit is detected with a pidfd.
 */
#ifndef PSREC_RECORD_LAUNCH_H
#define PSREC_RECORD_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

struct launch {
	pid_t pid;
	int pidfd;          /* readable when the child has exited */
	int go_fd;          /* write end: one byte releases the child */
	int exec_fd;        /* read end: EOF = exec succeeded, else errno */
	bool reaped;
	bool term_sent;     /* launch_terminate() sent SIGTERM */
	int status;         /* wait status once reaped */
};

/*
 * Find the executable for a command name the way execvp does (a name with a
 * '/' is taken as is, else each $PATH entry is tried). *path is malloc'd.
 * -ENOENT when nothing is found, -EACCES when only non-executable matches.
 */
int launch_find_command(const char *name, char **path);

/*
 * For a script (path starts with "#!"): check its interpreter the way
 * execve will. execve fails with ENOENT for a missing interpreter, which
 * would read as "command not found" although the script is there; this
 * says "bad interpreter" instead, as a shell does (name is the command as
 * given). 0 for a script whose interpreter is there and for anything that
 * is not a script; else -errno with the message in *e.
 */
int launch_check_interpreter(const char *name, const char *path, struct err *e);

/*
 * Fork the child: it restores child_mask as its signal mask, waits for
 * launch_exec(), then execs path with argv (environ unchanged). With
 * stdout_to_stderr its standard output goes to psrec's standard error
 * (stdout carries the recording in pipe mode). marker_fd >= 0: the
 * child keeps it open across exec and names it in PSREC_MARKER_FD.
 */
int launch_fork(struct launch *c, const char *path, char *const argv[],
		const sigset_t *child_mask, bool stdout_to_stderr, int marker_fd, struct err *e);

/* Release the child and wait until its exec has succeeded (0) or failed
 * (-errno of execve, with the child gone and reaped). */
int launch_exec(struct launch *c);

/* Kill (SIGKILL) and reap a child that was never released. */
void launch_abort(struct launch *c);

/*
 * End a command that outlived its recording, as perf record does: SIGTERM
 * (once), then wait up to wait_ms (-1: no limit) for it to exit and reap
 * it. A signal read from sigfd (psrec's stop signals) while waiting
 * escalates to SIGKILL. 0 once reaped, -ETIMEDOUT if still running.
 */
int launch_terminate(struct launch *c, int sigfd, int wait_ms);

/* Reap the exited child (after its pidfd became readable). */
int launch_reap(struct launch *c);

/* Exit code for a wait status: the code, or 128+N for signal N. */
int launch_exit_code(int status);

void launch_close(struct launch *c);

#endif
