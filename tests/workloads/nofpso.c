/*
 * nofpso - a call chain through the program's own shared library, both
 * built with -O2 -fomit-frame-pointer: main -> so_middle -> so_leaf, the
 * last two in libnofpso.so (tests/workloads/libnofpso.c), CPU burnt in
 * so_leaf. meson's build rpath finds the library.
 *
 * usage: nofpso [SECONDS]     (default 1.0 s of CPU)
 *        nofpso -n LOOPS      fixed work
 *        nofpso -p SECONDS    so_leaf calls so_tiny through the PLT in its loop
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchstat.h"

double so_middle(double until, long loops, int plt);

int main(int argc, char **argv)
{
	benchstat_start();
	double secs = 1.0;
	long loops = 0;
	int plt = 0;
	if (argc > 2 && strcmp(argv[1], "-n") == 0) {
		loops = atol(argv[2]);
	} else if (argc > 2 && strcmp(argv[1], "-p") == 0) {
		plt = 1;
		secs = atof(argv[2]);
	} else if (argc > 1) {
		secs = atof(argv[1]);
	}
	if (secs <= 0 || loops < 0) {
		fprintf(stderr, "usage: nofpso [-p] [SECONDS] | -n LOOPS\n");
		return 2;
	}
	double r = so_middle(benchstat_cpu() + secs, loops, plt);
	benchstat_work = loops;
	/* after the call, so that main's call is not a tail call */
	return r > 0 ? 0 : 1;
}
