/*
 * libnofpso - the shared-library half of nofpso: so_middle -> so_leaf,
 * built with -O2 -fomit-frame-pointer -g like its caller, CPU burnt in
 * so_leaf. Only DWARF unwinding sees the chain through it.
 */
#include <time.h>

double so_leaf(double until, long loops);
double so_middle(double until, long loops);

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* loops > 0: that many rounds of fixed work instead of running until UNTIL */
__attribute__((noinline, noipa)) double so_leaf(double until, long loops)
{
	double t = 0;
	for (long n = 0; loops > 0 ? n < loops : (t = now()) < until; n++)
		for (int i = 0; i < 200000; i++)
			sink = sink * 11 + (unsigned long)i;
	return t + 1;
}

/* The arithmetic after the call keeps it from being a tail call. */
__attribute__((noinline, noipa)) double so_middle(double until, long loops)
{
	return so_leaf(until, loops) + 1.0;
}
