/*
 * test_markers_rec.c - the recorder's end of the marker channels
 * (src/record/markers.c): the channel it makes for a command, the ones it
 * finds and claims in /proc/PID/fd, its drain into psrec:marker samples
 * (read back with marker_tp_decode), their order, the drop counts, and a
 * ring it must not trust.
 *
 * The test is the program: it maps each memfd itself and writes records
 * into the ring by hand, as marker/abi.h tells a producer to (the
 * library, src/marker/client.c, has test_marker_client.c). The channels
 * the library would make are made here in this process, so that
 * markers_scan finds them in /proc/self/fd.
 *
 * PSREC_PHASES / PSREC_MARKBENCH_SHARED: workloads that link
 * libpsrec-marker statically and shared, for markers_program_uses.
 */
#include "test_helpers.h"

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>

#include "marker/abi.h"
#include "marker/tp.h"
#include "psrec/marker.h"
#include "record/markers.h"

#define RING (64u << 10)
#define HDR PSREC_MARKER_REC_HDR
#define ST_NOCPU MARKER_TP_SAMPLE_TYPE
#define ST_CPU (MARKER_TP_SAMPLE_TYPE | PD_SAMPLE_CPU)
#define ALL_SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)
#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)

static uint64_t align8(uint64_t n)
{
	return (n + 7) & ~(uint64_t)7;
}

static int64_t now_ns(clockid_t id)
{
	struct timespec ts;
	assert_int_equal(clock_gettime(id, &ts), 0);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static size_t count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	assert_non_null(d);
	size_t n = 0;
	struct dirent *de;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A child that waits to be killed, and dies with the test should an
 * assertion end the test first. */
static void pause_forever(pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	for (;;)
		pause();
}

/* Teardown: close every marker memfd a failed test left open, so that
 * the next test's markers_scan does not find it. */
static int close_marker_fds(void **state)
{
	(void)state;
	char want[64], path[64], lnk[64];
	snprintf(want, sizeof(want), "/memfd:%s (deleted)", PSREC_MARKER_MEMFD_NAME);
	for (int fd = 3; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		ssize_t l = readlink(path, lnk, sizeof(lnk) - 1);
		if (l < 0)
			continue;
		lnk[l] = '\0';
		if (strcmp(lnk, want) == 0)
			close(fd);
	}
	return 0;
}

/* ---- the program's side ------------------------------------------------- */

/* Its own mapping of a channel's memfd. */
struct prod {
	int fd;
	bool own_fd;    /* else the struct markers owns it */
	uint8_t *map;
	size_t map_len;
	struct psrec_marker_ctl *ctl;
	uint8_t *data;
	uint64_t size;
};

static void prod_map(struct prod *p, int fd, bool own_fd)
{
	struct stat sb;
	memset(p, 0, sizeof(*p));
	assert_int_equal(fstat(fd, &sb), 0);
	assert_true((uint64_t)sb.st_size > PSREC_MARKER_CTL_SIZE);
	p->fd = fd;
	p->own_fd = own_fd;
	p->map_len = (size_t)sb.st_size;
	p->map = mmap(NULL, p->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(p->map != MAP_FAILED);
	p->ctl = (struct psrec_marker_ctl *)p->map;
	p->data = p->map + PSREC_MARKER_CTL_SIZE;
	p->size = p->map_len - PSREC_MARKER_CTL_SIZE;
}

static void prod_unmap(struct prod *p)
{
	munmap(p->map, p->map_len);
	if (p->own_fd)
		close(p->fd);
}

/* A channel as the library makes one when it loads (client.c): named
 * PSREC_MARKER_MEMFD_NAME, these seals, the magic stored last; its fd
 * stays open here for markers_scan to find. */
static void lib_chan_sized(struct prod *p, int seals, uint32_t consumer, uint64_t ring)
{
	int fd = memfd_create(PSREC_MARKER_MEMFD_NAME, MFD_CLOEXEC | MFD_ALLOW_SEALING);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)(PSREC_MARKER_CTL_SIZE + ring)), 0);
	if (seals)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, seals), 0);
	prod_map(p, fd, true);
	p->ctl->version = PSREC_MARKER_VERSION;
	p->ctl->ctl_size = PSREC_MARKER_CTL_SIZE;
	p->ctl->data_size = ring;
	p->ctl->creator = (uint32_t)getpid();
	p->ctl->consumer = consumer;
	STORE_REL(&p->ctl->magic, PSREC_MARKER_MAGIC);
}

static void lib_chan(struct prod *p, int seals, uint32_t consumer)
{
	lib_chan_sized(p, seals, consumer, RING);
}

/* A record header with recognisable fields. */
static struct psrec_marker_rec mk(uint16_t kind, uint64_t time, uint32_t len)
{
	struct psrec_marker_rec r;
	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.len = len;
	r.time = time;
	r.pid = 4242;
	r.tid = 4243;
	r.ip = 0x401234;
	r.cpu = 3;
	return r;
}

/* Reserve and write one record as abi.h's producer does: a PAD first
 * when it would cross the end, each published by a release store of its
 * size (the record's only if commit). Its ring position (free-running),
 * or UINT64_MAX when the ring is full (counted dropped). */
static uint64_t prod_put(struct prod *p, const struct psrec_marker_rec *hdr, const void *payload, bool commit)
{
	uint64_t need = align8(HDR + hdr->len);
	uint64_t h = p->ctl->head, t = LOAD_ACQ(&p->ctl->tail);
	uint64_t off = h & (p->size - 1);
	uint64_t pad = off + need > p->size ? p->size - off : 0;
	if (h + pad + need - t > p->size) {
		__atomic_add_fetch(&p->ctl->dropped, 1, __ATOMIC_RELAXED);
		return UINT64_MAX;
	}
	STORE_REL(&p->ctl->head, h + pad + need);
	if (pad) {
		uint8_t *q = p->data + off;
		th_put_u16(q, 4, PSREC_MK_PAD);
		STORE_REL((uint32_t *)q, (uint32_t)pad);
	}
	uint8_t *r = p->data + ((h + pad) & (p->size - 1));
	memcpy(r + 4, (const uint8_t *)hdr + 4, HDR - 4);
	if (hdr->len)
		memcpy(r + HDR, payload, hdr->len);
	memset(r + HDR + hdr->len, 0, need - HDR - hdr->len);
	if (commit)
		STORE_REL((uint32_t *)r, (uint32_t)need);
	return h + pad;
}

/* Publish the record written uncommitted at ring position at. */
static void prod_commit(struct prod *p, uint64_t at)
{
	uint8_t *r = p->data + (at & (p->size - 1));
	STORE_REL((uint32_t *)r, (uint32_t)align8(HDR + th_u32(r, 12)));
}

static uint64_t put_text(struct prod *p, uint64_t time, const char *s)
{
	struct psrec_marker_rec r = mk(PSREC_MK_TEXT, time, (uint32_t)strlen(s));
	uint64_t at = prod_put(p, &r, s, true);
	assert_true(at != UINT64_MAX);
	return at;
}

/* Make the ring empty at free-running position pos (as if that much had
 * been written and read). */
static void prod_seek(struct prod *p, uint64_t pos)
{
	p->ctl->head = pos;
	p->ctl->tail = pos;
}

/* ---- the recorder's output ---------------------------------------------- */

struct got {
	uint16_t misc, size;
	uint64_t id, ip, time, period;
	uint32_t pid, tid, cpu, cpu_res;
	struct marker_view v;   /* points into m->out */
};

/* The samples of m->out, each checked against sample_type's layout. */
static size_t parse_out(const struct markers *m, uint64_t sample_type, struct got *g, size_t max)
{
	const uint8_t *b = m->out.data;
	size_t len = m->out.len, n = 0;
	for (size_t at = 0; at < len; n++) {
		assert_true(n < max);
		assert_true(len - at >= sizeof(struct pd_event_header));
		struct pd_event_header h;
		memcpy(&h, b + at, sizeof(h));
		assert_int_equal(h.type, PD_RECORD_SAMPLE);
		assert_int_equal(h.size % 8, 0);
		assert_true(h.size >= 8 && h.size <= len - at);
		const uint8_t *r = b + at;
		struct got *x = &g[n];
		memset(x, 0, sizeof(*x));
		x->misc = h.misc;
		x->size = h.size;
		size_t o = 8;
		if (sample_type & PD_SAMPLE_IDENTIFIER) { /* first: perf finds the event by it */
			x->id = th_u64(r, o);
			o += 8;
		}
		if (sample_type & PD_SAMPLE_IP) {
			x->ip = th_u64(r, o);
			o += 8;
		}
		if (sample_type & PD_SAMPLE_TID) {
			x->pid = th_u32(r, o);
			x->tid = th_u32(r, o + 4);
			o += 8;
		}
		if (sample_type & PD_SAMPLE_TIME) {
			x->time = th_u64(r, o);
			o += 8;
		}
		if (sample_type & PD_SAMPLE_CPU) {
			x->cpu = th_u32(r, o);
			x->cpu_res = th_u32(r, o + 4);
			o += 8;
		}
		if (sample_type & PD_SAMPLE_PERIOD) {
			x->period = th_u64(r, o);
			o += 8;
		}
		assert_true(sample_type & PD_SAMPLE_RAW);
		assert_true(o + 4 <= h.size);
		uint32_t raw = th_u32(r, o);
		o += 4;
		/* RAW runs to the end of the record (padded to keep it 8-aligned). */
		assert_int_equal(o + raw, h.size);
		assert_int_equal(marker_tp_decode(r + o, raw, &x->v), 0);
		if (x->v.msg_len)
			assert_true(x->v.msg + x->v.msg_len < (const char *)r + h.size);
		assert_int_equal(x->v.msg[x->v.msg_len], '\0');
		at += h.size;
	}
	return n;
}

