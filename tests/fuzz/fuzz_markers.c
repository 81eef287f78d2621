/*
 * fuzz_markers.c - a hostile producer racing the recorder's reader over
 * one marker channel (record/markers.c; see fuzz.h).
 *
 * The bytes are a script. Its first half is played on the ring before any
 * drain, the rest by a second thread while this one drains, so the reader
 * meets both a ring in any state and one that changes under it. Ops: a
 * well-formed record (stamped and committed as abi.h says, or only
 * stamped, by a live or dead thread, or only reserved), a raw 8-byte
 * store anywhere in the ring, head or tail or the counters set to
 * anything, a PAD of any size. The drains step a made-up clock by 300 ms
 * each, so stalls time out.
 *
 * Whatever the script: no crash, no sanitizer report, and every piece
 * m->out holds is whole samples of psrec:marker (each RAW decodes) within
 * the piece bound, so that what the loop writes is a valid data section.
 */
#include "fuzz.h"

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "marker/abi.h"
#include "marker/tp.h"
#include "psrec/marker.h"
#include "psrec/perf_data.h"
#include "record/markers.h"

#define RING (64u << 10)
#define MAX_OPS 4096
/* Drains while the producer plays: enough to meet it mid-way, bounded so
 * that a script cannot make an input slow. */
#define MAX_DRAINS 64

struct script {
	const uint8_t *p;
	size_t len, at;
	struct psrec_marker_ctl *ctl;
	uint8_t *data;
	uint32_t pid, tid;
	bool done;
};

static uint64_t take(struct script *s, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n && s->at < s->len; i++)
		v |= (uint64_t)s->p[s->at++] << (8 * i);
	return v;
}

static void store64(uint8_t *p, uint64_t v)
{
	__atomic_store_n((uint64_t *)p, v, __ATOMIC_RELEASE);
}

/* A record as the library writes one: reserve, stamp, fill, commit
 * (stop: 0 commit, 1 stamp only, 2 reserve only). */
static void put_record(struct script *s, uint16_t kind, uint32_t len, int stop, bool dead)
{
	struct psrec_marker_ctl *c = s->ctl;
	uint64_t need = (PSREC_MARKER_REC_HDR + len + 7) & ~(uint64_t)7;
	uint64_t h = c->head, t = __atomic_load_n(&c->tail, __ATOMIC_ACQUIRE);
	uint64_t off = h & (RING - 1), pad = off + need > RING ? RING - off : 0;
	if (h + pad + need - t > RING)
		return;
	__atomic_store_n(&c->head, h + pad + need, __ATOMIC_RELEASE);
	if (pad) {
		union psrec_marker_word w = { .f = { (uint32_t)pad, PSREC_MK_PAD, 0 } };
		store64(s->data + off, w.w);
	}
	if (stop == 2)
		return;
	uint8_t *r = s->data + ((h + pad) & (RING - 1));
	struct psrec_marker_rec hdr = { .len = len, .time = take(s, 8), .pid = s->pid, .tid = dead ? 1u << 30 : s->tid };
	memcpy(r + 8, (const uint8_t *)&hdr + 8, PSREC_MARKER_REC_HDR - 8);
	union psrec_marker_word sw = { .f = { 0, PSREC_MK_STAMP, (uint16_t)(need / 8) } };
	store64(r, sw.w);
	for (uint32_t i = 0; i < len; i++)
		r[PSREC_MARKER_REC_HDR + i] = (uint8_t)take(s, 1);
	if (stop == 1)
		return;
	union psrec_marker_word cw = { .f = { (uint32_t)need, kind, 0 } };
	store64(r, cw.w);
}

static void play_one(struct script *s)
{
	struct psrec_marker_ctl *c = s->ctl;
	uint8_t op = (uint8_t)take(s, 1);
	switch (op % 10) {
	case 0: case 1: case 2: { /* a record, most often whole */
		uint8_t b = (uint8_t)take(s, 1);
		uint32_t len = (b & 0x80) ? (uint32_t)take(s, 2) % (PSREC_MARK_MAX + 64) : b & 0x7f;
		put_record(s, (uint16_t)(op / 10 % 6), len, op % 10 == 2 ? (int)(b % 3) : 0, b & 1);
		break;
	}
	case 3: /* a raw store anywhere in the ring */
		store64(s->data + (take(s, 2) % (RING / 8)) * 8, take(s, 8));
		break;
	case 4: /* a word stored as a first word: a size, a kind */
		store64(s->data + (c->tail & (RING - 1) & ~(uint64_t)7), take(s, 8));
		break;
	case 5:
		__atomic_store_n(&c->head, c->tail + take(s, 3), __ATOMIC_RELEASE);
		break;
	case 6:
		__atomic_store_n(&c->tail, take(s, 1) & 1 ? take(s, 8) : c->tail + take(s, 2), __ATOMIC_RELEASE);
		break;
	case 7:
		__atomic_store_n(&c->dropped, take(s, 8), __ATOMIC_RELAXED);
		__atomic_store_n(&c->truncated, take(s, 8), __ATOMIC_RELAXED);
		break;
	case 8: { /* a PAD of any size */
		union psrec_marker_word w = { .f = { (uint32_t)take(s, 4), PSREC_MK_PAD, 0 } };
		store64(s->data + (c->head & (RING - 1) & ~(uint64_t)7), w.w);
		__atomic_store_n(&c->head, c->head + w.f.size, __ATOMIC_RELEASE);
		break;
	}
	default:
		sched_yield();
		break;
	}
}

