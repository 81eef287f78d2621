/*
 * test_marker_client.c - libpsrec-marker (src/marker/client.c) seen from
 * the reader's side: the test makes channels as psrec does (a sealed
 * memfd, consumer = its own pid, passed in PSREC_MARKER_FD), points the
 * library at them with its hidden reset hook, and drains them by the
 * consumer protocol of marker/abi.h.
 *
 * Linked against the static library, so the hook
 * psrec_marker__reset_for_test (hidden in the shared one) is reachable.
 * The first test runs before any reset: it sees what the constructor did
 * with no environment.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <setjmp.h>
#include <cmocka.h>

#include "marker/abi.h"
#include "psrec/marker.h"

void psrec_marker__reset_for_test(int setup);

#define RING_MIN (64u << 10)

struct chan {
	int fd;
	size_t map_len;
	uint8_t *map;
	struct psrec_marker_ctl *ctl;
	uint8_t *data;
	uint64_t size;
};

/* A record as copied out of the ring. */
struct got {
	struct psrec_marker_rec r;
	uint8_t payload[PSREC_MARK_MAX + 8];
};

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A channel as `psrec -- CMD` makes it: sealed before mapping, the magic
 * stored last. */
static void chan_make(struct chan *ch, uint64_t data_size, uint32_t consumer)
{
	memset(ch, 0, sizeof(*ch));
	ch->fd = memfd_create("test-chan", MFD_ALLOW_SEALING);
	assert_true(ch->fd >= 0);
	ch->map_len = PSREC_MARKER_CTL_SIZE + data_size;
	assert_int_equal(ftruncate(ch->fd, (off_t)ch->map_len), 0);
	assert_int_equal(fcntl(ch->fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
	ch->map = mmap(NULL, ch->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, ch->fd, 0);
	assert_true(ch->map != MAP_FAILED);
	ch->ctl = (struct psrec_marker_ctl *)ch->map;
	ch->data = ch->map + PSREC_MARKER_CTL_SIZE;
	ch->size = data_size;
	ch->ctl->version = PSREC_MARKER_VERSION;
	ch->ctl->ctl_size = PSREC_MARKER_CTL_SIZE;
	ch->ctl->data_size = data_size;
	ch->ctl->creator = (uint32_t)getpid();
	ch->ctl->consumer = consumer;
	__atomic_store_n(&ch->ctl->magic, PSREC_MARKER_MAGIC, __ATOMIC_RELEASE);
}

/* Hand ch to the library as an inherited channel, set up now. */
static void chan_attach(struct chan *ch)
{
	char s[16];
	snprintf(s, sizeof(s), "%d", ch->fd);
	assert_int_equal(setenv(PSREC_MARKER_ENV, s, 1), 0);
	psrec_marker__reset_for_test(1);
	assert_int_equal(unsetenv(PSREC_MARKER_ENV), 0);
}

static void chan_free(struct chan *ch)
{
	munmap(ch->map, ch->map_len);
	close(ch->fd);
}

/* A fresh channel of data_size the library writes to; consumer = us. */
static void chan_open(struct chan *ch, uint64_t data_size)
{
	chan_make(ch, data_size, (uint32_t)getpid());
	chan_attach(ch);
}

/* Turn the library off and forget every channel (run after each test). */
static int lib_off(void **state)
{
	(void)state;
	setenv(PSREC_MARKER_OFF_ENV, "0", 1);
	psrec_marker__reset_for_test(1);
	unsetenv(PSREC_MARKER_OFF_ENV);
	return 0;
}

/* Why a record breaks the protocol, or NULL. */
static const char *rec_check(const struct chan *ch, uint64_t t, uint32_t sz, const struct psrec_marker_rec *r)
{
	uint64_t off = t & (ch->size - 1);
	if (sz % 8)
		return "size not 8-aligned";
	if (sz > ch->size - off)
		return "record past the end";
	if (r->kind == PSREC_MK_PAD)
		return off + sz == ch->size ? NULL : "PAD not up to the end";
	if (sz < PSREC_MARKER_REC_HDR)
		return "size below the header";
	if (r->len > PSREC_MARK_MAX || PSREC_MARKER_REC_HDR + r->len > sz || sz - PSREC_MARKER_REC_HDR - r->len >= 8)
		return "len does not fit size";
	const uint8_t *pad = (const uint8_t *)(r + 1) + r->len;
	for (uint32_t i = 0; i < sz - PSREC_MARKER_REC_HDR - r->len; i++)
		if (pad[i])
			return "padding not zero";
	return NULL;
}

typedef void rec_fn(const struct got *g, void *arg);

/* One consumer pass per abi.h: copy out, zero, release tail. Returns the
 * records (PADs included) seen; *bad gets the first protocol breach. */
static size_t chan_drain(struct chan *ch, rec_fn *fn, void *arg, const char **bad)
{
	static __thread struct got g;
	size_t n = 0;
	uint64_t t = __atomic_load_n(&ch->ctl->tail, __ATOMIC_RELAXED);
	for (;;) {
		struct psrec_marker_rec *r = (struct psrec_marker_rec *)(ch->data + (t & (ch->size - 1)));
		uint32_t sz = __atomic_load_n(&r->size, __ATOMIC_ACQUIRE);
		if (!sz)
			break;
		const char *why = rec_check(ch, t, sz, r);
		if (why) {
			if (bad && !*bad)
				*bad = why;
			break;
		}
		memset(&g, 0, sizeof(g));
		memcpy(&g, r, sz < sizeof(g) ? sz : sizeof(g));
		memset(r, 0, sz);
		t += sz;
		__atomic_store_n(&ch->ctl->tail, t, __ATOMIC_RELEASE);
		n++;
		if (fn)
			fn(&g, arg);
	}
	return n;
}

/* Drain into an array of copies (PADs included), asserting a clean pass. */
static size_t chan_collect(struct chan *ch, struct got *out, size_t max)
{
	size_t n = 0;
	uint64_t t = ch->ctl->tail;
	while (n < max) {
		struct psrec_marker_rec *r = (struct psrec_marker_rec *)(ch->data + (t & (ch->size - 1)));
		uint32_t sz = __atomic_load_n(&r->size, __ATOMIC_ACQUIRE);
		if (!sz)
			break;
		const char *why = rec_check(ch, t, sz, r);
		if (why)
			fail_msg("record at %llu: %s", (unsigned long long)t, why);
		memset(&out[n], 0, sizeof(out[n]));
		memcpy(&out[n], r, sz);
		memset(r, 0, sz);
		t += sz;
		__atomic_store_n(&ch->ctl->tail, t, __ATOMIC_RELEASE);
		n++;
	}
	return n;
}

/* How many fds of ours are memfds named name ("/memfd:NAME (deleted)");
 * the last one in *fd. */
static int count_memfds(const char *name, int *fd)
{
	char want[64];
	snprintf(want, sizeof(want), "/memfd:%s (deleted)", name);
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		char link[128];
		ssize_t k = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (k < 0)
			continue;
		link[k] = 0;
		if (strcmp(link, want) == 0) {
			n++;
			if (fd)
				*fd = atoi(e->d_name);
		}
	}
	closedir(d);
	return n;
}

/* The first test, before any reset: with no PSREC_MARKER_FD the
 * constructor offered a sealed memfd psrec -p can find and claim. */
static void test_marker_constructor_offers_sealed_memfd(void **state)
{
	(void)state;
	if (getenv(PSREC_MARKER_ENV) || getenv(PSREC_MARKER_OFF_ENV))
		skip();
	int fd = -1;
	assert_int_equal(count_memfds(PSREC_MARKER_MEMFD_NAME, &fd), 1);
	int seals = fcntl(fd, F_GET_SEALS);
	assert_int_equal(seals & (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_false(psrec_marker_listening());

	/* Claim it as psrec -p does, and read a marker out of it. */
	struct chan ch = { .fd = -1 };
	ch.map_len = PSREC_MARKER_CTL_SIZE + PSREC_MARKER_DATA_SIZE;
	ch.map = mmap(NULL, ch.map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(ch.map != MAP_FAILED);
	ch.ctl = (struct psrec_marker_ctl *)ch.map;
	assert_true(__atomic_load_n(&ch.ctl->magic, __ATOMIC_ACQUIRE) == PSREC_MARKER_MAGIC);
	assert_int_equal(ch.ctl->version, PSREC_MARKER_VERSION);
	assert_int_equal(ch.ctl->ctl_size, PSREC_MARKER_CTL_SIZE);
	assert_int_equal(ch.ctl->data_size, PSREC_MARKER_DATA_SIZE);
	assert_int_equal(ch.ctl->creator, getpid());
	assert_int_equal(ch.ctl->consumer, 0);
	ch.data = ch.map + ch.ctl->ctl_size;
	ch.size = ch.ctl->data_size;
	uint32_t zero = 0;
	assert_true(__atomic_compare_exchange_n(&ch.ctl->consumer, &zero, (uint32_t)getpid(), 0,
						__ATOMIC_ACQ_REL, __ATOMIC_RELAXED));
	assert_true(psrec_marker_listening());
	psrec_mark_str("attached", 8);
	struct got g[2];
	assert_int_equal(chan_collect(&ch, g, 2), 1);
	assert_int_equal(g[0].r.kind, PSREC_MK_TEXT);
	assert_memory_equal(g[0].payload, "attached", 8);
	__atomic_store_n(&ch.ctl->consumer, 0, __ATOMIC_RELEASE);
	assert_false(psrec_marker_listening());
	munmap(ch.map, ch.map_len);
}

/* Not inlined, so the marker's ip must land inside it. */
static __attribute__((noinline)) void mark_from_here(void)
{
	psrec_mark_str("hello", 5);
	__asm__ volatile("" ::: "memory");
}

static void test_marker_records_carry_their_fields(void **state)
{
	(void)state;
	struct chan ch;
	chan_open(&ch, RING_MIN);
	assert_true(psrec_marker_listening());
	static const uint8_t bytes[3] = { 0, 0xff, 7 };
	uint64_t t0 = now_ns();
	mark_from_here();
	psrec_mark("n=%d %s", 42, "x");
	psrec_mark_bytes(77, bytes, sizeof(bytes));
	psrec_span_begin("phase one");
	psrec_span_end("phase one");
	psrec_mark_str("", 0);
	psrec_mark_str(NULL, 5);
	uint64_t t1 = now_ns();

	static struct got g[16];
	assert_int_equal(chan_collect(&ch, g, 16), 7);
	static const struct {
		uint16_t kind;
		uint32_t type;
		const char *p;
		uint32_t len;
	} want[] = {
		{ PSREC_MK_TEXT, 0, "hello", 5 },
		{ PSREC_MK_TEXT, 0, "n=42 x", 6 },
		{ PSREC_MK_BYTES, 77, "\0\xff\7", 3 },
		{ PSREC_MK_SPAN_BEGIN, 0, "phase one", 9 },
		{ PSREC_MK_SPAN_END, 0, "phase one", 9 },
		{ PSREC_MK_TEXT, 0, "", 0 },
		{ PSREC_MK_TEXT, 0, "", 0 },
	};
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t prev = t0;
	for (size_t i = 0; i < 7; i++) {
		const struct psrec_marker_rec *r = &g[i].r;
		assert_int_equal(r->kind, want[i].kind);
		assert_int_equal(r->type, want[i].type);
		assert_int_equal(r->len, want[i].len);
		assert_int_equal(r->size, (PSREC_MARKER_REC_HDR + want[i].len + 7) & ~7u);
		assert_int_equal(r->flags, 0);
		assert_memory_equal(g[i].payload, want[i].p, want[i].len);
		assert_int_equal(r->pid, getpid());
		assert_int_equal(r->tid, gettid());
		assert_true(r->cpu == ~0u || r->cpu < (uint32_t)ncpu);
		assert_int_equal(r->res, 0);
		assert_true(r->time >= prev && r->time <= t1);
		prev = r->time;
		assert_true(r->ip != 0);
	}
	uintptr_t f = (uintptr_t)mark_from_here;
	assert_true(g[0].r.ip > f && g[0].r.ip < f + 1024);
	/* The others were called from this function, not from the library. */
	uintptr_t self = (uintptr_t)test_marker_records_carry_their_fields;
	assert_true(g[1].r.ip > self && g[1].r.ip < self + 8192);
	assert_int_equal(ch.ctl->dropped, 0);
	assert_int_equal(ch.ctl->truncated, 0);
	assert_int_equal(ch.ctl->head, ch.ctl->tail);
	chan_free(&ch);
}

/* The lazy path: a call that finds no setup done runs it. */
static void test_marker_first_call_sets_up(void **state)
{
	(void)state;
	struct chan ch;
	chan_make(&ch, RING_MIN, (uint32_t)getpid());
	char s[16];
	snprintf(s, sizeof(s), "%d", ch.fd);
	setenv(PSREC_MARKER_ENV, s, 1);
	psrec_marker__reset_for_test(0);
	psrec_mark_str("lazy", 4);
	unsetenv(PSREC_MARKER_ENV);
	struct got g[2];
	assert_int_equal(chan_collect(&ch, g, 2), 1);
	assert_memory_equal(g[0].payload, "lazy", 4);
	chan_free(&ch);
}

struct tid_arg {
	pid_t tid;
};

static void *mark_in_thread(void *p)
{
	struct tid_arg *a = p;
	a->tid = gettid();
	psrec_mark_str("thread", 6);
	return NULL;
}

static void test_marker_tid_is_the_callers(void **state)
{
	(void)state;
	struct chan ch;
	chan_open(&ch, RING_MIN);
	psrec_mark_str("main", 4);
	struct tid_arg a;
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, mark_in_thread, &a), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	struct got g[4];
	assert_int_equal(chan_collect(&ch, g, 4), 2);
	assert_int_equal(g[0].r.tid, gettid());
	assert_int_equal(g[1].r.tid, a.tid);
	assert_int_not_equal(g[1].r.tid, g[0].r.tid);
	assert_int_equal(g[1].r.pid, getpid());
	chan_free(&ch);
}

/* A fork child has its own pid and tid, not the parent's cached ones. */
static void test_marker_fork_child_ids_refreshed(void **state)
{
	(void)state;
	struct chan ch;
	chan_open(&ch, RING_MIN);
	psrec_mark_str("parent", 6);
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		psrec_mark_str("child", 5);
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	psrec_mark_str("parent", 6);
	struct got g[4];
	assert_int_equal(chan_collect(&ch, g, 4), 3);
	assert_int_equal(g[0].r.pid, getpid());
	assert_int_equal(g[1].r.pid, child);
	assert_int_equal(g[1].r.tid, child);
	assert_memory_equal(g[1].payload, "child", 5);
	assert_int_equal(g[2].r.pid, getpid());
	assert_int_equal(g[2].r.tid, gettid());
	chan_free(&ch);
}

static void test_marker_long_payload_truncated_and_flagged(void **state)
{
	(void)state;
	struct chan ch;
	chan_open(&ch, RING_MIN);
	static char big[PSREC_MARK_MAX + 904];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	big[sizeof(big) - 1] = 0;
	psrec_mark_str(big, PSREC_MARK_MAX);            /* exactly the max: whole */
	psrec_mark_str(big, PSREC_MARK_MAX + 1);
	psrec_mark_bytes(3, big, sizeof(big));
	psrec_mark("%s", big);
	psrec_mark("%.*s", PSREC_MARK_MAX, big);          /* formats to the max: whole */
	static struct got g[8];
	assert_int_equal(chan_collect(&ch, g, 8), 5);
	for (int i = 0; i < 5; i++) {
		bool cut = i != 0 && i != 4;
		assert_int_equal(g[i].r.len, PSREC_MARK_MAX);
		assert_int_equal(g[i].r.size, PSREC_MARKER_REC_HDR + PSREC_MARK_MAX);
		assert_int_equal(g[i].r.flags, cut ? PSREC_MKF_TRUNCATED : 0);
		assert_memory_equal(g[i].payload, big, PSREC_MARK_MAX);
	}
	assert_int_equal(ch.ctl->truncated, 3);
	assert_int_equal(ch.ctl->dropped, 0);
	chan_free(&ch);
}

/* Nobody drains: the ring fills, then every marker is dropped and
 * counted, at the cost of the reservation check only. */
static void test_marker_full_ring_drops_and_counts(void **state)
{
	(void)state;
	struct chan ch;
	chan_open(&ch, RING_MIN);
	const unsigned n = 10000;
	for (unsigned i = 0; i < n; i++)
		psrec_mark_str("0123456789abcdef", 16);
	uint64_t fit = RING_MIN / (PSREC_MARKER_REC_HDR + 16);
	assert_int_equal(ch.ctl->head, fit * (PSREC_MARKER_REC_HDR + 16));
	assert_int_equal(ch.ctl->dropped, n - fit);

	uint64_t t0 = now_ns();
	for (unsigned i = 0; i < 1000000; i++)
		psrec_mark_str("0123456789abcdef", 16);
	uint64_t dt = now_ns() - t0;
	/* ~3 ns a call here; 1 s is room for sanitizers and a loaded CI. */
	assert_true(dt < 1000000000u);
	assert_int_equal(ch.ctl->dropped, n - fit + 1000000);

	/* Room again once the reader catches up. */
	static struct got g[1100];
	assert_int_equal(chan_collect(&ch, g, 1100), fit);
	psrec_mark_str("again", 5);
	assert_int_equal(chan_collect(&ch, g, 2), 1);
	assert_memory_equal(g[0].payload, "again", 5);
	chan_free(&ch);
}

static void test_marker_errno_never_changes(void **state)
{
	(void)state;
	struct chan ch;
	static char big[PSREC_MARK_MAX + 10];
	memset(big, 'x', sizeof(big));
#define KEEPS_ERRNO(call)                              \
	do {                                           \
		errno = 1234;                          \
		call;                                  \
		assert_int_equal(errno, 1234);         \
	} while (0)
#define EVERY_CALL()                                                     \
	do {                                                             \
		KEEPS_ERRNO(psrec_mark_str("abc", 3));                   \
		KEEPS_ERRNO(psrec_mark_str(big, sizeof(big)));           \
		KEEPS_ERRNO(psrec_mark("%d %s", 5, "five"));             \
		KEEPS_ERRNO(psrec_mark("%.*s", (int)sizeof(big), big));  \
		KEEPS_ERRNO(psrec_mark_bytes(1, "ab", 2));               \
		KEEPS_ERRNO(psrec_span_begin("s"));                      \
		KEEPS_ERRNO(psrec_span_end("s"));                        \
		KEEPS_ERRNO((void)psrec_marker_listening());             \
	} while (0)
	/* Listening, then full, then absent, then off, then set up lazily. */
	chan_open(&ch, RING_MIN);
	EVERY_CALL();
	for (int i = 0; i < 100; i++)
		psrec_mark_str(big, sizeof(big));
	assert_true(ch.ctl->dropped > 0);
	EVERY_CALL();
	ch.ctl->consumer = 0;
	EVERY_CALL();
	lib_off(NULL);
	EVERY_CALL();
	psrec_marker__reset_for_test(0);
	EVERY_CALL();
	/* A bad inherited fd: the fallback runs inside the first call. */
	setenv(PSREC_MARKER_ENV, "999999", 1);
	psrec_marker__reset_for_test(0);
	KEEPS_ERRNO(psrec_mark_str("abc", 3));
	unsetenv(PSREC_MARKER_ENV);
	chan_free(&ch);
#undef EVERY_CALL
#undef KEEPS_ERRNO
}

static void test_marker_no_consumer_writes_nothing(void **state)
{
	(void)state;
	struct chan ch;
	chan_make(&ch, RING_MIN, 0);
	chan_attach(&ch);
	assert_false(psrec_marker_listening());
	psrec_mark_str("abc", 3);
	psrec_mark("%d", 1);
	psrec_mark_bytes(1, "x", 1);
	psrec_span_begin("s");
	psrec_span_end("s");
	assert_int_equal(ch.ctl->head, 0);
	assert_int_equal(ch.ctl->dropped, 0);
	for (uint64_t i = 0; i < ch.size; i++)
		if (ch.data[i])
			fail_msg("byte %llu written", (unsigned long long)i);
	/* A reader that claims it later gets what follows. */
	__atomic_store_n(&ch.ctl->consumer, (uint32_t)getpid(), __ATOMIC_RELEASE);
	assert_true(psrec_marker_listening());
	psrec_mark_str("now", 3);
	struct got g[2];
	assert_int_equal(chan_collect(&ch, g, 2), 1);
	chan_free(&ch);
}

/* A record that would cross the end leaves a PAD to it and starts at 0. */
static void test_marker_pad_record_at_the_wrap(void **state)
{
	(void)state;
	struct chan ch;
	chan_open(&ch, RING_MIN);
	static char p[1000];
	memset(p, 'p', sizeof(p));
	const uint32_t rec = (PSREC_MARKER_REC_HDR + 1000 + 7) & ~7u; /* 1048 */
	static struct got g[4];
	int pads = 0;
	uint64_t pos = 0;
	for (int i = 0; i < 200; i++) {
		snprintf(p, sizeof(p), "%d", i);
		psrec_mark_str(p, sizeof(p));
		size_t n = chan_collect(&ch, g, 4);
		uint64_t off = pos % RING_MIN;
		if (off + rec > RING_MIN) {
			assert_int_equal(n, 2);
			assert_int_equal(g[0].r.kind, PSREC_MK_PAD);
			assert_int_equal(g[0].r.size, RING_MIN - off);
			pos += RING_MIN - off;
			pads++;
		} else {
			assert_int_equal(n, 1);
		}
		const struct got *m = &g[n - 1];
		assert_int_equal(m->r.kind, PSREC_MK_TEXT);
		assert_int_equal(m->r.size, rec);
		assert_string_equal((const char *)m->payload, p);
		pos += rec;
		assert_int_equal(ch.ctl->head, pos);
	}
	assert_true(pads >= 3);
	assert_int_equal(ch.ctl->dropped, 0);
	chan_free(&ch);
}

/* The concurrent test: producers tag each payload with (thread, seq) and
 * fill it from them; the consumer thread checks and tallies. */
#define NTHREADS 4
#define PER_THREAD 100000

struct flood {
	struct chan ch;
	pid_t tids[NTHREADS];
	uint8_t *seen[NTHREADS];
	uint64_t received, pads, dups, torn;
	const char *bad;
	int producers_left;
	int go;
	/* the signal test */
	uint64_t sent_sig, got_sig, sent_main;
};

struct tag {
	uint32_t thread, seq;
};

/* Payload bytes after the tag: a function of thread and seq. */
static uint8_t fill_byte(uint32_t thread, uint32_t seq, size_t i)
{
	return (uint8_t)(thread * 31 + seq * 7 + i);
}

static size_t tag_len(uint32_t seq)
{
	return sizeof(struct tag) + (seq * 13) % 200;
}

static void flood_rec(const struct got *g, void *arg)
{
	struct flood *f = arg;
	if (g->r.kind == PSREC_MK_PAD) {
		f->pads++;
		return;
	}
	struct tag t;
	if (g->r.kind != PSREC_MK_BYTES || g->r.len < sizeof(t)) {
		f->torn++;
		return;
	}
	memcpy(&t, g->payload, sizeof(t));
	if (t.thread >= NTHREADS || t.seq >= PER_THREAD || g->r.len != tag_len(t.seq) ||
	    g->r.type != t.thread || g->r.tid != (uint32_t)f->tids[t.thread]) {
		f->torn++;
		return;
	}
	for (size_t i = sizeof(t); i < g->r.len; i++)
		if (g->payload[i] != fill_byte(t.thread, t.seq, i)) {
			f->torn++;
			return;
		}
	if (f->seen[t.thread][t.seq]++)
		f->dups++;
	f->received++;
}

struct producer {
	struct flood *f;
	uint32_t thread;
};

/* Producers much faster than the reader (2 CPUs, 4 of them) would make
 * this a test of dropping: all but the last hold back while the ring is
 * 7/8 full, so most records go round the ring; the last one does not,
 * and drops race with commits and the reader. */
static void flood_pace(const struct chan *ch)
{
	while (__atomic_load_n(&ch->ctl->head, __ATOMIC_RELAXED) -
	       __atomic_load_n(&ch->ctl->tail, __ATOMIC_RELAXED) > ch->size / 8 * 7)
		sched_yield();
}

static void *flood_produce(void *p)
{
	struct producer *pr = p;
	__atomic_store_n(&pr->f->tids[pr->thread], gettid(), __ATOMIC_RELEASE);
	while (!__atomic_load_n(&pr->f->go, __ATOMIC_ACQUIRE))
		sched_yield();
	uint8_t buf[sizeof(struct tag) + 200];
	for (uint32_t seq = 0; seq < PER_THREAD; seq++) {
		if (pr->thread != NTHREADS - 1)
			flood_pace(&pr->f->ch);
		struct tag t = { pr->thread, seq };
		size_t len = tag_len(seq);
		memcpy(buf, &t, sizeof(t));
		for (size_t i = sizeof(t); i < len; i++)
			buf[i] = fill_byte(pr->thread, seq, i);
		psrec_mark_bytes(pr->thread, buf, len);
	}
	__atomic_sub_fetch(&pr->f->producers_left, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void *flood_consume(void *p)
{
	struct flood *f = p;
	for (;;) {
		bool last = __atomic_load_n(&f->producers_left, __ATOMIC_ACQUIRE) == 0;
		size_t n = chan_drain(&f->ch, flood_rec, f, &f->bad);
		if (f->bad || (last && n == 0))
			break;
		if (n == 0)
			sched_yield();
	}
	return NULL;
}

static void test_marker_threads_every_record_exactly_once(void **state)
{
	(void)state;
	static struct flood f;
	memset(&f, 0, sizeof(f));
	chan_open(&f.ch, 256u << 10);
	for (int i = 0; i < NTHREADS; i++) {
		f.seen[i] = calloc(PER_THREAD, 1);
		assert_non_null(f.seen[i]);
		f.tids[i] = -1;
	}
	f.producers_left = NTHREADS;
	struct producer pr[NTHREADS];
	pthread_t th[NTHREADS], cons;
	/* tids first: the consumer checks each record's tid against them. */
	for (int i = 0; i < NTHREADS; i++) {
		pr[i] = (struct producer){ &f, (uint32_t)i };
		assert_int_equal(pthread_create(&th[i], NULL, flood_produce, &pr[i]), 0);
	}
	while (1) {
		bool all = true;
		for (int i = 0; i < NTHREADS; i++)
			all &= __atomic_load_n(&f.tids[i], __ATOMIC_ACQUIRE) > 0;
		if (all)
			break;
		sched_yield();
	}
	assert_int_equal(pthread_create(&cons, NULL, flood_consume, &f), 0);
	__atomic_store_n(&f.go, 1, __ATOMIC_RELEASE);
	for (int i = 0; i < NTHREADS; i++)
		assert_int_equal(pthread_join(th[i], NULL), 0);
	assert_int_equal(pthread_join(cons, NULL), 0);
	if (f.bad)
		fail_msg("protocol: %s", f.bad);
	assert_int_equal(f.torn, 0);
	assert_int_equal(f.dups, 0);
	assert_int_equal(f.received + f.ch.ctl->dropped, (uint64_t)NTHREADS * PER_THREAD);
	/* Most went through, round the ring many times. */
	assert_true(f.received > (uint64_t)NTHREADS * PER_THREAD / 2);
	assert_true(f.pads > 10);
	assert_int_equal(f.ch.ctl->head, f.ch.ctl->tail);
	print_message("received %llu, dropped %llu, pads %llu\n", (unsigned long long)f.received,
		      (unsigned long long)f.ch.ctl->dropped, (unsigned long long)f.pads);
	for (int i = 0; i < NTHREADS; i++)
		free(f.seen[i]);
	chan_free(&f.ch);
}

static struct flood *sig_flood;

static void on_alarm(int sig)
{
	(void)sig;
	psrec_mark_str("sig", 3);
	__atomic_add_fetch(&sig_flood->sent_sig, 1, __ATOMIC_RELAXED);
}

static void sig_rec(const struct got *g, void *arg)
{
	struct flood *f = arg;
	if (g->r.kind == PSREC_MK_PAD)
		return;
	if (g->r.kind == PSREC_MK_TEXT && g->r.len == 3 && memcmp(g->payload, "sig", 3) == 0)
		f->got_sig++;
	else if (g->r.kind != PSREC_MK_TEXT || g->r.len != 16 || memcmp(g->payload, "main-thread-mark", 16) != 0)
		f->torn++;
	f->received++;
}

static void *sig_consume(void *p)
{
	struct flood *f = p;
	for (;;) {
		bool last = __atomic_load_n(&f->producers_left, __ATOMIC_ACQUIRE) == 0;
		size_t n = chan_drain(&f->ch, sig_rec, f, &f->bad);
		if (f->bad || (last && n == 0))
			break;
		if (n == 0)
			sched_yield();
	}
	return NULL;
}

/* Markers from a SIGALRM handler that interrupts the main thread's own
 * markers, reservations and commits included. */
static void test_marker_from_signal_handler(void **state)
{
	(void)state;
	static struct flood f;
	memset(&f, 0, sizeof(f));
	sig_flood = &f;
	chan_open(&f.ch, RING_MIN);
	f.producers_left = 1;

	/* The consumer thread keeps SIGALRM blocked: the handler runs in the
	 * flooding thread. */
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGALRM);
	assert_int_equal(pthread_sigmask(SIG_BLOCK, &set, &old), 0);
	pthread_t cons;
	assert_int_equal(pthread_create(&cons, NULL, sig_consume, &f), 0);
	assert_int_equal(pthread_sigmask(SIG_SETMASK, &old, NULL), 0);

	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART }, osa;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, &osa), 0);
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, stop = { { 0, 0 }, { 0, 0 } };
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
	uint64_t end = now_ns() + 300000000u;
	while (now_ns() < end || __atomic_load_n(&f.sent_sig, __ATOMIC_RELAXED) < 50) {
		flood_pace(&f.ch);
		for (int i = 0; i < 100; i++)
			psrec_mark_str("main-thread-mark", 16);
		f.sent_main += 100;
	}
	assert_int_equal(setitimer(ITIMER_REAL, &stop, NULL), 0);
	assert_int_equal(sigaction(SIGALRM, &osa, NULL), 0);
	__atomic_store_n(&f.producers_left, 0, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(cons, NULL), 0);

	if (f.bad)
		fail_msg("protocol: %s", f.bad);
	assert_int_equal(f.torn, 0);
	assert_int_equal(f.received + f.ch.ctl->dropped, f.sent_main + f.sent_sig);
	assert_true(f.got_sig > 0);
	assert_true(f.got_sig <= f.sent_sig);
	print_message("signal markers %llu of %llu, main %llu, dropped %llu\n",
		      (unsigned long long)f.got_sig, (unsigned long long)f.sent_sig,
		      (unsigned long long)f.sent_main, (unsigned long long)f.ch.ctl->dropped);
	chan_free(&f.ch);
}

static void test_marker_env_off_means_off(void **state)
{
	(void)state;
	setenv(PSREC_MARKER_OFF_ENV, "0", 1);
	struct chan ch;
	chan_make(&ch, RING_MIN, (uint32_t)getpid());
	char s[16];
	snprintf(s, sizeof(s), "%d", ch.fd);
	setenv(PSREC_MARKER_ENV, s, 1);     /* even with a channel offered */
	psrec_marker__reset_for_test(1);
	unsetenv(PSREC_MARKER_ENV);
	unsetenv(PSREC_MARKER_OFF_ENV);
	assert_int_equal(count_memfds(PSREC_MARKER_MEMFD_NAME, NULL), 0);
	assert_false(psrec_marker_listening());
	psrec_mark_str("abc", 3);
	psrec_span_begin("s");
	assert_int_equal(ch.ctl->head, 0);
	chan_free(&ch);
}

/* An inherited fd the library cannot trust: it makes its own channel. */
static void test_marker_bad_inherited_fd_falls_back(void **state)
{
	(void)state;
	int pfd[2];
	assert_int_equal(pipe(pfd), 0);
	struct chan unsealed, badmagic, small;
	/* unsealed: could shrink under the program and SIGBUS it. */
	memset(&unsealed, 0, sizeof(unsealed));
	unsealed.fd = memfd_create("test-unsealed", 0);
	assert_true(unsealed.fd >= 0);
	assert_int_equal(ftruncate(unsealed.fd, PSREC_MARKER_CTL_SIZE + RING_MIN), 0);
	chan_make(&badmagic, RING_MIN, (uint32_t)getpid());
	badmagic.ctl->magic = 0x1234;
	chan_make(&small, RING_MIN, (uint32_t)getpid());
	small.ctl->data_size = 4u << 20;    /* more than the file holds */

	char fds[5][16];
	snprintf(fds[0], 16, "%d", pfd[0]);
	snprintf(fds[1], 16, "%d", unsealed.fd);
	snprintf(fds[2], 16, "%d", badmagic.fd);
	snprintf(fds[3], 16, "%d", small.fd);
	snprintf(fds[4], 16, "%dx", small.fd);
	for (int i = 0; i < 5; i++) {
		setenv(PSREC_MARKER_ENV, fds[i], 1);
		psrec_marker__reset_for_test(1);
		unsetenv(PSREC_MARKER_ENV);
		assert_int_equal(count_memfds(PSREC_MARKER_MEMFD_NAME, NULL), 1);
		assert_false(psrec_marker_listening());
		psrec_mark_str("abc", 3);
	}
	assert_int_equal(badmagic.ctl->head, 0);
	assert_int_equal(small.ctl->head, 0);
	lib_off(NULL);
	assert_int_equal(count_memfds(PSREC_MARKER_MEMFD_NAME, NULL), 0);
	close(pfd[0]);
	close(pfd[1]);
	close(unsealed.fd);
	chan_free(&badmagic);
	chan_free(&small);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* First: it checks what the constructor did. */
		cmocka_unit_test_teardown(test_marker_constructor_offers_sealed_memfd, lib_off),
		cmocka_unit_test_teardown(test_marker_records_carry_their_fields, lib_off),
		cmocka_unit_test_teardown(test_marker_first_call_sets_up, lib_off),
		cmocka_unit_test_teardown(test_marker_tid_is_the_callers, lib_off),
		cmocka_unit_test_teardown(test_marker_fork_child_ids_refreshed, lib_off),
		cmocka_unit_test_teardown(test_marker_long_payload_truncated_and_flagged, lib_off),
		cmocka_unit_test_teardown(test_marker_full_ring_drops_and_counts, lib_off),
		cmocka_unit_test_teardown(test_marker_errno_never_changes, lib_off),
		cmocka_unit_test_teardown(test_marker_no_consumer_writes_nothing, lib_off),
		cmocka_unit_test_teardown(test_marker_pad_record_at_the_wrap, lib_off),
		cmocka_unit_test_teardown(test_marker_threads_every_record_exactly_once, lib_off),
		cmocka_unit_test_teardown(test_marker_from_signal_handler, lib_off),
		cmocka_unit_test_teardown(test_marker_env_off_means_off, lib_off),
		cmocka_unit_test_teardown(test_marker_bad_inherited_fd_falls_back, lib_off),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
