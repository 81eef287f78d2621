/*
 * manythreads - a process with many threads and file mappings, for the
 * attach tests and benchmarks.
 *
 * usage: manythreads IDLE MAPS SECONDS [LATE DELAY_MS]
 *
 * Maps its own executable MAPS times (each a separate executable mapping),
 * starts IDLE threads named idle-N that sleep, prints "ready" on stdout,
 * then burns CPU in busy_main() for SECONDS. After DELAY_MS it starts LATE
 * more threads named late-N that burn CPU in late_work() until the end:
 * threads that did not exist when a profiler attached.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

void busy_main(double until);
void late_work(double until);

static volatile unsigned long sink;
static double end_time;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

__attribute__((noipa)) void busy_main(double until)
{
	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink = sink * 31 + (unsigned long)i;
}

__attribute__((noipa)) void late_work(double until)
{
	while (now() < until)
		for (int i = 0; i < 100000; i++)
			sink = sink * 17 + (unsigned long)i;
}

static void *idle(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	for (;;)
		pthread_cond_wait(&never, &lock);
	return NULL;
}

static void *late(void *arg)
{
	(void)arg;
	late_work(end_time);
	return NULL;
}

static pthread_t start(void *(*fn)(void *), const char *prefix, int i, size_t stack)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, stack);
	pthread_t t;
	if (pthread_create(&t, &a, fn, NULL) != 0) {
		perror("pthread_create");
		exit(1);
	}
	pthread_attr_destroy(&a);
	char name[16];
	snprintf(name, sizeof(name), "%s-%d", prefix, i);
	pthread_setname_np(t, name);
	return t;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: manythreads IDLE MAPS SECONDS [LATE DELAY_MS]\n");
		return 2;
	}
	int nidle = atoi(argv[1]), nmaps = atoi(argv[2]);
	double secs = atof(argv[3]);
	int nlate = argc > 4 ? atoi(argv[4]) : 0;
	int delay_ms = argc > 5 ? atoi(argv[5]) : 0;

	FILE *self = fopen("/proc/self/exe", "r");
	if (!self) {
		perror("/proc/self/exe");
		return 1;
	}
	for (int i = 0; i < nmaps; i++) {
		void *p = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(self), 0);
		if (p == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
	}
	for (int i = 0; i < nidle; i++)
		start(idle, "idle", i, 64 * 1024);
	printf("ready\n");
	fflush(stdout);

	double t0 = now();
	end_time = t0 + secs;
	pthread_t *lt = calloc((size_t)nlate + 1, sizeof(*lt));
	if (nlate > 0) {
		busy_main(t0 + delay_ms / 1000.0);
		for (int i = 0; i < nlate; i++)
			lt[i] = start(late, "late", i, 256 * 1024);
	}
	busy_main(end_time);
	for (int i = 0; i < nlate; i++)
		pthread_join(lt[i], NULL);
	free(lt);
	return 0;
}
