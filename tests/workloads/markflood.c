/*
 * markflood - a flood of user markers next to a CPU burner (issue 16).
 *
 * usage: markflood RATE SECONDS
 *
 * One thread emits psrec_mark_str markers ("flood NNNNNNN") paced at RATE
 * a second: in batches of up to 1000, as many as the clock says are due,
 * sleeping 50 us when ahead. Every call is timed (one clock read between
 * two calls). A second thread burns CPU in flood_spin meanwhile. At the
 * end one line on stdout:
 *   sent=N seconds=S rate=R mean_ns=A p50_ns=H max_ns=M p999_ns=P over_1ms=K slept=Z spin_cpu_s=C
 * (N markers sent in S s, R a second; a call took A ns on average, one
 * clock read included, half of them at most H ns, the slowest M ns, 99.9% of them
 * at most P ns, K over 1 ms, most of them preempted; Z the voluntary
 * context switches of the emitting thread besides its pacing sleeps: a
 * call that ever slept, waiting for room in the channel or in a syscall,
 * makes it nonzero; C the CPU time flood_spin's thread had).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include <psrec/marker.h>

static volatile int stop;
static volatile unsigned long sink;
static double spin_cpu;

static inline int64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void flood_spin(void);

__attribute__((noipa)) void flood_spin(void)
{
	unsigned long x = 11;
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005UL + 1442695040888963407UL;
	sink += x;
}

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		flood_spin();
	spin_cpu = (double)now_ns(CLOCK_THREAD_CPUTIME_ID) / 1e9;
	return NULL;
}

/* Call times in 10 ns buckets up to 100 us, then one bucket for the rest. */
#define NBUCKET 10001
static uint64_t hist[NBUCKET + 1];

int main(int argc, char **argv)
{
	double rate = argc == 3 ? atof(argv[1]) : 0, secs = argc == 3 ? atof(argv[2]) : 0;
	if (rate <= 0 || secs <= 0) {
		fprintf(stderr, "usage: markflood RATE SECONDS\n");
		return 2;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, spinner, NULL) != 0)
		return 1;
	char msg[32] = "flood ";
	uint64_t sent = 0, over = 0, sleeps = 0;
	struct rusage ru0, ru1;
	getrusage(RUSAGE_THREAD, &ru0);
	int64_t maxns = 0, total = 0;
	int64_t start = now_ns(CLOCK_MONOTONIC), end = start + (int64_t)(secs * 1e9), tnow = start;
	while (tnow < end) {
		uint64_t due = (uint64_t)((double)(tnow - start) * rate / 1e9);
		if (sent >= due) {
			struct timespec ts = { 0, 50000 };
			nanosleep(&ts, NULL);
			sleeps++;
			tnow = now_ns(CLOCK_MONOTONIC);
			continue;
		}
		uint64_t batch = due - sent > 1000 ? 1000 : due - sent;
		for (uint64_t k = 0; k < batch; k++) {
			uint64_t v = sent + k;
			for (int d = 12; d >= 6; d--, v /= 10)
				msg[d] = (char)('0' + v % 10);
			int64_t t0 = tnow;
			psrec_mark_str(msg, 13);
			tnow = now_ns(CLOCK_MONOTONIC);
			int64_t dt = tnow - t0;
			total += dt;
			if (dt > maxns)
				maxns = dt;
			if (dt > 1000000)
				over++;
			hist[dt / 10 < NBUCKET ? dt / 10 : NBUCKET]++;
		}
		sent += batch;
	}
	double took = (double)(tnow - start) / 1e9;
	getrusage(RUSAGE_THREAD, &ru1);
	long slept = (ru1.ru_nvcsw - ru0.ru_nvcsw) - (long)sleeps;
	stop = 1;
	pthread_join(t, NULL);
	uint64_t acc = 0, p999 = 0, p50 = 0;
	for (int b = 0; b <= NBUCKET; b++) {
		acc += hist[b];
		if (!p50 && (double)acc >= 0.5 * (double)sent)
			p50 = (uint64_t)(b + 1) * 10;
		if ((double)acc >= 0.999 * (double)sent) {
			p999 = b == NBUCKET ? (uint64_t)maxns : (uint64_t)(b + 1) * 10;
			break;
		}
	}
	printf("sent=%llu seconds=%.3f rate=%.0f mean_ns=%.1f p50_ns=%llu max_ns=%lld p999_ns=%llu over_1ms=%llu slept=%ld spin_cpu_s=%.3f\n",
	       (unsigned long long)sent, took, (double)sent / took,
	       sent ? (double)total / (double)sent : 0.0, (unsigned long long)p50, (long long)maxns, (unsigned long long)p999,
	       (unsigned long long)over, slept < 0 ? 0 : slept, spin_cpu);
	return 0;
}