static void assert_msg(const struct got *g, const char *msg, size_t len)
{
	if (g->v.msg_len != len || memcmp(g->v.msg, msg, len) != 0)
		fail_msg("msg \"%.*s\" (%zu), want \"%.*s\" (%zu)", (int)g->v.msg_len, g->v.msg, g->v.msg_len,
			 (int)len, msg, len);
}

static void assert_str(const struct got *g, const char *msg)
{
	assert_msg(g, msg, strlen(msg));
}

static void assert_data(const struct got *g, const void *data, size_t len)
{
	assert_int_equal(g->v.data_len, len);
	if (len)
		assert_memory_equal(g->v.data, data, len);
}

/* A pass as the loop makes it, the whole output reaching the file. */
static void drain(struct markers *m)
{
	markers_drain(m, 0, 0);
	markers_written(m, m->out.len);
}

/* A fresh recorder with one channel made as for a command, and the
 * program's mapping of it. */
static void setup_made(struct markers *m, struct prod *p, uint64_t sample_type)
{
	markers_init(m, sample_type, CLOCK_MONOTONIC);
	int fd = -1;
	assert_int_equal(markers_create(m, RING, &fd), 0);
	prod_map(p, fd, false);
}

/* ---- markers_create ----------------------------------------------------- */

static void test_create_sealed_and_claimed(void **state)
{
	(void)state;
	size_t fds0 = count_fds();
	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	assert_false(markers_found(&m));
	int fd = -1;
	assert_int_equal(markers_create(&m, RING, &fd), 0);
	assert_true(fd >= 0);
	assert_int_equal(fcntl(fd, F_GET_SEALS) & ALL_SEALS, ALL_SEALS);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	struct stat sb;
	assert_int_equal(fstat(fd, &sb), 0);
	assert_int_equal(sb.st_size, PSREC_MARKER_CTL_SIZE + RING);
	/* sealed: neither side can resize it under the other */
	assert_int_equal(ftruncate(fd, PSREC_MARKER_CTL_SIZE), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(fd, 2 * (PSREC_MARKER_CTL_SIZE + RING)), -1);
	assert_int_equal(errno, EPERM);
	char lnk[64], want[64], path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ssize_t l = readlink(path, lnk, sizeof(lnk) - 1);
	assert_true(l > 0);
	lnk[l] = '\0';
	snprintf(want, sizeof(want), "/memfd:%s (deleted)", PSREC_MARKER_MEMFD_NAME);
	assert_string_equal(lnk, want);

	assert_true(markers_found(&m));
	assert_int_equal(m.n, 1);
	assert_int_equal(m.st.channels, 1);
	assert_int_equal(m.ch[0].fd, fd);
	assert_int_equal(m.ch[0].pid, 0);
	assert_int_equal(m.ch[0].size, RING);
	assert_int_equal(m.ch[0].ino, (uint64_t)sb.st_ino);

	struct prod p;
	prod_map(&p, fd, false);
	const struct psrec_marker_ctl *c = p.ctl;
	assert_true(LOAD_ACQ(&c->magic) == PSREC_MARKER_MAGIC);
	assert_int_equal(c->version, PSREC_MARKER_VERSION);
	assert_int_equal(c->ctl_size, PSREC_MARKER_CTL_SIZE);
	assert_int_equal(c->data_size, RING);
	assert_int_equal(c->creator, (uint32_t)getpid());
	assert_int_equal(LOAD_ACQ(&c->consumer), (uint32_t)getpid());
	assert_int_equal(c->epoch, 1);
	assert_int_equal(c->head, 0);
	assert_int_equal(c->tail, 0);
	assert_int_equal(c->dropped, 0);
	assert_int_equal(c->truncated, 0);
	assert_true(th_all_zero(p.data, RING));

	drain(&m);
	assert_int_equal(m.out.len, 0);
	assert_int_equal(m.warning[0], '\0');
	markers_free(&m);
	/* freed: stopped (the program stops writing), the fd closed */
	assert_int_equal(LOAD_ACQ(&c->consumer), 0);
	prod_unmap(&p);
	assert_int_equal(count_fds(), fds0);
}

static void test_create_refuses_bad_sizes(void **state)
{
	(void)state;
	size_t fds0 = count_fds();
	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	static const uint64_t bad[] = { 100000, RING / 2, RING + 8 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int fd = -1;
		assert_int_equal(markers_create(&m, bad[i], &fd), -EPROTO);
		assert_int_equal(fd, -1);
		assert_false(markers_found(&m));
		assert_int_equal(count_fds(), fds0);
	}
	int fd = -1;
	assert_int_equal(markers_create(&m, 2 * RING, &fd), 0);
	assert_int_equal(m.ch[0].size, 2 * RING);
	markers_free(&m);
	assert_int_equal(count_fds(), fds0);
}

/* ---- drain: what the samples say ---------------------------------------- */

struct mcase {
	uint16_t kind, flags;
	uint32_t type;
	const char *payload;
	uint32_t len;
	const char *msg;
	bool exact; /* data empty: msg is the payload */
};

#define P(s) s, sizeof(s) - 1

static const struct mcase cases[] = {
	{ PSREC_MK_TEXT, 0, 0, P("hello"), "hello", true },
	{ PSREC_MK_TEXT, 0, 0, P(""), "", true },
	{ PSREC_MK_TEXT, 0, 0, P("a\tb\n"), "a\\x09b\\x0a", false },
	{ PSREC_MK_TEXT, 0, 0, P("a\0b"), "a\\x00b", false },
	{ PSREC_MK_TEXT, 0, 0, P("del\x7f"), "del\\x7f", false },
	{ PSREC_MK_TEXT, 0, 0, P("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"), "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
	  true },
	{ PSREC_MK_TEXT, 0, 0, P("bad\xff\xc3("), "bad\\xff\\xc3(", false },
	{ PSREC_MK_TEXT, 0, 0, P("\xc0\xaf\xed\xa0\x80"), "\\xc0\\xaf\\xed\\xa0\\x80", false }, /* overlong, surrogate */
	{ PSREC_MK_TEXT, 0, 0, P("cut\xe2\x82"), "cut\\xe2\\x82", false },                    /* cut sequence */
	{ PSREC_MK_TEXT, 0, 0, P("a\\b"), "a\\\\b", false },
	{ PSREC_MK_TEXT, PSREC_MKF_TRUNCATED, 0, P("cut"), "cut [truncated]", false },
	{ PSREC_MK_SPAN_BEGIN, 0, 0, P("load"), "begin: load", false },
	{ PSREC_MK_SPAN_END, 0, 0, P("load"), "end: load", false },
	{ PSREC_MK_SPAN_BEGIN, 0, 0, P("t\x01"), "begin: t\\x01", false },
	{ PSREC_MK_BYTES, 0, 7, P("\x00\x01\xab\xff"), "[type 7] 0001abff", false },
	{ PSREC_MK_BYTES, 0, 0, P("hi"), "[type 0] 6869", false },
	{ PSREC_MK_BYTES, PSREC_MKF_TRUNCATED, 3, P("\x10"), "[type 3] 10 [truncated]", false },
};

