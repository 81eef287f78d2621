/*
 * spin - a CPU burner with a known profile.
 *
 * usage: spin [SECONDS [THREADS]]   (default 1.0 s of CPU a thread, 2 threads)
 *        spin -n LOOPS [THREADS]     fixed work: LOOPS rounds per thread
 *
 * Each thread repeats: 6 units of work in hot_a, 3 in hot_b, 1 in hot_c,
 * so a profile must show hot_a/hot_b/hot_c at 60/30/10 percent. The three
 * functions have identical bodies but are kept apart (noipa stops inlining
 * and identical-code folding), and every unit is the same fixed loop.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchstat.h"

#define UNIT_ITERS 200000

static volatile unsigned long sink;
/* Set when the time is up: checked after every unit, so a run ends on
 * time even when sampling at -F max slows each unit a thousandfold. The
 * time is CPU time, THREADS x SECONDS of it for the process, not wall
 * time: what a test records of spin must not depend on what else the
 * machine runs. */
static volatile int stop;

void hot_a(int units);
void hot_b(int units);
void hot_c(int units);

/*
 * One unit of work, as a macro so that samples land in the hot_* function
 * that does it. Not an inline function: gcc 12 gives each inlined copy
 * only DW_AT_ranges, and hotspot's perfparser 4.12 then resolves every
 * copy to the first one it meets (all samples in one hot_*).
 */
#define UNIT(x) do {                                                    \
		for (int i_ = 0; i_ < UNIT_ITERS; i_++)                 \
			(x) = (x) * 6364136223846793005UL + 1442695040888963407UL; \
	} while (0)

__attribute__((noipa)) void hot_a(int units)
{
	unsigned long x = 1;
	for (int i = 0; i < units && !stop; i++)
		UNIT(x);
	sink += x;
}

__attribute__((noipa)) void hot_b(int units)
{
	unsigned long x = 2;
	for (int i = 0; i < units && !stop; i++)
		UNIT(x);
	sink += x;
}

__attribute__((noipa)) void hot_c(int units)
{
	unsigned long x = 3;
	for (int i = 0; i < units && !stop; i++)
		UNIT(x);
	sink += x;
}

static double seconds;
static int threads;
static long loops; /* > 0: fixed work instead of a duration */

static double process_cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Looks at the process's CPU time every 2 ms (its own is nothing). */
static void *timekeeper(void *arg)
{
	(void)arg;
	const struct timespec tick = { 0, 2 * 1000 * 1000 };
	while (process_cpu() < seconds * threads)
		nanosleep(&tick, NULL);
	stop = 1;
	return NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	long i;
	for (i = 0; loops > 0 ? i < loops : !stop; i++) {
		hot_a(6);
		hot_b(3);
		hot_c(1);
	}
	__atomic_add_fetch(&benchstat_work, i, __ATOMIC_RELAXED);
	return NULL;
}

int main(int argc, char **argv)
{
	benchstat_start();
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		loops = atol(argv[2]);
		argv += 1;
		argc -= 1;
		seconds = 1;
	} else {
		seconds = argc > 1 ? atof(argv[1]) : 1.0;
	}
	threads = argc > 2 ? atoi(argv[2]) : 2;
	if (seconds <= 0 || loops < 0 || threads < 1 || threads > 1024) {
		fprintf(stderr, "usage: spin [SECONDS [THREADS]] | spin -n LOOPS [THREADS]\n");
		return 2;
	}
	pthread_t *t = calloc((size_t)threads, sizeof(*t));
	if (!t)
		return 1;
	pthread_t timer;
	if (loops == 0)
		pthread_create(&timer, NULL, timekeeper, NULL);
	for (int i = 1; i < threads; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	worker(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(t[i], NULL);
	if (loops == 0)
		pthread_join(timer, NULL);
	free(t);
	return 0;
}
