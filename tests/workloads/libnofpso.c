/*
 * libnofpso - the shared-library half of nofpso: so_middle -> so_leaf,
 * built with -O2 -fomit-frame-pointer -g like its caller, CPU burnt in
 * so_leaf. Only DWARF unwinding sees the chain through it. With plt set,
 * so_leaf calls so_tiny, another function of the library, in its inner
 * loop: through the library's PLT, so that many samples land in the PLT
 * stub, whose CFI is a DWARF expression.
 */
#include <time.h>

unsigned long so_tiny(unsigned long x);
double so_leaf(double until, long loops, int plt);
double so_middle(double until, long loops, int plt);

static volatile unsigned long sink;

/* This thread's CPU time: UNTIL is one (benchstat_cpu in nofpso). */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline, noipa)) unsigned long so_tiny(unsigned long x)
{
	return x * 3 + 1;
}

/* loops > 0: that many rounds of fixed work instead of running until UNTIL */
__attribute__((noinline, noipa)) double so_leaf(double until, long loops, int plt)
{
	double t = 0;
	for (long n = 0; loops > 0 ? n < loops : (t = now()) < until; n++) {
		if (plt) {
			unsigned long x = sink;
			for (int i = 0; i < 50000; i++)
				x = so_tiny(x + (unsigned long)i);
			sink = x;
		} else {
			for (int i = 0; i < 200000; i++)
				sink = sink * 11 + (unsigned long)i;
		}
	}
	return t + 1;
}

/* The arithmetic after the call keeps it from being a tail call. */
__attribute__((noinline, noipa)) double so_middle(double until, long loops, int plt)
{
	return so_leaf(until, loops, plt) + 1.0;
}
