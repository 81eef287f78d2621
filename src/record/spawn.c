/*
 * spawn.c - chunk commands (see spawn.h).
 */
#include "spawn.h"

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "util/vec.h"

extern char **environ;

void spawn_init(struct spawn_set *s)
{
	memset(s, 0, sizeof(*s));
}

int spawn_command(struct spawn_set *s, const char *cmd, const char *arg, const sigset_t *mask)
{
	s->started++;
	if (VEC_RESERVE(s->pids, s->cap, s->nr, 1, 8)) {
		s->failed++;
		return -ENOMEM;
	}
	char *line;
	if (asprintf(&line, "%s \"$1\"", cmd) < 0) {
		s->failed++;
		return -ENOMEM;
	}
	posix_spawnattr_t at;
	sigset_t def;
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGXFSZ);
	posix_spawnattr_init(&at);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setsigmask(&at, mask);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
	char *argv[] = { "sh", "-c", line, "sh", (char *)arg, NULL };
	pid_t pid;
	int err = posix_spawn(&pid, "/bin/sh", NULL, &at, argv, environ);
	posix_spawnattr_destroy(&at);
	free(line);
	if (err) {
		s->failed++;
		return -err;
	}
	s->pids[s->nr++] = pid;
	return 0;
}

static void reaped(struct spawn_set *s, size_t i, int status)
{
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		s->failed++;
	s->pids[i] = s->pids[--s->nr];
}

size_t spawn_reap(struct spawn_set *s)
{
	for (size_t i = 0; i < s->nr;) {
		int status;
		pid_t r = waitpid(s->pids[i], &status, WNOHANG);
		if (r == s->pids[i])
			reaped(s, i, status);
		else if (r < 0 && errno != EINTR)
			s->pids[i] = s->pids[--s->nr]; /* not ours any more */
		else
			i++;
	}
	return s->nr;
}

void spawn_wait_all(struct spawn_set *s)
{
	while (s->nr) {
		int status;
		pid_t r = waitpid(s->pids[0], &status, 0);
		if (r == s->pids[0])
			reaped(s, 0, status);
		else if (r < 0 && errno != EINTR)
			s->pids[0] = s->pids[--s->nr];
	}
}

void spawn_free(struct spawn_set *s)
{
	free(s->pids);
	memset(s, 0, sizeof(*s));
}