static void check_cases(uint64_t sample_type)
{
	struct markers m;
	struct prod p;
	setup_made(&m, &p, sample_type);
	size_t n = sizeof(cases) / sizeof(cases[0]);
	for (size_t i = 0; i < n; i++) {
		struct psrec_marker_rec r = mk(cases[i].kind, 1000 + i, cases[i].len);
		r.flags = cases[i].flags;
		r.type = cases[i].type;
		r.pid = 100 + (uint32_t)i;
		r.tid = 200 + (uint32_t)i;
		r.ip = 0x400000 + 16 * i;
		r.cpu = i == 0 ? ~0u : (uint32_t)i;
		assert_true(prod_put(&p, &r, cases[i].payload, true) != UINT64_MAX);
	}
	drain(&m);
	struct got g[32];
	assert_int_equal(parse_out(&m, sample_type, g, 32), n);
	assert_int_equal(m.st.written, n);
	for (size_t i = 0; i < n; i++) {
		const struct mcase *c = &cases[i];
		assert_int_equal(g[i].misc, 2); /* PERF_RECORD_MISC_USER */
		assert_true(g[i].id == MARKER_TP_ID);
		assert_int_equal(g[i].ip, 0x400000 + 16 * i);
		assert_int_equal(g[i].pid, 100 + i);
		assert_int_equal(g[i].tid, 200 + i);
		assert_int_equal(g[i].time, 1000 + i);
		assert_int_equal(g[i].period, 1);
		if (sample_type & PD_SAMPLE_CPU) {
			assert_int_equal(g[i].cpu, i == 0 ? 0 : i); /* ~0 (unknown) as 0 */
			assert_int_equal(g[i].cpu_res, 0);
		}
		assert_int_equal(g[i].v.kind, c->kind);
		assert_int_equal(g[i].v.type, c->type);
		assert_int_equal(g[i].v.flags, c->flags);
		assert_int_equal(g[i].v.pid, 100 + i);
		assert_str(&g[i], c->msg);
		if (c->exact)
			assert_data(&g[i], NULL, 0);
		else
			assert_data(&g[i], c->payload, c->len);
		size_t pl;
		const uint8_t *pp = marker_payload(&g[i].v, &pl);
		assert_int_equal(pl, c->len);
		if (pl)
			assert_memory_equal(pp, c->payload, pl);
	}
	/* everything consumed, and zeroed for the producers' next lap */
	assert_int_equal(p.ctl->tail, p.ctl->head);
	assert_true(th_all_zero(p.data, RING));
	assert_int_equal(m.warning[0], '\0');
	assert_int_equal(m.st.broken, 0);
	/* nothing new: nothing out */
	drain(&m);
	assert_int_equal(m.out.len, 0);
	markers_free(&m);
	prod_unmap(&p);
}

static void test_drain_kinds_and_escapes(void **state)
{
	(void)state;
	check_cases(ST_CPU);
	check_cases(ST_NOCPU);
}

/* The sample record itself: its size, the fields sample_type has. */
static void test_drain_sample_layout(void **state)
{
	(void)state;
	for (int with_cpu = 0; with_cpu < 2; with_cpu++) {
		uint64_t st = with_cpu ? ST_CPU : ST_NOCPU;
		struct markers m;
		struct prod p;
		setup_made(&m, &p, st);
		/* payload lengths 0..17: every padding of msg and data */
		for (uint32_t len = 0; len < 18; len++) {
			char s[32];
			memset(s, 'a' + (int)len % 26, len);
			s[len] = '\0';
			put_text(&p, 10 + len, s);
		}
		drain(&m);
		struct got g[32];
		assert_int_equal(parse_out(&m, st, g, 32), 18);
		size_t fixed = 8 + 8 * 5 + (with_cpu ? 8 : 0); /* header, id ip tid time period [cpu] */
		for (uint32_t len = 0; len < 18; len++) {
			/* header, fields, RAW's u32 size, 28 fixed bytes, msg + NUL, padded to 8 */
			assert_int_equal(g[len].size, align8(fixed + 4 + 28 + len + 1));
			assert_int_equal(g[len].v.msg_len, len);
			assert_int_equal(g[len].v.data_len, 0);
		}
		/* IDENTIFIER is the first u64 after the header */
		assert_true(th_u64(m.out.data, 8) == MARKER_TP_ID);
		assert_true(th_u64(m.out.data, 16) == 0x401234);
		markers_free(&m);
		prod_unmap(&p);
	}
}

/* BYTES: at most 64 shown in hex, then the length. */
static void test_drain_long_bytes(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	uint8_t b[100];
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)i;
	struct psrec_marker_rec r = mk(PSREC_MK_BYTES, 5, sizeof(b));
	r.type = 9;
	assert_true(prod_put(&p, &r, b, true) != UINT64_MAX);
	drain(&m);
	struct got g[2];
	assert_int_equal(parse_out(&m, ST_CPU, g, 2), 1);
	char want[256];
	int n = snprintf(want, sizeof(want), "[type 9] ");
	for (int i = 0; i < 64; i++)
		n += snprintf(want + n, sizeof(want) - (size_t)n, "%02x", i);
	snprintf(want + n, sizeof(want) - (size_t)n, "... (100 bytes)");
	assert_str(&g[0], want);
	assert_data(&g[0], b, sizeof(b));
	assert_int_equal(g[0].v.type, 9);
	markers_free(&m);
	prod_unmap(&p);
}

/* A kind this psrec does not know is passed on by size, not an error. */
static void test_drain_unknown_kind(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	struct psrec_marker_rec r = mk(77, 1, 3);
	assert_true(prod_put(&p, &r, "new", true) != UINT64_MAX);
	put_text(&p, 2, "next");
	drain(&m);
	struct got g[4];
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 2);
	assert_int_equal(g[0].v.kind, 77);
	assert_str(&g[0], "[kind 77] new");
	assert_data(&g[0], "new", 3);
	assert_str(&g[1], "next");
	assert_false(m.ch[0].broken);
	assert_int_equal(p.ctl->tail, p.ctl->head);
	markers_free(&m);
	prod_unmap(&p);
}

/* A producer that lies about len (above PSREC_MARK_MAX, within its
 * record): cut to PSREC_MARK_MAX and flagged. */
static void test_drain_clamps_long_payload(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	static uint8_t big[PSREC_MARK_MAX + 1000];
	memset(big, 'x', sizeof(big));
	struct psrec_marker_rec r = mk(PSREC_MK_TEXT, 1, sizeof(big));
	assert_true(prod_put(&p, &r, big, true) != UINT64_MAX);
	/* the worst escaping: every byte becomes \xNN */
	memset(big, 1, sizeof(big));
	r.time = 2;
	assert_true(prod_put(&p, &r, big, true) != UINT64_MAX);
	/* exactly PSREC_MARK_MAX is not cut */
	memset(big, 'y', sizeof(big));
	r.time = 3;
	r.len = PSREC_MARK_MAX;
	assert_true(prod_put(&p, &r, big, true) != UINT64_MAX);
	drain(&m);
	struct got g[4];
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 3);

	static char want[4 * PSREC_MARK_MAX + 32];
	memset(want, 'x', PSREC_MARK_MAX);
	memcpy(want + PSREC_MARK_MAX, " [truncated]", 12);
	assert_msg(&g[0], want, PSREC_MARK_MAX + 12);
	assert_int_equal(g[0].v.flags, PSREC_MKF_TRUNCATED);
	memset(big, 'x', sizeof(big));
	assert_data(&g[0], big, PSREC_MARK_MAX);

	for (size_t i = 0; i < PSREC_MARK_MAX; i++)
		memcpy(want + 4 * i, "\\x01", 4);
	memcpy(want + 4 * PSREC_MARK_MAX, " [truncated]", 12);
	assert_msg(&g[1], want, 4 * PSREC_MARK_MAX + 12);
	assert_int_equal(g[1].v.flags, PSREC_MKF_TRUNCATED);
	assert_int_equal(g[1].v.data_len, PSREC_MARK_MAX);

	assert_int_equal(g[2].v.flags, 0);
	assert_int_equal(g[2].v.msg_len, PSREC_MARK_MAX);
	assert_int_equal(g[2].v.data_len, 0);
	assert_false(m.ch[0].broken);
	assert_int_equal(p.ctl->tail, p.ctl->head);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- drain: the ring protocol ------------------------------------------- */

static void test_drain_stops_at_uncommitted(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	uint64_t a = put_text(&p, 1, "first");
	struct psrec_marker_rec r = mk(PSREC_MK_TEXT, 2, 6);
	uint64_t b = prod_put(&p, &r, "second", false);
	assert_true(b != UINT64_MAX);
	uint64_t c = put_text(&p, 3, "third");
	drain(&m);
	struct got g[4];
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 1);
	assert_str(&g[0], "first");
	/* tail stops at the uncommitted one; what was read is zeroed */
	assert_int_equal(p.ctl->tail, b);
	assert_true(th_all_zero(p.data + a, b - a));
	assert_int_equal(th_u32(p.data, b + 12), 6); /* its body untouched */
	assert_int_equal(th_u32(p.data, c), align8(HDR + 5));
	/* still not committed: nothing */
	drain(&m);
	assert_int_equal(m.out.len, 0);
	assert_int_equal(p.ctl->tail, b);

	prod_commit(&p, b);
	drain(&m);
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 2);
	assert_str(&g[0], "second");
	assert_int_equal(g[0].time, 2);
	assert_str(&g[1], "third");
	assert_int_equal(p.ctl->tail, p.ctl->head);
	assert_true(th_all_zero(p.data, RING));
	assert_int_equal(m.st.written, 3);
	markers_free(&m);
	prod_unmap(&p);
}

