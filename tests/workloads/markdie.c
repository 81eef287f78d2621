/*
 * markdie - a writer that dies between reserving its marker and
 * publishing it (issue 22: that stalled the channel for every other
 * writer).
 *
 * usage: markdie
 *
 * Marks "before the death", then forks a child (sharing the channel)
 * whose psrec_mark_str reads a payload running into an unmapped page: it
 * faults in the copy, after its reservation and before its commit, and
 * dies. Once the child is reaped, marks "after the death N" for N = 1..10
 * with 20 ms of CPU in die_spin after each. Prints "child=killed" or
 * "child=exited N".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <psrec/marker.h>

static volatile unsigned long sink;

/* This thread's CPU time: the durations are of CPU, not of the wall
 * clock, so that a recording of it does not depend on the machine's load. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void die_spin(double until);

__attribute__((noipa)) void die_spin(double until)
{
	unsigned long x = 7;
	while (now() < until)
		for (int i = 0; i < 200000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

int main(void)
{
	psrec_mark("before the death");
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED || mprotect(p + page, (size_t)page, PROT_NONE) < 0) {
		perror("markdie: mmap");
		return 1;
	}
	memset(p, 'd', (size_t)page);
	fflush(stdout);
	pid_t child = fork();
	if (child < 0) {
		perror("markdie: fork");
		return 1;
	}
	if (child == 0) {
		struct rlimit none = { 0, 0 };
		setrlimit(RLIMIT_CORE, &none);
		/* 1000 bytes from 100 before the hole */
		psrec_mark_str(p + page - 100, 1000);
		_exit(0); /* not reached */
	}
	int st = 0;
	if (waitpid(child, &st, 0) != child) {
		perror("markdie: waitpid");
		return 1;
	}
	for (int i = 1; i <= 10; i++) {
		psrec_mark("after the death %d", i);
		die_spin(now() + 0.02);
	}
	if (WIFSIGNALED(st))
		printf("child=killed\n");
	else
		printf("child=exited %d\n", WEXITSTATUS(st));
	return 0;
}
