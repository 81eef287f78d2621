/*
 * noisystack - burns CPU under 60 KiB of random-looking bytes on its
 * stack (5 random bits a byte, new ones all the time), so that
 * --call-graph dwarf copies of it compress into zstd blocks bigger than
 * one COMPRESSED record: what made psrec 0.1 (and perf record -z) write
 * records holding part of a block, which perf cannot decode. (Bytes that
 * do not compress at all go into raw blocks, which decode piecemeal, and
 * bytes that repeat across samples compress to nothing: both hide it.)
 *
 * usage: noisystack [SECONDS]   (default 1.0 s of CPU)
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#define WORDS (60 * 1024 / 8)

static volatile uint64_t sink;

/* This thread's CPU time: the durations are of CPU, not of the wall
 * clock, so that a recording of it does not depend on the machine's load. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noinline)) static void burn(volatile uint64_t *junk, double until)
{
	uint64_t x = 0x9e3779b97f4a7c15ULL ^ (uint64_t)(now() * 1e9);
	while (now() < until) {
		for (size_t i = 0; i < WORDS; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			junk[i] = x & 0x1f1f1f1f1f1f1f1fULL;
		}
		for (int i = 0; i < 20000; i++)
			sink = sink * 31 + (uint64_t)i;
	}
}

__attribute__((noinline)) static void noisy(double until)
{
	volatile uint64_t junk[WORDS];
	burn(junk, until);
	sink += junk[sink % WORDS];
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	noisy(now() + secs);
	return 0;
}