static void test_drain_skips_pad_at_wrap(void **state)
{
	(void)state;
	/* room left at the end: 8 (a PAD shorter than a header), 24, 200 */
	static const uint64_t left[] = { 8, 24, 200 };
	for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
		struct markers m;
		struct prod p;
		setup_made(&m, &p, ST_CPU);
		uint64_t start = 5 * (uint64_t)RING - left[i]; /* a few laps in */
		prod_seek(&p, start);
		char s[256];
		memset(s, 'w', sizeof(s));
		s[left[i] - 7] = '\0'; /* too long for what is left */
		uint64_t at = put_text(&p, 1, s);
		assert_int_equal(at, start + left[i]);
		assert_int_equal(th_u32(p.data, RING - left[i]), left[i]);
		assert_int_equal(th_u16(p.data, RING - left[i] + 4), PSREC_MK_PAD);
		put_text(&p, 2, "after");
		drain(&m);
		struct got g[4];
		assert_int_equal(parse_out(&m, ST_CPU, g, 4), 2);
		assert_str(&g[0], s);
		assert_str(&g[1], "after");
		assert_int_equal(p.ctl->tail, p.ctl->head);
		assert_int_equal(p.ctl->tail, start + left[i] + align8(HDR + strlen(s)) + align8(HDR + 5));
		assert_true(th_all_zero(p.data, RING));
		assert_false(m.ch[0].broken);
		assert_int_equal(m.st.written, 2);
		markers_free(&m);
		prod_unmap(&p);
	}
}

/* Laps of the ring, drained as they fill: every record once, in order. */
static void test_drain_laps(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_NOCPU);
	uint64_t next = 0, seen = 0, seed = 7;
	struct got *g = malloc(4096 * sizeof(*g));
	assert_non_null(g);
	bool busy = false;
	uint64_t full = 0;
	while (p.ctl->head < 4 * (uint64_t)RING) {
		/* up to a full ring between drains */
		for (int k = (int)(th_rand(&seed) % 1500); k > 0; k--) {
			char s[64];
			int len = snprintf(s, sizeof(s), "m%llu-", (unsigned long long)next);
			size_t extra = th_rand(&seed) % 40;
			memset(s + len, 'z', extra);
			s[len + (int)extra] = '\0';
			struct psrec_marker_rec r = mk(PSREC_MK_TEXT, next, (uint32_t)strlen(s));
			if (prod_put(&p, &r, s, true) == UINT64_MAX) {
				full++;
				break;
			}
			next++;
		}
		drain(&m);
		busy |= m.busy;
		size_t n = parse_out(&m, ST_NOCPU, g, 4096);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(g[i].time, seen);
			char s[32];
			int len = snprintf(s, sizeof(s), "m%llu-", (unsigned long long)seen);
			assert_true(g[i].v.msg_len >= (size_t)len);
			assert_memory_equal(g[i].v.msg, s, (size_t)len);
			seen++;
		}
		assert_int_equal(seen, next);
		assert_int_equal(p.ctl->tail, p.ctl->head);
	}
	assert_true(th_all_zero(p.data, RING));
	assert_true(busy);
	assert_int_equal(p.ctl->dropped, full);
	assert_int_equal(m.st.written, next);
	assert_false(m.ch[0].broken);
	free(g);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- drain: time order --------------------------------------------------- */

static void test_drain_sorts_by_time(void **state)
{
	(void)state;
	struct markers m;
	struct prod a, b;
	setup_made(&m, &a, ST_CPU);
	int fd = -1;
	assert_int_equal(markers_create(&m, RING, &fd), 0);
	prod_map(&b, fd, false);
	assert_int_equal(m.n, 2);
	put_text(&a, 30, "a30");
	put_text(&a, 10, "a10x");
	put_text(&a, 10, "a10y");
	put_text(&b, 20, "b20");
	put_text(&b, 10, "b10");
	put_text(&b, 5, "b5");
	drain(&m);
	struct got g[8];
	assert_int_equal(parse_out(&m, ST_CPU, g, 8), 6);
	/* equal times keep the order they were drained in */
	static const char *const want[] = { "b5", "a10x", "a10y", "b10", "b20", "a30" };
	static const uint64_t wt[] = { 5, 10, 10, 10, 20, 30 };
	for (size_t i = 0; i < 6; i++) {
		assert_str(&g[i], want[i]);
		assert_int_equal(g[i].time, wt[i]);
	}
	/* already in order, across the channels */
	put_text(&a, 40, "a40");
	put_text(&b, 50, "b50");
	put_text(&b, 50, "b50b");
	drain(&m);
	assert_int_equal(parse_out(&m, ST_CPU, g, 8), 3);
	assert_str(&g[0], "a40");
	assert_str(&g[1], "b50");
	assert_str(&g[2], "b50b");
	/* out of order once more (the buffers were swapped by the sort) */
	put_text(&a, 90, "a90");
	put_text(&b, 60, "b60");
	drain(&m);
	assert_int_equal(parse_out(&m, ST_CPU, g, 8), 2);
	assert_str(&g[0], "b60");
	assert_str(&g[1], "a90");
	drain(&m);
	assert_int_equal(m.out.len, 0);
	assert_int_equal(m.st.written, 11);
	markers_free(&m);
	prod_unmap(&a);
	prod_unmap(&b);
}

/* ---- drain: a ring that breaks the protocol ----------------------------- */

enum bad {
	BAD_ALIGN, BAD_PAST_HEAD, BAD_LEN, BAD_CROSS_END, BAD_SHORT, BAD_SHORT16, BAD_HEAD, BAD_TAIL, BAD_TAIL_END,
	BAD_N
};

/* A record's size, kind and len at ring position at, by hand. */
static void raw_rec(struct prod *p, uint64_t at, uint32_t size, uint16_t kind, uint32_t len)
{
	uint8_t *q = p->data + (at & (p->size - 1));
	th_put_u16(q, 4, kind);
	if (size >= 16)
		th_put_u32(q, 12, len);
	STORE_REL((uint32_t *)q, size);
}

static void check_bad(enum bad which)
{
	struct markers m;
	struct prod a, b;
	setup_made(&m, &a, ST_CPU);
	int fd = -1;
	assert_int_equal(markers_create(&m, RING, &fd), 0);
	prod_map(&b, fd, false);
	/* the bad record at the end of the ring for BAD_CROSS_END */
	uint64_t start = which == BAD_CROSS_END ? 3 * (uint64_t)RING - 16 - align8(HDR + 6) : 0;
	prod_seek(&a, start);
	uint64_t at = put_text(&a, 1, "before") + align8(HDR + 6);
	bool before = true;
	switch (which) {
	case BAD_ALIGN: /* not 8-aligned */
		raw_rec(&a, at, HDR + 4, PSREC_MK_TEXT, 4);
		a.ctl->head = at + HDR + 8;
		break;
	case BAD_PAST_HEAD: /* more than was reserved */
		raw_rec(&a, at, HDR + 48, PSREC_MK_TEXT, 8);
		a.ctl->head = at + HDR + 8;
		break;
	case BAD_LEN: /* a payload longer than its record */
		raw_rec(&a, at, HDR + 16, PSREC_MK_TEXT, 17);
		a.ctl->head = at + HDR + 16;
		break;
	case BAD_CROSS_END: /* across the end of the ring */
		assert_int_equal(at % RING, RING - 16);
		raw_rec(&a, at, HDR + 16, PSREC_MK_TEXT, 8);
		a.ctl->head = at + HDR + 16;
		break;
	case BAD_SHORT: /* shorter than a header, not a PAD */
		raw_rec(&a, at, 8, PSREC_MK_TEXT, 0);
		a.ctl->head = at + 8;
		break;
	case BAD_SHORT16:
		raw_rec(&a, at, 16, PSREC_MK_SPAN_BEGIN, 0);
		a.ctl->head = at + 16;
		break;
	case BAD_HEAD: /* more than a ring between tail and head */
		a.ctl->head = a.ctl->tail + RING + 8;
		before = false;
		break;
	case BAD_TAIL: /* a tail that is not 8-aligned (the program wrote it) */
		a.ctl->tail += 4;
		before = false;
		break;
	case BAD_TAIL_END: /* the same, 2 bytes before the end: no size fits there */
		a.ctl->tail = 2 * (uint64_t)RING - 2;
		a.ctl->head = a.ctl->tail + 16;
		before = false;
		break;
	case BAD_N:
		break;
	}
	uint64_t tail0 = a.ctl->tail;
	put_text(&b, 2, "other");
	drain(&m);
	struct got g[4];
	size_t n = parse_out(&m, ST_CPU, g, 4), k = 0;
	if (!m.ch[0].broken)
		fail_msg("bad record %d: the channel was not ended", (int)which);
	assert_int_equal(n, before ? 2 : 1);
	if (before)
		assert_str(&g[k++], "before");
	assert_str(&g[k], "other");
	assert_false(m.ch[1].broken);
	assert_int_equal(m.st.broken, 1);
	assert_non_null(strstr(m.warning, "a bad record in the marker channel"));
	/* the good record before it was taken, the bad one left */
	if (before)
		assert_int_equal(a.ctl->tail, at);
	else
		assert_int_equal(a.ctl->tail, tail0);

	/* the broken channel is left alone, the other keeps working */
	char w0[sizeof(m.warning)];
	memcpy(w0, m.warning, sizeof(w0));
	prod_seek(&a, 8 * (uint64_t)RING);
	put_text(&a, 3, "ignored");
	put_text(&b, 4, "later");
	drain(&m);
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 1);
	assert_str(&g[0], "later");
	assert_int_equal(m.st.broken, 1);
	assert_string_equal(m.warning, w0);
	assert_int_equal(a.ctl->tail, 8 * (uint64_t)RING);
	markers_stop(&m);
	assert_int_equal(LOAD_ACQ(&a.ctl->consumer), 0);
	assert_int_equal(LOAD_ACQ(&b.ctl->consumer), 0);
	markers_free(&m);
	prod_unmap(&a);
	prod_unmap(&b);
}

