/*
 * markburst - a burst of small markers in one drain pass (issue 22: with
 * -z, their samples outgrew one compressed span and ended the recording).
 *
 * usage: markburst N
 *
 * Sends N 16-byte markers ("burst NNNNNNNNNN") as fast as it can (well
 * under a millisecond for thousands), then burns 300 ms of CPU in
 * burst_spin. Prints "sent=N" (markers the library took: with no psrec
 * listening, 0).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

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

void burst_spin(double until);

__attribute__((noipa)) void burst_spin(double until)
{
	unsigned long x = 9;
	while (now() < until)
		for (int i = 0; i < 200000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

int main(int argc, char **argv)
{
	int n = argc == 2 ? atoi(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: markburst N\n");
		return 2;
	}
	int listening = psrec_marker_listening();
	for (int i = 0; i < n; i++) {
		char m[24];
		snprintf(m, sizeof(m), "burst %010u", (unsigned)i % 1000000000u);
		psrec_mark_str(m, 16);
	}
	burst_spin(now() + 0.3);
	printf("sent=%d\n", listening ? n : 0);
	return 0;
}
