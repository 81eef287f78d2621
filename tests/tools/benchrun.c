/*
 * benchrun - run a command and report what it cost, for scripts/bench.
 *
 * usage: benchrun REPORT CMD [ARGS...]
 *
 * Writes to REPORT one line of key=value pairs: start_ns (CLOCK_MONOTONIC
 * just before the fork, comparable with sample times recorded with
 * -k monotonic), wall_s, run_s, user_s, sys_s, maxrss_kb, vcsw and
 * ivcsw (voluntary and forced context switches), status.
 *
 * run_s is the scheduler's own count of the time the command's main
 * thread spent on a CPU (/proc/PID/schedstat, read from the zombie before
 * it is reaped): nanosecond-exact, where user_s/sys_s (from wait4) are
 * sampled at each timer tick (4 ms here, CONFIG_TICK_CPU_ACCOUNTING) and
 * so are noise for a recorder that runs a few hundred microseconds at a
 * time. user_s, sys_s and maxrss_kb include children the command reaped.
 * Exits with the command's status.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: benchrun REPORT CMD [ARGS...]\n");
		return 2;
	}
	long long t0 = now_ns();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "benchrun: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	/* Wait for the exit without reaping, to read the zombie's schedstat. */
	siginfo_t si;
	while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0)
		if (errno != EINTR) {
			perror("waitid");
			return 1;
		}
	double run_s = -1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/schedstat", (int)pid);
	FILE *ss = fopen(path, "r");
	if (ss) {
		unsigned long long ns;
		if (fscanf(ss, "%llu", &ns) == 1)
			run_s = (double)ns / 1e9;
		fclose(ss);
	}
	int st;
	struct rusage ru;
	while (wait4(pid, &st, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("wait4");
			return 1;
		}
	long long t1 = now_ns();
	FILE *f = fopen(argv[1], "w");
	if (!f) {
		perror(argv[1]);
		return 1;
	}
	fprintf(f, "start_ns=%lld wall_s=%.6f run_s=%.6f user_s=%.6f sys_s=%.6f maxrss_kb=%ld "
		"vcsw=%ld ivcsw=%ld status=%d\n",
		t0, (double)(t1 - t0) / 1e9, run_s,
		(double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6,
		ru.ru_maxrss, ru.ru_nvcsw, ru.ru_nivcsw, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
	fclose(f);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
