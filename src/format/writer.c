/*
 * writer.c - perf.data writer (see writer.h for the layout and guarantees).
 */
#include "writer.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/walk.h"
#include "util/io.h"

/* The largest prefix of the records in iov that is at most limit bytes
 * (limit never exceeds the list). */
static size_t whole_records(const struct iovec *iov, int n, size_t limit)
{
	size_t pos = 0;
	struct pd_event_header h;
	while (walk_iov(iov, n, limit, pos, &h) == WALK_WHOLE)
		pos += h.size;
	return pos;
}

const struct pd_event_header writer_round_record = {
	PD_RECORD_FINISHED_ROUND, 0, sizeof(struct pd_event_header)
};

/*
 * The end mark: an ID_INDEX record with no entries, 16 bytes. The on-disk
 * header of a file being written always ends its data right before one.
 * A header with no feature bits makes hotspot's perfparser (4.12) read a
 * BUILD_ID section entry {offset, size} at data.offset + data.size anyway
 * (it takes such a little-endian header for a byte-swapped one); the
 * mark's second u64 (nr, 0) is that size, so it reads no section. Perf
 * 6.1 reads an ID_INDEX of 0 entries as nothing; perfparser says
 * "unhandled event type 69" for it, as for the ID_INDEX perf record
 * writes (docs/writer.md, W1).
 */
static const struct {
	struct pd_event_header h;
	uint64_t nr;
} writer_mark = { { PD_RECORD_ID_INDEX, 0, 16 }, 0 };

int writer_begin(struct writer *w, int fd, const struct writer_event *ev, size_t nr)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	if (nr == 0)
		return -EINVAL;

	uint64_t nr_ids = 0;
	for (size_t i = 0; i < nr; i++)
		nr_ids += ev[i].nr_ids;
	uint64_t ids_off = PD_FILE_HEADER_SIZE;
	uint64_t attrs_off = ids_off + nr_ids * sizeof(uint64_t);
	uint64_t data_off = attrs_off + nr * PD_FILE_ATTR_SIZE;

	/* One buffer for ids, attrs, the opening round and the end mark,
	 * written once. The data starts with a FINISHED_ROUND, covered from
	 * the start: perf 6.1 refuses data.size 0 ("failed to process
	 * sample") but reads this as the empty recording it is. The mark
	 * follows, uncovered, so the header ends the data before a mark. */
	size_t len = (size_t)(data_off - ids_off) + sizeof(writer_round_record) + sizeof(writer_mark);
	uint8_t *area = calloc(1, len);
	if (!area)
		return -ENOMEM;
	uint64_t id_pos = ids_off;
	for (size_t i = 0; i < nr; i++) {
		struct pd_file_attr fa;
		memcpy(&fa.attr, ev[i].attr, sizeof(fa.attr));
		fa.attr.size = PD_ATTR_SIZE;
		fa.ids.offset = ev[i].nr_ids ? id_pos : 0;
		fa.ids.size = ev[i].nr_ids * sizeof(uint64_t);
		if (fa.ids.size)
			memcpy(area + (id_pos - ids_off), ev[i].ids, fa.ids.size);
		id_pos += fa.ids.size;
		memcpy(area + (attrs_off - ids_off) + i * PD_FILE_ATTR_SIZE, &fa, sizeof(fa));
	}
	memcpy(area + (data_off - ids_off), &writer_round_record, sizeof(writer_round_record));
	memcpy(area + (data_off - ids_off) + sizeof(writer_round_record), &writer_mark, sizeof(writer_mark));

	w->hdr.magic = PD_MAGIC;
	w->hdr.size = PD_FILE_HEADER_SIZE;
	w->hdr.attr_size = PD_FILE_ATTR_SIZE;
	w->hdr.attrs.offset = attrs_off;
	w->hdr.attrs.size = nr * PD_FILE_ATTR_SIZE;
	w->hdr.data.offset = data_off;
	w->hdr.data.size = sizeof(writer_round_record);

	int err = io_pwrite_all(fd, area, len, ids_off);
	/* The header last: once it is there, everything it points to is too. */
	if (!err)
		err = io_pwrite_all(fd, &w->hdr, sizeof(w->hdr), 0);
	free(area);
	if (err)
		return err;
	w->data_offset = data_off;
	w->committed = sizeof(writer_round_record);
	w->end = data_off + sizeof(writer_round_record) + sizeof(writer_mark);
	return 0;
}

