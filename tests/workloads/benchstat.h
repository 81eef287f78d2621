/*
 * benchstat.h - lets a workload report its own cost to scripts/bench.
 *
 * When PSREC_BENCH_STATS names a file, the workload writes one line there
 * at exit: "wall_s=... user_s=... sys_s=... work=..." (its own run time,
 * the CPU of itself and the children it waited for, and how much work it
 * did, in its own units). work / wall is the workload's throughput: a
 * recorder's slowdown is throughput alone / throughput while recorded,
 * whether the workload ran for a fixed time or a fixed amount of work.
 */
#ifndef PSREC_WORKLOAD_BENCHSTAT_H
#define PSREC_WORKLOAD_BENCHSTAT_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double benchstat_t0;
static volatile long benchstat_work; /* set or counted by the workload */

static double benchstat_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's CPU time in seconds (a system call: no vDSO for CPU
 * clocks). The workloads run for SECONDS of CPU, not of the wall clock:
 * what a test records of them must not depend on what else the machine
 * runs (issue 22: tests ran on a busy machine got a fraction of the
 * samples they counted on). */
static inline double benchstat_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void benchstat_write(void)
{
	const char *path = getenv("PSREC_BENCH_STATS");
	FILE *f = path ? fopen(path, "w") : NULL;
	if (!f)
		return;
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	double user = (double)(self.ru_utime.tv_sec + kids.ru_utime.tv_sec) +
		      (double)(self.ru_utime.tv_usec + kids.ru_utime.tv_usec) / 1e6;
	double sys = (double)(self.ru_stime.tv_sec + kids.ru_stime.tv_sec) +
		     (double)(self.ru_stime.tv_usec + kids.ru_stime.tv_usec) / 1e6;
	fprintf(f, "wall_s=%.6f user_s=%.6f sys_s=%.6f work=%ld\n", benchstat_now() - benchstat_t0, user, sys,
		benchstat_work);
	fclose(f);
}

/*
 * Call first thing in main. PSREC_BENCH_DELAY_MS makes the workload wait
 * before it starts its clock and its work, so that a recorder attaching
 * to it is sampling for all of the measured part, however long it took to
 * attach.
 */
static void benchstat_start(void)
{
	const char *delay = getenv("PSREC_BENCH_DELAY_MS");
	if (delay) {
		struct timespec ts = { atoi(delay) / 1000, (long)(atoi(delay) % 1000) * 1000000L };
		nanosleep(&ts, NULL);
	}
	benchstat_t0 = benchstat_now();
	if (getenv("PSREC_BENCH_STATS"))
		atexit(benchstat_write);
}

#endif
