/*
 * spawn.h - the command run for each finished chunk
 * (--switch-output-command), without the recorder ever waiting for it.
 *
 * CMD is a shell command line; the chunk's path is its last argument:
 * /bin/sh -c 'CMD "$1"' sh PATH, so CMD may carry arguments of its own
 * ("psrec pprof -i") and a path with spaces arrives whole. The child gets
 * the signal mask and dispositions psrec started with (psrec blocks its
 * stop signals and ignores SIGPIPE). Children are reaped with
 * waitpid(pid, WNOHANG) on each pid of their own, never waitpid(-1): the
 * launched command's status belongs to launch.c.
 */
#ifndef PSREC_RECORD_SPAWN_H
#define PSREC_RECORD_SPAWN_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

struct spawn_set {
	pid_t *pids;            /* running, not yet reaped */
	size_t nr, cap;
	size_t started;
	size_t failed;          /* exited non-zero, killed, or not run at all */
};

void spawn_init(struct spawn_set *s);

/* Start CMD with arg. The mask is the one the child should have. -errno
 * when it cannot be started (then it counts as failed). */
int spawn_command(struct spawn_set *s, const char *cmd, const char *arg, const sigset_t *mask);

/* Reap every child that has exited, without blocking. Returns how many
 * are still running. */
size_t spawn_reap(struct spawn_set *s);

/* Wait for every child still running (at the end of the recording). */
void spawn_wait_all(struct spawn_set *s);

void spawn_free(struct spawn_set *s);

#endif
