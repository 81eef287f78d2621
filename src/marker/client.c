/*
 * client.c - libpsrec-marker: the program's side of the marker channel
 * (include/psrec/marker.h against src/marker/abi.h).
 *
 * The library maps one channel when it loads (a constructor, or lazily
 * from the first call if something calls in before the constructor ran):
 * the one psrec passes in PSREC_MARKER_FD, else a memfd of its own that
 * `psrec -p` finds in /proc/PID/fd. After that nothing allocates, locks
 * or waits: a marker reserves its bytes in the ring by CAS on head, fills
 * them and publishes them with a release store of their size.
 *
 * mk_ctl always points at a control page, so the absent path is exactly
 * two loads and a branch: before setup at mk_boot (consumer nonzero, so
 * the call leaves the fast path and runs the setup), when off at mk_off
 * (consumer 0 forever), else at the mapped channel.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "marker/abi.h"

/* The API, and only it, is exported (the library builds with
 * -fvisibility=hidden). */
#pragma GCC visibility push(default)
#define PSREC_MARKER_NO_INLINE /* the functions themselves, not the gate */
#include "psrec/marker.h"
#pragma GCC visibility pop

#define MK_LIKELY(x)   __builtin_expect(!!(x), 1)
#define MK_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define MK_INLINE      static inline __attribute__((always_inline))

/* Largest ring the library maps from an fd it did not make: a sane bound
 * on what a foreign control page may ask of our address space. */
#define MK_DATA_MAX (1ull << 30)

enum { MK_NONE, MK_BUSY, MK_DONE };

/* consumer = 1: "not set up yet", sends every call to mk_ready(). */
static struct psrec_marker_ctl mk_boot = { .consumer = 1 };
/* consumer = 0 for good: PSREC_MARKER=0, or no channel could be made. */
static struct psrec_marker_ctl mk_off;

static struct psrec_marker_ctl *mk_ctl = &mk_boot;
/* What marker.h's inline gate reads (exported): always &mk_ctl->consumer,
 * stored with mk_ctl. */
const uint32_t *psrec_marker__consumer = &mk_boot.consumer;
static int mk_state = MK_NONE;
/* The ring's place and size as validated at setup: never re-read from the
 * shared page, which the other side could rewrite. */
static uint8_t *mk_data;
static uint64_t mk_size;
static void *mk_map;
static size_t mk_maplen;
static int mk_fd = -1;          /* the channel's fd when the library made it */
static unsigned mk_forkgen = 1; /* +1 in each fork child */

/* pid and tid per thread (getpid and gettid are syscalls, ~200 ns here),
 * valid while gen == mk_forkgen. initial-exec: no __tls_get_addr call.
 * (Caching tail here too would save nothing: consumer, loaded by every
 * call, shares its cache line.) */
struct mk_ids {
	unsigned gen;
	uint32_t pid, tid;
};
static __thread struct mk_ids mk_ids __attribute__((tls_model("initial-exec")));

static void mk_atfork_child(void)
{
	__atomic_add_fetch(&mk_forkgen, 1, __ATOMIC_RELAXED);
}

/* Map an inherited channel (psrec -- CMD). -errno; the caller then makes
 * its own. The checks are the ones that keep a stale or foreign fd from
 * hurting the program: a sealed memfd (so it cannot shrink under us and
 * SIGBUS a marker), a control page we know, sizes that fit the file. */
static int mk_map_fd(int fd)
{
	struct stat st;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode) || st.st_size < (off_t)PSREC_MARKER_CTL_SIZE)
		return -EINVAL;
	int seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0)
		return -errno;
	if (!(seals & F_SEAL_SHRINK))
		return -EPERM;

	struct psrec_marker_ctl *c = mmap(NULL, PSREC_MARKER_CTL_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	uint64_t magic = __atomic_load_n(&c->magic, __ATOMIC_ACQUIRE);
	uint32_t version = c->version, ctl_size = c->ctl_size;
	uint64_t data_size = c->data_size;
	munmap(c, PSREC_MARKER_CTL_SIZE);
	if (magic != PSREC_MARKER_MAGIC || version != PSREC_MARKER_VERSION)
		return -EPROTO;
	long page = sysconf(_SC_PAGESIZE);
	if (ctl_size < sizeof(struct psrec_marker_ctl) || page <= 0 || ctl_size % (uint32_t)page)
		return -EPROTO;
	if (data_size < (64u << 10) || data_size > MK_DATA_MAX || (data_size & (data_size - 1)))
		return -EPROTO;
	if ((uint64_t)st.st_size < ctl_size + data_size)
		return -EPROTO;

	size_t len = ctl_size + data_size;
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -errno;
	mk_map = m;
	mk_maplen = len;
	mk_data = (uint8_t *)m + ctl_size;
	mk_size = data_size;
	return 0;
}

