/*
 * target.h - the command psrec launches and records.
 *
 * target_fork() forks a child that blocks on a pipe until the parent has
 * opened every event on it; target_exec() releases it, and the child execs
 * the command. Events carry enable_on_exec, so sampling starts at the
 * command's first instruction and psrec itself is never sampled.
 * The child keeps psrec's process group, so a Ctrl-C at the terminal
 * reaches the command directly. Exit is detected with a pidfd.
 */
#ifndef PSREC_RECORD_TARGET_H
#define PSREC_RECORD_TARGET_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

struct target_child {
	pid_t pid;
	int pidfd;          /* readable when the child has exited */
	int go_fd;          /* write end: one byte releases the child */
	int exec_fd;        /* read end: EOF = exec succeeded, else errno */
	bool reaped;
	bool term_sent;     /* target_terminate() sent SIGTERM */
	int status;         /* wait status once reaped */
};

/*
 * Find the executable for a command name the way execvp does (a name with a
 * '/' is taken as is, else each $PATH entry is tried). *path is malloc'd.
 * -ENOENT when nothing is found, -EACCES when only non-executable matches.
 */
int target_find_command(const char *name, char **path);

/*
 * For a script (path starts with "#!"): check its interpreter the way
 * execve will. execve fails with ENOENT for a missing interpreter, which
 * would read as "command not found" although the script is there; this
 * says "bad interpreter" instead, as a shell does (name is the command as
 * given). 0 for a script whose interpreter is there and for anything that
 * is not a script; else -errno with the message in *e.
 */
int target_check_interpreter(const char *name, const char *path, struct err *e);

/*
 * Fork the child: it restores child_mask as its signal mask, waits for
 * target_exec(), then execs path with argv (environ unchanged). With
 * stdout_to_stderr its standard output goes to psrec's standard error
 * (stdout carries the recording in pipe mode).
 */
int target_fork(struct target_child *c, const char *path, char *const argv[],
		const sigset_t *child_mask, bool stdout_to_stderr, struct err *e);

/* Release the child and wait until its exec has succeeded (0) or failed
 * (-errno of execve, with the child gone and reaped). */
int target_exec(struct target_child *c);

/* Kill (SIGKILL) and reap a child that was never released. */
void target_abort(struct target_child *c);

/*
 * End a command that outlived its recording, as perf record does: SIGTERM
 * (once), then wait up to wait_ms (-1: no limit) for it to exit and reap
 * it. A signal read from sigfd (psrec's stop signals) while waiting
 * escalates to SIGKILL. 0 once reaped, -ETIMEDOUT if still running.
 */
int target_terminate(struct target_child *c, int sigfd, int wait_ms);

/* Reap the exited child (after its pidfd became readable). */
int target_reap(struct target_child *c);

/* Exit code for a wait status: the code, or 128+N for signal N. */
int target_exit_code(int status);

void target_close(struct target_child *c);

/*
 * Attaching to running processes (-p), threads (-t) or everything (-a).
 * Processes are checked before anything is opened: one that does not
 * exist, a zombie, a thread id given to -p, or a kernel thread while
 * kernel samples are not allowed is an error naming it. A -p process whose
 * leader alone has exited (pthread_exit) is no zombie: its live threads are
 * the target. Nothing is stopped or traced.
 */
struct target_proc {
	pid_t pid;
	int pidfd;          /* readable when the process has exited */
	bool whole;         /* every thread (-p), not only some (-t) */
	pid_t *tids;        /* threads being sampled (for -t: the ones given) */
	size_t nr_tids;
};

struct target_attach {
	struct target_proc *procs;
	size_t nr_procs;
	bool system_wide;
};

int target_attach_resolve(struct target_attach *t, const pid_t *pids, size_t nr_pids,
			  const pid_t *tids, size_t nr_tids, bool system_wide,
			  bool kernel_allowed, struct err *e);

/* All thread ids to open events on, in one array (caller frees); {-1}
 * system-wide. */
int target_attach_threads(const struct target_attach *t, pid_t **tids, size_t *n);

/*
 * Threads of the -p processes that appeared since the last look (created
 * before their creator's events were opened, so inherit did not cover
 * them). They are added to the process lists; *fresh (caller frees) gets
 * just the new ones.
 */
int target_attach_rescan(struct target_attach *t, pid_t **fresh, size_t *n);

void target_attach_free(struct target_attach *t);

#endif
