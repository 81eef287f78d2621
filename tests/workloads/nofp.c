/*
 * nofp - a call chain that only DWARF unwinding can see: built with
 * -O2 -fomit-frame-pointer, main -> middle -> leaf (all noinline), CPU
 * burnt in leaf.
 *
 * usage: nofp [SECONDS]   (default 1.0 s)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

double leaf(double until);
double middle(double until);

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline, noipa)) double leaf(double until)
{
	double t;
	while ((t = now()) < until)
		for (int i = 0; i < 200000; i++)
			sink = sink * 13 + (unsigned long)i;
	return t;
}

/* The arithmetic after the call keeps it from being a tail call. */
__attribute__((noinline, noipa)) double middle(double until)
{
	return leaf(until) + 1.0;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	if (secs <= 0) {
		fprintf(stderr, "usage: nofp [SECONDS]\n");
		return 2;
	}
	double r = middle(now() + secs);
	return r > 0 ? 0 : 1;
}
