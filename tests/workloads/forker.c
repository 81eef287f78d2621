/*
 * forker - a fork/exec-heavy workload: every new process means COMM,
 * MMAP2 and EXIT records for the recorder.
 *
 * usage: forker COUNT [PROGRAM]   (default PROGRAM /bin/true)
 *
 * Runs PROGRAM COUNT times, one after the other (fork, exec, wait), and
 * burns a little CPU between runs so there is something to sample.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "benchstat.h"

void between(void);

static volatile unsigned long sink;

__attribute__((noipa)) void between(void)
{
	for (int i = 0; i < 300000; i++)
		sink = sink * 5 + (unsigned long)i;
}

int main(int argc, char **argv)
{
	benchstat_start();
	long count = argc > 1 ? atol(argv[1]) : 0;
	const char *prog = argc > 2 ? argv[2] : "/bin/true";
	if (count <= 0) {
		fprintf(stderr, "usage: forker COUNT [PROGRAM]\n");
		return 2;
	}
	for (long i = 0; i < count; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			execl(prog, prog, (char *)NULL);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		between();
	}
	benchstat_work = count;
	return 0;
}