static void test_drain_bad_records_end_the_channel(void **state)
{
	(void)state;
	for (int i = 0; i < BAD_N; i++)
		check_bad((enum bad)i);
}

/* Random bytes and random counters in a ring: whatever the drain makes of
 * them, no crash, no read outside the ring (ASan), samples that decode. */
static void test_drain_random_ring(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	struct got *g = malloc(8192 * sizeof(*g));
	assert_non_null(g);
	uint64_t seed = 0x5eed1234abcdULL, total = 0;
	for (int it = 0; it < 10000; it++) {
		uint64_t mode = th_rand(&seed) % 4;
		for (size_t i = 0; i < RING; i += 8)
			th_put_u64(p.data, i, th_rand(&seed));
		uint64_t t = th_rand(&seed);
		if (th_rand(&seed) % 8 == 0) /* near the end of the ring */
			t |= RING - 1 - th_rand(&seed) % 64;
		if (th_rand(&seed) % 4)
			t &= ~(uint64_t)7;
		uint64_t at = t;
		if (mode >= 2) {
			/* plausible records from tail on, some lying (fewer in mode 3) */
			uint64_t lie = mode == 3 ? 256 : 16, end = t + th_rand(&seed) % (RING + 1);
			while (at < end) {
				uint64_t off = at & (RING - 1);
				uint32_t sz = (uint32_t)align8((mode == 3 ? HDR : 8) + th_rand(&seed) % 200);
				uint64_t x = th_rand(&seed);
				if (x % lie == 0)
					sz += (uint32_t)(x >> 8) % 9; /* unaligned */
				if (x % lie == 1 || (mode == 3 && off + sz > RING))
					sz = (uint32_t)(RING - off); /* a PAD to the end */
				if (off + 4 > RING || (mode == 3 && at + sz - t > RING))
					break;
				uint8_t *q = p.data + off;
				th_put_u32(q, 0, sz);
				if (off + 16 <= RING) {
					uint16_t kind = (uint16_t)((x >> 16) % 6);
					if (sz == RING - off && mode == 3)
						kind = PSREC_MK_PAD;
					th_put_u16(q, 4, kind);
					uint32_t len = sz >= HDR ? sz - HDR : 0;
					if (x % lie == 2)
						len += (uint32_t)(x >> 24) % 64; /* past its record */
					else if (len)
						len -= (uint32_t)(x >> 24) % (len < 8 ? len : 8);
					if (x % (2 * lie) == 3)
						len = (uint32_t)(x >> 32);
					th_put_u32(q, 12, len);
				}
				at += sz;
			}
		}
		uint64_t h;
		switch (th_rand(&seed) % 4) {
		case 0:
			h = th_rand(&seed);
			break;
		case 1:
			h = t + th_rand(&seed) % (RING + 64);
			break;
		case 2:
			h = at; /* where the records end */
			break;
		default:
			h = t + (th_rand(&seed) % (RING / 8 + 1)) * 8;
			break;
		}
		p.ctl->tail = t;
		p.ctl->head = h;
		m.ch[0].broken = false; /* give it a chance every time */
		m.sample_type = th_rand(&seed) % 2 ? ST_CPU : ST_NOCPU;
		drain(&m);
		size_t n = parse_out(&m, m.sample_type, g, 8192);
		for (size_t i = 1; i < n; i++)
			assert_true(g[i - 1].time <= g[i].time);
		total += n;
		/* tail only ever moves towards head */
		uint64_t nt = p.ctl->tail;
		assert_true(nt - t <= h - t);
		assert_true(nt - t <= RING);
	}
	assert_true(total > 0);
	assert_int_equal(m.st.written, total);
	free(g);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- writers that die between their reservation and their commit ------- */

static void scan_self(struct markers *m, uint64_t now_ms);

/* Reserve need bytes as a producer's CAS does (a PAD first at the end),
 * writing nothing: the ring position of the reservation. */
static uint64_t prod_reserve(struct prod *p, uint64_t need)
{
	uint64_t h = p->ctl->head, off = h & (p->size - 1);
	uint64_t pad = off + need > p->size ? p->size - off : 0;
	assert_true(h + pad + need - p->ctl->tail <= p->size);
	STORE_REL(&p->ctl->head, h + pad + need);
	if (pad) {
		union psrec_marker_word w = { .f = { (uint32_t)pad, PSREC_MK_PAD, 0 } };
		STORE_REL((uint64_t *)(p->data + off), w.w);
	}
	return h + pad;
}

/* The stamp of abi.h at ring position at: whose the need bytes are. */
static void prod_stamp(struct prod *p, uint64_t at, uint32_t pid, uint32_t tid, uint64_t need)
{
	struct psrec_marker_rec *r = (struct psrec_marker_rec *)(p->data + (at & (p->size - 1)));
	r->pid = pid;
	r->tid = tid;
	union psrec_marker_word w = { .f = { 0, PSREC_MK_STAMP, (uint16_t)(need / 8) } };
	STORE_REL((uint64_t *)r, w.w);
}

static void *note_tid(void *arg)
{
	*(pid_t *)arg = gettid();
	return NULL;
}

/* The tid a thread of this process had: gone once this returns. */
static pid_t dead_tid(void)
{
	pid_t tid = 0;
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, note_tid, &tid), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	/* join returns when the kernel clears the tid, a moment before the
	 * thread leaves its group */
	while (syscall(SYS_tgkill, getpid(), tid, 0) == 0)
		sched_yield();
	return tid;
}

static void test_drain_skips_a_dead_writers_stamp(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	put_text(&p, 1, "before");
	uint64_t need = align8(HDR + 10);
	uint64_t dead = prod_reserve(&p, need);
	prod_stamp(&p, dead, (uint32_t)getpid(), (uint32_t)dead_tid(), need);
	memset(p.data + dead + HDR, 'x', 4); /* it got part way */
	put_text(&p, 3, "after");
	drain(&m);
	struct got g[4];
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 2);
	assert_str(&g[0], "before");
	assert_str(&g[1], "after");
	assert_int_equal(m.st.abandoned, 1);
	assert_int_equal(p.ctl->tail, p.ctl->head);
	assert_true(th_all_zero(p.data, RING));

	/* a live writer's stamp (this thread's) is waited for */
	uint64_t live = prod_reserve(&p, need);
	prod_stamp(&p, live, (uint32_t)getpid(), (uint32_t)gettid(), need);
	put_text(&p, 5, "behind it");
	for (int i = 0; i < 3; i++) {
		markers_drain(&m, 1000000u * (uint64_t)i, 0);
		assert_int_equal(m.out.len, 0);
		assert_int_equal(p.ctl->tail, live);
	}
	/* ... until it commits */
	struct psrec_marker_rec r = mk(PSREC_MK_TEXT, 4, 10);
	struct psrec_marker_rec *slot = (struct psrec_marker_rec *)(p.data + (live & (RING - 1)));
	memcpy((uint8_t *)slot + 8, (const uint8_t *)&r + 8, HDR - 8);
	memcpy((uint8_t *)slot + HDR, "committed!", 10);
	union psrec_marker_word cw = { .f = { (uint32_t)need, PSREC_MK_TEXT, 0 } };
	STORE_REL((uint64_t *)slot, cw.w);
	drain(&m);
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 2);
	assert_str(&g[0], "committed!");
	assert_str(&g[1], "behind it");
	assert_int_equal(m.st.abandoned, 1);
	assert_int_equal(m.st.written, 4);

	/* a stamp claiming more than was reserved ends the channel */
	uint64_t lie = prod_reserve(&p, need);
	prod_stamp(&p, lie, (uint32_t)getpid(), (uint32_t)dead_tid(), 2 * need);
	drain(&m);
	assert_int_equal(m.out.len, 0);
	assert_true(m.ch[0].broken);
	assert_int_equal(m.st.broken, 1);
	markers_free(&m);
	prod_unmap(&p);
}

