/*
 * markattach - a program that `psrec -p` attaches to, then emits markers.
 *
 * usage: markattach READYFILE SECONDS
 *
 * Waits (up to 60 s) until READYFILE exists, so that the test can attach
 * psrec first, then for SECONDS of CPU repeats: psrec_mark("attach tick
 * %d", i), 10 ms of CPU in attach_spin. Prints "listening L ticks N" at the end
 * (L: psrec_marker_listening() when the ticks began).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <psrec/marker.h>

static volatile unsigned long sink;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* This thread's CPU time: the ticks are of CPU, not of the wall clock. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void attach_spin(double until);

__attribute__((noipa)) void attach_spin(double until)
{
	unsigned long x = 5;
	while (cpu_now() < until)
		for (int i = 0; i < 200000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: markattach READYFILE SECONDS\n");
		return 2;
	}
	double limit = now() + 60;
	while (access(argv[1], F_OK) != 0) {
		if (now() > limit) {
			fprintf(stderr, "markattach: %s never appeared\n", argv[1]);
			return 1;
		}
		struct timespec ts = { 0, 10 * 1000000L };
		nanosleep(&ts, NULL);
	}
	int listening = psrec_marker_listening();
	double end = cpu_now() + atof(argv[2]);
	int i;
	for (i = 1; cpu_now() < end; i++) {
		psrec_mark("attach tick %d", i);
		attach_spin(cpu_now() + 0.01);
	}
	printf("listening %d ticks %d\n", listening, i - 1);
	return 0;
}
