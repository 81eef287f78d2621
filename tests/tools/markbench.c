/*
 * markbench - ns per psrec_mark_str() of a 16-byte string, in the three
 * states a program meets:
 *   absent     no psrec reads the channel (consumer 0);
 *   listening  a reader drains it as psrec does (here: a thread of this
 *              process, claiming the library's own memfd as psrec -p does,
 *              draining pass after pass while there is work, where psrec
 *              waits 20-250 ms between passes);
 *   full       a reader claimed it but never drains: every call drops.
 * Each state: the median of RUNS runs of N calls (default 10M), timed with
 * CLOCK_MONOTONIC. stdout: one line per state ("absent 1.2 ns"); stderr:
 * what was dropped while listening, and the cost of a marker written
 * (batches the reader catches up with between them).
 *
 *   markbench [N]
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "marker/abi.h"
#include "psrec/marker.h"

#define RUNS 5

struct chan {
	uint8_t *map;
	size_t map_len;
	struct psrec_marker_ctl *ctl;
	uint8_t *data;
	uint64_t size;
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The fd of the library's channel: the inherited one, else the memfd it
 * made (as psrec -p finds it). -ENOENT. */
static int chan_find(void)
{
	const char *env = getenv(PSREC_MARKER_ENV);
	if (env)
		return atoi(env);
	char want[64];
	snprintf(want, sizeof(want), "/memfd:%s (deleted)", PSREC_MARKER_MEMFD_NAME);
	DIR *d = opendir("/proc/self/fd");
	if (!d)
		return -errno;
	int fd = -ENOENT;
	struct dirent *e;
	while ((e = readdir(d))) {
		char link[128];
		ssize_t k = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (k < 0)
			continue;
		link[k] = 0;
		if (strcmp(link, want) == 0)
			fd = atoi(e->d_name);
	}
	closedir(d);
	return fd;
}

