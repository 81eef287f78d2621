/*
 * session.c - one pass over a recording, its samples replayed (see
 * session.h).
 */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "psrec/perf_data.h"
#include "util/io.h"
#include "util/vec.h"

#define SPOOL_INLINE ((uint64_t)1 << 63)
/* The entry of a FINISHED_ROUND (no offset is this large). */
#define SPOOL_ROUND UINT64_MAX

int session_take(struct session *s, struct reader *r, struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	s->rd = *r;
	s->open = true;
	s->spool_max = (uint64_t)r->len * SESSION_SPOOL_RATIO;
	if (s->spool_max < SESSION_SPOOL_FLOOR)
		s->spool_max = SESSION_SPOOL_FLOOR;
	s->update_name = calloc(s->rd.nr_attrs ? s->rd.nr_attrs : 1, sizeof(*s->update_name));
	return s->update_name ? 0 : err_set(e, -ENOMEM, "out of memory");
}

int session_open(struct session *s, const char *path, struct err *e)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	struct reader r;
	int err = reader_open_file(&r, path, e);
	return err ? err : session_take(s, &r, e);
}

void session_close(struct session *s)
{
	if (s->map)
		munmap(s->map, s->map_len);
	if (s->fd >= 0)
		close(s->fd);
	buf_free(&s->mem);
	free(s->update_name);
	if (s->open)
		reader_close(&s->rd);
	memset(s, 0, sizeof(*s));
	s->fd = -1;
}

uint64_t session_decoded(const struct session *s)
{
	return s->rd.nr_compressed;
}

/* Kernel and user record types psrec knows (perf 6.1's set); anything
 * else is skipped and counted. */
static bool known_type(uint32_t t)
{
	return (t >= PD_RECORD_MMAP && t <= PD_RECORD_AUX_OUTPUT_HW_ID) ||
	       (t >= PD_RECORD_HEADER_ATTR && t <= 82);
}

/* The attr whose ids include id, -1 if none. */
static int attr_of_id(const struct reader *r, uint64_t id)
{
	for (size_t i = 0; i < r->nr_attrs; i++)
		for (size_t k = 0; k < r->attrs[i].nr_ids; k++)
			if (r->attrs[i].ids[k] == id)
				return (int)i;
	return -1;
}

/* EVENT_UPDATE of type NAME: u64 type; u64 id; char name[]. */
static void take_update(struct session *s, const struct reader_record *rec)
{
	if (rec->size <= 24)
		return;
	uint64_t type, id;
	memcpy(&type, rec->data + 8, 8);
	memcpy(&id, rec->data + 16, 8);
	int ai = attr_of_id(&s->rd, id);
	if (type != PD_EVENT_UPDATE_NAME || ai < 0)
		return;
	const char *n = (const char *)rec->data + 24;
	size_t len = strnlen(n, rec->size - 24u);
	if (len > 0)
		snprintf(s->update_name[ai], SESSION_NAME_MAX, "%.*s", (int)len, n);
}

static int open_tmp(void)
{
	const char *dir = getenv("TMPDIR");
	int fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && dir && *dir)
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	return fd;
}

/* What memory holds goes to the file (made at the first spill). 0 when
 * it went, or it stays (no file: warned once); -errno when writing fails. */
static int spill(struct session *s)
{
	if (s->fd < 0 && !s->warning[0] && (s->fd = open_tmp()) < 0)
		snprintf(s->warning, sizeof(s->warning), "more than %zu MiB of samples held in memory: "
			 "no temporary file could be made under $TMPDIR or /tmp", SESSION_SPOOL_MEM >> 20);
	if (s->fd < 0)
		return 0;
	int err = io_pwrite_all(s->fd, s->mem.data, s->mem.len, s->spilled);
	if (err)
		return err;
	s->spilled += s->mem.len;
	buf_reset(&s->mem);
	return 0;
}

static int spool(struct session *s, const struct reader_record *rec)
{
	size_t need = 8 + (rec->compressed ? ((size_t)rec->size + 7) / 8 * 8 : 0);
	if (s->spilled + s->mem.len + need > s->spool_max) {
		s->dropped++;
		return 0;
	}
	if (s->mem.len + need > SESSION_SPOOL_MEM) {
		int err = spill(s);
		if (err)
			return err;
	}
	int err = buf_append_u64(&s->mem, rec->offset | (rec->compressed ? SPOOL_INLINE : 0));
	if (!err && rec->compressed) {
		err = buf_append(&s->mem, rec->data, rec->size);
		if (!err)
			err = buf_pad(&s->mem, 8);
	}
	s->nr_samples++;
	s->since_round = true;
	return err;
}

/* A FINISHED_ROUND, where samples were spooled since the last one: the
 * replay's time order needs where the rounds end (session_samples). */
static int spool_round(struct session *s)
{
	if (!s->since_round)
		return 0;
	if (s->mem.len + 8 > SESSION_SPOOL_MEM) {
		int err = spill(s);
		if (err)
			return err;
	}
	s->since_round = false;
	return buf_append_u64(&s->mem, SPOOL_ROUND);
}