/* Nothing names the writer of an unstamped record (an older library, or
 * one that died between its CAS and its stamp): it is waited for
 * MARKERS_STALL_MS, then skipped to the next record. */
static void test_drain_times_out_an_unstamped_reservation(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	/* past the end of the ring: the PAD is not written either */
	prod_seek(&p, 3 * (uint64_t)RING - 32);
	uint64_t need = align8(HDR + 24);
	uint64_t h = p.ctl->head;
	p.ctl->head = h + 32 + need; /* the CAS, and nothing else */
	put_text(&p, 7, "after the dead one");
	const uint64_t t0 = 50000;
	markers_drain(&m, t0, 0);
	assert_int_equal(m.out.len, 0);
	markers_drain(&m, t0 + MARKERS_STALL_MS - 1, 0);
	assert_int_equal(m.out.len, 0);
	assert_int_equal(p.ctl->tail, h);
	markers_drain(&m, t0 + MARKERS_STALL_MS, 0);
	markers_written(&m, m.out.len);
	struct got g[4];
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 1);
	assert_str(&g[0], "after the dead one");
	assert_int_equal(m.st.abandoned, 1);
	assert_int_equal(p.ctl->tail, p.ctl->head);

	/* an older library's record, all but its size written: skipped by
	 * its len, its payload not taken for records */
	struct psrec_marker_rec r = mk(PSREC_MK_TEXT, 8, 40);
	char payload[41];
	memset(payload, 0x48, 40); /* would read as 8-aligned sizes */
	uint64_t at = prod_put(&p, &r, payload, false);
	put_text(&p, 9, "after the old one");
	markers_drain(&m, 2 * t0, 0);
	assert_int_equal(m.out.len, 0);
	markers_drain(&m, 2 * t0 + MARKERS_STALL_MS, 0);
	assert_int_equal(parse_out(&m, ST_CPU, g, 4), 1);
	assert_str(&g[0], "after the old one");
	assert_int_equal(m.st.abandoned, 2);
	assert_false(m.ch[0].broken);
	assert_true(at < p.ctl->tail);

	/* the stall is timed afresh at each record */
	p.ctl->head += need;
	markers_drain(&m, 3 * t0, 0);
	markers_drain(&m, 3 * t0 + MARKERS_STALL_MS - 1, 0);
	assert_int_equal(m.st.abandoned, 2);
	markers_drain(&m, 3 * t0 + MARKERS_STALL_MS, 0);
	assert_int_equal(m.st.abandoned, 3);
	assert_int_equal(p.ctl->tail, p.ctl->head);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- what a channel may cost --------------------------------------------- */

/* Fill the ring with 4 KiB records of control bytes (each escaped to 4x
 * its size in the sample): how many. */
static size_t fill_hostile(struct prod *p)
{
	static uint8_t ctl[PSREC_MARK_MAX];
	memset(ctl, 0x01, sizeof(ctl));
	size_t n = 0;
	struct psrec_marker_rec r = mk(PSREC_MK_TEXT, 1, PSREC_MARK_MAX);
	while (prod_put(p, &r, ctl, true) != UINT64_MAX) {
		n++;
		r.time++;
	}
	return n;
}

static void test_drain_hands_out_a_full_ring_in_pieces(void **state)
{
	(void)state;
	const uint64_t big = MARKERS_FOREIGN_MAX;
	struct markers m;
	struct prod p;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	int fd = -1;
	assert_int_equal(markers_create(&m, big, &fd), 0);
	prod_map(&p, fd, false);
	size_t sent = fill_hostile(&p);
	assert_true(sent > 4000);
	size_t got = 0, pieces = 0;
	struct got *g = malloc(sizeof(*g) * 1000);
	assert_non_null(g);
	uint64_t last = 0;
	for (markers_drain(&m, 0, 0); m.out.len; markers_drain_on(&m)) {
		pieces++;
		assert_true(m.out.len <= MARKERS_PASS_OUT + 65536);
		size_t n = parse_out(&m, ST_CPU, g, 1000);
		for (size_t i = 0; i < n; i++) {
			assert_true(g[i].time > last); /* in order across pieces */
			last = g[i].time;
		}
		got += n;
		markers_written(&m, m.out.len);
	}
	/* 64 MiB of samples, never more than a piece (and its growth) held */
	assert_int_equal(got, sent);
	assert_int_equal(m.st.written, sent);
	assert_true(pieces >= 30);
	assert_true(m.out.cap <= 2 * (MARKERS_PASS_OUT + 65536));
	assert_true(m.tmp.cap <= 2 * (MARKERS_PASS_OUT + 65536));
	assert_int_equal(p.ctl->tail, p.ctl->head);
	assert_false(m.more);
	assert_true(m.busy);
	free(g);
	markers_free(&m);
	prod_unmap(&p);
}

/* Kilobytes of this process's RSS in shared memory. */
static long rss_shmem_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	assert_non_null(f);
	char line[256];
	long kb = -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "RssShmem: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* A program's full 16 MiB ring zeroed at the claim, then filled again
 * and read whole: the pages psrec touched do not stay in its RSS. */
static void test_drain_lets_go_of_the_pages_it_read(void **state)
{
	(void)state;
	int up[2], down[2];
	assert_int_equal(pipe(up), 0);
	assert_int_equal(pipe(down), 0);
	pid_t parent = getpid(), child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		struct prod p;
		char c = 0;
		lib_chan_sized(&p, ALL_SEALS, 0, MARKERS_FOREIGN_MAX);
		for (int round = 0; round < 2; round++) {
			c = fill_hostile(&p) > 4000 ? 'y' : 'n';
			if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1)
				_exit(1);
		}
		pause_forever(parent);
	}
	char ok = 0;
	assert_int_equal(read(up[0], &ok, 1), 1);
	assert_int_equal(ok, 'y');
	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	assert_int_equal(markers_watch(&m, &child, 1), 0);
	long before = rss_shmem_kb();
	markers_scan(&m, 0); /* claims it: zeroes what it holds */
	assert_true(markers_found(&m));
	long claimed = rss_shmem_kb();
	assert_int_equal(write(down[1], "go", 1), 1);
	assert_int_equal(read(up[0], &ok, 1), 1);
	assert_int_equal(ok, 'y');
	size_t pieces = 0;
	for (markers_drain(&m, 0, 0); m.out.len; markers_drain_on(&m))
		pieces++;
	assert_true(pieces >= 30);
	assert_true(m.ch[0].ctl->tail == m.ch[0].ctl->head);
	long after = rss_shmem_kb();
	if (claimed - before > 1024 || after - before > 1024)
		fail_msg("RssShmem %ld kB, %ld kB after the claim, %ld kB after reading a %u MiB ring", before, claimed, after,
			 MARKERS_FOREIGN_MAX >> 20);
	markers_free(&m);
	assert_int_equal(write(down[1], "go", 1), 1);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	close(up[0]);
	close(up[1]);
	close(down[0]);
	close(down[1]);
}

static void test_scan_refuses_big_rings_and_past_the_budget(void **state)
{
	(void)state;
	struct prod p;
	lib_chan_sized(&p, ALL_SEALS, 0, 2 * (uint64_t)MARKERS_FOREIGN_MAX);
	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	scan_self(&m, 0);
	assert_false(markers_found(&m));
	assert_int_equal(m.st.refused, 1);
	char want[192];
	snprintf(want, sizeof(want),
		 "process %d offers a %u MiB marker channel, more than the %u MiB psrec reads from a program: its markers are not recorded",
		 (int)getpid(), 2 * MARKERS_FOREIGN_MAX >> 20, MARKERS_FOREIGN_MAX >> 20);
	assert_string_equal(m.warning, want);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), 0);
	markers_free(&m);
	prod_unmap(&p);

	/* psrec's own may be bigger; all together stay in the budget */
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	int fd = -1;
	for (int i = 0; i < 2; i++)
		assert_int_equal(markers_create(&m, 2 * (uint64_t)MARKERS_FOREIGN_MAX, &fd), 0);
	assert_int_equal(markers_create(&m, 2 * (uint64_t)MARKERS_FOREIGN_MAX, &fd), -ENOSPC);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.mapped, MARKERS_MAP_BUDGET);
	/* in another process: this one's first marker memfd is psrec's */
	int ready[2];
	assert_int_equal(pipe(ready), 0);
	pid_t parent = getpid(), child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		close_marker_fds(NULL); /* psrec's, inherited */
		lib_chan(&p, ALL_SEALS, 0);
		if (write(ready[1], "y", 1) != 1)
			_exit(1);
		pause_forever(parent);
	}
	char c;
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(markers_watch(&m, &child, 1), 0);
	markers_scan(&m, 0);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	close(ready[0]);
	close(ready[1]);
	assert_int_equal(m.n, 2);
	assert_int_equal(m.st.refused, 1);
	snprintf(want, sizeof(want), "marker channels already take %u MiB (at most %u MiB): the markers of process %d are not recorded",
		 MARKERS_MAP_BUDGET >> 20, MARKERS_MAP_BUDGET >> 20, (int)child);
	assert_string_equal(m.warning, want);
	markers_free(&m);
	assert_int_equal(m.mapped, 0);
}

