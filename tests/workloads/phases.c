/*
 * phases - a workload in phases, each announced by user markers
 * (issue 16, include/psrec/marker.h).
 *
 * usage: phases [N [MS]]   (default 3 phases of 400 ms)
 *
 * Inside a span "all": one typed marker (psrec_mark_bytes, type 7), then
 * for i in 1..N: psrec_mark("phase %d begin", i), MS milliseconds of CPU
 * in hot_phase_i, psrec_mark("phase %d end", i). hot_phase_1..9 are
 * distinct functions with identical bodies (noipa keeps them apart), so
 * a profile tells the phases apart; phase i > 9 runs hot_phase_((i-1)%9+1).
 *
 * stdout holds fixed lines only ("phase i done" per phase, then "done"),
 * the same with and without psrec listening, so a test can compare them.
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

/* Burn CPU until this thread's CPU clock reaches until (checked every
 * ~250 us: reading a CPU clock is a system call). */
#define BURN(until, seed) do {                                                   \
		unsigned long x_ = (seed);                                       \
		while (now() < (until))                                          \
			for (int i_ = 0; i_ < 200000; i_++)                      \
				x_ = x_ * 6364136223846793005UL + 1442695040888963407UL; \
		sink += x_;                                                      \
	} while (0)

#define HOT(n) \
	void hot_phase_##n(double until); \
	__attribute__((noipa)) void hot_phase_##n(double until) { BURN(until, n); }
HOT(1) HOT(2) HOT(3) HOT(4) HOT(5) HOT(6) HOT(7) HOT(8) HOT(9)

static void (*const hot[9])(double) = {
	hot_phase_1, hot_phase_2, hot_phase_3, hot_phase_4, hot_phase_5,
	hot_phase_6, hot_phase_7, hot_phase_8, hot_phase_9,
};

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int ms = argc > 2 ? atoi(argv[2]) : 400;
	if (n < 1 || ms < 0) {
		fprintf(stderr, "usage: phases [N [MS]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	psrec_span_begin("all");
	static const unsigned char blob[] = { 0xde, 0xad, 0xbe, 0xef, 0x00, 0x01, 0x02, 0x03 };
	psrec_mark_bytes(7, blob, sizeof(blob));
	for (int i = 1; i <= n; i++) {
		psrec_mark("phase %d begin", i);
		hot[(i - 1) % 9](now() + ms / 1000.0);
		psrec_mark("phase %d end", i);
		printf("phase %d done\n", i);
	}
	psrec_span_end("all");
	printf("done\n");
	return 0;
}
