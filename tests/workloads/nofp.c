/*
 * nofp - a call chain that only DWARF unwinding can see: built with
 * -O2 -fomit-frame-pointer, main -> middle -> leaf (all noinline), CPU
 * burnt in leaf.
 *
 * usage: nofp [SECONDS]   (default 1.0 s of CPU)
 *        nofp -n LOOPS    fixed work
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchstat.h"

double leaf(double until);
double middle(double until);

static volatile unsigned long sink;
static long loops; /* > 0: fixed work instead of a duration */

__attribute__((noinline, noipa)) double leaf(double until)
{
	double t = 0;
	for (long n = 0; loops > 0 ? n < loops : (t = benchstat_cpu()) < until; n++)
		for (int i = 0; i < 200000; i++)
			sink = sink * 13 + (unsigned long)i;
	return t + 1;
}

/* The arithmetic after the call keeps it from being a tail call. */
__attribute__((noinline, noipa)) double middle(double until)
{
	return leaf(until) + 1.0;
}

int main(int argc, char **argv)
{
	benchstat_start();
	double secs = 1.0;
	if (argc > 2 && strcmp(argv[1], "-n") == 0)
		loops = atol(argv[2]);
	else if (argc > 1)
		secs = atof(argv[1]);
	if (secs <= 0 || loops < 0) {
		fprintf(stderr, "usage: nofp [SECONDS]\n");
		return 2;
	}
	double r = middle(benchstat_cpu() + secs);
	benchstat_work = loops;
	return r > 0 ? 0 : 1;
}