int writer_rewrite_attr(struct writer *w, size_t i, const struct pd_attr *attr)
{
	if (w->pipe || (i + 1) * PD_FILE_ATTR_SIZE > w->hdr.attrs.size)
		return -EINVAL;
	struct pd_attr a = *attr;
	a.size = PD_ATTR_SIZE;
	return io_pwrite_all(w->fd, &a, sizeof(a), w->hdr.attrs.offset + i * PD_FILE_ATTR_SIZE);
}

/* Append to the pipe, then account it. */
static int pipe_put(struct writer *w, const void *p, size_t len)
{
	struct iovec iov = { (void *)p, len };
	size_t written;
	int err = io_writev_all(w->fd, &iov, 1, -1, &written);
	if (err)
		return err;
	w->end += len;
	return 0;
}

int writer_begin_pipe(struct writer *w, int fd, const struct writer_event *ev, size_t nr,
		      const struct writer_feature *f, size_t nr_features)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->pipe = true;
	if (nr == 0)
		return -EINVAL;
	struct pd_pipe_header ph = { PD_MAGIC, sizeof(ph) };
	int err = pipe_put(w, &ph, sizeof(ph));
	w->data_offset = w->end = 0;

	uint8_t rec[65536];
	for (size_t i = 0; i < nr && !err; i++) {
		size_t size = sizeof(struct pd_event_header) + PD_ATTR_SIZE + ev[i].nr_ids * 8;
		if (size > UINT16_MAX)
			return -E2BIG;
		struct pd_event_header h = { PD_RECORD_HEADER_ATTR, 0, (uint16_t)size };
		memcpy(rec, &h, sizeof(h));
		memcpy(rec + sizeof(h), ev[i].attr, PD_ATTR_SIZE);
		((struct pd_attr *)(void *)(rec + sizeof(h)))->size = PD_ATTR_SIZE;
		memcpy(rec + sizeof(h) + PD_ATTR_SIZE, ev[i].ids, ev[i].nr_ids * 8);
		err = pipe_put(w, rec, size);
	}
	/* Names travel as EVENT_UPDATE records in pipe mode: u64 type, u64 id
	 * (any id of the event), the name padded to 8. */
	for (size_t i = 0; i < nr && !err; i++) {
		if (!ev[i].name || ev[i].nr_ids == 0)
			continue;
		size_t nlen = strlen(ev[i].name) + 1;
		size_t size = sizeof(struct pd_event_header) + 16 + ((nlen + 7) & ~(size_t)7);
		if (size > sizeof(rec))
			continue;
		memset(rec, 0, size);
		struct pd_event_header h = { PD_RECORD_EVENT_UPDATE, 0, (uint16_t)size };
		uint64_t type = PD_EVENT_UPDATE_NAME;
		memcpy(rec, &h, sizeof(h));
		memcpy(rec + 8, &type, 8);
		memcpy(rec + 16, &ev[i].ids[0], 8);
		memcpy(rec + 24, ev[i].name, nlen);
		err = pipe_put(w, rec, size);
	}
	for (size_t i = 0; i < nr_features && !err; i++) {
		if (f[i].id < PD_FEAT_PERF61_LAST && f[i].id != PD_FEAT_TRACING_DATA)
			err = writer_append_feature(w, &f[i]);
	}
	/* Tracing data travels as its own record, the data after it (not
	 * inside: it may pass 64 KiB), its size padded to 8 as perf checks. */
	for (size_t i = 0; i < nr_features && !err; i++) {
		if (f[i].id != PD_FEAT_TRACING_DATA)
			continue;
		static const uint8_t zeros[8];
		size_t pad = (8 - f[i].len % 8) % 8;
		struct pd_event_header h = { PD_RECORD_HEADER_TRACING_DATA, 0, 16 };
		uint32_t sz[2] = { (uint32_t)(f[i].len + pad), 0 };
		struct iovec iov[4] = {
			{ &h, sizeof(h) }, { sz, sizeof(sz) }, { (void *)f[i].data, f[i].len }, { (void *)zeros, pad },
		};
		err = writer_append(w, iov, 4);
	}
	return err;
}

int writer_append_feature(struct writer *w, const struct writer_feature *f)
{
	size_t size = sizeof(struct pd_event_header) + 8 + f->len;
	if (f->id >= PD_FEAT_BITS || size > UINT16_MAX)
		return -EINVAL;
	struct pd_event_header h = { PD_RECORD_HEADER_FEATURE, 0, (uint16_t)size };
	uint64_t id = f->id;
	struct iovec iov[3] = {
		{ &h, sizeof(h) }, { &id, sizeof(id) }, { (void *)f->data, f->len },
	};
	return writer_append(w, iov, 3);
}

