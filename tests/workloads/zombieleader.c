/*
 * zombieleader - a process whose main thread has exited while another
 * thread still runs: /proc shows the leader as a zombie ("Z"), and the
 * kernel gives it no mappings any more, but the process lives on.
 *
 * usage: zombieleader [SECONDS]   (default 5 s of CPU)
 *
 * The main thread starts one thread that burns CPU in zl_burn and then
 * calls pthread_exit; the burner ends the whole process after SECONDS.
 */
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static volatile unsigned long sink;
static double seconds = 5.0;

/* This thread's CPU time: the durations are of CPU, not of the wall
 * clock, so that a recording of it does not depend on the machine's load. */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void zl_burn(double until);

/* Where every sample should land: kept out of line so a profile names it. */
__attribute__((noipa)) void zl_burn(double until)
{
	unsigned long x = 1;
	while (now() < until)
		for (int i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

static void *burner(void *arg)
{
	(void)arg;
	zl_burn(now() + seconds);
	exit(0); /* the process ends here, not when main returns */
}

int main(int argc, char **argv)
{
	if (argc > 1)
		seconds = atof(argv[1]);
	if (argc > 2 || !(seconds > 0))
		return 2;
	pthread_t th;
	if (pthread_create(&th, NULL, burner, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