static void *producer(void *arg)
{
	struct script *s = arg;
	for (int n = 0; n < MAX_OPS && s->at < s->len; n++)
		play_one(s);
	__atomic_store_n(&s->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* m->out must be whole psrec:marker samples within the piece bound. */
static void check_out(const struct markers *m)
{
	if (m->out.len > MARKERS_PASS_OUT + 65536) {
		fprintf(stderr, "fuzz_markers: a piece of %zu bytes\n", m->out.len);
		abort();
	}
	for (size_t at = 0; at < m->out.len;) {
		struct pd_event_header h;
		if (m->out.len - at < sizeof(h))
			abort();
		memcpy(&h, m->out.data + at, sizeof(h));
		if (h.type != PD_RECORD_SAMPLE || h.size < sizeof(h) || h.size % 8 || h.size > m->out.len - at) {
			fprintf(stderr, "fuzz_markers: a bad sample at %zu: type %u size %u\n", at, h.type, h.size);
			abort();
		}
		/* RAW is last: its u32 size, then the tracepoint's fields */
		const uint64_t words = PD_SAMPLE_IDENTIFIER | PD_SAMPLE_IP | PD_SAMPLE_TID | PD_SAMPLE_TIME | PD_SAMPLE_CPU |
				       PD_SAMPLE_PERIOD;
		size_t fixed = 8 + 8 * (size_t)__builtin_popcountll(m->sample_type & words);
		uint32_t raw;
		memcpy(&raw, m->out.data + at + fixed, 4);
		struct marker_view v;
		if (fixed + 4 + raw != h.size || marker_tp_decode(m->out.data + at + fixed + 4, raw, &v) != 0) {
			fprintf(stderr, "fuzz_markers: a sample at %zu whose RAW does not decode\n", at);
			abort();
		}
		at += h.size;
	}
}

static uint64_t drain_all(struct markers *m, uint64_t now)
{
	markers_drain(m, now, now * 1000000);
	check_out(m);
	while (m->more) {
		markers_drain_on(m);
		check_out(m);
	}
	return now + 300;
}

int fuzz_markers_one(const uint8_t *data, size_t size)
{
	struct markers m;
	markers_init(&m, MARKER_TP_SAMPLE_TYPE | PD_SAMPLE_CPU, CLOCK_MONOTONIC);
	int fd = -1;
	if (markers_create(&m, RING, &fd) != 0) {
		perror("fuzz_markers: markers_create");
		abort();
	}
	uint8_t *map = mmap(NULL, PSREC_MARKER_CTL_SIZE + RING, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		perror("fuzz_markers: mmap");
		abort();
	}
	struct script s = {
		.p = data, .len = size / 2, .ctl = (struct psrec_marker_ctl *)map,
		.data = map + PSREC_MARKER_CTL_SIZE, .pid = (uint32_t)getpid(), .tid = (uint32_t)gettid(),
	};
	producer(&s);
	uint64_t now = drain_all(&m, 1);
	s.len = size;
	s.done = false;
	pthread_t th;
	if (pthread_create(&th, NULL, producer, &s) != 0)
		abort();
	for (int i = 0; i < MAX_DRAINS && !__atomic_load_n(&s.done, __ATOMIC_ACQUIRE); i++)
		now = drain_all(&m, now);
	pthread_join(th, NULL);
	markers_stop(&m);
	now = drain_all(&m, now);
	drain_all(&m, now + MARKERS_STALL_MS);
	munmap(map, PSREC_MARKER_CTL_SIZE + RING);
	markers_free(&m);
	return 0;
}

#ifdef PSREC_LIBFUZZER
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_markers_one(data, size);
}
#endif