int writer_append(struct writer *w, const struct iovec *iov, int iovcnt)
{
	if (w->error)
		return w->error;
	size_t total = 0;
	for (int i = 0; i < iovcnt; i++)
		total += iov[i].iov_len;
	if (total == 0)
		return 0;
	size_t written = 0;
	int err = io_writev_all(w->fd, iov, iovcnt, w->pipe ? -1 : (int64_t)w->end, &written);
	if (err) {
		/* Keep the complete records that made it before the error. */
		if (!w->pipe)
			w->end += whole_records(iov, iovcnt, written);
		w->error = err;
		return err;
	}
	w->end += total;
	return 0;
}

int writer_round(struct writer *w)
{
	struct iovec iov = { (void *)&writer_round_record, sizeof(writer_round_record) };
	return writer_append(w, &iov, 1);
}

int writer_checkpoint(struct writer *w)
{
	if (w->pipe)
		return 0;
	uint64_t size = writer_data_size(w);
	/* Nothing after the mark the header ends at. */
	if (size == w->committed + sizeof(writer_mark))
		return 0;
	/* A new mark first: the header moves before it only once it is
	 * whole, and the old one, now covered, is a record like any other. */
	struct iovec iov = { (void *)&writer_mark, sizeof(writer_mark) };
	int err = writer_append(w, &iov, 1);
	if (!err)
		err = io_pwrite_all(w->fd, &size, sizeof(size), PD_HEADER_DATA_SIZE_OFFSET);
	if (err)
		return err;
	w->committed = size;
	return 0;
}

static int write_features(struct writer *w, uint64_t at, const struct writer_feature *f, size_t nr,
			  uint64_t bits[4], uint64_t *file_end)
{
	for (size_t i = 0; i < nr; i++) {
		if (f[i].id >= PD_FEAT_BITS || (i > 0 && f[i].id <= f[i - 1].id))
			return -EINVAL;
	}
	size_t table_len = nr * sizeof(struct pd_section);
	struct pd_section *table = calloc(nr ? nr : 1, sizeof(*table));
	if (!table)
		return -ENOMEM;
	uint64_t off = at + table_len;
	for (size_t i = 0; i < nr; i++) {
		table[i].offset = off;
		table[i].size = f[i].len;
		off += f[i].len;
	}
	int err = 0;
	for (size_t i = 0; i < nr && !err; i++)
		err = io_pwrite_all(w->fd, f[i].data, f[i].len, table[i].offset);
	if (!err)
		err = io_pwrite_all(w->fd, table, table_len, at);
	free(table);
	if (err)
		return err;
	for (size_t i = 0; i < nr; i++)
		pd_feature_set(bits, f[i].id);
	*file_end = off;
	return 0;
}

int writer_finish(struct writer *w, const struct writer_feature *f, size_t nr,
		  int *features_error)
{
	*features_error = 0;
	if (w->pipe)
		return 0;
	/* Drop a partial append first: it frees room for the features. */
	if (w->error && ftruncate(w->fd, (off_t)w->end) < 0)
		return -errno;
	uint64_t bits[4] = { 0, 0, 0, 0 };
	uint64_t file_end = w->end;
	int ferr = write_features(w, w->end, f, nr, bits, &file_end);
	if (ferr) {
		memset(bits, 0, sizeof(bits));
		file_end = w->end;
		/* No table: perfparser reads one at the data's end all the
		 * same (see writer_mark), so the data must end the file, or
		 * a mark must follow it. The old header ends before its own
		 * mark, which is below w->end. */
		if (ftruncate(w->fd, (off_t)w->end) < 0 &&
		    io_pwrite_all(w->fd, &writer_mark, sizeof(writer_mark), w->end) == 0)
			file_end = w->end + sizeof(writer_mark);
	}
	/* One pwrite switches data.size and the bitmap together: before it
	 * the old header (no features) is valid, after it the new one. */
	w->hdr.data.size = writer_data_size(w);
	memcpy(w->hdr.features, bits, sizeof(bits));
	*features_error = ferr;
	int err = io_pwrite_all(w->fd, &w->hdr, sizeof(w->hdr), 0);
	if (err)
		return err;
	w->committed = w->hdr.data.size;
	/* Best effort: a special file cannot be truncated. */
	int terr = ftruncate(w->fd, (off_t)file_end);
	(void)terr;
	return 0;
}
