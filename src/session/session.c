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

#define SPOOL_INLINE ((uint64_t)1 << 63)

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
	return err;
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

/* The spool's entries in [p, end) to fn (with release: p is the map). */
static int replay(struct session *s, const uint8_t *p, const uint8_t *end, bool release, session_sample_fn fn,
		  void *arg)
{
	const uint8_t *released = p;
	while (p < end) {
		if (release && (size_t)(p - released) >= 2 * SPOOL_RELEASE) {
			madvise((void *)released, SPOOL_RELEASE, MADV_DONTNEED);
			released += SPOOL_RELEASE;
		}
		uint64_t ref;
		memcpy(&ref, p, 8);
		p += 8;
		if (!(ref & SPOOL_INLINE))
			release_input(s, ref);
		const uint8_t *data = ref & SPOOL_INLINE ? p : s->rd.base + ref;
		struct pd_event_header h;
		memcpy(&h, data, sizeof(h));
		struct reader_record rec = { ref & ~SPOOL_INLINE, h.type, h.misc, h.size, data,
					     (ref & SPOOL_INLINE) != 0 };
		if (ref & SPOOL_INLINE)
			p += ((size_t)h.size + 7) / 8 * 8;
		int err = hand(s, &rec, fn, arg);
		if (err)
			return err;
	}
	return 0;
}

int session_samples(struct session *s, session_sample_fn fn, void *arg)
{
	int err = 0;
	s->released = 0;
	if (s->map)
		err = replay(s, s->map, s->map + s->map_len, true, fn, arg);
	if (!err && s->mem.len)
		err = replay(s, s->mem.data, s->mem.data + s->mem.len, false, fn, arg);
	return err;
}