/* Offer a channel of our own for psrec -p: a sealed memfd, kept open so
 * /proc/PID/fd shows it, the control page filled and the magic last. */
static int mk_make(void)
{
	size_t len = PSREC_MARKER_CTL_SIZE + PSREC_MARKER_DATA_SIZE;
	int fd = memfd_create(PSREC_MARKER_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return -errno;
	int err = 0;
	if (ftruncate(fd, (off_t)len) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	void *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	struct psrec_marker_ctl *c = m;
	c->version = PSREC_MARKER_VERSION;
	c->ctl_size = PSREC_MARKER_CTL_SIZE;
	c->data_size = PSREC_MARKER_DATA_SIZE;
	c->creator = (uint32_t)getpid();
	c->consumer = 0;
	__atomic_store_n(&c->magic, PSREC_MARKER_MAGIC, __ATOMIC_RELEASE);
	mk_fd = fd;
	mk_map = m;
	mk_maplen = len;
	mk_data = (uint8_t *)m + PSREC_MARKER_CTL_SIZE;
	mk_size = PSREC_MARKER_DATA_SIZE;
	return 0;
}

/* Parse PSREC_MARKER_FD strictly: a stray value must not pick some
 * unrelated fd of the program. -EINVAL. */
static int mk_env_fd(const char *s)
{
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 0 || v > INT_MAX)
		return -EINVAL;
	return (int)v;
}

/* The setup proper, by whoever won the NONE -> BUSY transition. */
static void mk_setup_run(void)
{
	struct psrec_marker_ctl *ctl = &mk_off;
	const char *off = getenv(PSREC_MARKER_OFF_ENV);
	if (!(off && strcmp(off, "0") == 0)) {
		const char *env = getenv(PSREC_MARKER_ENV);
		int fd = env ? mk_env_fd(env) : -EINVAL;
		if ((fd >= 0 && mk_map_fd(fd) == 0) || mk_make() == 0)
			ctl = mk_map;
	}
	/* mk_data and mk_size before the pointer that leads to them. */
	__atomic_store_n(&mk_ctl, ctl, __ATOMIC_RELEASE);
	__atomic_store_n(&psrec_marker__consumer, &ctl->consumer, __ATOMIC_RELEASE);
	__atomic_store_n(&mk_state, MK_DONE, __ATOMIC_RELEASE);
}

/* Run the setup unless it ran or runs: a caller that finds it in progress
 * (another thread, or a signal handler interrupting it) must not wait. */
static void mk_setup(void)
{
	int expect = MK_NONE;
	if (!__atomic_compare_exchange_n(&mk_state, &expect, MK_BUSY, 0, __ATOMIC_ACQUIRE,
					 __ATOMIC_RELAXED))
		return;
	int saved = errno;
	mk_setup_run();
	errno = saved;
}

__attribute__((constructor)) static void mk_init(void)
{
	int saved = errno;
	/* Once per load, even if a call before us did the setup: a fork
	 * child must refresh its cached pid/tid. */
	pthread_atfork(NULL, NULL, mk_atfork_child);
	mk_setup();
	errno = saved;
}

/* Only for the unit tests (hidden, reached by linking the static library):
 * drop the channel as if the library were loaded afresh, then set up
 * again from the environment now (setup != 0) or at the next call (the
 * lazy path). Not thread-safe: no marker may be in flight. */
void psrec_marker__reset_for_test(int setup);
void psrec_marker__reset_for_test(int setup)
{
	int saved = errno;
	if (mk_map)
		munmap(mk_map, mk_maplen);
	if (mk_fd >= 0)
		close(mk_fd);
	mk_map = NULL;
	mk_maplen = 0;
	mk_data = NULL;
	mk_size = 0;
	mk_fd = -1;
	__atomic_store_n(&mk_ctl, &mk_boot, __ATOMIC_RELEASE);
	__atomic_store_n(&psrec_marker__consumer, &mk_boot.consumer, __ATOMIC_RELEASE);
	__atomic_store_n(&mk_state, MK_NONE, __ATOMIC_RELEASE);
	if (setup)
		mk_setup();
	errno = saved;
}

/* The channel, or NULL for the absent path: the whole cost of a marker
 * nobody reads is these two loads and the caller's branch. Relaxed is
 * enough for consumer: it only gates, the tail load in mk_emit orders
 * what matters. */
MK_INLINE struct psrec_marker_ctl *mk_listener(void)
{
	struct psrec_marker_ctl *c = __atomic_load_n(&mk_ctl, __ATOMIC_ACQUIRE);
	if (MK_LIKELY(__atomic_load_n(&c->consumer, __ATOMIC_RELAXED) == 0))
		return NULL;
	return c;
}

/* Past the fast path (consumer was nonzero): c is the channel, or
 * mk_boot when nothing set up yet. The channel then, or NULL. */
MK_INLINE struct psrec_marker_ctl *mk_ready(struct psrec_marker_ctl *c)
{
	if (MK_LIKELY(c != &mk_boot))
		return c;
	mk_setup();
	c = __atomic_load_n(&mk_ctl, __ATOMIC_ACQUIRE);
	if (c == &mk_boot || !__atomic_load_n(&c->consumer, __ATOMIC_RELAXED))
		return NULL;
	return c;
}

MK_INLINE const struct mk_ids *mk_ids_get(void)
{
	struct mk_ids *ids = &mk_ids;
	unsigned gen = __atomic_load_n(&mk_forkgen, __ATOMIC_RELAXED);
	if (MK_UNLIKELY(ids->gen != gen)) {
		/* A signal handler may interleave here: it stores the same
		 * values, so either order leaves them right. */
		ids->pid = (uint32_t)getpid();
		ids->tid = (uint32_t)gettid();
		ids->gen = gen;
	}
	return ids;
}

/* The payload and its zero padding to 8 (the reader zeroes what it frees,
 * but a record must not carry what a careless one left). Short ones by
 * words: gcc inlines a memcpy of unknown length as rep movsq, whose
 * start-up alone costs more than copying 16 bytes. */
MK_INLINE void mk_copy(uint8_t *dst, const uint8_t *src, size_t len)
{
	size_t words = len / 8, rest = len % 8;
	if (len > 256) {
		memcpy(dst, src, words * 8);
	} else {
		for (size_t i = 0; i < words; i++) {
			uint64_t w;
			memcpy(&w, src + 8 * i, 8);
			memcpy(dst + 8 * i, &w, 8);
		}
	}
	if (rest) {
		uint64_t w = 0;
		memcpy(&w, src + 8 * words, rest);
		memcpy(dst + 8 * words, &w, 8);
	}
}

/* One record into the ring per abi.h, or a drop counted. */
MK_INLINE void mk_emit(struct psrec_marker_ctl *c, uint16_t kind, uint32_t type, const uint8_t *p,
		       size_t len, uint64_t ip)
{
	uint16_t flags = 0;
	if (MK_UNLIKELY(len > PSREC_MARK_MAX)) {
		len = PSREC_MARK_MAX;
		flags |= PSREC_MKF_TRUNCATED;
		__atomic_add_fetch(&c->truncated, 1, __ATOMIC_RELAXED);
	}
	uint64_t need = (PSREC_MARKER_REC_HDR + len + 7) & ~(uint64_t)7;
	uint64_t size = mk_size, mask = size - 1;
	uint64_t h = __atomic_load_n(&c->head, __ATOMIC_RELAXED), pad;
	for (;;) {
		/* acquire: the reader zeroed the bytes before it moved tail
		 * past them, and our writes must come after its zeroing. */
		uint64_t t = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
		uint64_t off = h & mask;
		pad = off + need > size ? size - off : 0;
		if (MK_UNLIKELY(h + pad + need - t > size)) {
			/* Full, unless h was stale (then t may even be past
			 * it): head re-read after tail is at least as new. */
			uint64_t h2 = __atomic_load_n(&c->head, __ATOMIC_RELAXED);
			if (h2 != h) {
				h = h2;
				continue;
			}
			__atomic_add_fetch(&c->dropped, 1, __ATOMIC_RELAXED);
			return;
		}
		if (__atomic_compare_exchange_n(&c->head, &h, h + pad + need, 1, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			break;
	}

	uint8_t *data = mk_data;
	if (pad) {
		union psrec_marker_word pw = { .f = { (uint32_t)pad, PSREC_MK_PAD, 0 } };
		__atomic_store_n((uint64_t *)(data + (h & mask)), pw.w, __ATOMIC_RELEASE);
		h += pad;
	}
	struct psrec_marker_rec *r = (struct psrec_marker_rec *)(data + (h & mask));
	/* The stamp, first: should this thread die before the commit (a
	 * fault in the copy, a kill), the reader sees whose the bytes are
	 * and how many, and skips them once the thread is gone instead of
	 * waiting for it for good. */
	const struct mk_ids *ids = mk_ids_get();
	r->pid = ids->pid;
	r->tid = ids->tid;
	union psrec_marker_word sw = { .f = { 0, PSREC_MK_STAMP, (uint16_t)(need / 8) } };
	__atomic_store_n((uint64_t *)r, sw.w, __ATOMIC_RELEASE);
	/* Only these may touch errno (a failing sched_getcpu sets it); the
	 * drop path above leaves it alone without paying for a save. */
	int saved = errno;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	int cpu = sched_getcpu();
	errno = saved;

	r->type = type;
	r->len = (uint32_t)len;
	r->time = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	r->ip = ip;
	r->cpu = cpu < 0 ? ~0u : (uint32_t)cpu;
	r->res = 0;
	mk_copy((uint8_t *)(r + 1), p, len);
	/* The commit: size, kind and flags in one store. */
	union psrec_marker_word cw = { .f = { (uint32_t)need, kind, flags } };
	__atomic_store_n((uint64_t *)r, cw.w, __ATOMIC_RELEASE);
}

/* Everything past the absent check, out of line: the public functions
 * then keep no registers or stack for it, and tail-call here. ip is the
 * public entry's return address. */
static __attribute__((noinline)) void mk_send(struct psrec_marker_ctl *c, uint16_t kind,
					      uint32_t type, const void *p, size_t len, uint64_t ip)
{
	c = mk_ready(c);
	if (c)
		mk_emit(c, kind, type, p, len, ip);
}

/* A span's name: its strlen only once someone listens. */
static __attribute__((noinline)) void mk_send_name(struct psrec_marker_ctl *c, uint16_t kind,
						   const char *name, uint64_t ip)
{
	mk_send(c, kind, 0, name, name ? strlen(name) : 0, ip);
}

#define MK_IP ((uint64_t)(uintptr_t)__builtin_return_address(0))

/* Out of line so the absent path of psrec_mark does not set up (or probe)
 * a 4 KiB stack frame. */
static __attribute__((noinline)) void mk_vmark(struct psrec_marker_ctl *c, uint64_t ip,
					       const char *fmt, va_list ap)
{
	int saved = errno;
	c = mk_ready(c);
	if (c && fmt) {
		char buf[PSREC_MARK_MAX + 1];
		int n = vsnprintf(buf, sizeof(buf), fmt, ap);
		/* n > PSREC_MARK_MAX: buf holds the first PSREC_MARK_MAX
		 * bytes, and mk_emit cuts there and flags it. n < 0:
		 * nothing sensible to send. */
		if (n >= 0)
			mk_emit(c, PSREC_MK_TEXT, 0, (const uint8_t *)buf, (size_t)n, ip);
	}
	errno = saved;
}

void psrec_mark(const char *fmt, ...)
{
	struct psrec_marker_ctl *c = mk_listener();
	if (MK_LIKELY(!c))
		return;
	va_list ap;
	va_start(ap, fmt);
	mk_vmark(c, MK_IP, fmt, ap);
	va_end(ap);
}

void psrec_mark_str(const char *s, size_t len)
{
	struct psrec_marker_ctl *c = mk_listener();
	if (MK_LIKELY(!c))
		return;
	mk_send(c, PSREC_MK_TEXT, 0, s, s ? len : 0, MK_IP);
}

void psrec_mark_bytes(uint32_t type, const void *data, size_t len)
{
	struct psrec_marker_ctl *c = mk_listener();
	if (MK_LIKELY(!c))
		return;
	mk_send(c, PSREC_MK_BYTES, type, data, data ? len : 0, MK_IP);
}

void psrec_span_begin(const char *name)
{
	struct psrec_marker_ctl *c = mk_listener();
	if (MK_LIKELY(!c))
		return;
	mk_send_name(c, PSREC_MK_SPAN_BEGIN, name, MK_IP);
}

void psrec_span_end(const char *name)
{
	struct psrec_marker_ctl *c = mk_listener();
	if (MK_LIKELY(!c))
		return;
	mk_send_name(c, PSREC_MK_SPAN_END, name, MK_IP);
}

int psrec_marker_listening(void)
{
	struct psrec_marker_ctl *c = mk_listener();
	if (MK_LIKELY(!c))
		return 0;
	int saved = errno;
	c = mk_ready(c);
	errno = saved;
	return c != NULL;
}
