/*
 * badcomm - a thread name no terminal should be shown raw.
 *
 * usage: badcomm [SECONDS]   (default 0.5 s)
 *
 * Renames itself with prctl(PR_SET_NAME) to BADCOMM_NAME: ESC [ 2 J (what
 * clears a terminal), BEL, a ';' (fold's frame separator), a tab, the C1
 * control CSI (U+009B) and a byte that is not UTF-8. Then burns CPU in
 * hot_badcomm for SECONDS, so every sample carries that name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>

#define BADCOMM_NAME "\x1b[2J\aa;b\t\xc2\x9b\xff"

static volatile unsigned long sink;

__attribute__((noipa)) static void hot_badcomm(double seconds)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	unsigned long x = 1;
	do {
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	sink = x;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.5;
	if (prctl(PR_SET_NAME, BADCOMM_NAME, 0, 0, 0) != 0) {
		perror("badcomm: prctl(PR_SET_NAME)");
		return 1;
	}
	hot_badcomm(seconds);
	return 0;
}