/* The scenario of the next test, in a fresh process (a heap that other
 * tests freed into would serve the allocations the limit must refuse):
 * an exit status. */
static int oom_scenario(void)
{
	struct markers m;
	struct prod a, b;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	int fd = -1;
	if (markers_create(&m, RING, &fd))
		return 10;
	prod_map(&b, fd, false);
	if (markers_create(&m, MARKERS_FOREIGN_MAX, &fd))
		return 11;
	prod_map(&a, fd, false);
	put_text(&b, 0, "small");
	fill_hostile(&a);
	/* room for what is mapped now, not for MiB of samples */
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long pages = 0;
	if (!f || fscanf(f, "%lu", &pages) != 1)
		return 12;
	fclose(f);
	struct rlimit rl = { .rlim_cur = pages * 4096 + (512u << 10), .rlim_max = RLIM_INFINITY };
	if (setrlimit(RLIMIT_AS, &rl))
		return 13;
	markers_drain(&m, 0, 0);
	while (m.more)
		markers_drain_on(&m);
	if (!m.ch[1].broken || m.ch[0].broken || m.st.broken != 1) {
		fprintf(stderr, "ended: %d %d (%d): %s\n", m.ch[0].broken, m.ch[1].broken, (int)m.st.broken, m.warning);
		return 14;
	}
	if (!strstr(m.warning, "psrec ran out of memory for the markers of the command"))
		return 15;
	rl.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_AS, &rl);
	put_text(&b, 0, "still read");
	drain(&m);
	struct got g[2];
	if (parse_out(&m, ST_CPU, g, 2) != 1 || g[0].v.msg_len != 10)
		return 16;
	return 0;
}

/* Out of memory for a channel's samples: that channel ends, the others
 * and the recording go on. (An address-space limit makes malloc fail;
 * ASan reserves too much address space for one.) */
static void test_drain_out_of_memory_ends_the_channel_only(void **state)
{
	(void)state;
#if defined(__SANITIZE_ADDRESS__)
	skip();
#endif
	pid_t child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		setenv("PSREC_TEST_MARKERS_OOM", "1", 1);
		execl("/proc/self/exe", "test_markers_rec", (char *)NULL);
		_exit(127);
	}
	int st = 0;
	assert_int_equal(waitpid(child, &st, 0), child);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

/* Times a program made up: kept between what perf has delivered (the
 * events of two passes back) and now. */
static void test_drain_keeps_times_sortable(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_NOCPU);
	uint64_t now = (uint64_t)now_ns(CLOCK_MONOTONIC);
	put_text(&p, now + 3600000000000ull, "from the future");
	drain(&m);
	struct got g[2];
	assert_int_equal(parse_out(&m, ST_NOCPU, g, 2), 1);
	assert_true(g[0].time >= now && g[0].time <= (uint64_t)now_ns(CLOCK_MONOTONIC));
	uint64_t seen = now + 1000000000;
	markers_drain(&m, 0, seen);      /* the pass that wrote events up to seen */
	markers_drain(&m, 0, seen + 1);
	put_text(&p, 5, "from the past");
	markers_drain(&m, 0, seen + 2);  /* two passes later */
	assert_int_equal(parse_out(&m, ST_NOCPU, g, 2), 1);
	assert_int_equal(g[0].time, seen + 1);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- markers_stop ------------------------------------------------------- */

static void test_stop_counts_and_drains_the_rest(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	__atomic_add_fetch(&p.ctl->dropped, 4, __ATOMIC_RELAXED);
	__atomic_add_fetch(&p.ctl->truncated, 2, __ATOMIC_RELAXED);
	put_text(&p, 1, "last");
	markers_stop(&m);
	assert_true(m.stopped);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), 0);
	assert_int_equal(m.st.dropped, 4);
	assert_int_equal(m.st.truncated, 2);
	/* what was committed before the stop still comes out */
	drain(&m);
	struct got g[2];
	assert_int_equal(parse_out(&m, ST_CPU, g, 2), 1);
	assert_str(&g[0], "last");
	/* a second stop counts the same, not twice */
	markers_stop(&m);
	assert_int_equal(m.st.dropped, 4);
	assert_int_equal(m.st.truncated, 2);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- claiming what markers_scan finds ----------------------------------- */

/* Two records committed under an earlier reader and never read. */
static void put_stale(struct prod *p)
{
	prod_seek(p, 3 * (uint64_t)RING + 512);
	put_text(p, 1, "stale one");
	put_text(p, 2, "stale two");
}

static void scan_self(struct markers *m, uint64_t now_ms)
{
	pid_t self = getpid();
	assert_int_equal(markers_watch(m, &self, 1), 0);
	markers_scan(m, now_ms);
}

static void test_scan_claims_library_channel_once(void **state)
{
	(void)state;
	struct prod p;
	lib_chan(&p, ALL_SEALS, 0);
	put_stale(&p);
	p.ctl->dropped = 3;
	p.ctl->truncated = 1;
	uint64_t head0 = p.ctl->head;
	uint32_t epoch0 = p.ctl->epoch;
	struct stat sb;
	assert_int_equal(fstat(p.fd, &sb), 0);

	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	scan_self(&m, 1000);
	assert_int_equal(m.warning[0], '\0');
	assert_int_equal(m.n, 1);
	assert_true(markers_found(&m));
	assert_int_equal(m.st.channels, 1);
	assert_int_equal(m.nr_want, 0);
	assert_int_equal(m.ch[0].pid, getpid());
	assert_int_equal(m.ch[0].ino, (uint64_t)sb.st_ino);
	assert_int_equal(m.ch[0].dev, (uint64_t)sb.st_dev);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), (uint32_t)getpid());
	assert_int_equal(p.ctl->epoch, epoch0 + 1);
	/* the stale records: zeroed and skipped */
	assert_int_equal(p.ctl->tail, head0);
	assert_int_equal(p.ctl->head, head0);
	assert_true(th_all_zero(p.data, RING));
	drain(&m);
	assert_int_equal(m.out.len, 0);

	/* found again (the recorder's own fd of it too): the same inode, one channel */
	size_t fds = count_fds();
	scan_self(&m, 1000 + MARKERS_SCAN_MS);
	assert_int_equal(m.n, 1);
	assert_int_equal(m.nr_want, 0);
	assert_int_equal(count_fds(), fds);
	assert_int_equal(m.warning[0], '\0');

	put_text(&p, 5, "fresh");
	drain(&m);
	struct got g[2];
	assert_int_equal(parse_out(&m, ST_CPU, g, 2), 1);
	assert_str(&g[0], "fresh");
	assert_int_equal(g[0].pid, 4242);

	/* drops counted from the claim on */
	__atomic_add_fetch(&p.ctl->dropped, 2, __ATOMIC_RELAXED);
	__atomic_add_fetch(&p.ctl->truncated, 5, __ATOMIC_RELAXED);
	markers_stop(&m);
	assert_int_equal(m.st.dropped, 2);
	assert_int_equal(m.st.truncated, 5);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), 0);
	/* stopped: no more scans */
	scan_self(&m, 5000);
	assert_int_equal(m.nr_want, 1);
	markers_free(&m);
	prod_unmap(&p);
}

static void test_scan_takes_over_dead_reader(void **state)
{
	(void)state;
	pid_t dead = fork();
	assert_true(dead >= 0);
	if (dead == 0)
		_exit(0);
	assert_int_equal(waitpid(dead, NULL, 0), dead);
	struct prod p;
	lib_chan(&p, ALL_SEALS, (uint32_t)dead);
	put_stale(&p);
	uint64_t head0 = p.ctl->head;

	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	scan_self(&m, 0);
	assert_int_equal(m.warning[0], '\0');
	assert_int_equal(m.n, 1);
	assert_int_equal(m.st.foreign, 0);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), (uint32_t)getpid());
	assert_int_equal(p.ctl->tail, head0);
	assert_true(th_all_zero(p.data, RING));
	put_text(&p, 9, "mine now");
	drain(&m);
	struct got g[2];
	assert_int_equal(parse_out(&m, ST_CPU, g, 2), 1);
	assert_str(&g[0], "mine now");
	markers_free(&m);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), 0);
	prod_unmap(&p);
}