static int chan_map(struct chan *ch, int fd)
{
	struct psrec_marker_ctl *c = mmap(NULL, PSREC_MARKER_CTL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	if (__atomic_load_n(&c->magic, __ATOMIC_ACQUIRE) != PSREC_MARKER_MAGIC) {
		munmap(c, PSREC_MARKER_CTL_SIZE);
		return -EPROTO;
	}
	uint32_t ctl_size = c->ctl_size;
	ch->size = c->data_size;
	munmap(c, PSREC_MARKER_CTL_SIZE);
	ch->map_len = ctl_size + ch->size;
	ch->map = mmap(NULL, ch->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (ch->map == MAP_FAILED)
		return -errno;
	ch->ctl = (struct psrec_marker_ctl *)ch->map;
	ch->data = ch->map + ctl_size;
	return 0;
}

/* One pass as psrec's drain (record/markers.c) does it: up to head, each
 * record copied out and zeroed, tail released once at the end. */
static size_t chan_drain(struct chan *ch)
{
	static uint8_t copy[PSREC_MARKER_REC_HDR + PSREC_MARK_MAX + 8];
	size_t n = 0;
	uint64_t t = __atomic_load_n(&ch->ctl->tail, __ATOMIC_RELAXED);
	uint64_t h = __atomic_load_n(&ch->ctl->head, __ATOMIC_ACQUIRE);
	while (t != h) {
		struct psrec_marker_rec *r = (struct psrec_marker_rec *)(ch->data + (t & (ch->size - 1)));
		uint32_t sz = __atomic_load_n(&r->size, __ATOMIC_ACQUIRE);
		if (!sz || sz % 8 || sz > sizeof(copy) || sz > ch->size - (t & (ch->size - 1)))
			break;
		memcpy(copy, r, sz);
		memset(r, 0, sz);
		t += sz;
		n++;
	}
	/* Not when nothing moved: the store would take the line that holds
	 * consumer, which every marker call loads, away from the producer. */
	if (n)
		__atomic_store_n(&ch->ctl->tail, t, __ATOMIC_RELEASE);
	return n;
}

/* Claim as an attaching reader does: forget [tail, head), then CAS. */
static int chan_claim(struct chan *ch)
{
	uint64_t t = ch->ctl->tail, h = __atomic_load_n(&ch->ctl->head, __ATOMIC_ACQUIRE);
	for (uint64_t p = t; p < h; p++)
		ch->data[p & (ch->size - 1)] = 0;
	__atomic_store_n(&ch->ctl->tail, h, __ATOMIC_RELEASE);
	uint32_t zero = 0;
	if (!__atomic_compare_exchange_n(&ch->ctl->consumer, &zero, (uint32_t)getpid(), 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return -EBUSY;
	__atomic_add_fetch(&ch->ctl->epoch, 1, __ATOMIC_RELAXED);
	return 0;
}

static int drain_stop;

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

static void *drain_loop(void *p)
{
	struct chan *ch = p;
	/* Pass after pass while there is work; a short sleep when there is
	 * none, as psrec sleeps between its passes (20-250 ms there), so an
	 * idle reader does not keep pulling head's line from the producer. */
	const struct timespec idle = { 0, 100000 };
	while (!__atomic_load_n(&drain_stop, __ATOMIC_ACQUIRE))
		if (!chan_drain(ch))
			nanosleep(&idle, NULL);
	return NULL;
}

static double bench_run(size_t n)
{
	static const char msg[17] = "0123456789abcdef";
	uint64_t t0 = now_ns();
	for (size_t i = 0; i < n; i++)
		psrec_mark_str(msg, 16);
	return (double)(now_ns() - t0) / (double)n;
}

/* n calls in batches the reader drains before the next: none dropped, the
 * waits not counted. The cost of a marker written, where the flood of
 * bench_run measures a mix of written and dropped ones. */
static double bench_paced(const struct chan *ch, size_t n)
{
	static const char msg[17] = "0123456789abcdef";
	uint64_t spent = 0;
	for (size_t done = 0; done < n; done += 1000) {
		while (__atomic_load_n(&ch->ctl->tail, __ATOMIC_ACQUIRE) !=
		       __atomic_load_n(&ch->ctl->head, __ATOMIC_RELAXED))
			cpu_relax();
		uint64_t t0 = now_ns();
		for (int i = 0; i < 1000; i++)
			psrec_mark_str(msg, 16);
		spent += now_ns() - t0;
	}
	return (double)spent / (double)(n / 1000 * 1000);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double bench_median(size_t n)
{
	double v[RUNS];
	bench_run(n / 10);      /* warm: page faults, caches, the TLS ids */
	for (int i = 0; i < RUNS; i++)
		v[i] = bench_run(n);
	qsort(v, RUNS, sizeof(v[0]), cmp_double);
	return v[RUNS / 2];
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	if (n == 0) {
		fprintf(stderr, "usage: markbench [CALLS]\n");
		return 2;
	}
	struct chan ch;
	int fd = chan_find();
	int err = fd < 0 ? fd : chan_map(&ch, fd);
	if (err < 0) {
		fprintf(stderr, "markbench: no marker channel: %s\n", strerror(-err));
		return 1;
	}
	if (psrec_marker_listening()) {
		fprintf(stderr, "markbench: a reader already has the channel\n");
		return 1;
	}

	printf("absent %.1f ns\n", bench_median(n));
	fflush(stdout);

	if ((err = chan_claim(&ch)) < 0) {
		fprintf(stderr, "markbench: claim: %s\n", strerror(-err));
		return 1;
	}
	pthread_t th;
	if ((err = pthread_create(&th, NULL, drain_loop, &ch))) {
		fprintf(stderr, "markbench: drain thread: %s\n", strerror(err));
		return 1;
	}
	uint64_t d0 = ch.ctl->dropped;
	double listening = bench_median(n);
	uint64_t d1 = ch.ctl->dropped;
	double paced = bench_paced(&ch, n);
	__atomic_store_n(&drain_stop, 1, __ATOMIC_RELEASE);
	pthread_join(th, NULL);
	chan_drain(&ch);
	printf("listening %.1f ns\n", listening);
	fflush(stdout);
	fprintf(stderr, "markbench: listening: %llu of %zu markers dropped; paced so that none "
		"drop (%llu did): %.1f ns\n", (unsigned long long)(d1 - d0), n / 10 + RUNS * n,
		(unsigned long long)(ch.ctl->dropped - d1), paced);

	/* Fill the ring; every call after that drops. */
	while (ch.ctl->head - ch.ctl->tail <= ch.size - 64)
		psrec_mark_str("0123456789abcdef", 16);
	printf("full %.1f ns\n", bench_median(n));

	__atomic_store_n(&ch.ctl->consumer, 0, __ATOMIC_RELEASE);
	chan_drain(&ch);
	return 0;
}