/* The spool, whole, for reading: what spilled is mapped with the rest. */
static int spool_finish(struct session *s)
{
	if (s->fd < 0)
		return 0;
	int err = spill(s);
	if (err)
		return err;
	s->map_len = (size_t)s->spilled;
	void *p = mmap(NULL, s->map_len, PROT_READ, MAP_PRIVATE, s->fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	madvise(p, s->map_len, MADV_SEQUENTIAL);
	s->map = p;
	return 0;
}

int session_load(struct session *s, struct sideband *sb, struct err *e)
{
	struct reader_record rec;
	int n, err = 0;
	while ((n = reader_next(&s->rd, &rec, e)) > 0) {
		if (rec.type == PD_RECORD_FINISHED_ROUND) {
			if ((err = spool_round(s)) != 0)
				break;
			continue;
		}
		if (!known_type(rec.type)) {
			s->unknown_records++;
			continue;
		}
		int k = sideband_add(sb, &s->rd, &rec);
		if (k < 0)
			return err_set(e, k, SIDEBAND_NOMEM);
		if (k)
			continue;
		if (rec.type == PD_RECORD_EVENT_UPDATE && !s->seen_sample)
			take_update(s, &rec);
		if (rec.type != PD_RECORD_SAMPLE)
			continue;
		s->seen_sample = true;
		const struct reader_attr *a = s->want ? reader_record_attr(&s->rd, &rec) : NULL;
		if (s->want && (!a || !s->want[a - s->rd.attrs]))
			continue;
		if ((err = spool(s, &rec)) != 0)
			break;
	}
	if (!err && n == 0)
		err = spool_finish(s);
	if (s->dropped)
		snprintf(s->warning, sizeof(s->warning), "%" PRIu64 " samples left out: they decode to more than "
			 "%" PRIu64 " MiB, %u times the input (a decompression bomb?)", s->dropped, s->spool_max >> 20,
			 SESSION_SPOOL_RATIO);
	if (err == -ENOMEM)
		return err_set(e, err, "out of memory holding the recording's samples");
	if (err)
		return err_set(e, err, "cannot hold the recording's samples in a temporary file: %s", strerror(-err));
	if (n < 0)
		return n;
	sideband_finish(sb);
	s->sb = sb;
	return 0;
}

/* One sample of the spool, its fields and thread resolved, to fn. */
static int hand(struct session *s, const struct reader_record *rec, session_sample_fn fn, void *arg)
{
	const struct reader_attr *a = reader_record_attr(&s->rd, rec);
	if (!a)
		return 0;
	struct session_sample ss = { rec, a, (size_t)(a - s->rd.attrs), false, { 0 }, NULL };
	ss.parsed = sample_parse(a->attr.sample_type, rec->data, rec->size, &ss.s) == 0;
	if (ss.parsed) {
		ss.comm = sideband_comm(s->sb, (int32_t)ss.s.tid, ss.s.time);
		if (!ss.comm)
			ss.comm = sideband_comm(s->sb, (int32_t)ss.s.pid, ss.s.time);
	}
	return fn(arg, &ss);
}

/* A spilled spool's pages already replayed are dropped every
 * SPOOL_RELEASE bytes, as the reader drops a file's (they fault back in
 * from the file for the next replay): the replay's resident set stays
 * small whatever the spool holds. */
#define SPOOL_RELEASE ((size_t)1 << 20)

/* The same for a mapped input the samples are read from in place, as
 * the reader drops it behind its pass (format/reader.c): offsets only
 * grow along the spool. */
static void release_input(struct session *s, uint64_t off)
{
	if (!s->rd.release || off < s->released + 2 * SPOOL_RELEASE)
		return;
	uint64_t end = (off - SPOOL_RELEASE) & ~(uint64_t)4095;
	uint64_t start = s->released & ~(uint64_t)4095;
	if (end > start)
		madvise((void *)(uintptr_t)(s->rd.base + start), end - start, MADV_DONTNEED);
	s->released = end;
}

/*
 * The replay hands samples out in time order as perf orders a file's
 * events: records are in time order within a ring only, and a round
 * (the records between two FINISHED_ROUNDs: one drain pass of every
 * ring) can hold samples older than the previous round's last ones, but
 * none older than what the round before that held. So at the end of a
 * round the held samples up to the latest time of the previous round go
 * out, sorted by time (ties in file order), and the rest wait. A file
 * without rounds is sorted whole, up to ORDER_MAX samples or ORDER_BYTES
 * of them held at once (their pages stay in memory while they wait):
 * past that the held ones go out, sorted, as they are (each sample is
 * still resolved at its own time).
 */
#define ORDER_MAX ((size_t)1 << 18)
#define ORDER_BYTES ((uint64_t)8 << 20)

struct held {
	uint64_t time, seq;
	struct reader_record rec;
};

struct order {
	struct held *v;
	size_t n, cap;
	uint64_t seq, max_time, limit;
	/* where the held samples' bytes start, in the input and in the
	 * spool's map: nothing below may be dropped while they wait */
	uint64_t low_in;
	const uint8_t *low_spool;
	uint64_t bytes;             /* of the held samples */
	session_sample_fn fn;
	void *arg;
};

static int held_cmp(const void *a, const void *b)
{
	const struct held *x = a, *y = b;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Lower o's marks to rec's bytes. */
static void held_low(const struct session *s, struct order *o, const struct reader_record *rec)
{
	if (!rec->compressed && rec->offset < o->low_in)
		o->low_in = rec->offset;
	else if (rec->compressed && s->map && rec->data >= s->map && rec->data < s->map + s->map_len &&
		 (!o->low_spool || rec->data < o->low_spool))
		o->low_spool = rec->data;
}

/* The held samples up to limit (UINT64_MAX: all) to fn, in time order. */
static int order_flush(struct session *s, struct order *o, uint64_t limit)
{
	if (o->n == 0)
		return 0;
	qsort(o->v, o->n, sizeof(*o->v), held_cmp);
	size_t i = 0;
	int err = 0;
	while (i < o->n && o->v[i].time <= limit && !err)
		err = hand(s, &o->v[i++].rec, o->fn, o->arg);
	memmove(o->v, o->v + i, (o->n - i) * sizeof(*o->v));
	o->n -= i;
	o->low_in = UINT64_MAX;
	o->low_spool = NULL;
	o->bytes = 0;
	for (size_t k = 0; k < o->n; k++) {
		held_low(s, o, &o->v[k].rec);
		o->bytes += o->v[k].rec.size;
	}
	return err;
}

/* One sample of the spool held back; one without a time (or of no
 * attr's) takes the latest time seen, so it goes out where it was. */
static int order_add(struct session *s, struct order *o, const struct reader_record *rec)
{
	if (o->n == ORDER_MAX || o->bytes > ORDER_BYTES) {
		int err = order_flush(s, o, UINT64_MAX);
		if (err)
			return err;
	}
	if (VEC_RESERVE(o->v, o->cap, o->n, 1, 1024))
		return -ENOMEM;
	const struct reader_attr *a = reader_record_attr(&s->rd, rec);
	int off = a ? sample_time_offset(a->attr.sample_type) : -1;
	uint64_t t = o->max_time;
	if (off >= 0 && (uint64_t)off + 8 <= rec->size)
		memcpy(&t, rec->data + off, 8);
	if (t > o->max_time)
		o->max_time = t;
	o->v[o->n++] = (struct held){ t, o->seq++, *rec };
	held_low(s, o, rec);
	o->bytes += rec->size;
	return 0;
}

/* The spool's entries in [p, end) into o (with release: p is the map). */
static int replay(struct session *s, const uint8_t *p, const uint8_t *end, bool release, struct order *o)
{
	const uint8_t *released = p;
	while (p < end) {
		/* never below a held sample's bytes: what faulted back in
		 * there would stay */
		const uint8_t *keep = o->low_spool && o->low_spool < p ? o->low_spool : p;
		if (release && keep >= released && (size_t)(keep - released) >= 2 * SPOOL_RELEASE) {
			madvise((void *)released, SPOOL_RELEASE, MADV_DONTNEED);
			released += SPOOL_RELEASE;
		}
		uint64_t ref;
		memcpy(&ref, p, 8);
		p += 8;
		int err;
		if (ref == SPOOL_ROUND) {
			err = order_flush(s, o, o->limit);
			o->limit = o->max_time;
			if (err)
				return err;
			continue;
		}
		if (!(ref & SPOOL_INLINE))
			release_input(s, ref < o->low_in ? ref : o->low_in);
		const uint8_t *data = ref & SPOOL_INLINE ? p : s->rd.base + ref;
		struct pd_event_header h;
		memcpy(&h, data, sizeof(h));
		struct reader_record rec = { ref & ~SPOOL_INLINE, h.type, h.misc, h.size, data,
					     (ref & SPOOL_INLINE) != 0 };
		if (ref & SPOOL_INLINE)
			p += ((size_t)h.size + 7) / 8 * 8;
		if ((err = order_add(s, o, &rec)) != 0)
			return err;
	}
	return 0;
}

int session_samples(struct session *s, session_sample_fn fn, void *arg)
{
	struct order o = { NULL, 0, 0, 0, 0, 0, UINT64_MAX, NULL, 0, fn, arg };
	int err = 0;
	s->released = 0;
	if (s->map)
		err = replay(s, s->map, s->map + s->map_len, true, &o);
	if (!err && s->mem.len)
		err = replay(s, s->mem.data, s->mem.data + s->mem.len, false, &o);
	if (!err)
		err = order_flush(s, &o, UINT64_MAX);
	free(o.v);
	return err;
}