static void check_foreign(pid_t reader)
{
	struct prod p;
	lib_chan(&p, ALL_SEALS, (uint32_t)reader);
	put_stale(&p);
	uint64_t head0 = p.ctl->head, tail0 = p.ctl->tail;
	uint32_t epoch0 = p.ctl->epoch;

	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	size_t fds = count_fds();
	scan_self(&m, 0);
	assert_false(markers_found(&m));
	assert_int_equal(m.st.foreign, 1);
	assert_int_equal(m.st.channels, 0);
	assert_int_equal(m.nr_want, 0);
	assert_int_equal(count_fds(), fds);
	char want[96];
	snprintf(want, sizeof(want), "the markers of process %d are read by another psrec", (int)getpid());
	assert_string_equal(m.warning, want);
	/* the other reader's channel untouched */
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), (uint32_t)reader);
	assert_int_equal(p.ctl->epoch, epoch0);
	assert_int_equal(p.ctl->tail, tail0);
	assert_int_equal(p.ctl->head, head0);
	assert_int_equal(th_u32(p.data, tail0 & (RING - 1)), align8(HDR + 9));
	drain(&m);
	assert_int_equal(m.out.len, 0);
	markers_free(&m);
	assert_int_equal(LOAD_ACQ(&p.ctl->consumer), (uint32_t)reader);
	prod_unmap(&p);
}

static void test_scan_live_reader_is_foreign(void **state)
{
	(void)state;
	pid_t parent = getpid(), child = fork();
	assert_true(child >= 0);
	if (child == 0)
		pause_forever(parent);
	check_foreign(child);
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	check_foreign(getppid());
}

/* What the recorder must not map: unsealed (the program could shrink it
 * under psrec's reads), another version, a ring of the wrong size. */
static void test_scan_refuses_unusable(void **state)
{
	(void)state;
	for (int i = 0; i < 6; i++) {
		struct prod p;
		lib_chan(&p, i == 0 ? 0 : i == 1 ? F_SEAL_SHRINK : i == 2 ? F_SEAL_GROW : ALL_SEALS, 0);
		if (i == 3)
			p.ctl->version = PSREC_MARKER_VERSION + 1;
		if (i == 4)
			p.ctl->magic = PSREC_MARKER_MAGIC + 1;
		if (i == 5)
			p.ctl->data_size = 2 * RING;
		struct markers m;
		markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
		size_t fds = count_fds();
		scan_self(&m, 0);
		assert_false(markers_found(&m));
		assert_int_equal(m.st.foreign, 0);
		assert_int_equal(m.nr_want, 0);
		assert_int_equal(count_fds(), fds);
		char want[160];
		if (i < 3)
			snprintf(want, sizeof(want),
				 "process %d has a marker channel that is not sealed (it could shrink under psrec): its markers are not recorded",
				 (int)getpid());
		else
			snprintf(want, sizeof(want),
				 "process %d has a marker channel psrec cannot read (another version of libpsrec-marker?): its markers are not recorded",
				 (int)getpid());
		assert_string_equal(m.warning, want);
		assert_int_equal(m.st.refused, 1);
		assert_int_equal(LOAD_ACQ(&p.ctl->consumer), 0);
		assert_int_equal(p.ctl->epoch, 0);
		markers_free(&m);
		prod_unmap(&p);
	}
}

/* A process without a channel is looked at again every MARKERS_SCAN_MS
 * until it has one or is gone. */
static void test_scan_retries_until_gone(void **state)
{
	(void)state;
	pid_t parent = getpid(), child = fork();
	assert_true(child >= 0);
	if (child == 0)
		pause_forever(parent);
	struct markers m;
	markers_init(&m, ST_CPU, CLOCK_MONOTONIC);
	assert_int_equal(markers_watch(&m, &child, 1), 0);
	markers_scan(&m, 1000);
	assert_int_equal(m.nr_want, 1);
	assert_false(markers_found(&m));
	kill(child, SIGKILL);
	assert_int_equal(waitpid(child, NULL, 0), child);
	markers_scan(&m, 1000 + MARKERS_SCAN_MS - 1); /* too soon */
	assert_int_equal(m.nr_want, 1);
	markers_scan(&m, 1000 + MARKERS_SCAN_MS);
	assert_int_equal(m.nr_want, 0);
	assert_false(markers_found(&m));
	assert_int_equal(m.warning[0], '\0');
	markers_free(&m);
}

/* ---- the recording's clock ---------------------------------------------- */

static void test_clock_offset(void **state)
{
	(void)state;
	struct markers m;
	struct prod p;
	setup_made(&m, &p, ST_CPU);
	assert_int_equal(m.clock_offset, 0);
	uint64_t t = (uint64_t)now_ns(CLOCK_MONOTONIC);
	put_text(&p, t, "mono");
	drain(&m);
	struct got g[2];
	assert_int_equal(parse_out(&m, ST_CPU, g, 2), 1);
	assert_int_equal(g[0].time, t);
	markers_free(&m);
	prod_unmap(&p);

	const int64_t ms10 = 10 * 1000 * 1000;
	markers_init(&m, ST_CPU, CLOCK_REALTIME);
	int64_t want = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);
	assert_true(llabs(m.clock_offset - want) < ms10);
	int fd = -1;
	assert_int_equal(markers_create(&m, RING, &fd), 0);
	prod_map(&p, fd, false);
	int64_t mono = now_ns(CLOCK_MONOTONIC), real = now_ns(CLOCK_REALTIME);
	put_text(&p, (uint64_t)mono, "real");
	drain(&m);
	assert_int_equal(parse_out(&m, ST_CPU, g, 2), 1);
	assert_true(llabs((int64_t)g[0].time - real) < ms10);
	markers_free(&m);
	prod_unmap(&p);
}

/* ---- whether a program will send markers -------------------------------- */

static void test_program_uses(void **state)
{
	(void)state;
#if defined(PSREC_PHASES) && defined(PSREC_MARKBENCH_SHARED)
	const char *phases = PSREC_PHASES, *shared = PSREC_MARKBENCH_SHARED;
#else
	const char *phases = NULL, *shared = NULL;
	skip();
#endif
	assert_true(markers_program_uses(phases));     /* static: its psrec_mark* symbols */
	assert_true(markers_program_uses(shared));     /* DT_NEEDED libpsrec-marker.so.0 */
	assert_false(markers_program_uses("/bin/true"));
	assert_false(markers_program_uses("/nonexistent/psrec-unit"));
	char path[64];
	th_write_file(path, "#!/bin/sh\npsrec_mark\n", 21);
	assert_false(markers_program_uses(path));
	unlink(path);
	th_write_file(path, "", 0);
	assert_false(markers_program_uses(path));
	unlink(path);
}

int main(void)
{
	if (getenv("PSREC_TEST_MARKERS_OOM"))
		return oom_scenario();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_create_sealed_and_claimed, close_marker_fds),
		cmocka_unit_test_teardown(test_create_refuses_bad_sizes, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_kinds_and_escapes, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_sample_layout, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_long_bytes, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_unknown_kind, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_clamps_long_payload, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_stops_at_uncommitted, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_skips_pad_at_wrap, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_laps, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_sorts_by_time, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_bad_records_end_the_channel, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_random_ring, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_skips_a_dead_writers_stamp, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_times_out_an_unstamped_reservation, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_hands_out_a_full_ring_in_pieces, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_lets_go_of_the_pages_it_read, close_marker_fds),
		cmocka_unit_test_teardown(test_scan_refuses_big_rings_and_past_the_budget, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_out_of_memory_ends_the_channel_only, close_marker_fds),
		cmocka_unit_test_teardown(test_drain_keeps_times_sortable, close_marker_fds),
		cmocka_unit_test_teardown(test_stop_counts_and_drains_the_rest, close_marker_fds),
		cmocka_unit_test_teardown(test_scan_claims_library_channel_once, close_marker_fds),
		cmocka_unit_test_teardown(test_scan_takes_over_dead_reader, close_marker_fds),
		cmocka_unit_test_teardown(test_scan_live_reader_is_foreign, close_marker_fds),
		cmocka_unit_test_teardown(test_scan_refuses_unusable, close_marker_fds),
		cmocka_unit_test_teardown(test_scan_retries_until_gone, close_marker_fds),
		cmocka_unit_test_teardown(test_clock_offset, close_marker_fds),
		cmocka_unit_test_teardown(test_program_uses, close_marker_fds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
