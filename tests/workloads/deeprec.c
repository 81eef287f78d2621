/*
 * deeprec - deep recursion with a known call chain, built with frame
 * pointers.
 *
 * usage: deeprec [SECONDS [DEPTH]]   (default 1.0 s of CPU, depth 50)
 *        deeprec -n LOOPS [DEPTH]     fixed work: LOOPS rounds of the leaf
 *
 * main -> rec_a -> rec_b -> rec_a -> ... (DEPTH frames) -> leaf_burn, which
 * burns the CPU: every sample's chain is DEPTH frames of rec_a/rec_b
 * ending in main.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "benchstat.h"

void rec_a(int depth, double until);
void rec_b(int depth, double until);
void leaf_burn(double until);

static volatile unsigned long sink;
static long loops; /* > 0: fixed work instead of a duration */

__attribute__((noipa)) void leaf_burn(double until)
{
	for (long n = 0; loops > 0 ? n < loops : benchstat_cpu() < until; n++)
		for (int i = 0; i < 200000; i++)
			sink = sink * 7 + (unsigned long)i;
}

/* The volatile store after the call keeps it from being a tail call. */
__attribute__((noipa)) void rec_a(int depth, double until)
{
	if (depth <= 1)
		leaf_burn(until);
	else
		rec_b(depth - 1, until);
	sink++;
}

__attribute__((noipa)) void rec_b(int depth, double until)
{
	if (depth <= 1)
		leaf_burn(until);
	else
		rec_a(depth - 1, until);
	sink++;
}

int main(int argc, char **argv)
{
	benchstat_start();
	double secs = 1.0;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		loops = atol(argv[2]);
		argv += 1;
		argc -= 1;
	} else if (argc > 1) {
		secs = atof(argv[1]);
	}
	int depth = argc > 2 ? atoi(argv[2]) : 50;
	if (secs <= 0 || depth < 1) {
		fprintf(stderr, "usage: deeprec [SECONDS [DEPTH]]\n");
		return 2;
	}
	rec_a(depth, benchstat_cpu() + secs);
	benchstat_work = loops;
	return 0;
}
